"""Games in which a GTP program plays, move by move from Python, with the simulator as referee
(docs/gtp.md).

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
(``sim.gtp.engine.shared``). A program whose games end ``engine_error`` by its fault
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
from sim.gtp.engine import (
    EngineError,
    EngineUnusable,
    GtpEngine,
    engine_komi,
    engine_seed,
    shared,
)
from sim.native import NativePlayers
from sim.player import Player
from sim.rules import Rules
from sim.schema import RAW_FIELDS, ending_code
from sim.selfplay import batch_columns

log = logging.getLogger("jpdsim.referee")
ENGINE_ERROR = ending_code("engine_error")
GIVE_UP_AFTER = 5  # games in a row that end engine_error by a program's fault stop the run


class _Referee:
    """The state shared by the games of one call: rules, players, the native players' search
    state and the programs."""

    def __init__(self, rules, seed, black, white, virtual_rate):
        self.rules, self.seed = rules, seed
        self.players = {1: black, 2: white}
        self.native = NativePlayers(rules, black, white, virtual_rate)
        self.engines = {c: shared(c, p) for c, p in self.players.items() if p.kind == "gtp"}

    def play(self, game_id: int, row: np.ndarray) -> tuple[list[int], int]:
        """Play one game into ``row`` (its raw outcome); returns (its actions in the
        ``sim.coords`` encoding, the engine moves played as passes)."""
        self.game = Game(self.rules, exact=False)
        self.actions, self.told = [], []  # told: (colour, vertex) of every action
        self.illegal = 0
        self.native.start(self.seed, game_id)
        try:
            for c, engine in self.engines.items():
                komi = engine_komi(self.players[c], self.rules)
                seed = engine_seed(self.seed, game_id)
                _call(engine, engine.new_game, self.rules.board_size, komi, seed)
            self._play_to_end()
        except EngineError as e:
            log.warning("game %d: engine error: %s; the engine is restarted", game_id, e)
            for engine in self.engines.values():
                if isinstance(e, _Failed) and engine is not e.engine:
                    continue  # only the program at fault
                engine.faults_in_a_row += 1
                if engine.faults_in_a_row >= GIVE_UP_AFTER:
                    raise EngineUnusable(
                        f"{engine.name}: {engine.faults_in_a_row} games in a row ended "
                        f"engine_error (the last: {e}); it cannot play this run"
                    ) from None
                try:
                    engine.restart()
                except EngineError as again:
                    raise EngineError(f"cannot restart {engine.name}: {again}") from None
            outcome_row(self.game.state, row, True)
            row[R_ENDING] = ENGINE_ERROR
            return self.actions, self.illegal
        for engine in self.engines.values():
            engine.faults_in_a_row = 0
        outcome_row(self.game.state, row, True)
        return self.actions, self.illegal

    def _play_to_end(self) -> None:
        game = self.game
        while True:
            if game.ending is not None:
                if not open_pause(game.state):
                    return
                self._settle()
                continue
            c = game.to_move
            action = self._engine_move(c) if c in self.engines else self._native_move()
            self.actions.append(action)
            self.native.advance(game.state, action)
            if action == RESIGN:
                return
            vertex = format_action(action, game.size) if action >= 0 else "pass"
            self.told.append((c, vertex))
            for other, engine in self.engines.items():
                if other != c:
                    _call(engine, engine.play, c, vertex)

    def _native_move(self) -> int:
        action, _ = self.native.choose(self.game.state)
        reason = self.game.play(action)
        assert reason is None, f"the simulator's own move was illegal: {reason}"
        return action

    def _engine_move(self, c: int) -> int:
        engine = self.engines[c]
        answer = _call(engine, engine.genmove, c)
        if answer in ("pass", "resign"):
            action = PASS if answer == "pass" else RESIGN
        else:
            try:
                action = parse_action(answer, self.game.size)
            except MoveError:
                action = -1
            if action < 0:
                raise _Failed(engine, f"genmove answered {answer!r}: not a move")
        if action >= 0 and self.game.play(action) is not None:
            self.illegal += 1  # forbidden here: a pass, and the program told the game again
            action = PASS
            self.game.play(PASS)
            _call(engine, self._retell, engine, c)
        elif action < 0:
            self.game.play(action)
        return action

    def _retell(self, engine: GtpEngine, c: int) -> None:
        """Tell ``engine`` the game from an empty board, with its own last move a pass."""
        engine.send("clear_board")
        for colour, vertex in [*self.told, (c, "pass")]:
            engine.play(colour, vertex)

    def _settle(self) -> None:
        """A pause under dead_stones = "agree": both sides name their dead stones; equal lists
        are removed, different ones resume play (docs/rules.md §4)."""
        game = self.game
        lists = []
        for c in self.players:
            if c in self.engines:
                engine = self.engines[c]
                lists.append(_call(engine, engine.dead_stones, game.size))
            else:
                lists.append(self.native.dead_stones(game.state, c))
        try:
            self.actions += game.settle_pause(*lists)
        except ValueError as e:
            raise EngineError(f"final_status_list dead: {e}") from None


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
    cols = batch_columns(rows, rules, illegal, np.full(ids.size, None, object), arrow)
    return cols, (moves if record_moves else None)
