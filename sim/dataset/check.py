"""What a run folder holds: ``check_run`` checks every file of ``games/`` and ``moves/``
against the manifest (``RunState``: the whole shards, the leftovers of a killed run), and
``read_part`` reads a file that it accepted."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.config import RunConfig, config_from_dict
from sim.dataset.layout import (
    GAMES,
    MANIFEST,
    MOVES,
    MOVES_SCHEMA,
    PART,
    RUN_COLUMNS,
    TMP,
    format_ranges,
    part_name,
    run_constants,
)
from sim.dataset.manifest import read_manifest
from sim.errors import UserError, one_line
from sim.schema import GAME_SCHEMA, SCHEMA_VERSION

_VERSION_KEY = b"jpdsim.schema_version"


@dataclass
class RunState:
    """What ``check_run`` found: the run's config and its whole shards."""

    run_dir: Path
    manifest: dict
    config: RunConfig
    games_shards: set = field(default_factory=set)
    moves_shards: set = field(default_factory=set)
    leftovers: list = field(default_factory=list)

    @property
    def done(self) -> list[int]:
        """Shards that are complete (games, and moves when they are recorded)."""
        need_moves = self.config.record_moves != "none"
        return sorted(i for i in self.games_shards if not need_moves or i in self.moves_shards)

    @property
    def missing(self) -> list[int]:
        """Shards still to be played."""
        done = set(self.done)
        return [i for i in range(self.config.n_shards) if i not in done]

    @property
    def complete(self) -> bool:
        return not self.missing

    @property
    def incomplete(self) -> str | None:
        """Why the games of the run are not all there, or None when they are."""
        missing = [i for i in range(self.config.n_shards) if i not in self.games_shards]
        if not missing:
            return None
        return (
            f"{self.run_dir}: run is incomplete: {len(missing)} of {self.config.n_shards} "
            f"shards missing ({format_ranges(missing)})"
        )

    def require_complete(self) -> None:
        """UserError, with the command that completes the run, unless every shard is there."""
        if self.incomplete:
            raise UserError(
                f"{self.incomplete}; complete it with `jpdsim run CONFIG --out "
                f"{self.run_dir} --resume`"
            )

    @property
    def games_written(self) -> int:
        return sum(len(self.config.shard_range(i)) for i in self.games_shards)


class _Bad(Exception):
    """A file that must not be read as part of the run; str is the reason."""


def _open(path: Path, dictionary: list[str] | None = None) -> pq.ParquetFile:
    """A Parquet file whose pages are checked against their CRC when read (``dictionary``:
    string columns to read dictionary-encoded)."""
    try:
        return pq.ParquetFile(path, page_checksum_verification=True, read_dictionary=dictionary)
    except Exception as err:  # noqa: BLE001 - any failure means the file is not usable
        raise _Bad(
            f"not a readable Parquet file, half-written or corrupt ({one_line(err, 200)})"
        ) from None


def _check_schema(pf: pq.ParquetFile, expected: pa.Schema) -> None:
    schema = pf.schema_arrow
    version = (schema.metadata or {}).get(_VERSION_KEY)
    if version is None:
        raise _Bad("foreign file: no jpdsim schema version in its metadata")
    if version != SCHEMA_VERSION.encode():
        raise _Bad(
            f"schema version {version.decode(errors='replace')}, this jpdsim writes "
            f"{SCHEMA_VERSION}"
        )
    if (schema.metadata or {}).get(b"jpdsim.kind") != (expected.metadata or {}).get(b"jpdsim.kind"):
        raise _Bad("foreign file: a games file in moves/ or a moves file in games/")
    if not schema.equals(expected, check_metadata=False):
        names, want = schema.names, expected.names
        for f in expected:
            if f.name not in names:
                raise _Bad(f"foreign schema: no column {f.name!r}")
            if schema.field(f.name).type != f.type:
                raise _Bad(
                    f"foreign schema: column {f.name!r} is {schema.field(f.name).type}, "
                    f"expected {f.type}"
                )
        extra = [n for n in names if n not in want]
        raise _Bad(
            f"foreign schema: unexpected column {extra[0]!r}"
            if extra
            else "foreign schema: columns out of order"
        )


def _read(pf: pq.ParquetFile, columns: list[str] | None = None) -> pa.Table:
    """Read ``columns`` (all: None): every page checked against its CRC, dictionary indices
    in bounds (a damaged dictionary page header leaves them out), and as many rows as the
    footer says (a damaged data page header can make a column skip its page)."""
    try:
        table = pf.read(columns=columns)
        for column in table.columns:
            if pa.types.is_dictionary(column.type):
                column.validate(full=True)
    except Exception as err:  # noqa: BLE001
        raise _Bad(f"corrupt data ({one_line(err, 200)})") from None
    if table.num_rows != pf.metadata.num_rows:
        raise _Bad(
            f"corrupt data ({table.num_rows} rows read, the footer says {pf.metadata.num_rows})"
        )
    return table


def _first_row(pf: pq.ParquetFile, columns: list[str]) -> pa.Table:
    try:
        return pa.Table.from_batches([next(pf.iter_batches(batch_size=1, columns=columns))])
    except Exception as err:  # noqa: BLE001
        raise _Bad(f"corrupt data ({one_line(err, 200)})") from None


