"""Playing one shard: its games through the engine into the dataset layer's tables, written
to the run folder (in a worker, on a Dask worker, or in-process for a replay)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from sim.config.run import RunConfig
from sim.dataset.write import games_table, moves_selection, moves_table, write_shard
from sim.run.drivers import DRIVERS


def play_table(cfg: RunConfig, game_ids: np.ndarray, record_moves: bool, players=None):
    """Play ``game_ids`` under ``cfg``, each game at its komi (``RunConfig.komi_groups``):
    (GAME_SCHEMA table, moves or None), in the order of ``game_ids``. ``players``: who plays
    instead of ``cfg``'s (``{"black": Player}``: a program given on the command line); the
    rows still name ``cfg``'s."""
    play = DRIVERS[cfg.driver].play
    ids = np.asarray(game_ids, dtype=np.int64)
    tables, moves, positions = [], [], []
    for group, rows in cfg.komi_groups(ids):
        kwargs = {**group.play_kwargs(), **(players or {})}
        columns, m = play(game_ids=ids[rows], record_moves=record_moves, arrow=True, **kwargs)
        tables.append(games_table(group, ids[rows], columns))
        moves += m or []
        positions.append(rows)
    if len(tables) == 1:  # no sweep, or one komi among these games: already in order
        return tables[0], (moves if record_moves else None)
    order = np.argsort(np.concatenate(positions), kind="stable")
    return pa.concat_tables(tables).take(order), (
        [moves[i] for i in order] if record_moves else None
    )


def play_shard(cfg: RunConfig, run_dir: Path, index: int) -> int:
    """Play shard ``index`` and write it (moves first, then games); returns its game count."""
    r = cfg.shard_range(index)
    ids = np.arange(r.start, r.stop, dtype=np.int64)
    record = cfg.record_moves != "none"
    games, moves = play_table(cfg, ids, record)
    moves_tbl = None
    if record:
        mask = moves_selection(cfg.record_moves, games)
        moves_tbl = moves_table(ids, moves, mask)
    write_shard(run_dir, index, games, moves_tbl)
    return len(ids)
