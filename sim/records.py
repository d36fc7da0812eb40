"""The files of a run, and reading them back safely.

A run folder::

    <run>/manifest.json              resolved config, versions, times, games written (see below)
    <run>/run.log                    log of the runner and all its workers
    <run>/.lock                      held by the runner writing into the folder
    <run>/games/part-NNNNN.parquet   one row per game, schema ``sim.schema.GAME_SCHEMA``, zstd
    <run>/moves/part-NNNNN.parquet   (record_moves != "none") ``MOVES_SCHEMA``: game_id, actions

Shard ``i`` holds game ids ``i*shard_size .. min((i+1)*shard_size, games) - 1`` in order. A shard
file is written as ``.part-NNNNN.parquet.tmp`` and renamed when whole; the moves file of a shard
is renamed before its games file, so a shard is complete when its games file exists (and its
moves file, when moves are recorded).

Everything that reads a run goes through ``check_run``: a file in ``games/`` or ``moves/`` that
is corrupt, half-written, of a foreign schema, from another run (other seed or rules) or simply
unexpected raises ``UserError`` naming its path and the reason; nothing is silently mixed in.
Temporary files (``.part-*.tmp``) of a running or killed run are listed, never read.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import sim
from sim.config import RunConfig, config_from_dict
from sim.errors import UserError, one_line
from sim.schema import GAME_SCHEMA, RULESETS, SCHEMA_VERSION

MANIFEST = "manifest.json"
LOG = "run.log"
GAMES, MOVES = "games", "moves"
MOVES_SCHEMA = pa.schema(
    [pa.field("game_id", pa.int64()),
     pa.field("actions", pa.list_(pa.field("element", pa.int16())))],  # Parquet's item name
    metadata={"jpdsim.schema_version": SCHEMA_VERSION, "jpdsim.kind": "moves"},
)
_PART = re.compile(r"part-(\d{5,})\.parquet")
_TMP = re.compile(r"\.part-(\d{5,})\.parquet\.tmp")
_VERSION_KEY = b"jpdsim.schema_version"
_WRITE_OPTIONS = dict(compression="zstd", write_page_checksum=True)


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def tmp_name(index: int) -> str:
    return f".part-{index:05d}.parquet.tmp"


def now() -> str:
    """The current time, ISO 8601 in UTC."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# -- building and writing shards ------------------------------------------------------------

#: The GAME_SCHEMA columns that hold one value for every game of a run.
RUN_COLUMNS = ("board_size", "repetition", "suicide", "seed", "policy_b", "policy_w",
               "virtual_rate", "max_actions", *(f"komi_{r}" for r in RULESETS))
#: Columns whose footer statistics are written: what ``check_run`` reads (statistics of all
#: 56 columns cost 13% of writing a shard).
_STATISTICS = {"game_id", *RUN_COLUMNS}


def _run_constants(cfg: RunConfig) -> dict:
    """The values of RUN_COLUMNS in a run."""
    rules = cfg.rules
    return dict(zip(RUN_COLUMNS, (rules.board_size, rules.repetition, rules.suicide, cfg.seed,
                                  cfg.policy_b, cfg.policy_w, cfg.virtual_rate, rules.max_actions,
                                  *(rules.komi[r] for r in RULESETS))))


def games_table(cfg: RunConfig, game_ids: np.ndarray, columns: dict) -> pa.Table:
    """One row per game in GAME_SCHEMA, from ``play_batch``'s columns (numpy or Arrow arrays)
    and the run config."""
    n = len(game_ids)
    constants = _run_constants(cfg)
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
            raise RuntimeError(f"play_batch column {f.name!r} has {len(values)} values, "
                               f"expected {n}")
        is_arrow = isinstance(values, (pa.Array, pa.ChunkedArray))
        arrays.append(values.cast(f.type) if is_arrow else pa.array(values, type=f.type))
    return pa.Table.from_arrays(arrays, schema=GAME_SCHEMA)


