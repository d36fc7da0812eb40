"""A GTP program as a player: one process (``sim.play.program.Program``), started once and reused
from game to game (``clear_board``), every command and answer checked against GTP 2.

A fault of the program — it died, it did not answer within its timeout, it answered what GTP
does not allow — raises ``EngineError`` (``restart`` then starts a fresh process); a refusal
(``? ...``, e.g. a move its own rules forbid) raises ``EngineRefused``. It ends with ``quit``,
then a SIGKILL to its process group (``close``). ``check_player`` is a run's start-up check of a
gtp player.
"""

from __future__ import annotations

import hashlib
import os
import time

from sim.errors import UserError
from sim.play.program import EngineError, Program, resolve, shared, shown
from sim.schema.coords import MoveError, parse_action

COLOUR = {1: "b", 2: "w"}


class EngineRefused(EngineError):
    """The engine answered a command with a GTP failure (``? message``)."""


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


class GtpEngine(Program):
    """A running GTP program. ``genmove_timeout``: seconds allowed for one ``genmove`` (and
    ``final_status_list``); ``startup_timeout``: for a fresh process's first answers;
    ``command_timeout``: for any other command; ``name``: what messages call it (default: the
    program's file name)."""

    def __init__(
        self,
        command,
        genmove_timeout: float = 30.0,
        name: str = "",
        startup_timeout: float = 60.0,
        command_timeout: float = 10.0,
    ):
        args = resolve(command)
        super().__init__(args, name or os.path.basename(args[0]))
        self.genmove_timeout = genmove_timeout
        self.startup_timeout, self.command_timeout = startup_timeout, command_timeout
        self.start()

    @classmethod
    def of(cls, player) -> GtpEngine:
        """The program of a ``sim.config.player.Player`` of kind ``gtp``, started."""
        return cls(
            player.command,
            player.genmove_timeout,
            player.label,
            player.startup_timeout,
            player.command_timeout,
        )

    def handshake(self) -> None:
        """``protocol_version`` and ``list_commands``, within ``startup_timeout``."""
        self.send("protocol_version", self.startup_timeout)
        self.commands = set(self.send("list_commands", self.startup_timeout).split())

    def goodbye(self) -> None:
        self.send("quit", 2.0)

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command; its answer's text (``=`` and spaces stripped), or EngineError /
        EngineRefused. ``timeout``: seconds (default ``command_timeout``)."""
        self.write(command.encode() + b"\n", repr(command))
        timeout = self.command_timeout if timeout is None else timeout
        answer = self._read_answer(command, time.monotonic() + timeout)
        head, body = answer[0], answer[1:].strip()
        if head == "?":
            raise EngineRefused(f"{command!r} refused: {shown(body)}")
        return body

    def _read_answer(self, command: str, deadline: float) -> str:
        """The next answer: lines up to an empty line, the first starting with = or ?."""
        while True:
            text = self.pending.replace(b"\r", b"")
            end = text.find(b"\n\n")
            while end == 0:  # empty lines before an answer
                text = text[1:]
                end = text.find(b"\n\n")
            if end > 0:
                self.pending = text[end + 2 :]
                answer = text[:end].decode("utf-8", "replace")
                if answer[0] not in "=?":
                    raise EngineError(f"not a GTP answer to {command!r}: {shown(answer, True)}")
                return answer
            self.pending = text
            self.read_more(deadline, repr(command))

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


def check_player(cfg, colour: str, player) -> None:
    """The start-up check of the gtp ``player`` of ``colour`` in the run ``cfg``: started once,
    given the set-up of a first game (``boardsize``, ``clear_board``, ``komi``,
    ``set_random_seed``) and quit. A program that is missing, does not speak GTP or refuses
    the set-up is one UserError naming its key, the program and its answer."""
    try:
        engine = GtpEngine.of(player)
    except EngineError as e:
        raise UserError(f"players.{colour}.command: {e}") from None
    try:
        komi = engine_komi(player, cfg.rules)
        engine.new_game(cfg.rules.board_size, komi, engine_seed(cfg.seed, 0))
    except EngineError as e:
        raise UserError(f"players.{colour}.command: {engine.name}: {e}") from None
    finally:
        engine.close()


def shared_gtp(colour: int, player) -> GtpEngine:
    """This process's program for ``colour`` played by ``player``: started once, reused."""
    return shared(("gtp", colour, player), lambda: GtpEngine.of(player))
