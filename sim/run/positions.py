"""The positions of a run's recorded games after so many actions, at each game's own komi
under Chinese area: what a teacher labels (``tools/teacher_labels.py``) and what
``docs/findings/root_value.py --from`` asks the search and its playouts about."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from sim.config.rules import Rules
from sim.dataset.manifest import read_manifest
from sim.dataset.read import load_game
from sim.engine.game import Game
from sim.engine.history import copy_game
from sim.engine.state import new_state
from sim.schema.coords import format_action


class Position(NamedTuple):
    """Game ``game_id`` after its first ``moves`` actions (``actions``; ``told``: the colour
    and vertex of each, ``pass`` for a pass or a virtual move, as a program is told them):
    ``komi`` (Chinese), Black's ``score`` in the game (1 a win, 1/2 a draw, 0 a loss, NaN
    without a result), the ``rules`` at that komi, and the engine ``state`` there."""

    game_id: int
    moves: int
    komi: float
    score: float
    rules: Rules
    actions: tuple
    told: tuple
    state: object


def positions(run_dir, moves):
    """Each game of the run ``run_dir`` after each of ``moves`` actions while it goes on, as
    ``Position``s; ValueError for a game without recorded moves or from a setup."""
    games = read_manifest(Path(run_dir))["config"]["games"]
    for game_id in range(games):
        state, row, actions = load_game(run_dir, game_id)
        if actions is None:
            raise ValueError(f"{run_dir}: game {game_id} has no recorded moves")
        if state.config.setup:
            raise ValueError(f"{run_dir}: its games start from setups (read: the empty board)")
        komi = row["komi_chinese"]
        rules = state.config.rules.at_komi("chinese", komi)
        score = {"B": 1.0, "draw": 0.5, "W": 0.0}.get(row["winner_chinese"], np.nan)
        game = Game(rules, exact=False)
        told = []
        for k in sorted(moves):
            while len(told) < k and not game.ending and len(told) < len(actions):
                action = actions[len(told)]
                vertex = format_action(action, rules.board_size) if action >= 0 else "pass"
                told.append((game.to_move, vertex))
                game.play(action)
            if len(told) < k or game.ending:
                break
            snapshot = new_state(rules, False)
            copy_game(snapshot, game.state)
            yield Position(
                game_id, k, komi, score, rules, tuple(actions[:k]), tuple(told), snapshot
            )
