"""The groups a table is split by. A table function's ``by`` names game columns, or group
columns made from game columns (``SOURCES``): ``config`` (one label per combination of the
config columns, ``sim.schema.tables.CONFIG_COLUMNS``) and ``players`` (the players of a game);
``split`` gives each row its group and the table of the groups' keys."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sim.schema.tables import CONFIG_COLUMNS

#: The group columns made from game columns, and the game columns each is made from.
SOURCES = {"config": CONFIG_COLUMNS, "players": ("player_b", "player_w")}


def by_columns(by) -> list[str]:
    """Normalise a ``by`` argument (None, a name or a list of names) to a list."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def source_columns(by) -> list[str]:
    """The game columns the groups of ``by`` are made from."""
    return [s for c in by_columns(by) for s in SOURCES.get(c, (c,))]


def pairing(df: pd.DataFrame) -> pd.Series:
    """The players of each game as ``"B-player / W-player"``."""
    return df["player_b"].astype(str) + " / " + df["player_w"].astype(str)


def config_label(values: dict) -> str:
    """A short label for one config, e.g. ``9x9 global_superko multi random/random v=0.05``."""
    parts = []
    if "board_size" in values:
        parts.append(f"{values['board_size']}x{values['board_size']}")
    for c in ("repetition", "suicide"):
        if c in values:
            parts.append(str(values[c]))
    if "player_b" in values or "player_w" in values:
        parts.append(f"{values.get('player_b', '?')}/{values.get('player_w', '?')}")
    if "virtual_rate" in values:
        rate = values["virtual_rate"]
        parts.append(f"v={rate:g}" if rate == rate else "v=?")  # NaN: unknown
    if "max_actions" in values:
        parts.append(f"cap={values['max_actions']}")
    return " ".join(parts)


def add_config(df: pd.DataFrame) -> pd.DataFrame:
    """Add a categorical ``config`` column: one label per combination of CONFIG_COLUMNS present.

    Runs with the same settings share a config. Returns the same frame (modified in place).
    """
    cols = [c for c in CONFIG_COLUMNS if c in df.columns]
    if not cols:
        df["config"] = pd.Categorical(["all"] * len(df))
        return df
    grouped = df.groupby(cols, observed=True, sort=True, dropna=False)
    codes = grouped.ngroup().to_numpy()
    keys = grouped.size().index.to_frame(index=False)
    labels = [config_label(row) for row in keys.to_dict("records")]
    # identical labels (e.g. values that print alike) are merged
    uniq = list(dict.fromkeys(labels))
    remap = np.array([uniq.index(lab) for lab in labels], dtype=np.int32)
    df["config"] = pd.Categorical.from_codes(remap[codes], categories=uniq)
    return df


def group_columns(df: pd.DataFrame, by) -> list[str]:
    """``by_columns(by)``; ``by`` may name ``config`` or ``players``, which are added to ``df``
    (``add_config``, ``pairing``) when absent."""
    cols = by_columns(by)
    if "config" in cols and "config" not in df.columns:
        add_config(df)
    if "players" in cols and "players" not in df.columns:
        df["players"] = pairing(df)
    return cols


def split(df: pd.DataFrame, by) -> tuple[np.ndarray, pd.DataFrame]:
    """Group codes 0..G-1 for every row and the key table (one row per code, sorted); ``by``
    as in ``group_columns``. With ``by=None`` every row is in group 0 and the key table has
    no columns.
    """
    cols = group_columns(df, by)
    if not cols:
        return np.zeros(len(df), dtype=np.int64), pd.DataFrame(index=range(1))
    grouped = df.groupby(cols, observed=True, sort=True, dropna=False)
    codes = grouped.ngroup().to_numpy(dtype=np.int64)
    keys = grouped.size().index.to_frame(index=False)
    return codes, keys


def with_keys(keys: pd.DataFrame, table: pd.DataFrame, group_index: np.ndarray) -> pd.DataFrame:
    """Prefix ``table`` with the key columns of the groups named in ``group_index``."""
    if keys.shape[1] == 0:
        return table.reset_index(drop=True)
    left = keys.iloc[group_index].reset_index(drop=True)
    return pd.concat([left, table.reset_index(drop=True)], axis=1)