def moves_selection(record_moves: str, games: pa.Table) -> np.ndarray:
    """Which games of a batch (its games table) get their moves stored (a boolean mask)."""
    if record_moves == "all":
        return np.ones(games.num_rows, dtype=bool)
    if record_moves == "cycles":
        kept = pc.or_(pc.not_equal(games["ending"], "pause"), pc.greater(games["repetition_bans"], 0))
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
    """Write a Parquet file under ``tmp`` and rename it to ``path`` once it is whole."""
    try:
        pq.write_table(table, tmp, **_WRITE_OPTIONS,
                       write_statistics=[c for c in table.column_names if c in _STATISTICS])
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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


# -- manifest -------------------------------------------------------------------------------

def _git_commit() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the git checkout this package runs from; (None, None) if none."""
    top = Path(sim.__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "-C", str(top), "rev-parse", "--show-toplevel", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        lines = out.stdout.split()
        if out.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != top:
            return None, None
        st = subprocess.run(["git", "-C", str(top), "status", "--porcelain", "--untracked-files=no"],
                            capture_output=True, text=True, timeout=10)
        return lines[1], (bool(st.stdout.strip()) if st.returncode == 0 else None)
    except (OSError, subprocess.SubprocessError):
        return None, None


def environment() -> dict:
    """Versions of jpdsim, its git commit and its libraries (for the manifest)."""
    commit, dirty = _git_commit()
    versions = {"python": platform.python_version()}
    for lib in ("numpy", "numba", "pandas", "pyarrow"):
        try:
            versions[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            versions[lib] = None
    return {"jpdsim_version": sim.__version__, "git_commit": commit, "git_dirty": dirty,
            "versions": versions, "platform": platform.platform(), "cpu_count": os.cpu_count()}


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it to ``path`` once it is
    whole, with the permissions of an ordinary new file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_manifest(run_dir: Path, manifest: dict) -> None:
    write_text_atomic(Path(run_dir) / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def read_manifest(run_dir: str | Path) -> dict:
    """The manifest of a run folder; UserError if the folder is not a readable run."""
    run_dir = Path(run_dir)
    path = run_dir / MANIFEST
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run folder")
    if not path.is_file():
        raise UserError(f"{run_dir}: not a jpdsim run folder (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UserError(f"{path}: unreadable manifest ({err})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("config"), dict):
        raise UserError(f"{path}: not a jpdsim manifest (no config table)")
    return manifest


# -- checking a run -------------------------------------------------------------------------

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
        return (f"{self.run_dir}: run is incomplete: {len(missing)} of {self.config.n_shards} "
                f"shards missing ({format_ranges(missing)})")

    def require_complete(self) -> None:
        """UserError, with the command that completes the run, unless every shard is there."""
        if self.incomplete:
            raise UserError(f"{self.incomplete}; complete it with `jpdsim run CONFIG --out "
                            f"{self.run_dir} --resume`")

    @property
    def games_written(self) -> int:
        return sum(len(self.config.shard_range(i)) for i in self.games_shards)


class _Bad(Exception):
    """A file that must not be read as part of the run; str is the reason."""


def _open(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path, page_checksum_verification=True)
    except Exception as err:  # noqa: BLE001 - any failure means the file is not usable
        raise _Bad(f"not a readable Parquet file, half-written or corrupt ({one_line(err, 200)})")


def _check_schema(pf: pq.ParquetFile, expected: pa.Schema) -> None:
    schema = pf.schema_arrow
    version = (schema.metadata or {}).get(_VERSION_KEY)
    if version is None:
        raise _Bad("foreign file: no jpdsim schema version in its metadata")
    if version.decode() != SCHEMA_VERSION:
        raise _Bad(f"schema version {version.decode()}, this jpdsim writes {SCHEMA_VERSION}")
    if (schema.metadata or {}).get(b"jpdsim.kind") != (expected.metadata or {}).get(b"jpdsim.kind"):
        raise _Bad("foreign file: a games file in moves/ or a moves file in games/")
    if not schema.equals(expected, check_metadata=False):
        names, want = schema.names, expected.names
        for f in expected:
            if f.name not in names:
                raise _Bad(f"foreign schema: no column {f.name!r}")
            if schema.field(f.name).type != f.type:
                raise _Bad(f"foreign schema: column {f.name!r} is {schema.field(f.name).type}, "
                           f"expected {f.type}")
        extra = [n for n in names if n not in want]
        raise _Bad(f"foreign schema: unexpected column {extra[0]!r}" if extra
                   else "foreign schema: columns out of order")


def _read(pf: pq.ParquetFile, columns: list[str] | None = None) -> pa.Table:
    try:
        return pf.read(columns=columns)
    except Exception as err:  # noqa: BLE001
        raise _Bad(f"corrupt data ({one_line(err, 200)})")


def _check_constants(pf: pq.ParquetFile, cfg: RunConfig) -> None:
    """Columns that are constant in a run hold this run's values (cheap: footer statistics)."""
    expected = _run_constants(cfg)
    meta = pf.metadata
    names = pf.schema_arrow.names
    for name, want in expected.items():
        col = names.index(name)
        ok = None
        for rg in range(meta.num_row_groups):
            st = meta.row_group(rg).column(col).statistics
            if st is None or not st.has_min_max or st.null_count:
                ok = None
                break
            ok = st.min == want and st.max == want
            if not ok:
                break
        if ok is None:  # no statistics: read the column
            values = _read(pf, [name]).column(0).unique().to_pylist()
            ok = values == [want]
        if not ok:
            raise _Bad(f"column {name!r} does not hold this run's value {want!r} "
                       f"(a file from another run?)")


