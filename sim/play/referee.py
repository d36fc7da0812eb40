"""Games in which a program plays, move by move from Python, with the simulator as referee:
``RefereedGame`` judges one game whoever plays it; ``Referee`` is the shell of the drivers that
referee (the games of one call, their programs, a fault's ``engine_error`` row, the columns),
and alone plays the simulator's players as those drivers move them (what compiles their
kernels); ``GtpReferee`` (``play_refereed``) plays the games of GTP programs one at a time
(docs/gtp.md), ``sim.katago.driver`` KataGo's many at a time.

Every action is judged under the run's rules by the engine of ``sim.engine.game.Game``. A
program is told every action of the other side: a real move as its vertex, a pass or a virtual
move as ``pass`` (the board does not change). A move the program chooses that the rules forbid
here (a recapture the superko bans, a suicide...) counts in ``engine_illegal`` and is played
as a pass; the program is then told the game again from an empty board. ``resign`` resigns.
At a pause under ``dead_stones = "agree"`` a program's dead stones are its answer to
``final_status_list dead``; the simulator's players name theirs as in ``sim.play.selfplay``.

A program that crashes, hangs past ``genmove_timeout``, answers garbage or refuses a move that
is legal here ends the game with ending ``engine_error`` (no winner; the reason in the run
log) and is restarted. Each worker process starts each colour's program once and reuses it
(``sim.gtp.engine.shared_gtp``). A program whose games end ``engine_error`` by its fault
``GIVE_UP_AFTER`` times in a row cannot play under these rules: ``EngineUnusable`` stops the
run.
"""

from __future__ import annotations

import logging

import numpy as np

from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.game import Game
from sim.engine.outcome import R_ENDING, outcome_row
from sim.engine.pause import open_pause
from sim.gtp.engine import GtpEngine, engine_komi, engine_seed, shared_gtp
from sim.play.native import NativePlayers
from sim.play.program import EngineError, EngineUnusable, Program, shown
from sim.play.selfplay import batch_columns
from sim.schema.coords import PASS, RESIGN, MoveError, format_action, parse_action
from sim.schema.tables import RAW_FIELDS, ending_code

log = logging.getLogger("jpdsim.referee")
ENGINE_ERROR = ending_code("engine_error")
GIVE_UP_AFTER = 5  # games in a row that end engine_error by a program's fault stop the run


class RefereedGame:
    """Game ``game_id`` judged under the run's rules, whoever plays it: the actions taken
    (``actions``, the ``sim.schema.coords`` encoding), what the programs are told (``told``: the
    colour and vertex of every action, ``pass`` for a pass or a virtual move), the programs'
    moves the rules forbid (``illegal``), the dead-stone lists named so far at an open pause
    (``lists``, Black's first); the simulator's own players choose through ``native`` (a
    ``NativePlayers`` of this game alone while it is played: its random stream is started
    from (seed, game id))."""

    def __init__(self, rules: Rules, native: NativePlayers, seed: int, game_id: int):
        self.game = Game(rules, exact=False)
        self.native, self.game_id = native, game_id
        self.actions, self.told, self.illegal, self.lists = [], [], 0, []
        native.start(seed, game_id)

    @property
    def to_move(self) -> int:
        return self.game.to_move

    def next_turn(self, programs, dead_from: str) -> tuple[int, bool] | None:
        """Play the simulator's players' turns until a program's (``programs``: their
        colours): (its colour, whether it is asked its dead stones for ``lists``), or None
        once the game is over. A pause under dead_stones = "agree" is settled once both lists
        are in (``settle``; ``dead_from``: where the programs' lists come from)."""
        while self.game.ending is None or open_pause(self.game.state):
            if self.game.ending is not None:  # the dead stones of both sides
                c = len(self.lists) + 1  # whose list comes next
                if c == 3:
                    self.settle(*self.lists, dead_from)
                    self.lists = []
                elif c in programs:
                    return c, True
                else:
                    self.lists.append(self.native.dead_stones(self.game.state, c))
            elif self.to_move in programs:
                return self.to_move, False
            else:
                c = self.to_move
                action, _ = self.native.choose(self.game.state)
                reason = self.game.play(action)
                assert reason is None, f"the simulator's own move was illegal: {reason}"
                self._taken(c, action)
        return None

    def engine_move(self, answer: str) -> bool:
        """Play a program's answer (a vertex, ``pass`` or ``resign``; any case) for the side to
        move. A move the rules forbid here counts in ``illegal`` and is played as a pass:
        returns True then. EngineError if the answer is not a move."""
        c = self.to_move
        word = answer.lower()
        if word in ("pass", "resign"):
            action = PASS if word == "pass" else RESIGN
        else:
            try:
                action = parse_action(answer, self.game.size)
            except MoveError:
                action = -1
            if action < 0:
                raise EngineError(f"answered {shown(answer, True)}: not a move")
        forbidden = action >= 0 and self.game.play(action) is not None
        if forbidden:
            self.illegal += 1
            action = PASS
            self.game.play(PASS)
        elif action < 0:
            self.game.play(action)
        self._taken(c, action)
        return forbidden

    def _taken(self, colour: int, action: int) -> None:
        self.actions.append(action)
        self.native.advance(self.game.state, action)
        if action != RESIGN:
            vertex = format_action(action, self.game.size) if action >= 0 else "pass"
            self.told.append((colour, vertex))

    def settle(self, black_dead, white_dead, what: str) -> None:
        """Settle the pause from both lists (docs/rules.md §4); EngineError naming ``what``
        (where the lists came from) if an agreed list names a point without a stone."""
        try:
            self.actions += self.game.settle_pause(black_dead, white_dead)
        except ValueError as e:
            raise EngineError(f"{what}: {e}") from None


