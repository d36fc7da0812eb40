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

from sim.config.file import config_from_dict
from sim.config.run import RunConfig
from sim.dataset.advice import busy, resume_command, writing
from sim.dataset.layout import (
    GAMES,
    MANIFEST,
    MOVES,
    MOVES_SCHEMA,
    PART,
    TMP,
    format_ranges,
    part_name,
    run_constants,
)
from sim.dataset.manifest import read_manifest
from sim.dataset.part import BadFile, check_schema, first_row, open_part, read_checked
from sim.errors import UserError
from sim.schema.tables import GAME_SCHEMA, RUN_COLUMNS, SCHEMA_VERSION


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
    def searching(self) -> bool:
        """Whether the run's komi search has rounds still to decide (``sim.komi.search``)."""
        search = self.config.komi_search
        return search is not None and not search.ended

    @property
    def complete(self) -> bool:
        return not self.missing and not self.searching

    @property
    def incomplete(self) -> str | None:
        """Why the games of the run are not all there, or None when they are."""
        missing = [i for i in range(self.config.n_shards) if i not in self.games_shards]
        if not missing and self.searching:
            return f"{self.run_dir}: run is incomplete: its komi search has rounds still to play"
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


def _check_constants(table: pa.Table, cfg: RunConfig) -> None:
    """The columns that are constant in a run (at each komi of a sweep) hold this run's
    values (in every row of ``table``). Read, not taken from the footer statistics: pyarrow
    aborts the process on the statistics of some damaged footers."""
    for group, rows in cfg.komi_groups(table["game_id"].to_numpy()):
        part = table if len(rows) == table.num_rows else table.take(rows)
        for name, want in run_constants(group).items():
            if part[name].unique().to_pylist() != [want]:
                raise BadFile(
                    f"column {name!r} does not hold this run's value {want!r} "
                    f"(a file from another run?)"
                )


def _check_games_file(pf: pq.ParquetFile, cfg: RunConfig, index: int, verify: bool) -> None:
    """A games file is shard ``index`` of the run: schema, game ids, and the run's constant
    values (of its first row; of every row with ``verify``, which reads every page)."""
    check_schema(pf, GAME_SCHEMA)
    ids = cfg.shard_range(index)
    if pf.metadata.num_rows != len(ids):
        raise BadFile(f"{pf.metadata.num_rows} rows, shard {index} has {len(ids)} games")
    table = read_checked(pf, None if verify else ["game_id"])
    if not np.array_equal(table["game_id"].to_numpy(), np.arange(ids.start, ids.stop)):
        raise BadFile(f"game ids are not {ids.start}..{ids.stop - 1} in order")
    _check_constants(table if verify else first_row(pf, ["game_id", *RUN_COLUMNS]), cfg)


def _check_moves_file(pf: pq.ParquetFile, cfg: RunConfig, index: int, verify: bool) -> None:
    check_schema(pf, MOVES_SCHEMA)
    ids = cfg.shard_range(index)
    table = read_checked(pf, None if verify else ["game_id"])
    got = table["game_id"].to_numpy()
    if cfg.record_moves == "all" and len(got) != len(ids):
        raise BadFile(f'{len(got)} games, shard {index} has {len(ids)} (record_moves = "all")')
    if len(got) and (got[0] < ids.start or got[-1] >= ids.stop or np.any(np.diff(got) <= 0)):
        raise BadFile(f"game ids are not increasing within {ids.start}..{ids.stop - 1}")


def _faults(run_dir: Path, faults: list, config: RunConfig | dict | None) -> UserError:
    """The one-line error for the files (path, BadFile, shard or None) of a run folder that must
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
            raise _faults(run_dir, [(folder, BadFile("expected a folder"), None)], cfg)
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
                    raise BadFile(
                        f"unexpected {'folder' if path.is_dir() else 'file'} in {sub}/ "
                        f"(a run holds only part-NNNNN.parquet there)"
                    )
                index = int(m.group(1))
                if path.name != part_name(index):
                    raise BadFile("unexpected file name (leading zeros)")
                if index >= cfg.n_shards:
                    raise BadFile(
                        f"shard {index} does not exist in this run "
                        f"({cfg.n_shards} shards of {cfg.shard_size} games)"
                    )
                if sub == MOVES and cfg.record_moves == "none":
                    raise BadFile('this run records no moves (record_moves = "none")')
                shard = index
                if shards is None or index in shards:
                    check(open_part(path), cfg, index, verify)
            except BadFile as err:
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
        return read_checked(open_part(path, dictionary), columns)
    except BadFile as err:
        shard = int(PART.fullmatch(path.name).group(1))
        run_dir = path.parent.parent
        try:
            config = read_manifest(run_dir)["config"]
        except UserError:
            config = None
        raise _faults(run_dir, [(path, err, shard)], config) from None
