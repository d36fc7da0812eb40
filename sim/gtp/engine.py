"""A GTP program as a player: one process, started once and reused from game to game
(``clear_board``), every command and answer checked against GTP 2.

A fault of the program — it died, it did not answer within its timeout, it answered what GTP
does not allow — raises ``EngineError`` (``restart`` then starts a fresh process); a refusal
(``? ...``, e.g. a move its own rules forbid) raises ``EngineRefused``. Each program runs in a
process group of its own (so a wrapper script's children go with it) and ends with ``quit``,
then a SIGKILL to its group (``close``; ``close_all`` for every program of the process, also at
exit). Its stderr is read while an answer is awaited (an unread pipe would block it); the last
of it is shown when it fails to start.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import select
import shlex
import shutil
import signal
import subprocess
import time

from sim.coords import MoveError, parse_action
from sim.errors import UserError, one_line

#: Where Debian installs GNU Go and other games, searched after PATH.
EXTRA_PATH = "/usr/games"
COLOUR = {1: "b", 2: "w"}
_STDERR_KEPT = 2000  # bytes of a program's stderr kept for its error messages


class EngineError(RuntimeError):
    """The engine crashed, hung past its timeout or answered garbage."""


class EngineRefused(EngineError):
    """The engine answered a command with a GTP failure (``? message``)."""


class EngineUnusable(UserError):
    """A program whose games end ``engine_error`` one after another: it cannot play under the
    run's rules, and the run stops."""


def resolve(command) -> list[str]:
    """The argument list of ``command`` (a string, split as a shell would, or a list) with
    its program found on PATH or in EXTRA_PATH; EngineError if it is not there or cannot be
    run."""
    args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not args:
        raise EngineError("empty command")
    path = os.environ.get("PATH", os.defpath) + os.pathsep + EXTRA_PATH
    program = shutil.which(args[0], path=path)
    if program is None:
        given = args[0] if os.sep in args[0] else shutil.which(args[0], os.F_OK, path)
        if given and os.path.isdir(given):
            raise EngineError(f"program {args[0]!r} is a folder, not a program")
        if given and os.path.exists(given):
            raise EngineError(f"program {args[0]!r} is not executable ({given})")
        raise EngineError(f"program {args[0]!r} not found (on PATH or in {EXTRA_PATH})")
    return [program, *args[1:]]


