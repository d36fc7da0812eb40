"""Loading runs: check a run folder, read its manifest, and load its games into pandas.

A run folder holds ``manifest.json`` and ``games/part-*.parquet`` (schema
``sim.schema.GAME_SCHEMA``). Only the columns asked for are read; filters are pushed
into ``pyarrow.dataset``; string columns arrive as categoricals with a fixed vocabulary
(see ``VOCABULARY``) and half-point columns as float32, so ten million games fit easily
in memory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from sim.schema import ENDINGS, GAME_SCHEMA, REPETITIONS, RULESETS, SCHEMA_VERSION, SUICIDES

#: Columns a run may add to GAME_SCHEMA (filled with nulls where a run lacks them).
OPTIONAL_TYPES = {"repetition_bans": pa.int32()}

#: Fixed category order of the string columns (values outside are appended, sorted).
VOCABULARY = {
    "repetition": REPETITIONS,
    "suicide": SUICIDES,
    "ending": ENDINGS + ("resign",),
    "first_pass_or_virtual_by": ("B", "W"),
    "last_real_move_by": ("B", "W"),
    **{f"winner_{r}": ("B", "W", "draw") for r in RULESETS},
}

#: Columns that describe how a game was played (a "config"; see ``add_config``).
CONFIG_COLUMNS = ("board_size", "repetition", "suicide", "policy_b", "policy_w",
                  "virtual_rate", "max_actions")

#: Float columns whose values are whole or half points: stored as float32 (exact).
HALF_POINT_COLUMNS = ("area_b_jpd", "area_w_jpd", "area_diff_jpd", "equal_stones_diff")

_STRING_COLUMNS = tuple(f.name for f in GAME_SCHEMA if pa.types.is_string(f.type))


class RunError(ValueError):
    """A folder that is not a readable jpdsim run (the message names the folder)."""


def part_files(run_dir: str | Path) -> list[Path]:
    """The finished shard files of a run, in name order (temporary files are skipped)."""
    games = Path(run_dir) / "games"
    return sorted(p for p in games.glob("*.parquet")
                  if not p.name.startswith(".") and not p.name.endswith(".tmp") and p.is_file())


def check_run(run_dir: str | Path) -> Path:
    """Return the run folder as a Path, or raise RunError saying why it is not a run."""
    path = Path(run_dir)
    if not path.is_dir():
        raise RunError(f"{path}: not a folder")
    if not (path / "manifest.json").is_file():
        raise RunError(f"{path}: not a jpdsim run (no manifest.json)")
    if not (path / "games").is_dir():
        raise RunError(f"{path}: not a jpdsim run (no games/ folder)")
    return path


def read_manifest(run_dir: str | Path) -> dict:
    """The parsed manifest.json of a run."""
    path = check_run(run_dir) / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunError(f"{path}: unreadable manifest ({err})") from None
    if not isinstance(manifest, dict):
        raise RunError(f"{path}: manifest is not a JSON object")
    return manifest


def run_labels(run_dirs: Sequence[str | Path]) -> list[str]:
    """One short label per run: the manifest name, or the folder name where names clash."""
    names = [str(read_manifest(d).get("name") or Path(d).resolve().name) for d in run_dirs]
    if len(set(names)) == len(names):
        return names
    folders = [Path(d).resolve().name for d in run_dirs]
    if len(set(folders)) == len(folders):
        return folders
    paths = [str(Path(d).resolve()) for d in run_dirs]
    if len(set(paths)) == len(paths):
        return paths
    return [f"{p} #{i + 1}" for i, p in enumerate(paths)]  # the same run given twice


def run_table(run_dirs: Sequence[str | Path]) -> pd.DataFrame:
    """One row per run from its manifest: name, games written, board size, rules, policies, komi."""
    rows = []
    for label, d in zip(run_labels(run_dirs), run_dirs):
        m = read_manifest(d)
        c = m.get("config") or {}
        komi = c.get("komi") or {}
        rows.append({
            "run": label,
            "games": m.get("games_written", c.get("games")),
            "board_size": c.get("board_size"),
            "repetition": c.get("repetition"),
            "suicide": c.get("suicide"),
            "policies (B/W)": f"{c.get('policy_b')}/{c.get('policy_w')}",
            "virtual_rate": c.get("virtual_rate"),
            "max_actions": c.get("max_actions"),
            "seed": c.get("seed"),
            "komi": ", ".join(f"{r} {komi[r]:g}" for r in RULESETS if r in komi),
            "version": m.get("jpdsim_version"),
        })
    return pd.DataFrame(rows)


def _dataset(run_dir: Path) -> ds.Dataset:
    files = part_files(run_dir)
    if not files:
        raise RunError(f"{run_dir}: not a jpdsim run (no part-*.parquet in games/)")
    fmt = ds.ParquetFileFormat(read_options={"dictionary_columns": list(_STRING_COLUMNS)})
    try:
        dataset = ds.dataset([str(f) for f in files], format=fmt)
    except (OSError, pa.ArrowException) as err:
        raise RunError(f"{run_dir}: unreadable games ({err})") from None
    version = (dataset.schema.metadata or {}).get(b"jpdsim.schema_version")
    if version is not None and version.decode() != SCHEMA_VERSION:
        raise RunError(f"{run_dir}: schema version {version.decode()}, "
                       f"this analysis reads version {SCHEMA_VERSION}")
    return dataset


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


def _read_run(run_dir: Path, dataset: ds.Dataset, columns: list[str], filter) -> pa.Table:
    have = set(dataset.schema.names)
    missing = [c for c in columns if c not in have and c not in OPTIONAL_TYPES]
    if missing:
        raise RunError(f"{run_dir}: games lack column(s) {', '.join(missing)}")
    read = [c for c in columns if c in have]
    try:
        table = dataset.to_table(columns=read, filter=filter)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, KeyError) as err:
        raise RunError(f"{run_dir}: cannot apply filter or columns ({err})") from None
    for c in columns:
        if c not in have:
            table = table.append_column(c, pa.nulls(table.num_rows, OPTIONAL_TYPES[c]))
    return table.select(columns)


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


def load_runs(run_dirs: str | Path | Sequence[str | Path], columns: Sequence[str] | None = None,
              filter=None) -> pd.DataFrame:
    """Load the games of one or many runs into one DataFrame.

    columns: the columns to read (None: every column of every run); an optional column
    (OPTIONAL_TYPES) that a run lacks is read as nulls, any other missing column is an error.
    filter: a ``pyarrow.dataset`` expression or a ``{column: value | [values]}`` dict,
    applied while reading. With several runs a categorical ``run`` column (labels from
    ``run_labels``) comes first. Raises RunError for a folder that is not a run.
    """
    if isinstance(run_dirs, (str, Path)):
        run_dirs = [run_dirs]
    run_dirs = [check_run(d) for d in run_dirs]
    if not run_dirs:
        raise RunError("no run folder given")
    datasets = [_dataset(d) for d in run_dirs]
    if columns is None:  # every column of every run
        columns = [c for d in datasets for c in d.schema.names]
    columns = list(dict.fromkeys(c for c in columns if c != "run"))
    expr = _as_filter(filter)
    tables = [_read_run(d, data, columns, expr) for d, data in zip(run_dirs, datasets)]
    sizes = [t.num_rows for t in tables]
    table = pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0]
    df = compact(table.to_pandas(split_blocks=True, self_destruct=True))
    del table, tables
    if len(run_dirs) > 1:
        labels = run_labels(run_dirs)
        codes = np.repeat(np.arange(len(labels), dtype=np.int8 if len(labels) < 128 else np.int32),
                          sizes)
        df.insert(0, "run", pd.Categorical.from_codes(codes, categories=labels))
    return df


def add_config(df: pd.DataFrame) -> pd.DataFrame:
    """Add a categorical ``config`` column: one label per combination of CONFIG_COLUMNS present.

    Runs with the same settings share a config. Returns the same frame (modified in place).
    """
    cols = [c for c in CONFIG_COLUMNS if c in df.columns]
    if not cols:
        df["config"] = pd.Categorical(["all"] * len(df))
        return df
    groups = df.groupby(cols, observed=True, sort=True, dropna=False)
    codes = groups.ngroup().to_numpy()
    keys = groups.size().index.to_frame(index=False)
    labels = [config_label(row) for row in keys.to_dict("records")]
    # identical labels (e.g. values that print alike) are merged
    uniq = list(dict.fromkeys(labels))
    remap = np.array([uniq.index(lab) for lab in labels], dtype=np.int32)
    df["config"] = pd.Categorical.from_codes(remap[codes], categories=uniq)
    return df


def config_label(values: dict) -> str:
    """A short label for one config, e.g. ``9x9 global_superko multi random/random v=0.05``."""
    parts = []
    if "board_size" in values:
        parts.append(f"{values['board_size']}x{values['board_size']}")
    for c in ("repetition", "suicide"):
        if c in values:
            parts.append(str(values[c]))
    if "policy_b" in values or "policy_w" in values:
        parts.append(f"{values.get('policy_b', '?')}/{values.get('policy_w', '?')}")
    if "virtual_rate" in values:
        parts.append(f"v={values['virtual_rate']:g}" if values["virtual_rate"] == values["virtual_rate"]
                     else "v=?")
    if "max_actions" in values:
        parts.append(f"cap={values['max_actions']}")
    return " ".join(parts)
