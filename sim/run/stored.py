"""Re-playing a stored game from its id alone (``jpdsim replay --run RUN_DIR --game GAME_ID``;
``jpdsim sgf`` takes the re-played actions of a game whose moves were not stored).

The run's config comes from its ``manifest.json``; ``sim.run.shard.play_table`` plays the one
game id, and every column of the stored row (and the stored action sequence, when the run
recorded this game's moves) is compared with the new result. Since a game depends only on
(seed, game id), any difference means the engine changed (or the file was altered) since the
run was written.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sim.dataset.check import RunState
from sim.dataset.read import load_game
from sim.run.shard import play_table
from sim.schema import GAME_SCHEMA


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def replay_loaded(state: RunState, row: dict, stored_actions: list[int] | None):
    """Re-play the game of ``row``, loaded with ``load_game``: (its re-played actions, the
    comparison ``{"game_id", "matches", "differences"}``); differences maps a column to
    ``{"stored": x, "replayed": y}``; the key ``action_list`` (when the run stored this game's
    moves) gives both lengths and the index of the first differing action."""
    game_id = row["game_id"]
    table, moves = play_table(state.config, np.array([game_id]), record_moves=True)
    replayed = table.to_pylist()[0]
    differences = {
        name: {"stored": row[name], "replayed": replayed[name]}
        for name in GAME_SCHEMA.names
        if not _same(row[name], replayed[name])
    }
    got = [int(a) for a in moves[0]]
    if stored_actions is not None and got != stored_actions:
        first = next(
            (i for i, (x, y) in enumerate(zip(stored_actions, got)) if x != y),
            min(len(got), len(stored_actions)),
        )
        differences["action_list"] = {
            "stored": len(stored_actions),
            "replayed": len(got),
            "first_difference_at": first,
        }
    return got, {"game_id": game_id, "matches": not differences, "differences": differences}


def replay_stored(run_dir: str | Path, game_id: int) -> dict:
    """The comparison of a stored game with its re-play (``replay_loaded``); UserError if the
    run or the game is not there."""
    return replay_loaded(*load_game(run_dir, game_id))[1]
