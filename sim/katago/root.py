"""KataGo's root evaluations of positions (``RootEvaluator``), and from those of the empty
board across komis a network's own fair komi (``jpdsim root-komi``, docs/katago.md "The
network's own fair komi"): no game played. ``tools/teacher_labels.py`` labels the positions of
recorded games with it.

For each ruleset and number of visits, one analysis query of the empty board, Black to play,
at each komi: KataGo's winrate for Black (a draw counting half) and its score lead (the points
it expects Black to finish ahead by, komi counted). Two readings of the fair komi:

- **by winrate**: where the winrate falls through 1/2, read as a fair komi is read from games
  (``sim.komi.fitting.value_crossing``); ±inf when the komis asked do not bracket it;
- **by score lead**: the komi asked plus the lead there, at komi 0 (the lead of the network's
  own play with no komi: KataGo's ``scoreLead`` is meant to be the komi that would make the
  game even).

Without komis given, a probe at komi 0 places the grid: the half points within ``span`` of its
reading by score lead, within the board's range and KataGo's (±150).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from sim.config.player import Player
from sim.config.rules import Rules
from sim.errors import UserError
from sim.katago.engine import FileFault, KatagoEngine, QueryFault, best_move, readable
from sim.katago.rules import MAX_KOMI, query_rules
from sim.komi.fitting import bracket, isotonic, value_crossing
from sim.options import OptionError
from sim.play.program import EngineError, shown


@dataclass(frozen=True)
class Evaluation:
    """KataGo's root evaluation of a position (the empty board, or after ``moves``: (colour,
    vertex or ``pass``) each) at ``komi`` under ``ruleset`` after ``visits`` visits:
    ``winrate`` (Black's, a draw half), ``lead`` (Black's score lead, komi counted), ``move``
    (its best: a vertex or ``pass``), in ``seconds``."""

    ruleset: str
    visits: int
    komi: float
    winrate: float
    lead: float
    move: str
    seconds: float
    moves: tuple = ()


@dataclass(frozen=True)
class Reading:
    """The fair komi of one ruleset at one number of visits: ``by_winrate`` (the crossing;
    ±inf past the komis asked) between the komis ``around`` it (``fitting.bracket``: NaN
    when not bracketed), and ``by_lead`` (komi 0's lead), from ``evaluations``."""

    ruleset: str
    visits: int
    by_winrate: float
    around: tuple[float, float]
    by_lead: float
    evaluations: tuple[Evaluation, ...]


def grid(size: int, lead: float, span: float) -> list[float]:
    """The half points within ``span`` of ``lead``, within the komis a ``size`` board can
    decide (-N²..N²) and KataGo takes (±150), komi 0 among them."""
    edge = min(size * size, MAX_KOMI)
    centre = round(2 * lead) / 2
    steps = int(2 * span)
    komis = {min(max(centre + k / 2, -edge), edge) for k in range(-steps, steps + 1)}
    return sorted(komis | {0.0})


def root_query(size: int, ruleset: str, komi: float, visits: int, moves=()) -> dict:
    """The analysis query of the position after ``moves`` (none: the empty board, Black to
    play) at ``komi`` under ``ruleset`` (the rules a katago player playing for it is told,
    ``sim.katago.rules``); ValueError if KataGo cannot take the komi."""
    rules = Rules(size).at_komi(ruleset, komi)
    katago_rules, told = query_rules(rules, ruleset)
    return {
        "moves": [["BW"[c - 1], vertex] for c, vertex in moves],
        "rules": katago_rules,
        "komi": told,
        "boardXSize": size,
        "boardYSize": size,
        "maxVisits": visits,
    }


class RootEvaluator:
    """``processes`` KataGo analysis engines that evaluate positions of a ``size`` board, each
    one position at a time with the config jpdsim writes (or the user's ``config``): an answer
    depends on its query alone, whichever process gives it (one process searching several
    positions at once would batch their evaluations together, docs/katago.md,
    Reproducibility). ``timeout``: seconds one query may take."""

    def __init__(self, command, model, size, processes=1, config=None, timeout=3600.0):
        self.size = size
        try:
            player = Player(
                "katago", command=command, model=model, config=config, visits=2,
                startup_timeout=600.0, move_timeout=timeout,
            )  # fmt: skip
        except OptionError as e:
            option = {"command": "katago", "move_timeout": "timeout"}.get(e.key, e.key)
            raise UserError(f"--{option}: {e.reason}") from None
        self.engines = []
        try:
            for _ in range(processes):
                self.engines.append(KatagoEngine(player, size))
        except FileFault as e:
            self.close()
            raise UserError(f"--{'model' if e.key == 'model' else 'config'}: {e}") from None
        except EngineError as e:
            self.close()
            raise UserError(f"--katago: {e}") from None
        self.version = self.engines[0].version

    def close(self) -> None:
        for engine in self.engines:
            engine.close()

    def evaluate(self, asked) -> list[Evaluation]:
        """The evaluations of (ruleset, visits, komi, moves) each, in the order asked, each
        process given the next query as it answers. A KataGo that fails or refuses a query is
        one UserError."""
        queries = {}
        for k, (ruleset, visits, komi, moves) in enumerate(asked):
            try:
                queries[f"root:{k}"] = root_query(self.size, ruleset, komi, visits, moves)
            except ValueError as e:
                raise UserError(f"--komi {komi:g}: {e}") from None
        todo, asked_at, out = list(queries), {}, {}
        try:
            while len(out) < len(queries):
                moved = False  # an answer taken or a query asked (maybe answered at once)
                for engine in self.engines:
                    for qid, answer in engine.answers():
                        out[qid] = _root_info(qid, answer), time.monotonic() - asked_at[qid]
                        moved = True
                    if todo and not engine.waiting:
                        qid = todo.pop(0)
                        asked_at[qid] = time.monotonic()
                        engine.ask(qid, queries[qid])
                        moved = True
                if not moved:
                    self._read_more()
        except EngineError as e:
            raise UserError(f"--katago: {e}") from None
        return [
            Evaluation(ruleset, visits, komi, *out[f"root:{k}"][0], out[f"root:{k}"][1], moves)
            for k, (ruleset, visits, komi, moves) in enumerate(asked)
        ]

    def _read_more(self) -> None:
        """Wait until a process with a query has written more, and read it; EngineError when
        none has before the earliest deadline."""
        ready, _ = readable(self.engines)
        if not ready:
            raise EngineError("no answer to a root query within the timeout")
        for engine, fds in ready.items():
            engine.pump(fds, "a root query")


def _root_info(qid: str, answer: dict) -> tuple[float, float, str]:
    """(winrate, lead, best move) of an answer: its ``rootInfo`` from Black's side (jpdsim's
    analysis config says so; a config of one's own must too), its first ``moveInfos``."""
    info = answer.get("rootInfo") or {}
    try:
        winrate, lead = float(info["winrate"]), float(info["scoreLead"])
    except (KeyError, TypeError, ValueError):
        said = shown(str(info))
        raise QueryFault(qid, f"answer without rootInfo's winrate and scoreLead: {said}") from None
    if not (0.0 <= winrate <= 1.0 and math.isfinite(lead)):
        raise QueryFault(qid, f"rootInfo winrate {winrate} and scoreLead {lead}: not numbers")
    return winrate, lead, best_move(qid, answer)


def read(evaluations) -> tuple[float, tuple[float, float], float]:
    """(by winrate, the komis around it, by score lead) from the ``evaluations`` of one
    ruleset and visits, in the order of their komis."""
    komis = np.array([e.komi for e in evaluations])
    winrates = np.array([e.winrate for e in evaluations])
    around = bracket(komis, isotonic(winrates, np.ones(len(winrates))))
    by_lead = next((e.lead for e in evaluations if e.komi == 0.0), math.nan)
    return value_crossing(komis, winrates), around, by_lead


def fair_komi(
    evaluator: RootEvaluator, rulesets, visits, komis=None, span: float = 2.0
) -> list[Reading]:
    """The reading of each ruleset at each of ``visits``: at ``komis``, else at the grid
    around komi 0's score lead (``grid``); komi 0 always among them."""
    pairs = [(r, v) for r in rulesets for v in visits]
    if komis is None:  # the probes, then each pair's grid (its probe not asked again)
        probes = dict(zip(pairs, evaluator.evaluate([(r, v, 0.0, ()) for r, v in pairs])))
        asked = [
            (r, v, k, ())
            for r, v in pairs
            for k in grid(evaluator.size, probes[r, v].lead, span)
            if k != 0.0
        ]
        found = list(probes.values()) + evaluator.evaluate(asked)
    else:
        every = sorted(set(komis) | {0.0})
        found = evaluator.evaluate([(r, v, k, ()) for r, v in pairs for k in every])
    out = []
    for r, v in pairs:
        mine = sorted((e for e in found if (e.ruleset, e.visits) == (r, v)), key=lambda e: e.komi)
        out.append(Reading(r, v, *read(mine), tuple(mine)))
    return out
