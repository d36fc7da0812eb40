"""Loading runs into pandas.

What a run is belongs to the dataset layer, ``sim.dataset``: its manifest, its config and which
shard files are whole. Every run is checked with ``sim.dataset.check.check_run`` before anything
is read, so a corrupt, half-written, foreign or misplaced file in ``games/`` is reported
(``sim.errors.UserError`` naming the file and the reason), never silently mixed in, and
temporary files of a running run are never read. Only the whole shard files that the check
found are then read, one at a time (``sim.dataset.check.read_part``: every page checked against
its CRC, every row there, an error names the file): only the columns asked for (and those of
a filter, applied as each file is read); string columns arrive as categoricals with a fixed
vocabulary (``sim.schema.tables.VOCABULARY``) and half-point columns as float32, so ten
million games fit easily in memory.

Every error is a ``sim.errors.UserError`` whose one-line message names the run folder or file."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from analysis.runs import run_labels, unique_runs
from sim.dataset.check import RunState, check_run, read_part
from sim.dataset.layout import GAMES, part_name
from sim.errors import UserError, one_line
from sim.schema.tables import GAME_SCHEMA, HALF, RULESETS, VOCABULARY, columns_of

#: Float columns whose values are whole or half points: read as float32 (exact).
HALF_POINT_COLUMNS = columns_of(HALF)

_STRING_COLUMNS = tuple(f.name for f in GAME_SCHEMA if pa.types.is_string(f.type))
#: GAME_SCHEMA as read: string columns dictionary-encoded (they become pandas categoricals).
_READ_SCHEMA = pa.schema(
    [
        pa.field(f.name, pa.dictionary(pa.int32(), f.type)) if f.name in _STRING_COLUMNS else f
        for f in GAME_SCHEMA
    ],
    metadata=GAME_SCHEMA.metadata,
)


class IncompleteRunWarning(UserWarning):
    """A run loaded with ``allow_incomplete=True`` lacks some of its shards."""


def open_run(run_dir: str | Path, allow_incomplete: bool = False) -> RunState:
    """Check a run folder (``sim.dataset.check.check_run``) and return its state.

    A run with shards missing (interrupted, or still being written) raises UserError naming
    them, unless ``allow_incomplete``: then an ``IncompleteRunWarning`` says how many games are
    missing, and only the whole shards will be read.
    """
    state = check_run(run_dir)
    if state.incomplete:
        if not allow_incomplete:
            state.require_complete()
        warnings.warn(
            f"{state.incomplete}: reading its {state.games_written:,} of "
            f"{state.config.games:,} games",
            IncompleteRunWarning,
            stacklevel=3,
        )
    return state


def shard_files(state: RunState, shards: Iterable[int] | None = None) -> list[Path]:
    """The whole games files of a checked run (or of its ``shards``), in shard order."""
    chosen = state.games_shards if shards is None else shards
    return [Path(state.run_dir) / GAMES / part_name(i) for i in sorted(chosen)]


def batches(state: RunState, rows: int) -> list[list[int]]:
    """The whole shards of a checked run in order, cut into batches of about ``rows`` games
    (at least one shard each)."""
    out: list[list[int]] = []
    have = rows
    for i in sorted(state.games_shards):
        if have >= rows:
            out.append([])
            have = 0
        out[-1].append(i)
        have += len(state.config.shard_range(i))
    return out


def run_table(run_dirs: Sequence[str | Path], allow_incomplete: bool = False) -> pd.DataFrame:
    """One row per (checked) run: name, games written, board size, rules, policies, komi (and
    the komi sweep, when a run has one)."""
    rows, states = [], []
    run_dirs = unique_runs(run_dirs)
    for d in run_dirs:  # a loop, not a comprehension: the warning names the caller
        states.append(open_run(d, allow_incomplete))
    for label, state in zip(run_labels(run_dirs), states):
        c = state.config
        rows.append(
            {
                "run": label,
                "games": state.games_written,
                "games planned": c.games,
                "board_size": c.rules.board_size,
                "repetition": c.rules.repetition,
                "suicide": c.rules.suicide,
                "players (B/W)": f"{c.black.name} / {c.white.name}",
                "virtual_rate": c.virtual_rate,
                "max_actions": c.rules.max_actions,
                "seed": c.seed,
                "komi": ", ".join(f"{r} {c.rules.komi[r]:g}" for r in RULESETS),
                "komi sweep": _sweep_label(c.komi_sweep),
                "version": state.manifest.get("jpdsim_version"),
            }
        )
    table = pd.DataFrame(rows)
    if (table["games"] == table["games planned"]).all():
        table = table.drop(columns="games planned")  # every run complete
    if not table["komi sweep"].astype(bool).any():
        table = table.drop(columns="komi sweep")
    return table


def _sweep_label(sweep) -> str:
    """A komi sweep in words (the komi of ``[komi]`` is then where the others' offsets come
    from); "" for none."""
    if sweep is None:
        return ""
    values = ", ".join(f"{v:g}" for v in sweep.values)
    return f"{sweep.ruleset} {values} (the others moved by as much)"


def _as_filter(filter) -> ds.Expression | None:
    """A pyarrow expression from an expression or a {column: value or list of values} dict."""
    if filter is None or isinstance(filter, ds.Expression):
        return filter
    expr = None
    for col, value in dict(filter).items():
        if isinstance(value, (list, tuple, set, frozenset)):
            term = ds.field(col).isin(list(value))
        else:
            term = ds.field(col) == value
        expr = term if expr is None else expr & term
    return expr


def _columns(columns: Sequence[str] | None) -> list[str]:
    """The GAME_SCHEMA columns asked for (all of them for None; ``run`` is not read)."""
    columns = (
        list(GAME_SCHEMA.names)
        if columns is None
        else list(dict.fromkeys(c for c in columns if c != "run"))
    )
    unknown = [c for c in columns if c not in GAME_SCHEMA.names]
    if unknown:
        raise UserError(
            f"no column {unknown[0]!r} in the games schema (sim.schema.tables.GAME_SCHEMA)"
        )
    return columns


def _filtered(table: pa.Table, filter, run_dir) -> pa.Table:
    if filter is None:
        return table
    try:
        return table.filter(filter)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, KeyError) as err:
        raise UserError(f"{run_dir}: cannot apply the filter ({one_line(err, 200)})") from None


def _filter_columns(filter) -> list[str]:
    """The columns a filter may use: those whose names appear in it (pyarrow lists no fields
    of an expression; a column too many is only read for nothing)."""
    words = set(re.findall(r"\w+", str(filter))) if filter is not None else set()
    return [c for c in GAME_SCHEMA.names if c in words]


def _read_run(state: RunState, columns: list[str], filter, shards=None) -> pa.Table:
    """The ``columns`` of a checked run's whole shards (or of its ``shards``), ``filter``
    applied; a filter is tried on an empty table first, so that a bad one is reported as
    such."""
    needed = columns + [c for c in _filter_columns(filter) if c not in columns]
    empty = _filtered(_READ_SCHEMA.empty_table().select(needed), filter, state.run_dir)
    strings = [c for c in needed if c in _STRING_COLUMNS]
    tables = [
        _filtered(read_part(path, needed, strings), filter, state.run_dir).select(columns)
        for path in shard_files(state, shards)
    ]
    return pa.concat_tables(tables) if tables else empty.select(columns)


def _categorical(values: pd.Series, vocab: Iterable[str]) -> pd.Series:
    vocab = list(vocab)
    if not isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype("category")
    extra = sorted(set(values.cat.categories.astype(str)) - set(vocab))
    return values.cat.set_categories(vocab + extra)


def compact(df: pd.DataFrame) -> pd.DataFrame:
    """Give a games frame the loader's dtypes (vocabulary categoricals, float32 half points)."""
    for c in df.columns:
        col = df[c]
        if c in VOCABULARY:
            df[c] = _categorical(col, VOCABULARY[c])
        elif c in _STRING_COLUMNS or col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
            df[c] = col.astype("category")
        elif c in HALF_POINT_COLUMNS and col.dtype == np.float64:
            df[c] = col.astype(np.float32)
    return df


