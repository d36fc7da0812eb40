"""Reading a run: all its games as one table (``read_games``), or one stored game with its
actions (``load_game``); both check the run first (``sim.dataset.check.check_run``: every
shard, or the game's own)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from sim.config.file import config_from_dict
from sim.dataset.advice import busy, resume_command, writing
from sim.dataset.check import RunState, check_run, read_part
from sim.dataset.layout import GAMES, MANIFEST, MOVES, part_name
from sim.dataset.manifest import read_manifest
from sim.errors import UserError
from sim.schema.tables import GAME_SCHEMA


def read_games(
    run_dir: str | Path, columns: list[str] | None = None, allow_incomplete: bool = False
) -> pa.Table:
    """All games of a run as one table (GAME_SCHEMA, or the ``columns`` asked for), by game id.

    The run is checked first (``check_run``); an incomplete run raises UserError unless
    ``allow_incomplete`` (then only its whole shards are read)."""
    state = check_run(run_dir)
    if columns is not None:
        unknown = [c for c in columns if c not in GAME_SCHEMA.names]
        if unknown:
            raise UserError(f"{run_dir}: no column {unknown[0]!r} in the games schema")
    if not allow_incomplete:
        state.require_complete()
    tables = [
        read_part(Path(run_dir) / GAMES / part_name(i), columns) for i in sorted(state.games_shards)
    ]
    schema = (
        GAME_SCHEMA
        if columns is None
        else pa.schema([GAME_SCHEMA.field(c) for c in columns], metadata=GAME_SCHEMA.metadata)
    )
    if not tables:
        return schema.empty_table()
    return pa.concat_tables(tables).replace_schema_metadata(schema.metadata)


def load_game(run_dir: str | Path, game_id: int) -> tuple[RunState, dict, list[int] | None]:
    """One stored game: (the run, its row as a dict in GAME_SCHEMA order, its actions or None
    when the run did not record this game's moves). Only the files of the game's shard are
    opened and checked (the others are counted by name), so that a damaged shard blocks only
    its own games. UserError for an unknown game, a game whose shard is not written, or a
    moves file that the run wrote and that is gone."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    cfg = config_from_dict(manifest["config"], f"{run_dir / MANIFEST} (config)", stored=True)
    if (
        isinstance(game_id, bool)
        or not isinstance(game_id, (int, np.integer))
        or not 0 <= game_id < cfg.games
    ):
        raise UserError(f"{run_dir}: no game {game_id} (game ids are 0..{cfg.games - 1})")
    game_id, shard = int(game_id), int(game_id) // cfg.shard_size
    state = check_run(run_dir, manifest=manifest, shards={shard})
    if shard not in state.games_shards:
        raise UserError(
            f"{run_dir}: game {game_id} is in shard {shard}, which the run has not "
            f"written (run incomplete)"
        )
    games = read_part(run_dir / GAMES / part_name(shard))
    row = games.slice(game_id - cfg.shard_range(shard).start, 1).to_pylist()[0]
    if shard not in state.moves_shards:
        if cfg.record_moves != "none":
            todo = (
                busy(run_dir)
                if writing(run_dir)
                else f"{resume_command(run_dir, cfg)} plays shard {shard} again"
            )
            raise UserError(
                f"{run_dir / MOVES / part_name(shard)}: missing (the moves of shard {shard}, "
                f"record_moves = {cfg.record_moves!r}); {todo}"
            )
        return state, row, None
    moves = read_part(run_dir / MOVES / part_name(shard))
    ids = moves.column("game_id").to_numpy()
    pos = int(np.searchsorted(ids, game_id))
    if pos < len(ids) and ids[pos] == game_id:
        return state, row, moves.column("actions")[pos].as_py()
    return state, row, None