def raw_outcome(game: Game, row: np.ndarray, error: bool) -> None:
    """Write ``game``'s raw outcome into ``row``; ``error``: it ended ``engine_error``."""
    outcome_row(game.state, row, True)
    if error:
        row[R_ENDING] = ENGINE_ERROR


def charge(engine: Program, reason) -> None:
    """A game ended ``engine_error`` by ``engine``'s fault (``reason``): count it, and stop the
    run (EngineUnusable) when GIVE_UP_AFTER games in a row did; otherwise restart it."""
    engine.faults_in_a_row += 1
    if engine.faults_in_a_row >= GIVE_UP_AFTER:
        raise EngineUnusable(
            f"{engine.name}: {engine.faults_in_a_row} games in a row ended "
            f"engine_error (the last: {reason}); it cannot play this run"
        ) from None
    try:
        engine.restart()
    except EngineError as again:
        raise EngineError(f"cannot restart {engine.name}: {again}") from None


class Fault(EngineError):
    """A fault of one program (``engine``): only that one is charged."""

    def __init__(self, engine: Program, reason: str):
        super().__init__(reason)
        self.engine = engine


class Referee:
    """The games of one call of a refereeing driver (``play``'s arguments): the players by
    colour, the programs of those of ``kind`` (``engines``: a subclass's ``program(colour,
    player)`` starts each, once in a worker), the raw rows, engine moves played as passes and
    actions of the games (``end``). ``play_all`` plays the games one at a time, ``play_game``
    each to its end: here, with no ``kind``, the simulator's players alone."""

    kind = ""
    dead_from = ""  # where the programs' dead-stone lists come from (errors name it)
    log = log

    def __init__(
        self, rules: Rules, n: int, *, seed, black: Player, white: Player, virtual_rate=0.0
    ):
        self.rules, self.seed, self.virtual_rate = rules, int(seed), float(virtual_rate)
        self.players = {1: black, 2: white}
        self.engines = {
            c: self.program(c, p) for c, p in self.players.items() if p.kind == self.kind
        }
        self.rows = np.zeros((n, len(RAW_FIELDS)), np.int64)
        self.illegal = np.zeros(n, np.int32)
        self.moves = [None] * n
        self.free: list[NativePlayers] = []  # native players of games that ended

    @classmethod
    def play(cls, rules: Rules, *, game_ids, setups=(), record_moves=False, arrow=False, **players):
        """``sim.play.selfplay.play_batch`` for these games (``players``: ``seed``, ``black``,
        ``white``, ``virtual_rate``): the same columns (with ``engine_illegal``) and moves; the
        games start from the empty board."""
        if setups:
            raise ValueError(f"{cls.kind} players start from the empty board")
        ids = np.asarray(game_ids, dtype=np.int64)
        games = cls(rules, ids.size, **players)
        games.play_all(ids.tolist())
        none = np.full(ids.size, None, object)
        columns = batch_columns(games.rows, rules, games.illegal, none, arrow)
        return columns, (games.moves if record_moves else None)

    def judge(self, game_id: int) -> RefereedGame:
        """A new game's judge, with native players of a game that ended, else new ones."""
        native = (
            self.free.pop()
            if self.free
            else NativePlayers(self.rules, *self.players.values(), self.virtual_rate)
        )
        return RefereedGame(self.rules, native, self.seed, game_id)

    def play_all(self, ids: list[int]) -> None:
        for j, game_id in enumerate(ids):
            judge = self.judge(game_id)
            try:
                self.play_game(judge)
            except EngineError as e:
                self.end(j, judge, e)
            else:
                self.end(j, judge)

    def play_game(self, judge: RefereedGame) -> None:
        judge.next_turn(self.engines, self.dead_from)

    def end(self, j: int, judge: RefereedGame, error: EngineError | None = None) -> None:
        """Game ``j`` of the call (``judge``'s) is over: its row, illegal count and actions.
        ``error``: it ended ``engine_error``, which is logged and charged (``charge``) to the
        program at fault (a ``Fault``'s), else to every program of the call."""
        raw_outcome(judge.game, self.rows[j], error is not None)
        self.illegal[j] = judge.illegal
        self.moves[j] = np.array(judge.actions, np.int16)
        self.free.append(judge.native)
        if error is None:
            for engine in self.engines.values():
                engine.faults_in_a_row = 0
            return
        self.log.warning("game %d: engine error: %s; the engine is restarted", judge.game_id, error)
        for engine in [error.engine] if isinstance(error, Fault) else self.engines.values():
            charge(engine, error)


