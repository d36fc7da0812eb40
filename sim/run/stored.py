"""Re-playing a stored game from its id alone (``jpdsim replay --run RUN_DIR --game GAME_ID``).

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

from sim.dataset.read import load_game
from sim.run.shard import play_table
from sim.schema import GAME_SCHEMA


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def replay_stored(run_dir: str | Path, game_id: int) -> dict:
    """``{"game_id", "matches", "differences"}``; differences maps a column to
    ``{"stored": x, "replayed": y}``; the key ``action_list`` (when the run stored this game's
    moves) gives both lengths and the index of the first differing action."""
    state, row, stored_actions = load_game(run_dir, game_id)  # UserError if unknown
    table, moves = play_table(
        state.config, np.array([game_id]), record_moves=stored_actions is not None
    )
    replayed = table.to_pylist()[0]
    differences = {
        name: {"stored": row[name], "replayed": replayed[name]}
        for name in GAME_SCHEMA.names
        if not _same(row[name], replayed[name])
    }
    if stored_actions is not None:
        got = [int(a) for a in moves[0]]
        if got != stored_actions:
            first = next(
                (i for i, (x, y) in enumerate(zip(stored_actions, got)) if x != y),
                min(len(got), len(stored_actions)),
            )
            differences["action_list"] = {
                "stored": len(stored_actions),
                "replayed": len(got),
                "first_difference_at": first,
            }
    return {"game_id": int(game_id), "matches": not differences, "differences": differences}
