"""Games in which a program plays, move by move from Python, with the simulator as referee:
``RefereedGame`` judges one game whoever plays it (this module's GTP driver, and KataGo's in
``sim.katago.driver``), ``charge`` counts a program's faults; ``play_refereed`` plays the
games of GTP programs one at a time (docs/gtp.md).

Every action is judged under the run's rules by the engine of ``sim.engine.game.Game``. A
program is told every action of the other side: a real move as its vertex, a pass or a virtual
move as ``pass`` (the board does not change). A move the program chooses that the rules forbid
here (a recapture the superko bans, a suicide...) counts in ``engine_illegal`` and is played
as a pass; the program is then told the game again from an empty board. ``resign`` resigns.
At a pause under ``dead_stones = "agree"`` a program's dead stones are its answer to
``final_status_list dead``; the simulator's players name theirs as in ``sim.selfplay``.

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

from sim.coords import PASS, RESIGN, MoveError, format_action, parse_action
from sim.engine.game import Game
from sim.engine.outcome import R_ENDING, outcome_row
from sim.engine.pause import open_pause
from sim.gtp.engine import GtpEngine, engine_komi, engine_seed, shared_gtp
from sim.native import NativePlayers
from sim.player import Player
from sim.program import EngineError, EngineUnusable, Program
from sim.rules import Rules
from sim.schema import RAW_FIELDS, ending_code
from sim.selfplay import batch_columns

log = logging.getLogger("jpdsim.referee")
ENGINE_ERROR = ending_code("engine_error")
GIVE_UP_AFTER = 5  # games in a row that end engine_error by a program's fault stop the run


class RefereedGame:
    """One game judged under the run's rules, whoever plays it: the actions taken
    (``actions``, the ``sim.coords`` encoding), what the programs are told (``told``: the
    colour and vertex of every action, ``pass`` for a pass or a virtual move), the programs'
    moves the rules forbid (``illegal``); the simulator's own players choose through
    ``native`` (a ``NativePlayers`` of this game alone while it is played: its random stream
    is started from (seed, game id))."""

    def __init__(self, rules: Rules, native: NativePlayers, seed: int, game_id: int):
        self.game = Game(rules, exact=False)
        self.native = native
        self.actions, self.told, self.illegal = [], [], 0
        native.start(seed, game_id)

    @property
    def to_move(self) -> int:
        return self.game.to_move

    def wants(self) -> str | None:
        """What the game waits for: ``"move"`` (of ``to_move``), ``"dead"`` (the dead stones
        of both sides at a pause under dead_stones = "agree") or None (it is over)."""
        if self.game.ending is None:
            return "move"
        return "dead" if open_pause(self.game.state) else None

    def native_move(self) -> None:
        """The simulator's player to move chooses and plays."""
        c = self.to_move
        action, _ = self.native.choose(self.game.state)
        reason = self.game.play(action)
        assert reason is None, f"the simulator's own move was illegal: {reason}"
        self._taken(c, action)

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
                raise EngineError(f"answered {answer!r}: not a move")
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

    def native_dead(self, colour: int) -> list[int]:
        """The dead stones the simulator's player of ``colour`` names at this pause."""
        return self.native.dead_stones(self.game.state, colour)

    def settle(self, black_dead, white_dead, what: str) -> None:
        """Settle the pause from both lists (docs/rules.md §4); EngineError naming ``what``
        (where the lists came from) if an agreed list names a point without a stone."""
        try:
            self.actions += self.game.settle_pause(black_dead, white_dead)
        except ValueError as e:
            raise EngineError(f"{what}: {e}") from None

    def finish(self, row: np.ndarray, error: bool) -> None:
        """Write the game's raw outcome into ``row``; ``error``: it ended ``engine_error``."""
        outcome_row(self.game.state, row, True)
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


def refereed_columns(rules: Rules, rows, illegal, moves, record_moves: bool, arrow: bool):
    """(columns, moves) of refereed games, as ``sim.selfplay.play_batch`` returns them."""
    none = np.full(len(rows), None, object)
    return batch_columns(rows, rules, illegal, none, arrow), (moves if record_moves else None)


