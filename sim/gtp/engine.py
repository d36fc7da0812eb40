"""A GTP program as a player: one process, started once and reused from game to game
(``clear_board``), every command and answer checked against GTP 2.

A fault of the program — it died, it did not answer within its timeout, it answered what GTP
does not allow — raises ``EngineError`` (``restart`` then starts a fresh process); a refusal
(``? ...``, e.g. a move its own rules forbid) raises ``EngineRefused``. The program's stderr
is discarded: engines log there freely, and an unread pipe would block them.
"""

from __future__ import annotations

import os
import select
import shlex
import shutil
import subprocess
import time

from sim.coords import MoveError, parse_action

START_TIMEOUT = 60.0  # seconds for a fresh process to answer its first commands
COMMAND_TIMEOUT = 10.0  # seconds for any command but genmove
#: Where Debian installs GNU Go and other games, searched after PATH.
EXTRA_PATH = "/usr/games"
COLOUR = {1: "b", 2: "w"}


class EngineError(RuntimeError):
    """The engine crashed, hung past its timeout or answered garbage."""


class EngineRefused(EngineError):
    """The engine answered a command with a GTP failure (``? message``)."""


def resolve(command) -> list[str]:
    """The argument list of ``command`` (a string, split as a shell would, or a list) with
    its program found on PATH or in EXTRA_PATH; EngineError if it is not there."""
    args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not args:
        raise EngineError("empty command")
    path = os.environ.get("PATH", os.defpath) + os.pathsep + EXTRA_PATH
    program = shutil.which(args[0], path=path)
    if program is None:
        raise EngineError(f"program {args[0]!r} not found (on PATH or in {EXTRA_PATH})")
    return [program, *args[1:]]


class GtpEngine:
    """A running GTP program. ``genmove_timeout``: seconds allowed for one ``genmove``;
    ``name``: what messages call it (default: the program's file name)."""

    def __init__(self, command, genmove_timeout: float = 30.0, name: str = ""):
        self.args = resolve(command)
        self.name = name or os.path.basename(self.args[0])
        self.genmove_timeout = genmove_timeout
        self.proc = None
        self.start()

    def start(self) -> None:
        """Start the process and check that it speaks GTP (``protocol_version``,
        ``list_commands``)."""
        try:
            self.proc = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as e:
            raise EngineError(f"cannot start {shlex.join(self.args)}: {e.strerror}") from None
        self._pending = b""
        self.send("protocol_version", START_TIMEOUT)
        self.commands = set(self.send("list_commands", START_TIMEOUT).split())

    def restart(self) -> None:
        """A fresh process in place of this one (after a fault)."""
        self.kill()
        self.start()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        """``quit``, then make sure the process is gone."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.send("quit", 2.0)
            except EngineError:
                pass
            try:
                self.proc.wait(2.0)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def send(self, command: str, timeout: float = COMMAND_TIMEOUT) -> str:
        """Send one command; its answer's text (``=`` and spaces stripped), or EngineError /
        EngineRefused."""
        if self.proc.poll() is not None:
            raise EngineError(f"engine exited (status {self.proc.returncode})")
        try:
            self.proc.stdin.write(command.encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            raise EngineError(f"engine closed its input at {command!r}") from None
        answer = self._read_answer(command, time.monotonic() + timeout)
        head, body = answer[0], answer[1:].strip()
        if head == "?":
            raise EngineRefused(f"{command!r} refused: {body}")
        return body

    def _read_answer(self, command: str, deadline: float) -> str:
        """The next answer: lines up to an empty line, the first starting with = or ?."""
        fd = self.proc.stdout.fileno()
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
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise EngineError(f"no answer to {command!r} within the timeout")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EngineError(f"engine exited while answering {command!r}")
            self._pending += chunk

    # -- a game ------------------------------------------------------------------------

    def new_game(self, size: int, komi: float, seed: int) -> None:
        """A new game: board size, empty board, komi, and the random seed if the program
        takes one (``set_random_seed``, GNU Go's)."""
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