def engine_seed(seed: int, game_id: int) -> int:
    """The random seed a program is given for a game: from (run seed, game id) alone."""
    digest = hashlib.blake2b(f"{seed}:{game_id}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def engine_komi(player, rules) -> float:
    """The komi a program is told: its ``komi_to_engine``, else the run's komi of its
    ``play_for`` ruleset."""
    if player.komi_to_engine is not None:
        return player.komi_to_engine
    return rules.komi[player.play_for]


class GtpEngine:
    """A running GTP program. ``genmove_timeout``: seconds allowed for one ``genmove`` (and
    ``final_status_list``); ``startup_timeout``: for a fresh process's first answers;
    ``command_timeout``: for any other command; ``name``: what messages call it (default: the
    program's file name). ``faults_in_a_row``: games in a row that ended by its fault (kept
    by the referee)."""

    def __init__(
        self,
        command,
        genmove_timeout: float = 30.0,
        name: str = "",
        startup_timeout: float = 60.0,
        command_timeout: float = 10.0,
    ):
        self.args = resolve(command)
        self.name = name or os.path.basename(self.args[0])
        self.genmove_timeout = genmove_timeout
        self.startup_timeout, self.command_timeout = startup_timeout, command_timeout
        self.proc = None
        self.faults_in_a_row = 0
        self.start()

    @classmethod
    def of(cls, player) -> GtpEngine:
        """The program of a ``sim.player.Player`` of kind ``gtp``, started."""
        return cls(
            player.command,
            player.genmove_timeout,
            player.label,
            player.startup_timeout,
            player.command_timeout,
        )

    def start(self) -> None:
        """Start the process in a process group of its own and check that it speaks GTP
        (``protocol_version``, ``list_commands``); a process that fails is killed."""
        try:
            self.proc = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:
            raise EngineError(f"cannot start {shlex.join(self.args)}: {e.strerror}") from None
        _LIVE.add(self)
        self._pending, self._stderr, self._stderr_open = b"", b"", True
        try:
            self.send("protocol_version", self.startup_timeout)
            self.commands = set(self.send("list_commands", self.startup_timeout).split())
        except BaseException as e:
            self.kill()
            if isinstance(e, EngineError) and self._stderr.strip():
                said = one_line(self._stderr.decode("utf-8", "replace"), 200)
                raise EngineError(f"{e}; its stderr: {said}") from None
            raise

    def restart(self) -> None:
        """A fresh process in place of this one (after a fault)."""
        self.kill()
        self.start()

    def kill(self) -> None:
        """SIGKILL to the process group (a wrapper's children too), then reap the process."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                pipe.close()
        _LIVE.discard(self)

    def close(self) -> None:
        """``quit`` (2 s to answer and exit), then ``kill``."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(EngineError):
                self.send("quit", 2.0)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(2.0)
        self.kill()

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command; its answer's text (``=`` and spaces stripped), or EngineError /
        EngineRefused. ``timeout``: seconds (default ``command_timeout``)."""
        if self.proc.poll() is not None:
            raise EngineError(f"engine exited (status {self.proc.returncode})")
        try:
            self.proc.stdin.write(command.encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise EngineError(f"engine closed its input at {command!r}") from None
        timeout = self.command_timeout if timeout is None else timeout
        answer = self._read_answer(command, time.monotonic() + timeout)
        head, body = answer[0], answer[1:].strip()
        if head == "?":
            raise EngineRefused(f"{command!r} refused: {body}")
        return body

    def _read_answer(self, command: str, deadline: float) -> str:
        """The next answer: lines up to an empty line, the first starting with = or ?
        (stderr read meanwhile, its last ``_STDERR_KEPT`` bytes kept)."""
        out, err = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        while True:
            text = self._pending.replace(b"\r", b"")
            end = text.find(b"\n\n")
            while end == 0:  # empty lines before an answer
                text = text[1:]
                end = text.find(b"\n\n")
            if end > 0:
                self._pending = text[end + 2 :]
                answer = text[:end].decode("utf-8", "replace")
                if answer[0] not in "=?":
                    raise EngineError(f"not a GTP answer to {command!r}: {answer[:80]!r}")
                return answer
            self._pending = text
            left = deadline - time.monotonic()
            watched = [out, err] if self._stderr_open else [out]
            ready = select.select(watched, [], [], left)[0] if left > 0 else []
            if not ready:
                raise EngineError(f"no answer to {command!r} within the timeout")
            if err in ready:
                said = os.read(err, 65536)
                self._stderr = (self._stderr + said)[-_STDERR_KEPT:]
                self._stderr_open = bool(said)
            if out in ready:
                chunk = os.read(out, 65536)
                if not chunk:
                    raise EngineError(f"engine exited while answering {command!r}")
                self._pending += chunk

    # -- a game ------------------------------------------------------------------------

    def new_game(self, size: int, komi: float, seed: int) -> None:
        """A new game: board size, empty board, komi, and the random seed if the program
        takes one (``set_random_seed``, GNU Go's); EngineRefused names the command refused."""
        self.send(f"boardsize {size}")
        self.send("clear_board")
        self.send(f"komi {komi:g}")
        if "set_random_seed" in self.commands:
            self.send(f"set_random_seed {seed}")

    def play(self, colour: int, vertex: str) -> None:
        """Tell the engine a move (a vertex or ``pass``)."""
        self.send(f"play {COLOUR[colour]} {vertex}")

    def genmove(self, colour: int) -> str:
        """The engine's move: a vertex (upper case), ``pass`` or ``resign``."""
        answer = self.send(f"genmove {COLOUR[colour]}", self.genmove_timeout).lower()
        return answer if answer in ("pass", "resign") else answer.upper()

    def dead_stones(self, size: int) -> set[int]:
        """The stones the engine judges dead (``final_status_list dead``), as points."""
        answer = self.send("final_status_list dead", self.genmove_timeout)
        try:
            return {parse_action(v, size) for v in answer.split()}
        except MoveError as e:
            raise EngineError(f"final_status_list dead: not a list of points ({e})") from None


_LIVE: set = set()  # the programs of this process that are running
_SHARED: dict = {}  # (colour, player) -> its program, for ``shared``


def shared(colour: int, player) -> GtpEngine:
    """This process's program for ``colour`` played by ``player``: started once, reused."""
    key = (colour, player)
    if key not in _SHARED or _SHARED[key] not in _LIVE:
        _SHARED[key] = GtpEngine.of(player)
    return _SHARED[key]


def close_all() -> None:
    """``close`` every program this process started (at exit too)."""
    _SHARED.clear()
    while _LIVE:
        _LIVE.pop().close()


atexit.register(close_all)


def kill_all() -> None:
    """SIGKILL every running program's process group, nothing more (for a signal handler:
    the process is about to exit)."""
    for engine in list(_LIVE):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(engine.proc.pid, signal.SIGKILL)
