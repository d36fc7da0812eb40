"""KataGo's analysis engine as a player's process (``katago analysis``, docs/katago.md): JSON
queries on stdin, one line each, answers on stdout in any order, matched by ``id``.

One process serves every game of its worker that a katago player plays: ``ask`` sends a
query (the whole game so far, the rules it plays for, ``maxVisits``), ``answers`` parses the
lines that have come, in order, and ``deadline`` says when the oldest query waiting has waited
``move_timeout`` (a query's whole time, whatever else KataGo writes meanwhile). What the
protocol does not allow is an ``EngineError``: a ``QueryFault`` when it names a query (an error
answer for it, an answer without a move, visits or ownership that are not numbers), else a
fault of the process (not JSON, an id nobody asked, an error without an id). KataGo's warnings
go to the log, each once. ``sim.katago.checks`` holds what a run checks and records of a
katago player before its games.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import select
import time
from collections import OrderedDict
from pathlib import Path

from sim.files import write_text_atomic
from sim.katago.rules import query_rules
from sim.play.program import EngineError, Program, resolve, shared, shown

log = logging.getLogger("jpdsim.katago")
_VERSION_ID = "jpdsim:version"
#: A stone is dead in KataGo's eyes when its point's ownership is at least this much the
#: opponent's (in -1..1: 70% of the final positions against 30%, the simulator's own rule).
DEAD_OWNERSHIP = 0.4


class QueryFault(EngineError):
    """A fault of the answer to one query (``qid``)."""

    def __init__(self, qid: str, reason: str):
        super().__init__(reason)
        self.qid = qid


def analysis_config(board_size: int) -> Path:
    """The analysis config jpdsim writes when a player names none: the board's size for the
    network's buffers (else a 9x9 query runs on a 19x19 buffer); one position searched at a
    time by one search thread, so that no evaluation is batched with another game's (the
    Eigen backend ignores ``nnMaxBatchSize``); the network shown no previous moves (KataGo keys
    its cache of 2**20 evaluations by the position without the moves that led to it, so with
    them a value cached for one game would be reused by another that reached the position by
    other moves); no random symmetries and no root noise; the answers from Black's side. An
    answer then depends on its query alone, bit for bit (docs/katago.md, Reproducibility).
    Written once under the user's cache folder; a FileFault naming ``config`` where it cannot
    be."""
    text = (
        f"# written by jpdsim for {board_size}x{board_size} games\n"
        f"maxBoardXSizeForNNBuffer = {board_size}\n"
        f"maxBoardYSizeForNNBuffer = {board_size}\n"
        "requireMaxBoardSize = true\n"
        "numAnalysisThreads = 1\n"
        "numSearchThreadsPerAnalysisThread = 1\n"
        "nnMaxBatchSize = 1\n"
        "nnCacheSizePowerOfTwo = 20\n"
        "ignoreAllHistory = true\n"
        "nnRandomize = false\n"
        "wideRootNoise = 0.0\n"
        "reportAnalysisWinratesAs = BLACK\n"
        "logToStderr = false\n"
    )
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    path = base / "jpdsim" / "katago" / f"analysis-{board_size}x{board_size}.cfg"
    try:
        if not path.is_file() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, text)
    except OSError as e:
        raise FileFault(
            "config",
            f"cannot write the analysis config jpdsim writes, {path} ({e.strerror or e}): set "
            f"XDG_CACHE_HOME to a folder you can write, or name a config of your own",
        ) from None
    return path


class FileFault(EngineError):
    """A file KataGo needs (``key``: ``model`` or ``config``) is not there, or cannot be
    written (jpdsim's config)."""

    def __init__(self, key: str, reason: str):
        super().__init__(reason)
        self.key = key

    def __reduce__(self):  # pickled whole: a worker's error reaches the parent as raised
        return type(self), (self.key, str(self))


def _check_file(key: str, name: str) -> None:
    if not os.path.isfile(name):
        raise FileFault(key, f"no such file: {name}")


class KatagoEngine(Program):
    """A running ``katago analysis`` for ``player`` (a ``sim.config.player.Player`` of kind
    ``katago``) on ``board_size``; ``waiting``: the ids asked and not yet answered, oldest
    first, each with when it was asked; ``version``: KataGo's, as it said at start; ``kept``:
    its ``Answers`` when it runs with jpdsim's config (None with a config of the user's)."""

    def __init__(self, player, board_size: int):
        _check_file("model", player.model)
        if player.config is not None:
            _check_file("config", player.config)
        config = player.config or str(analysis_config(board_size))
        args = [*resolve(player.command), "analysis", "-model", player.model, "-config", config]
        super().__init__(args, player.label)
        self.startup_timeout, self.move_timeout = player.startup_timeout, player.move_timeout
        self.generation = 0
        self.warned: set[str] = set()  # the warnings logged (each once)
        self.kept = Answers() if player.config is None else None  # jpdsim's config: reusable
        self.start()

    def handshake(self) -> None:
        """``query_version`` answered within ``startup_timeout`` (the network is loaded);
        ``generation`` counts the processes started."""
        self.waiting = {}
        self._ready: list[dict] = []  # answers given without a search, not yet taken
        self._flying: dict[str, list[str]] = {}  # a query searched -> its ids, the first sent
        self._key: dict[str, str] = {}  # the id sent -> its query
        self.generation += 1
        self.write(_line({"id": _VERSION_ID, "action": "query_version"}), "query_version")
        deadline = time.monotonic() + self.startup_timeout
        while True:
            for answer in self._lines():
                if answer.get("id") == _VERSION_ID and "version" in answer:
                    self.version = str(answer["version"])
                    log.info("%s: KataGo %s started", self.name, self.version)
                    return
                raise EngineError(f"answered {shown(json.dumps(answer))} to query_version")
            self.read_more(deadline, "query_version")

    def goodbye(self) -> None:
        """The end of its input: KataGo exits (after the queries it has)."""
        self.proc.stdin.close()

    def ask(self, qid: str, query: dict) -> None:
        """Send ``query`` (``move_query``'s) as ``qid``, noting when it was asked; with
        ``kept`` answers, a query answered before takes that answer and one being searched
        waits for its answer (both given by ``answers`` as if KataGo had written them)."""
        self.waiting[qid] = time.monotonic()  # before writing: a failed write blames the oldest
        if self.kept is not None:
            key = json.dumps(query, sort_keys=True, separators=(",", ":"))
            self.kept.asked += 1
            if (answer := self.kept.get(key)) is not None or key in self._flying:
                self.kept.reused += 1
                if answer is not None:
                    self._ready.append({**answer, "id": qid})
                else:
                    self._flying[key].append(qid)
                return
            self._flying[key], self._key[qid] = [qid], key
        self.write(_line({"id": qid, **query}), f"query {qid}")

    def ask_alone(self, qid: str, query: dict, timeout: float) -> dict:
        """Ask ``query`` while nothing else waits and return its answer, waiting up to
        ``timeout`` seconds (``check_player``)."""
        self.ask(qid, query)
        deadline = time.monotonic() + timeout
        while True:
            for _, answer in self.answers():
                return answer
            self.read_more(deadline, "a first query")

    def deadline(self) -> float:
        """When the oldest query waiting has waited ``move_timeout`` (``time.monotonic``): a
        query's whole time, however much KataGo writes meanwhile."""
        return next(iter(self.waiting.values())) + self.move_timeout

    def answers(self):
        """The answers that have come, in order, as (id, answer), each id leaving ``waiting``
        as it is yielded (a fault after it leaves the answers before it good). A QueryFault
        names the query of an error answer; any other fault is an EngineError. An answer to a
        query other ids wait for (``ask``) is theirs too, given after it."""
        lines = self._lines()
        while (answer := self._ready.pop(0) if self._ready else next(lines, None)) is not None:
            qid = answer.get("id")
            if "warning" in answer:
                said = shown(f"{answer.get('field')}: {answer['warning']}")
                if said not in self.warned:
                    self.warned.add(said)
                    log.warning("%s: warning (for %s and maybe more): %s", self.name, qid, said)
                continue
            if "error" in answer:
                if qid in self.waiting:
                    del self.waiting[qid]
                    self._share(qid, answer)  # the same query: the same error
                    raise QueryFault(qid, f"error answer: {shown(str(answer['error']))}")
                raise EngineError(f"error answer: {shown(str(answer['error']))}")
            if qid not in self.waiting:
                raise EngineError(f"answered an id that waits for nothing: {shown(str(qid), True)}")
            if answer.get("isDuringSearch"):
                continue
            del self.waiting[qid]
            self._share(qid, answer)
            yield qid, answer

    def _share(self, qid: str, answer: dict) -> None:
        """Keep the answer to the query sent as ``qid`` (not an error) and give it to the ids
        that wait for the same query."""
        key = self._key.pop(qid, None)
        if key is None:
            return
        if "error" not in answer:
            self.kept.keep(key, answer)
        shared = self.kept.get(key) or answer
        self._ready += [{**shared, "id": other} for other in self._flying.pop(key)[1:]]

    def answers_left(self) -> tuple[list[tuple[str, dict]], QueryFault | None]:
        """After a fault of the process: the answers it wrote before it (its output read to
        the end if it has exited), in order, as ``answers`` gives them, up to a line that is
        no answer; and the QueryFault of an error answer among them, if one ended them."""
        out, fd = [], self.proc.stdout.fileno()
        try:  # a child left holding the pipe: what it has not written within 1 s is lost
            while self.proc.poll() is not None and select.select([fd], [], [], 1.0)[0]:
                self.pump([fd], "its queries")
        except EngineError:
            pass  # the end of its output
        try:
            for qid, answer in self.answers():
                out.append((qid, answer))
        except QueryFault as e:
            return out, e
        except EngineError:
            pass
        return out, None

    def _lines(self):
        """The JSON objects of the complete lines in ``pending``, each taken out as it is
        given (the lines after it stay there for whoever reads next, a fault's
        ``answers_left`` too); EngineError at one that is not a JSON object."""
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                answer = json.loads(line)
            except ValueError:
                answer = None
            if not isinstance(answer, dict):
                text = line.decode("utf-8", "replace")
                raise EngineError(f"answered what is not a JSON object: {shown(text, True)}")
            yield answer


def readable(engines) -> tuple[dict, KatagoEngine]:
    """Wait until one of the ``engines`` with queries waiting has written more, up to the
    earliest of their deadlines: each such engine's pipes that can be read (empty when none
    wrote in time), and the engine of that earliest deadline."""
    waiting = [e for e in engines if e.waiting]
    late = min(waiting, key=lambda e: e.deadline())
    left = late.deadline() - time.monotonic()
    fds = [fd for e in waiting for fd in e.fds()]
    ready = set(select.select(fds, [], [], left)[0]) if left > 0 else set()
    return {e: mine for e in waiting if (mine := [fd for fd in e.fds() if fd in ready])}, late


def _line(query: dict) -> bytes:
    return json.dumps(query, separators=(",", ":")).encode() + b"\n"


def move_query(player, rules, told, dead=False) -> dict:
    """The query of ``player``'s next move in a game of ``rules`` whose actions were ``told``
    ((colour, vertex or ``pass``) each); ``dead``: the query of its dead stones at a pause
    instead (the position before the two passes, with the ownership estimate)."""
    katago_rules, komi = query_rules(rules, player.play_for)
    moves = told[:-2] if dead else told
    query = {
        "moves": [["BW"[c - 1], vertex] for c, vertex in moves],
        "rules": katago_rules,
        "komi": komi,
        "boardXSize": rules.board_size,
        "boardYSize": rules.board_size,
        "maxVisits": player.visits,
    }
    if dead:  # the ownership from Black's side, whatever the config says
        query["includeOwnership"] = True
        query["overrideSettings"] = {"reportAnalysisWinratesAs": "BLACK"}
    return query


def best_move(qid: str, answer: dict, draw: float | None = None) -> str:
    """KataGo's move in ``answer`` (a vertex or ``pass``): the first of its ``moveInfos``; with
    ``draw`` (a number in [0, 1)) the one it picks when they are laid end to end in their
    order, each as long as its visits (a move drawn in proportion to its visits)."""
    infos = answer.get("moveInfos")
    try:
        infos = sorted(infos, key=lambda info: info["order"])
        best = infos[0]
        visits = [float(info["visits"]) for info in infos] if draw is not None else []
        move = best["move"]
    except (TypeError, ValueError, KeyError, IndexError):
        raise QueryFault(qid, f"answer without a move: {shown(json.dumps(answer))}") from None
    if not all(math.isfinite(v) and v >= 0 for v in visits):
        raise QueryFault(qid, f"moveInfos visits {shown(str(visits))}: not counts of visits")
    at, total = draw * sum(visits) if visits else 0.0, 0.0
    for info, v in zip(infos, visits):
        total += v
        if at < total:
            move = info.get("move")
            break
    if not isinstance(move, str):
        raise QueryFault(qid, f"answered the move {shown(repr(move))}")
    return move


def dead_stones(qid: str, answer: dict, board: list[int]) -> list[int]:
    """The stones (plain points) KataGo's ownership estimate in ``answer`` gives to the
    opponent by at least DEAD_OWNERSHIP; ``board``: the colour of every point."""
    ownership = answer.get("ownership")
    if not (isinstance(ownership, list) and len(ownership) == len(board)):
        raise QueryFault(qid, f"answer without the ownership of {len(board)} points")
    try:
        black = [float(v) for v in ownership]
    except (TypeError, ValueError):
        black = [math.nan]
    if not all(-1.0 <= v <= 1.0 for v in black):  # NaN too
        raise QueryFault(qid, "ownership: not a list of numbers in -1..1")
    sign = {1: 1.0, 2: -1.0}
    return [p for p, c in enumerate(board) if c and sign[c] * black[p] <= -DEAD_OWNERSHIP]


class Answers:
    """KataGo's answers kept by query, as far as a game or ``jpdsim root-komi`` reads them:
    each move's rank, move and visits, the root's winrate and lead, the ownership. With
    jpdsim's analysis config an answer depends on its query alone (``analysis_config``), so a
    query asked again (the empty board of every game at a komi, an opening drawn again, every
    game of a player that plays its best move always) takes the answer kept, and a query asked
    while the same one is being searched waits for its answer: KataGo searches each once. The
    last ``MAX_KEPT`` are kept; ``asked`` counts the queries, ``reused`` those not searched."""

    MAX_KEPT = 10_000  # a 19x19 answer of many visits holds hundreds of moves

    def __init__(self):
        self.kept: OrderedDict[str, dict] = OrderedDict()
        self.asked = self.reused = 0

    def get(self, key: str) -> dict | None:
        answer = self.kept.get(key)
        if answer is not None:
            self.kept.move_to_end(key)
        return answer

    def keep(self, key: str, answer: dict) -> None:
        kept = {k: answer[k] for k in ("ownership", "rootInfo") if k in answer}
        infos = answer.get("moveInfos")
        if isinstance(infos, list):
            kept["moveInfos"] = [
                {k: info[k] for k in ("move", "order", "visits") if k in info}
                if isinstance(info, dict)
                else info
                for info in infos
            ]
        self.kept[key] = kept
        if len(self.kept) > self.MAX_KEPT:
            self.kept.popitem(last=False)


def shared_katago(player, board_size: int) -> KatagoEngine:
    """This process's KataGo for ``player`` on ``board_size``: started once, reused; players
    that differ only in what they ask (visits, play_for) share it."""
    key = ("katago", dataclasses.replace(player, visits=2, play_for="jpd_a"), board_size)
    return shared(key, lambda: KatagoEngine(player, board_size))
