"""Writing a run's files: the tables of a shard (games in GAME_SCHEMA, the moves kept) and
atomic writes (a temporary name, renamed once the file is whole)."""

from __future__ import annotations

import errno
import os
import resource
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim.config.run import RunConfig
from sim.dataset.layout import (
    GAMES,
    MOVES,
    MOVES_SCHEMA,
    part_name,
    run_constants,
    tmp_name,
)
from sim.errors import UserError
from sim.schema.tables import GAME_SCHEMA, RUN_COLUMNS

_WRITE_OPTIONS = dict(compression="zstd", write_page_checksum=True)
#: Columns whose footer statistics are written, for readers that skip row groups by them (game
#: ids, the run's values; statistics of all 56 columns cost 13% of writing a shard).
_STATISTICS = {"game_id", *RUN_COLUMNS}


def games_table(cfg: RunConfig, game_ids: np.ndarray, columns: dict) -> pa.Table:
    """One row per game in GAME_SCHEMA, from ``play_batch``'s columns (numpy or Arrow arrays)
    and the run config."""
    n = len(game_ids)
    constants = run_constants(cfg)
    arrays = []
    for f in GAME_SCHEMA:
        if f.name in constants:
            arrays.append(pa.repeat(pa.scalar(constants[f.name], type=f.type), n))
            continue
        if f.name == "game_id":
            values = np.asarray(game_ids, dtype=np.int64)
        elif f.name in columns:
            values = columns[f.name]
        else:
            raise RuntimeError(f"play_batch returned no column {f.name!r}")
        if len(values) != n:
            raise RuntimeError(
                f"play_batch column {f.name!r} has {len(values)} values, expected {n}"
            )
        is_arrow = isinstance(values, (pa.Array, pa.ChunkedArray))
        arrays.append(values.cast(f.type) if is_arrow else pa.array(values, type=f.type))
    return pa.Table.from_arrays(arrays, schema=GAME_SCHEMA)


def moves_selection(record_moves: str, games: pa.Table) -> np.ndarray:
    """Which games of a batch (its games table) get their moves stored (a boolean mask)."""
    if record_moves == "all":
        return np.ones(games.num_rows, dtype=bool)
    if record_moves == "cycles":
        kept = pc.or_(
            pc.not_equal(games["ending"], "pause"), pc.greater(games["repetition_bans"], 0)
        )
        return pc.fill_null(kept, True).to_numpy()  # no ending: not a pause, kept
    return np.zeros(games.num_rows, dtype=bool)


def moves_table(game_ids: np.ndarray, moves: list, mask: np.ndarray) -> pa.Table:
    """The stored action sequences of the games selected by ``mask``."""
    idx = np.flatnonzero(mask)
    ids = pa.array(np.asarray(game_ids, dtype=np.int64)[idx], type=pa.int64())
    seqs = [np.asarray(moves[i], dtype=np.int16) for i in idx]
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    if lengths.sum() > 2**31 - 1:
        raise RuntimeError("a shard's moves exceed 2**31 actions; use a smaller shard_size")
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    flat = pa.array(np.concatenate(seqs) if seqs else np.zeros(0, np.int16), type=pa.int16())
    actions = pa.ListArray.from_arrays(offsets, flat, type=MOVES_SCHEMA.field("actions").type)
    return pa.Table.from_arrays([ids, actions], schema=MOVES_SCHEMA)


def write_atomic(table: pa.Table, path: Path, tmp: Path) -> None:
    """Write a Parquet file under ``tmp`` and rename it to ``path`` once it is whole; a write
    that no later shard could do better at (a full disk or quota, a file over the size limit)
    is a UserError naming the file."""
    try:
        pq.write_table(
            table,
            tmp,
            **_WRITE_OPTIONS,
            write_statistics=[c for c in table.column_names if c in _STATISTICS],
        )
        os.replace(tmp, path)
    except BaseException as err:
        tmp.unlink(missing_ok=True)
        if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            raise UserError(f"{path}: cannot write ({_no_room(err.errno)})") from None
        raise


def _no_room(code: int) -> str:
    """Why a file found no room (``code``: ENOSPC, EDQUOT or EFBIG, with the size limit)."""
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if code != errno.EFBIG or limit == resource.RLIM_INFINITY:
        return os.strerror(code)
    return f"{os.strerror(code)}: files are limited to {limit:,} bytes here, ulimit -f"


def write_shard(run_dir: Path, index: int, games: pa.Table, moves: pa.Table | None) -> None:
    """Write one shard: the moves file first, then the games file (which marks it complete)."""
    run_dir = Path(run_dir)
    if moves is not None:
        d = run_dir / MOVES
        d.mkdir(exist_ok=True)
        write_atomic(moves, d / part_name(index), d / tmp_name(index))
    d = run_dir / GAMES
    d.mkdir(exist_ok=True)
    write_atomic(games, d / part_name(index), d / tmp_name(index))