def _check_games_file(pf: pq.ParquetFile, cfg: RunConfig, index: int, verify: bool) -> None:
    _check_schema(pf, GAME_SCHEMA)
    ids = cfg.shard_range(index)
    if pf.metadata.num_rows != len(ids):
        raise _Bad(f"{pf.metadata.num_rows} rows, shard {index} has {len(ids)} games")
    got = _read(pf, ["game_id"]).column(0).to_numpy()
    if not np.array_equal(got, np.arange(ids.start, ids.stop)):
        raise _Bad(f"game ids are not {ids.start}..{ids.stop - 1} in order")
    _check_constants(pf, cfg)
    if verify:
        _read(pf)


def _check_moves_file(pf: pq.ParquetFile, cfg: RunConfig, index: int, verify: bool) -> None:
    _check_schema(pf, MOVES_SCHEMA)
    ids = cfg.shard_range(index)
    got = _read(pf, ["game_id"]).column(0).to_numpy()
    if cfg.record_moves == "all" and len(got) != len(ids):
        raise _Bad(f"{len(got)} games, shard {index} has {len(ids)} (record_moves = \"all\")")
    if len(got) and (got[0] < ids.start or got[-1] >= ids.stop or np.any(np.diff(got) <= 0)):
        raise _Bad(f"game ids are not increasing within {ids.start}..{ids.stop - 1}")
    if verify:
        _read(pf)


