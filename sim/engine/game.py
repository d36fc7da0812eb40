"""One game, action by action, from Python: the engine behind `jpdsim replay` and the tests.

The same kernels play the batched games of ``sim.play.selfplay``; here each call is one action.
"""

import math

import numpy as np

from sim.config.rules import Rules
from sim.engine.check import CONSISTENT, check_consistency, describe
from sim.engine.history import legal_points, reset, step
from sim.engine.outcome import columns, outcome_row
from sim.engine.pause import settle, settle_pause
from sim.engine.state import (
    AGREED,
    BLACK,
    COLOR,
    ENDING,
    GAME_OVER,
    INTERIOR,
    OK,
    PLAIN,
    REASONS,
    ST,
    TO_MOVE,
    WHITE,
    new_state,
)
from sim.schema.coords import AGREE, RESUME, SPECIAL, format_action
from sim.schema.tables import RAW_FIELDS, ending_name


class Game:
    """A game under ``rules`` (``sim.config.rules.Rules``); actions use the encoding of
    ``sim.schema.coords``.

    ``setup``: None or N*N colours (0 empty, 1 Black, 2 White); ``to_move``: BLACK or WHITE
    (White only from a setup). ``exact``: repetition and four-virtual checks compare whole
    positions on a hash match.
    """

    def __init__(self, rules: Rules, setup=None, exact=True, to_move=BLACK):
        if not isinstance(rules, Rules):
            raise TypeError(f"a Game takes a sim.config.rules.Rules, not {type(rules).__name__}")
        self.rules = rules
        self.size = size = rules.board_size
        self.state = new_state(rules, exact)  # the kernels' state (``sim.engine.state``)
        start = np.zeros(size * size, np.int8) if setup is None else np.asarray(setup, np.int8)
        if start.shape != (size * size,) or not np.isin(start, (0, 1, 2)).all():
            raise ValueError(f"a setup is {size * size} colours 0, 1 or 2")
        if to_move not in (BLACK, WHITE) or (to_move == WHITE and setup is None):
            raise ValueError("White moves first only from a setup position")
        bad = reset(self.state, start, to_move)
        if bad >= 0:
            raise ValueError(f"setup stone at {format_action(bad, size)} has no liberty")

    @property
    def ending(self):
        return ending_name(self.state.tab[ST, ENDING])

    @property
    def to_move(self):
        return int(self.state.tab[ST, TO_MOVE])

    def play(self, action: int):
        """Take one action; None if it was legal, else the reason (the game is unchanged)."""
        special = action in SPECIAL.values()
        if not (special or 0 <= action < self.size * self.size):
            raise ValueError(f"action {action} is not a point of a {self.size}x{self.size} board")
        point = action if special else self.state.pt[INTERIOR, action]
        settling = action in (AGREE, RESUME) or self.state.tab[ST, AGREED]
        code = (settle if settling else step)(self.state, point)
        if code == OK:
            return None
        if code == GAME_OVER:
            return f"game over ({self.ending})"
        return REASONS[code]

    def settle_pause(self, black_dead, white_dead) -> list[int]:
        """Settle the open pause (dead_stones = "agree", docs/rules.md §4) from the stones
        (plain points) each player names dead: equal lists are agreed and removed, different
        ones resume play. Returns the actions taken (AGREE and the stones, or RESUME);
        ValueError, and the game unchanged, if agreed lists name a point without a stone."""
        n2 = self.size * self.size
        lists = [sorted(set(black_dead)), sorted(set(white_dead))]
        if any(not 0 <= p < n2 for points in lists for p in points):
            raise ValueError(f"a dead stone off the {self.size}x{self.size} board: {lists}")
        dead = np.zeros((2, n2), np.int64)
        for t, points in enumerate(lists):
            dead[t, : len(points)] = self.state.pt[INTERIOR, points]
        cells = self.board()
        empty = [p for p in lists[0] if not cells[p]] if lists[0] == lists[1] else []
        if empty:
            raise ValueError(f"no stone to remove at {format_action(empty[0], self.size)}")
        moves = np.empty(n2 + 1, np.int16)
        taken = settle_pause(self.state, dead, len(lists[0]), len(lists[1]), moves, 0)
        return moves[:taken].tolist()

    def check(self) -> str | None:
        """None if the engine's incremental state agrees with its board, else what does not
        (``sim.engine.check``)."""
        problem, point = check_consistency(self.state)
        return None if problem == CONSISTENT else describe(self.state, problem, point)

    def legal_moves(self) -> list[int]:
        """Sorted points where the player to move may make a real move now."""
        out = np.empty(self.size * self.size, np.int64)
        return sorted(self.state.pt[PLAIN, out[: legal_points(self.state, out)]].tolist())

    def board(self) -> list[int]:
        return self.state.pt[COLOR, self.state.pt[INTERIOR, : self.size**2]].tolist()

    def outcome(self, komi=None) -> dict:
        """Every outcome field (JSON-ready values) of the game as it stands; ``komi``
        overrides the rules' komi of some rulesets."""
        row = np.zeros((1, len(RAW_FIELDS)), np.int64)
        outcome_row(self.state, row[0], True)
        rules = self.rules if komi is None else self.rules.with_(komi={**self.rules.komi, **komi})
        cols = columns(row, rules)
        values = {
            name: col[0].item() if hasattr(col[0], "item") else col[0] for name, col in cols.items()
        }
        return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in values.items()}
