"""Playing one shard: its games through the engine into the dataset layer's tables, written
to the run folder (in a worker, on a Dask worker, or in-process for a replay)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.config import RunConfig
from sim.dataset.write import games_table, moves_selection, moves_table, write_shard


def play_table(cfg: RunConfig, game_ids: np.ndarray, record_moves: bool):
    """Play ``game_ids`` under ``cfg``: (GAME_SCHEMA table, moves or None)."""
    # the engine (numba) only where games are played
    if cfg.engines:
        from sim.referee import play_refereed as play
    else:
        from sim.selfplay import play_batch as play

    ids = np.asarray(game_ids, dtype=np.int64)
    columns, moves = play(game_ids=ids, record_moves=record_moves, arrow=True, **cfg.play_kwargs())
    return games_table(cfg, ids, columns), moves


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