def check_run(run_dir: str | Path, verify: bool = False) -> RunState:
    """Check every file of a run folder against its manifest and return what is there.

    Raises UserError (path and one-line reason) for the first file in ``games/`` or ``moves/``
    that is not a whole shard of this run: unreadable, truncated, foreign schema, rows or game
    ids that do not fit its shard, values of another run, or any unexpected name. Cheap by
    default (file footers and game ids); ``verify=True`` also reads every page (checksums).
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    cfg = config_from_dict(manifest["config"], f"{run_dir / MANIFEST} (config)")
    state = RunState(run_dir, manifest, cfg)
    for sub, found, check in ((GAMES, state.games_shards, _check_games_file),
                              (MOVES, state.moves_shards, _check_moves_file)):
        folder = run_dir / sub
        if not folder.exists():
            continue
        if not folder.is_dir():
            raise UserError(f"{folder}: expected a folder")
        for path in sorted(folder.iterdir()):
            if _TMP.fullmatch(path.name):
                state.leftovers.append(path)
                continue
            m = _PART.fullmatch(path.name)
            try:
                if not m or not path.is_file():
                    raise _Bad(f"unexpected {'folder' if path.is_dir() else 'file'} in {sub}/ "
                               f"(a run holds only part-NNNNN.parquet there)")
                index = int(m.group(1))
                if path.name != part_name(index):
                    raise _Bad("unexpected file name (leading zeros)")
                if index >= cfg.n_shards:
                    raise _Bad(f"shard {index} does not exist in this run "
                               f"({cfg.n_shards} shards of {cfg.shard_size} games)")
                if sub == MOVES and cfg.record_moves == "none":
                    raise _Bad("this run records no moves (record_moves = \"none\")")
                check(_open(path), cfg, index, verify)
            except _Bad as err:
                raise UserError(f"{path}: {err}") from None
            found.add(index)
    return state


# -- reading --------------------------------------------------------------------------------

def _read_shard_file(path: Path, columns: list[str] | None = None) -> pa.Table:
    try:
        return _read(_open(path), columns)
    except _Bad as err:
        raise UserError(f"{path}: {err}") from None


def read_games(run_dir: str | Path, columns: list[str] | None = None,
               allow_incomplete: bool = False, state: RunState | None = None) -> pa.Table:
    """All games of a run as one table (GAME_SCHEMA, or the ``columns`` asked for), by game id.

    The run is checked first (``check_run``, unless its ``state`` is given); an incomplete run
    raises UserError unless ``allow_incomplete`` (then only its whole shards are read)."""
    state = state or check_run(run_dir)
    if columns is not None:
        unknown = [c for c in columns if c not in GAME_SCHEMA.names]
        if unknown:
            raise UserError(f"{run_dir}: no column {unknown[0]!r} in the games schema")
    if not allow_incomplete:
        state.require_complete()
    tables = [_read_shard_file(Path(run_dir) / GAMES / part_name(i), columns)
              for i in sorted(state.games_shards)]
    schema = GAME_SCHEMA if columns is None else pa.schema([GAME_SCHEMA.field(c) for c in columns],
                                                           metadata=GAME_SCHEMA.metadata)
    if not tables:
        return schema.empty_table()
    return pa.concat_tables(tables).replace_schema_metadata(schema.metadata)


def load_game(run_dir: str | Path, game_id: int) -> tuple[RunState, dict, list[int] | None]:
    """One stored game: (the checked run, its row as a dict in GAME_SCHEMA order, its actions
    or None when the run did not record this game's moves). UserError for an unknown game or
    a game whose shard is not written."""
    run_dir = Path(run_dir)
    state = check_run(run_dir)
    cfg = state.config
    if isinstance(game_id, bool) or not isinstance(game_id, (int, np.integer)) \
            or not 0 <= game_id < cfg.games:
        raise UserError(f"{run_dir}: no game {game_id} (game ids are 0..{cfg.games - 1})")
    game_id, shard = int(game_id), int(game_id) // cfg.shard_size
    if shard not in state.games_shards:
        raise UserError(f"{run_dir}: game {game_id} is in shard {shard}, which the run has not "
                        f"written (run incomplete)")
    games = _read_shard_file(run_dir / GAMES / part_name(shard))
    row = games.slice(game_id - cfg.shard_range(shard).start, 1).to_pylist()[0]
    actions = None
    if shard in state.moves_shards:
        moves = _read_shard_file(run_dir / MOVES / part_name(shard))
        ids = moves.column("game_id").to_numpy()
        pos = int(np.searchsorted(ids, game_id))
        if pos < len(ids) and ids[pos] == game_id:
            actions = moves.column("actions")[pos].as_py()
    return state, row, actions


def format_ranges(indices) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    runs = []
    for i in sorted(indices):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)
