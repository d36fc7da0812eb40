"""Who finishes last (收后方, ``last_real_move_by``) and who first passed or played a virtual
move (``first_pass_or_virtual_by``): distributions, cross-table, how often they are not
opposite players, and how that relates to the parity of the JPD area difference.

The two players decide the extra point of 唐宋版 (Black finished last) and of A版 (White was
first to pass or virtual): when they are the same player exactly one of the two rulesets
charges Black the point.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import counts, groups, stats
from sim.schema.tables import FIRST, LAST

PLAYERS = ("B", "W")
COLUMNS = (LAST, FIRST, "area_diff_jpd")
#: How the two players relate in one game.
RELATIONS = ("opposite", "same", "no pass or virtual", "no real move")
PARITIES = ("even", "odd", "not whole")


def player_codes(values: pd.Series) -> np.ndarray:
    """int8 codes: 0 = B, 1 = W, 2 = none (null)."""
    c = stats.codes(values, PLAYERS)
    return np.where(c < 0, 2, c).astype(np.int8)


def relation_codes(df: pd.DataFrame) -> np.ndarray:
    """int8 index into RELATIONS for every game."""
    last, first = player_codes(df[LAST]), player_codes(df[FIRST])
    rel = np.where(last == first, 1, 0).astype(np.int8)
    rel[first == 2] = 2
    rel[last == 2] = 3
    return rel


def parity_codes(diff: pd.Series) -> np.ndarray:
    """int8 index into PARITIES of a score difference (NaN counts as ``not whole``)."""
    d2 = np.rint(diff.to_numpy(dtype=np.float64) * 2)
    whole = np.isfinite(d2) & (np.mod(d2, 2) == 0)
    odd = whole & (np.mod(d2, 4) == 2)
    return np.where(whole, np.where(odd, 1, 0), 2).astype(np.int8)


def player_shares(data, by=None) -> pd.DataFrame:
    """Counts and shares of B / W / none for both columns (one row per column and group)."""
    df = counts.frame(data, COLUMNS, by)
    codes, keys = groups.split(df, by)
    frames = []
    for col in (LAST, FIRST):
        codes_col = player_codes(df[col]).astype(np.int64)
        t = stats.counts_2d(codes, codes_col, len(keys), 3, stats.weights(df))
        games = t.sum(axis=1)
        out = pd.DataFrame(
            {"column": col, "games": games, "B": t[:, 0], "W": t[:, 1], "none": t[:, 2]}
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            for j, name in enumerate(("B", "W", "none")):
                out[f"{name} share"] = t[:, j] / games
        frames.append(groups.with_keys(keys, out, np.arange(len(keys))))
    return pd.concat(frames, ignore_index=True)


def crosstab(data, normalize: bool = False) -> pd.DataFrame:
    """last_real_move_by (rows) x first_pass_or_virtual_by (columns), B / W / none;
    shares of all games when ``normalize``."""
    df = counts.frame(data, COLUMNS)
    last, first = player_codes(df[LAST]), player_codes(df[FIRST])
    t = stats.bincount(last.astype(np.int64) * 3 + first, 9, stats.weights(df)).reshape(3, 3)
    labels = ["B", "W", "none"]
    out = pd.DataFrame(
        t,
        index=pd.Index(labels, name="finished last"),
        columns=pd.Index(labels, name="first pass or virtual"),
    )
    return out / max(t.sum(), 1) if normalize else out


def relations(data, by=None) -> pd.DataFrame:
    """Counts of each relation and the not-opposite rate (``same`` / games where both players
    are defined) with its 95% Wilson interval."""
    df = counts.frame(data, (LAST, FIRST), by)
    codes, keys = groups.split(df, by)
    rel = relation_codes(df).astype(np.int64)
    t = stats.counts_2d(codes, rel, len(keys), len(RELATIONS), stats.weights(df))
    out = pd.DataFrame({"games": t.sum(axis=1)})
    for j, name in enumerate(RELATIONS):
        out[name] = t[:, j]
    out["both defined"] = t[:, 0] + t[:, 1]
    out = stats.rate_columns(out, "same", "both defined", prefix="not opposite ")
    return groups.with_keys(keys, out, np.arange(len(keys)))


def parity_table(data, by=None) -> pd.DataFrame:
    """``relations`` split by the parity of ``area_diff_jpd`` (even / odd / not whole)."""
    df = counts.frame(data, COLUMNS, by)
    cols = groups.group_columns(df, by)
    work = stats.select(df, cols + [LAST, FIRST])
    work["area diff parity"] = pd.Categorical.from_codes(
        parity_codes(df["area_diff_jpd"]), categories=list(PARITIES)
    )
    return relations(work, by=cols + ["area diff parity"])
