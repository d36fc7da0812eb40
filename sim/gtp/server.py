"""The simulator's players as a GTP 2 engine (``jpdsim gtp``; docs/gtp.md).

``GtpServer(player, rules).serve(stdin, stdout)`` reads GTP commands line by line and answers
each (``=[id] text`` or ``?[id] message``, a blank line after, flushed), playing one game at a
time under ``rules`` (``sim.config.rules.Rules``) with the engine of ``sim.engine.game``;
``genmove`` asks ``player`` (``sim.config.player.Player``) through
``sim.play.native.NativePlayers``, as the batched games and the referee do. Game k of the
session (counted from 0; a new game starts with ``clear_board`` or ``boardsize`` once the
current one has an action) draws from the random stream ``(seed, k)``.

GTP knows no virtual move (虚着), and lets the colours come in any order; here:

- a virtual move the player chooses is played as one and answered ``pass``, with the line
  ``# jpdsim: virtual move, told as pass`` on the log stream (stderr);
- ``play``/``genmove`` for the colour that is not to move first passes for the side to move
  (that pass is then converted into a virtual move of its own, as any declined pass is:
  docs/rules.md §4). If the command fails, the pass is taken back with it.

Longer than 300 lines on purpose: one class, the GTP commands and the one game they act on (a
failed command takes its actions back); split, each half would reach into the other's state."""

import math
import sys
import traceback

from sim import __version__
from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.game import Game
from sim.engine.pause import open_pause
from sim.errors import one_line
from sim.options import OptionError
from sim.play.native import NativePlayers
from sim.schema.coords import (
    COLUMNS,
    MAX_SIZE,
    MIN_SIZE,
    PASS,
    VIRTUAL,
    MoveError,
    format_action,
    parse_action,
)
from sim.schema.tables import NATIVE_PLAYERS

PROTOCOL_VERSION = "2"
NAME = "jpdsim"
VIRTUAL_NOTE = "# jpdsim: virtual move, told as pass"
COLOURS = {"b": 1, "black": 1, "w": 2, "white": 2}
LETTERS = ".XO"


class GtpError(Exception):
    """A command that fails: its message is the text of the ``?`` response."""


def clean(line: str) -> str:
    """A command line as GTP 2 preprocesses it: control characters other than tab and line
    feed removed, tabs made spaces, the comment (``#`` on) dropped, outer spaces stripped."""
    kept = "".join(c for c in line if c in "\t\n" or not (ord(c) < 32 or ord(c) == 127))
    return kept.partition("#")[0].replace("\t", " ").strip()


def _colour(token: str) -> int:
    colour = COLOURS.get(token.lower())
    if colour is None:
        raise GtpError("invalid color")
    return colour