def _check_constants(table: pa.Table, cfg: RunConfig) -> None:
    """The columns that are constant in a run hold this run's values (in every row of
    ``table``). Read, not taken from the footer statistics: pyarrow aborts the process on
    the statistics of some damaged footers."""
    for name, want in run_constants(cfg).items():
        if table[name].unique().to_pylist() != [want]:
            raise _Bad(
                f"column {name!r} does not hold this run's value {want!r} "
                f"(a file from another run?)"
            )


def _check_games_file(pf: pq.ParquetFile, cfg: RunConfig, index: int, verify: bool) -> None:
    """A games file is shard ``index`` of the run: schema, game ids, and the run's constant
    values (of its first row; of every row with ``verify``, which reads every page)."""
    _check_schema(pf, GAME_SCHEMA)
    ids = cfg.shard_range(index)
    if pf.metadata.num_rows != len(ids):
        raise _Bad(f"{pf.metadata.num_rows} rows, shard {index} has {len(ids)} games")
    table = _read(pf, None if verify else ["game_id"])
    if not np.array_equal(table["game_id"].to_numpy(), np.arange(ids.start, ids.stop)):
        raise _Bad(f"game ids are not {ids.start}..{ids.stop - 1} in order")
    _check_constants(table if verify else _first_row(pf, list(RUN_COLUMNS)), cfg)


def _check_moves_file(pf: pq.ParquetFile, cfg: RunConfig, index: int, verify: bool) -> None:
    _check_schema(pf, MOVES_SCHEMA)
    ids = cfg.shard_range(index)
    table = _read(pf, None if verify else ["game_id"])
    got = table["game_id"].to_numpy()
    if cfg.record_moves == "all" and len(got) != len(ids):
        raise _Bad(f'{len(got)} games, shard {index} has {len(ids)} (record_moves = "all")')
    if len(got) and (got[0] < ids.start or got[-1] >= ids.stop or np.any(np.diff(got) <= 0)):
        raise _Bad(f"game ids are not increasing within {ids.start}..{ids.stop - 1}")


def _fault(path: Path, reason, shard: int | None) -> UserError:
    """The one-line error for a file of a run folder, with what to do about it."""
    todo = (
        f"move it away, then `jpdsim run CONFIG --out {path.parent.parent} --resume` plays "
        f"shard {shard} again"
        if shard is not None
        else "move it out of the run folder"
    )
    return UserError(f"{path}: {reason}; {todo}")


def check_run(run_dir: str | Path, verify: bool = False, manifest: dict | None = None) -> RunState:
    """Check every file of a run folder against its manifest and return what is there.

    Raises UserError (path, one-line reason and what to do) for the first file in ``games/``
    or ``moves/`` that is not a whole shard of this run: unreadable, truncated, foreign schema,
    rows or game ids that do not fit its shard, values of another run, or any unexpected name.
    Cheap by default (footers, game ids and the run's constant columns); ``verify=True`` reads
    every page (checksums). ``manifest``: check against this one instead of manifest.json.
    """
    run_dir = Path(run_dir)
    if manifest is None:
        manifest = read_manifest(run_dir)
    cfg = config_from_dict(manifest["config"], f"{run_dir / MANIFEST} (config)")
    state = RunState(run_dir, manifest, cfg)
    for sub, found, check in (
        (GAMES, state.games_shards, _check_games_file),
        (MOVES, state.moves_shards, _check_moves_file),
    ):
        folder = run_dir / sub
        if not folder.exists():
            continue
        if not folder.is_dir():
            raise _fault(folder, "expected a folder", None)
        for path in sorted(folder.iterdir()):
            if TMP.fullmatch(path.name):
                state.leftovers.append(path)
                continue
            m = PART.fullmatch(path.name)
            shard = None
            try:
                if not m or not path.is_file():
                    raise _Bad(
                        f"unexpected {'folder' if path.is_dir() else 'file'} in {sub}/ "
                        f"(a run holds only part-NNNNN.parquet there)"
                    )
                index = int(m.group(1))
                if path.name != part_name(index):
                    raise _Bad("unexpected file name (leading zeros)")
                if index >= cfg.n_shards:
                    raise _Bad(
                        f"shard {index} does not exist in this run "
                        f"({cfg.n_shards} shards of {cfg.shard_size} games)"
                    )
                if sub == MOVES and cfg.record_moves == "none":
                    raise _Bad('this run records no moves (record_moves = "none")')
                shard = index
                check(_open(path), cfg, index, verify)
            except _Bad as err:
                raise _fault(path, err, shard) from None
            found.add(index)
    return state


def read_part(
    path: Path, columns: list[str] | None = None, dictionary: list[str] | None = None
) -> pa.Table:
    """A shard file that ``check_run`` accepted (or the ``columns`` asked for; ``dictionary``:
    string columns to read dictionary-encoded), every page checked against its CRC; UserError
    (path, reason, what to do) if it cannot be read."""
    try:
        return _read(_open(path, dictionary), columns)
    except _Bad as err:
        raise _fault(path, err, int(PART.fullmatch(path.name).group(1))) from None