class _Referee:
    """The GTP games of one call: rules, players, the native players and the programs."""

    def __init__(self, rules, seed, black, white, virtual_rate):
        self.rules, self.seed = rules, seed
        self.players = {1: black, 2: white}
        self.native = NativePlayers(rules, black, white, virtual_rate)
        self.engines = {c: shared_gtp(c, p) for c, p in self.players.items() if p.kind == "gtp"}

    def play(self, game_id: int, row: np.ndarray) -> tuple[list[int], int]:
        """Play one game into ``row`` (its raw outcome); returns (its actions, the engine
        moves played as passes)."""
        game = RefereedGame(self.rules, self.native, self.seed, game_id)
        try:
            for c, engine in self.engines.items():
                komi = engine_komi(self.players[c], self.rules)
                seed = engine_seed(self.seed, game_id)
                _call(engine, engine.new_game, self.rules.board_size, komi, seed)
            self._play_to_end(game)
        except EngineError as e:
            log.warning("game %d: engine error: %s; the engine is restarted", game_id, e)
            for engine in self.engines.values():
                if not isinstance(e, _Failed) or engine is e.engine:  # only the one at fault
                    charge(engine, e)
            game.finish(row, True)
            return game.actions, game.illegal
        for engine in self.engines.values():
            engine.faults_in_a_row = 0
        game.finish(row, False)
        return game.actions, game.illegal

    def _play_to_end(self, game: RefereedGame) -> None:
        while (wants := game.wants()) is not None:
            if wants == "dead":
                lists = [
                    _call(self.engines[c], self.engines[c].dead_stones, game.game.size)
                    if c in self.engines
                    else game.native_dead(c)
                    for c in self.players
                ]
                game.settle(*lists, "final_status_list dead")
                continue
            c = game.to_move
            if c in self.engines:
                self._engine_move(game, c)
            else:
                game.native_move()
            if game.actions[-1] == RESIGN:
                return
            for other, engine in self.engines.items():
                if other != c:
                    _call(engine, engine.play, *game.told[-1])

    def _engine_move(self, game: RefereedGame, c: int) -> None:
        engine = self.engines[c]
        answer = _call(engine, engine.genmove, c)
        try:
            forbidden = game.engine_move(answer)
        except EngineError as e:
            raise _Failed(engine, f"genmove {e}") from None
        if forbidden:  # a pass, and the program told the game again
            _call(engine, self._retell, engine, game.told)

    @staticmethod
    def _retell(engine: GtpEngine, told) -> None:
        """Tell ``engine`` the game from an empty board (its own last move a pass)."""
        engine.send("clear_board")
        for colour, vertex in told:
            engine.play(colour, vertex)


class _Failed(EngineError):
    """A fault of one program (``engine``): only that one is restarted."""

    def __init__(self, engine: GtpEngine, reason: str):
        super().__init__(reason)
        self.engine = engine


def _call(engine: GtpEngine, fn, *args):
    """``fn(*args)``, a fault naming ``engine`` (which is restarted)."""
    try:
        return fn(*args)
    except _Failed:
        raise
    except EngineError as e:
        raise _Failed(engine, f"{engine.name}: {e}") from None


def judge_stored(rules: Rules, actions: list[int], engine_error: bool, illegal: int, arrow=False):
    """The columns ``play_refereed`` gives a game, from its stored ``actions`` judged by the
    rules alone (no program is run): every action must be legal here (ValueError names the
    first that is not). What only the programs could tell is taken as given: whether the game
    ended ``engine_error`` and its ``engine_illegal`` count."""
    game = Game(rules, exact=False)
    for k, action in enumerate(actions, 1):
        reason = game.play(action)
        if reason is not None:
            raise ValueError(f"stored action {k} ({action}): {reason}")
    row = np.zeros((1, len(RAW_FIELDS)), np.int64)
    outcome_row(game.state, row[0], True)
    if engine_error:
        row[0, R_ENDING] = ENGINE_ERROR
    none = np.full(1, None, object)
    return batch_columns(row, rules, np.array([illegal], np.int32), none, arrow)


def play_refereed(
    rules: Rules,
    *,
    seed,
    game_ids,
    black: Player,
    white: Player,
    virtual_rate=0.0,
    setups=(),
    record_moves=False,
    arrow=False,
):
    """``sim.selfplay.play_batch`` for games in which a GTP program plays: the same columns
    (with ``engine_illegal``) and moves; the games start from the empty board."""
    if setups:
        raise ValueError("gtp players start from the empty board")
    referee = _Referee(rules, int(seed), black, white, float(virtual_rate))
    ids = np.asarray(game_ids, dtype=np.int64)
    rows = np.zeros((ids.size, len(RAW_FIELDS)), np.int64)
    illegal = np.zeros(ids.size, np.int32)
    moves = []
    for j, game_id in enumerate(ids.tolist()):
        actions, illegal[j] = referee.play(game_id, rows[j])
        moves.append(np.array(actions, np.int16))
    return refereed_columns(rules, rows, illegal, moves, record_moves, arrow)