class GtpServer:
    """One GTP session: ``player`` plays under ``rules``. ``seed``: the session's random
    stream (``sim.players.stream``); ``virtual_rate``: the playout players' share of virtual
    moves (docs/rules.md §11); ``keep_max_actions``: keep ``rules.max_actions`` when
    ``boardsize`` changes the board (else it becomes the new size's default, 8*N*N); ``log``:
    where the notes for the user go (default stderr)."""

    def __init__(
        self,
        player: Player,
        rules: Rules,
        *,
        seed: int = 0,
        virtual_rate: float = 0.0,
        keep_max_actions: bool = False,
        log=None,
    ):
        if player.kind not in NATIVE_PLAYERS:
            raise ValueError(f"a GTP server plays the simulator's players, not {player.kind}")
        if not 0.0 <= virtual_rate <= 1.0:
            raise ValueError(f"virtual_rate must be in [0, 1], not {virtual_rate}")
        self.player = player
        self.seed = seed
        self.virtual_rate = float(virtual_rate)
        self.log = log
        self._cap = rules.max_actions if keep_max_actions else None
        self._number = 0  # the game of the session: its random stream is (seed, number)
        self._history: list[list[int]] = []  # each answered play/genmove: its actions
        self._searched = 0  # the colour the player last searched for (0: none yet)
        self._shape = None  # (size, max_actions) of the work arrays
        self._new_game(rules)
        self.commands = {
            "protocol_version": lambda args: PROTOCOL_VERSION,
            "name": lambda args: NAME,
            "version": lambda args: __version__,
            "known_command": self._known_command,
            "list_commands": lambda args: "\n".join(self.commands),
            "quit": lambda args: "",
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "showboard": self._showboard,
            "final_score": self._final_score,
            "final_status_list": self._final_status_list,
        }

    # -- the protocol -------------------------------------------------------------------

    def serve(self, stdin, stdout) -> int:
        """Answer the commands of ``stdin`` on ``stdout`` until ``quit`` or the end of the
        input; returns 0."""
        while True:
            raw = stdin.readline()
            if not raw:
                return 0
            line = clean(raw)
            if not line:
                continue
            words = line.split()
            ident = ""
            if words[0].isascii() and words[0].isdigit():
                ident = words.pop(0)
                if not words:
                    stdout.write(f"?{ident} missing command\n\n")
                    stdout.flush()
                    continue
            ok, text = self.execute(words[0], words[1:])
            answer = ("=" if ok else "?") + ident + (" " + text if text else "")
            stdout.write(answer + "\n\n")
            stdout.flush()
            if ok and words[0] == "quit":
                return 0

    def execute(self, name: str, args: list[str]) -> tuple[bool, str]:
        """Run one command: (success, the text of the response)."""
        handler = self.commands.get(name)
        if handler is None:
            return False, "unknown command"
        try:
            return True, handler(args)
        except GtpError as err:
            return False, str(err)
        except Exception as err:  # a bug: say so and serve on (a GUI would hang otherwise)
            self._note(traceback.format_exc().rstrip())
            return False, "internal error: " + one_line(err)

    def _note(self, text: str):
        log = self.log if self.log is not None else sys.stderr
        log.write(text + "\n")
        log.flush()

    # -- the game -----------------------------------------------------------------------

    def _new_game(self, rules: Rules):
        """Start a new game under ``rules`` (the next game of the session if the current
        one has an action); all or nothing: the players' work arrays and the game are made
        first, so that a failure (no memory for a larger board) leaves the session as it
        was."""
        shape = (rules.board_size, rules.max_actions)
        native = self.native if shape == self._shape else None
        if native is None:
            native = NativePlayers(rules, self.player, self.player, self.virtual_rate)
        game = Game(rules, exact=False)
        if self._history:
            self._number += 1
        self.rules, self.native, self._shape = rules, native, shape
        self.native.set_rules(rules)
        self.native.start(self.seed, self._number)
        self._history = []
        self._searched = 0
        self._set_game(game)

    def _set_game(self, game: Game):
        self.game = game

    def _replay(self, history) -> Game:
        """A fresh game with the actions of ``history``."""
        game = Game(self.rules, exact=False)
        for actions in history:
            for action in actions:
                reason = game.play(action)
                if reason is not None:
                    raise RuntimeError(f"replayed action {action} refused: {reason}")
        return game

    def _rebuild(self):
        """The game back to ``_history`` (a failed command's actions taken back; undo); the
        player's trees are dropped, its random stream goes on."""
        self._set_game(self._replay(self._history))
        self.native.drop_trees()

    def _advance(self, action: int):
        """After an action of the game: the searching player's trees follow it."""
        self.native.advance(self.game.state, action)

    def _apply(self, actions: list[int]):
        """Play ``actions`` (the answer to one command), all or none: None, or the reason
        of the one refused (the game is then as before)."""
        for i, action in enumerate(actions):
            reason = self.game.play(action)
            if reason is not None:
                if i:
                    self._rebuild()
                return reason
            self._advance(action)
        self._history.append(list(actions))
        return None

    def _turn(self, colour: int) -> list[int]:
        """The pass that lets ``colour`` move now: none if it is to move."""
        return [] if colour == self.game.to_move else [PASS]

    # -- the commands -------------------------------------------------------------------

    def _known_command(self, args):
        return "true" if args and args[0] in self.commands else "false"

    def _clear_board(self, args):
        self._new_game(self.rules)
        return ""

    def _boardsize(self, args):
        try:
            size = int(args[0])
        except (IndexError, ValueError):
            raise GtpError("boardsize not an integer") from None
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        try:
            self._new_game(self.rules.with_(board_size=size, max_actions=self._cap))
        except MemoryError:
            raise GtpError("unacceptable size (no memory for the player's search)") from None
        return ""

    def _komi(self, args):
        try:
            value = float(args[0])
        except (IndexError, ValueError):
            raise GtpError("komi not a float") from None
        if not math.isfinite(value):
            raise GtpError("komi not a finite number")
        try:
            self.rules = self.rules.with_(komi={**self.rules.komi, self.player.play_for: value})
        except OptionError as err:
            raise GtpError(err.reason) from None
        self.native.set_rules(self.rules)
        return ""

    def _play(self, args):
        if len(args) != 2:
            raise GtpError("syntax error (play COLOR VERTEX)")
        colour = _colour(args[0])
        try:
            action = parse_action(args[1], self.game.size)
        except MoveError as err:
            if str(err) == "off board":
                raise GtpError("illegal move: off board") from None
            raise GtpError("invalid coordinate") from None
        if action < 0 and action != PASS:  # virtual, resign...: not GTP vertices
            raise GtpError("invalid coordinate")
        if self.game.ending is not None:
            if action == PASS:
                return ""  # a pass after the end changes nothing
            raise GtpError(f"game over ({self.game.ending})")
        actions = self._turn(colour) + [action]
        reason = self._apply(actions)
        if reason is None:
            return ""
        if reason.startswith("game over"):  # the pass for the side to move ended the game
            name = "black" if self.game.to_move == 1 else "white"
            raise GtpError(f"illegal move: a pass for {name}, the side to move, ends the game")
        raise GtpError(f"illegal move: {reason}")

    def _genmove(self, args):
        if len(args) != 1:
            raise GtpError("syntax error (genmove COLOR)")
        colour = _colour(args[0])
        if self.game.ending is not None:
            return "pass"
        actions = self._turn(colour)
        if actions:
            reason = self.game.play(PASS)
            if reason is not None:
                raise RuntimeError(f"pass refused: {reason}")
            self._advance(PASS)
            if self.game.ending is not None:
                self._history.append(actions)
                return "pass"
        plain, _ = self.native.choose(self.game.state)
        if self.player.searches:
            self._searched = colour
        reason = self.game.play(plain)
        if reason is not None:
            raise RuntimeError(f"the player's move {plain} was refused: {reason}")
        self._advance(plain)
        self._history.append(actions + [plain])
        if plain == VIRTUAL:
            self._note(VIRTUAL_NOTE)
            return "pass"
        return format_action(plain, self.game.size)  # pass and resign by name

    def _undo(self, args):
        if not self._history:
            raise GtpError("cannot undo")
        self._history.pop()
        self._rebuild()
        return ""

    def _showboard(self, args):
        size, cells = self.game.size, self.game.board()
        letters = "   " + " ".join(COLUMNS[:size])
        rows = [letters]
        for y in range(size):
            row = " ".join(LETTERS[c] for c in cells[y * size : (y + 1) * size])
            rows.append(f"{size - y:2d} {row} {size - y}")
        rows.append(letters)
        ending = self.game.ending
        state = f"game over ({ending})" if ending else f"{'WB'[self.game.to_move == 1]} to move"
        rows.append(f"{state}; {self.player.name} plays for {self.player.play_for}")
        return "\n" + "\n".join(rows)

    def dead_stones(self) -> list[int]:
        """The stones (plain points) the player names dead: those its last search's
        playouts gave to the opponent (``sim.players.tree.dead_list``; only a searching
        player under ``dead_stones = "agree"`` counts them); none otherwise."""
        if not self._searched:
            return []
        return self.native.dead_stones(self.game.state, self._searched)

    def outcome(self) -> dict:
        """The outcome of the game as it stands (``Game.outcome``, with the session's komi);
        at a pause whose dead stones are still to settle (``dead_stones = "agree"``), the
        outcome after the stones the player names dead are agreed and removed."""
        game = self.game
        if open_pause(game.state):
            dead = self.dead_stones()
            game = self._replay(self._history)
            game.settle_pause(dead, dead)
        return game.outcome(komi=self.rules.komi)

    def _final_score(self, args):
        out = self.outcome()
        ruleset = self.player.play_for
        winner, margin = out[f"winner_{ruleset}"], out[f"margin_{ruleset}"]
        if out["ending"] == "resign":
            return f"{winner}+R"
        if winner is None:
            raise GtpError(f"no result ({out['ending']})")
        if winner == "draw":
            return "0"
        return f"{winner}+{abs(margin):g}"

    def _final_status_list(self, args):
        status = args[0].lower() if args else ""
        if status not in ("alive", "dead", "seki"):
            raise GtpError("syntax error (final_status_list alive|dead|seki)")
        dead = set(self.dead_stones())
        if status == "seki":
            points = []
        elif status == "dead":
            points = sorted(dead)
        else:
            points = [p for p, c in enumerate(self.game.board()) if c and p not in dead]
        return " ".join(format_action(p, self.game.size) for p in points)
