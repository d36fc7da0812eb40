"""One game, action by action, from Python: the engine behind `jpdsim replay` and the tests.

The same kernels play the batched games of ``sim.selfplay``; here each call is one action.
"""

import numpy as np

from sim.coords import MAX_SIZE, MIN_SIZE, PASS, VIRTUAL, format_action
from sim.engine.history import legal_points, reset, step
from sim.engine.outcome import columns
from sim.schema import (
    ENDINGS, MAX_ACTIONS_LIMIT, REPETITIONS, SUICIDES, default_max_actions, resolve_komi,
)
from sim.engine.scoring import RAW_FIELDS, outcome_row
from sim.engine.state import COLOR, ENDING, GAME_OVER, INTERIOR, OK, PLAIN, REASONS, ST, TO_MOVE, new_state


def check_rules(size: int, repetition: str, suicide: str, max_actions: int | None) -> int:
    """Validate the rule options (ValueError naming the option); returns the move cap."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"board size {size} is out of range {MIN_SIZE}..{MAX_SIZE}")
    if repetition not in REPETITIONS:
        raise ValueError(f"unknown repetition {repetition!r} (one of {', '.join(REPETITIONS)})")
    if suicide not in SUICIDES:
        raise ValueError(f"unknown suicide {suicide!r} (one of {', '.join(SUICIDES)})")
    cap = default_max_actions(size) if max_actions is None else max_actions
    if not 1 <= cap <= MAX_ACTIONS_LIMIT:
        raise ValueError(f"max_actions must be in 1..{MAX_ACTIONS_LIMIT:,}, not {cap}")
    return cap


class Game:
    """A game under one set of rules; actions use the encoding of ``sim.coords``.

    ``setup``: None or N*N colours (0 empty, 1 Black, 2 White), Black to move. ``exact``:
    repetition and four-virtual checks compare whole positions on a hash match.
    """

    def __init__(self, size, repetition="global_superko", suicide="multi", max_actions=None,
                 setup=None, exact=True):
        cap = check_rules(size, repetition, suicide, max_actions)
        self.size, self.repetition, self.suicide = size, repetition, suicide
        self._g = new_state(size, REPETITIONS.index(repetition), SUICIDES.index(suicide), cap, exact)
        start = np.zeros(size * size, np.int8) if setup is None else np.asarray(setup, np.int8)
        if start.shape != (size * size,) or not np.isin(start, (0, 1, 2)).all():
            raise ValueError(f"a setup is {size * size} colours 0, 1 or 2")
        bad = reset(self._g, start)
        if bad >= 0:
            raise ValueError(f"setup stone at {format_action(bad, size)} has no liberty")

    @property
    def ending(self):
        code = self._g.tab[ST, ENDING]
        return ENDINGS[code - 1] if code else None

    @property
    def to_move(self):
        return int(self._g.tab[ST, TO_MOVE])

    def play(self, action: int):
        """Take one action; None if it was legal, else the reason (the game is unchanged)."""
        if not (action in (PASS, VIRTUAL) or 0 <= action < self.size * self.size):
            raise ValueError(f"action {action} is not a point of a {self.size}x{self.size} board")
        code = step(self._g, action if action in (PASS, VIRTUAL) else self._g.pt[INTERIOR, action])
        if code == OK:
            return None
        if code == GAME_OVER:
            return f"game over ({self.ending})"
        return REASONS[code]

    def legal_moves(self) -> list[int]:
        """Sorted points where the player to move may make a real move now."""
        out = np.empty(self.size * self.size, np.int64)
        return sorted(self._g.pt[PLAIN, out[: legal_points(self._g, out)]].tolist())

    def board(self) -> list[int]:
        return self._g.pt[COLOR, self._g.pt[INTERIOR, :self.size ** 2]].tolist()

    def outcome(self, komi=None) -> dict:
        """Every outcome field (JSON-ready values) of the game as it stands."""
        row = np.zeros((1, len(RAW_FIELDS)), np.int64)
        outcome_row(self._g, row[0])
        cols = columns(row, self.size, self.repetition, self.suicide, resolve_komi(komi))
        return {name: col[0].item() if hasattr(col[0], "item") else col[0] for name, col in cols.items()}
