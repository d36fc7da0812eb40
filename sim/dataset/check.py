"""What a run folder holds: ``check_run`` checks every file of ``games/`` and ``moves/``
against the manifest (``RunState``: the whole shards, the leftovers of a killed run), and
``read_part`` reads a file that it accepted."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.config import RunConfig, config_from_dict
from sim.dataset.layout import (
    GAMES,
    LOCK,
    MANIFEST,
    MOVES,
    MOVES_SCHEMA,
    PART,
    TMP,
    format_ranges,
    newer_schema,
    part_name,
    run_constants,
)
from sim.dataset.manifest import read_manifest
from sim.errors import UserError, one_line
from sim.schema import GAME_SCHEMA, RUN_COLUMNS, SCHEMA_VERSION

_VERSION_KEY = b"jpdsim.schema_version"


def writing(run_dir: str | Path) -> bool:
    """Whether a jpdsim run holds the lock of ``run_dir`` now (it is writing into the folder:
    ``sim.run.folder.lock`` holds an exclusive ``flock`` on its ``.lock`` file while it runs).
    Probed with a shared lock taken and let go at once; False where there is no lock file, no
    ``flock`` (not POSIX), or where this process has the lock file open (the runner itself,
    or a worker it started: its own run)."""
    try:
        f = open(Path(run_dir) / LOCK, "rb")
    except OSError:
        return False
    with f:
        if _open_here(os.fstat(f.fileno()), f.fileno()):
            return False
        try:
            import fcntl
        except ImportError:
            return False
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def _open_here(st: os.stat_result, but: int) -> bool:
    """Whether a file descriptor of this process other than ``but`` is the file ``st``
    (Linux: ``/proc/self/fd``; False elsewhere)."""
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return False
    for fd in fds:
        if fd == but:
            continue
        try:
            other = os.fstat(fd)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return True
    return False


def resume_command(run_dir: str | Path, config: RunConfig | dict | None) -> str:
    """The command that completes the run in ``run_dir``, with the run's own ``--games`` and
    ``--seed`` (from its config, ``config``: a ``RunConfig`` or the manifest's table): a config
    file may say more games, and ``--resume`` with more games grows a run (README, Resume)."""
    if isinstance(config, RunConfig):
        games, seed = config.games, config.seed
    else:
        games, seed = (config or {}).get("games"), (config or {}).get("seed")
    options = "".join(
        f" --{key} {value}"
        for key, value in (("games", games), ("seed", seed))
        if isinstance(value, int) and not isinstance(value, bool)
    )
    return f"`jpdsim run CONFIG --out {run_dir}{options} --resume`"


def busy(run_dir: str | Path) -> str:
    """What to say instead of a command that would write into ``run_dir`` while another run
    writes there (``writing``)."""
    return f"a jpdsim run is writing into {run_dir} now: wait for it to end, then look again"


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
        """UserError, with the command that completes the run (``resume_command``: the run's
        own games and seed), unless every shard is there; no command while a run writes there
        (``writing``)."""
        if self.incomplete:
            if writing(self.run_dir):
                raise UserError(f"{self.incomplete}; {busy(self.run_dir)}")
            raise UserError(
                f"{self.incomplete}; complete it with {resume_command(self.run_dir, self.config)}"
            )

    @property
    def games_written(self) -> int:
        return sum(len(self.config.shard_range(i)) for i in self.games_shards)


class _Bad(Exception):
    """A file that must not be read as part of the run; str is the reason. ``newer``: it was
    written by a newer jpdsim (to be read by an upgraded one, not played again)."""

    def __init__(self, reason: str, newer: bool = False):
        super().__init__(reason)
        self.newer = newer


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
        text = version.decode(errors="replace")
        if newer_schema(text):
            raise _Bad(f"written by a newer jpdsim (schema version {text})", newer=True)
        raise _Bad(f"schema version {text}, this jpdsim writes {SCHEMA_VERSION}")
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
    """The columns that are constant in a run (at each komi of a sweep) hold this run's
    values (in every row of ``table``). Read, not taken from the footer statistics: pyarrow
    aborts the process on the statistics of some damaged footers."""
    for group, rows in cfg.komi_groups(table["game_id"].to_numpy()):
        part = table if len(rows) == table.num_rows else table.take(rows)
        for name, want in run_constants(group).items():
            if part[name].unique().to_pylist() != [want]:
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
    _check_constants(table if verify else _first_row(pf, ["game_id", *RUN_COLUMNS]), cfg)


def _check_moves_file(pf: pq.ParquetFile, cfg: RunConfig, index: int, verify: bool) -> None:
    _check_schema(pf, MOVES_SCHEMA)
    ids = cfg.shard_range(index)
    table = _read(pf, None if verify else ["game_id"])
    got = table["game_id"].to_numpy()
    if cfg.record_moves == "all" and len(got) != len(ids):
        raise _Bad(f'{len(got)} games, shard {index} has {len(ids)} (record_moves = "all")')
    if len(got) and (got[0] < ids.start or got[-1] >= ids.stop or np.any(np.diff(got) <= 0)):
        raise _Bad(f"game ids are not increasing within {ids.start}..{ids.stop - 1}")


def _faults(run_dir: Path, faults: list, config: RunConfig | dict | None) -> UserError:
    """The one-line error for the files (path, _Bad, shard or None) of a run folder that must
    not be read, with what to do about them (the run's ``config``: its games and seed in the
    command that plays a shard again; no command while a run writes there)."""
    named = "; ".join(f"{path}: {err}" for path, err, _ in faults)
    damaged = [shard for _, err, shard in faults if shard is not None and not err.newer]
    stray = sum(shard is None for _, _, shard in faults)
    todo = []
    if any(err.newer for _, err, _ in faults):
        todo.append(f"this jpdsim reads schema version {SCHEMA_VERSION}: upgrade jpdsim")
    if damaged and writing(run_dir):
        todo.append(busy(run_dir))
    elif damaged:
        shards = sorted(set(damaged))
        todo.append(
            f"move {'them' if len(damaged) > 1 else 'it'} away, then "
            f"{resume_command(run_dir, config)} plays shard{'s' * (len(shards) > 1)} "
            f"{format_ranges(shards)} again"
        )
    if stray:
        todo.append(f"move {'them' if stray > 1 else 'it'} out of the run folder")
    return UserError(f"{named}; {'; '.join(todo)}")


def _folder_there(folder: Path) -> bool:
    """Whether ``games/`` or ``moves/`` is there (False: not written yet); UserError when it is
    there but cannot be looked at: a symbolic link in a loop, or to nothing, or no access."""
    try:
        folder.stat()
    except FileNotFoundError:
        if not folder.is_symlink():
            return False
        raise UserError(
            f"{folder}: a symbolic link to {os.readlink(folder)}, which does not exist"
        ) from None
    except OSError as err:
        raise UserError(f"{folder}: cannot be read ({err.strerror or err})") from None
    return True


def check_run(
    run_dir: str | Path,
    verify: bool = False,
    manifest: dict | None = None,
    shards: set | None = None,
) -> RunState:
    """Check every file of a run folder against its manifest and return what is there.

    Raises one UserError (each path with its one-line reason, and what to do) for the files in
    ``games/`` or ``moves/`` that are not whole shards of this run: unreadable, truncated,
    foreign or newer schema, rows or game ids that do not fit its shard, values of another
    run, or any unexpected name. Cheap by default (footers, game ids and the run's constant
    columns); ``verify=True`` reads every page (checksums). ``manifest``: check against this
    one instead of manifest.json. ``shards``: open only these shards' files (the others are
    counted by their names: reading one game of a run of many shards).
    """
    run_dir = Path(run_dir)
    if manifest is None:
        manifest = read_manifest(run_dir)
    cfg = config_from_dict(manifest["config"], f"{run_dir / MANIFEST} (config)", stored=True)
    state = RunState(run_dir, manifest, cfg)
    faults = []
    for sub, found, check in (
        (GAMES, state.games_shards, _check_games_file),
        (MOVES, state.moves_shards, _check_moves_file),
    ):
        folder = run_dir / sub
        if not _folder_there(folder):
            continue
        if not folder.is_dir():
            raise _faults(run_dir, [(folder, _Bad("expected a folder"), None)], cfg)
        try:
            paths = sorted(folder.iterdir())
        except OSError as err:
            raise UserError(f"{folder}: cannot be read ({err.strerror or err})") from None
        for path in paths:
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
                if shards is None or index in shards:
                    check(_open(path), cfg, index, verify)
            except _Bad as err:
                faults.append((path, err, shard))
                continue
            found.add(index)
    if faults:
        raise _faults(run_dir, faults, cfg)
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
        shard = int(PART.fullmatch(path.name).group(1))
        run_dir = path.parent.parent
        try:
            config = read_manifest(run_dir)["config"]
        except UserError:
            config = None
        raise _faults(run_dir, [(path, err, shard)], config) from None