class GtpReferee(Referee):
    """The games of GTP programs, one at a time: a new game for each program (``new_game``),
    then each program told every action of the others (``play``) once the simulator's
    players have taken their turns, and asked its moves and dead stones."""

    kind, dead_from = "gtp", "final_status_list dead"

    def program(self, colour: int, player: Player) -> GtpEngine:
        return shared_gtp(colour, player)

    def play_game(self, judge: RefereedGame) -> None:
        for c, engine in self.engines.items():
            komi = engine_komi(self.players[c], self.rules)
            seed = engine_seed(self.seed, judge.game_id)
            _call(engine, engine.new_game, self.rules.board_size, komi, seed)
        told = 0
        while True:
            turn = judge.next_turn(self.engines, self.dead_from)
            for colour, vertex in judge.told[told:]:
                for other, engine in self.engines.items():
                    if other != colour:
                        _call(engine, engine.play, colour, vertex)
            told = len(judge.told)
            if turn is None:
                return
            c, dead = turn
            engine = self.engines[c]
            if dead:
                judge.lists.append(_call(engine, engine.dead_stones, self.rules.board_size))
                continue
            answer = _call(engine, engine.genmove, c)
            try:
                forbidden = judge.engine_move(answer)
            except EngineError as e:
                raise Fault(engine, f"genmove {e}") from None
            if forbidden:  # a pass, and the program told the game again
                _call(engine, _retell, engine, judge.told)


play_refereed = GtpReferee.play


def _retell(engine: GtpEngine, told) -> None:
    """Tell ``engine`` the game from an empty board (its own last move a pass)."""
    engine.send("clear_board")
    for colour, vertex in told:
        engine.play(colour, vertex)


def _call(engine: GtpEngine, fn, *args):
    """``fn(*args)``, a fault naming ``engine`` (which is restarted)."""
    try:
        return fn(*args)
    except Fault:
        raise
    except EngineError as e:
        raise Fault(engine, f"{engine.name}: {e}") from None