def _frame(table: pa.Table) -> pd.DataFrame:
    """A games table as a DataFrame with the loader's dtypes (the table is consumed)."""
    return compact(table.to_pandas(split_blocks=True, self_destruct=True))


def read_run(
    state: RunState, columns: Sequence[str] | None = None, filter=None, shards=None
) -> pd.DataFrame:
    """The games of one run that is checked already (by ``open_run``, or the ``RunState`` that
    ``sim.run.runner.run`` returns), as ``load_runs`` loads them, without checking it again:
    its whole shards only (or those of them in ``shards``)."""
    return _frame(_read_run(state, _columns(columns), _as_filter(filter), shards))


def load_runs(
    run_dirs: str | Path | Sequence[str | Path],
    columns: Sequence[str] | None = None,
    filter=None,
    allow_incomplete: bool = False,
) -> pd.DataFrame:
    """Load the games of one or many runs into one DataFrame (rows in run, then game id order).

    columns: the ``GAME_SCHEMA`` columns to read (None: all of them).
    filter: a ``pyarrow.dataset`` expression or a ``{column: value | [values]}`` dict,
    applied while reading. With several runs a categorical ``run`` column (labels from
    ``run_labels``) comes first.

    Each run is checked first (``open_run``): a folder that is not a run, or any file in its
    ``games/`` that is not a whole shard of that run, raises UserError naming it. An
    incomplete run raises UserError too, unless ``allow_incomplete``: then its whole shards
    are loaded and an ``IncompleteRunWarning`` says how many games are missing.
    """
    if isinstance(run_dirs, (str, Path)):
        run_dirs = [run_dirs]
    run_dirs = unique_runs(run_dirs)  # a run named twice is loaded once
    if not run_dirs:
        raise UserError("no run folder given")
    states = []
    for d in run_dirs:  # a loop, not a comprehension: the warning names the caller
        states.append(open_run(d, allow_incomplete))
    columns, expr = _columns(columns), _as_filter(filter)
    tables = [_read_run(s, columns, expr) for s in states]
    sizes = [t.num_rows for t in tables]
    df = _frame(pa.concat_tables(tables) if len(tables) > 1 else tables[0])
    del tables
    if len(run_dirs) > 1:
        labels = run_labels(run_dirs)
        codes = np.repeat(
            np.arange(len(labels), dtype=np.int8 if len(labels) < 128 else np.int32), sizes
        )
        df.insert(0, "run", pd.Categorical.from_codes(codes, categories=labels))
    return df
