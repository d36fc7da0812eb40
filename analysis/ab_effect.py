"""The A/B effect: where 计枰点 A版 (``jpd_a``) and B版 (``jpd_b``) name different winners.

Both score the JPD area difference d. A版 charges Black komi_a plus one point when White was
first to pass or play a virtual move; B版 charges komi_b. So
``margin_a - margin_b = komi_b - komi_a - [White first]``: with the default komis (6.5, 7.5)
the margins are equal when White was first and A版 is one point kinder to Black otherwise,
and the winners differ exactly when Black was first (or nobody passed) and d = 7.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import stats
from analysis.disagreement import winner_codes
from analysis.finishes_last import FIRST, player_codes

COLUMNS = ("winner_jpd_a", "winner_jpd_b", "margin_jpd_a", "margin_jpd_b", FIRST, "area_diff_jpd")
_FIRST_LABELS = ("B", "W", "none")


def _differ(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    a, b = winner_codes(df["winner_jpd_a"]), winner_codes(df["winner_jpd_b"])
    both = (a >= 0) & (b >= 0)
    return both, both & (a != b)


def _shift(df: pd.DataFrame) -> np.ndarray:
    return df["margin_jpd_a"].to_numpy(dtype=np.float64) - df["margin_jpd_b"].to_numpy(
        dtype=np.float64
    )


def ab_summary(df: pd.DataFrame, by=None) -> pd.DataFrame:
    """Games with both winners, how many differ (rate, 95% Wilson lo/hi), the share where
    White was first to pass or virtual, and the mean margin shift A − B (points)."""
    codes, keys = stats.groups(df, by)
    g = len(keys)
    both, differ = _differ(df)
    shift = _shift(df)
    ok = np.isfinite(shift)
    white_first = player_codes(df[FIRST]) == 1
    out = pd.DataFrame(
        {
            "games": np.bincount(codes[both], minlength=g),
            "differ": np.bincount(codes[differ], minlength=g),
        }
    )
    out = stats.rate_columns(out, "differ", "games")
    n_all = np.bincount(codes, minlength=g)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["white first share"] = np.bincount(codes, weights=white_first, minlength=g) / n_all
        out["mean shift A-B (points)"] = np.bincount(
            codes[ok], weights=shift[ok], minlength=g
        ) / np.bincount(codes[ok], minlength=g)
    return stats.with_keys(keys, out, np.arange(g))


def ab_by_first(df: pd.DataFrame, by=None) -> pd.DataFrame:
    """``ab_summary`` split by who was first to pass or play a virtual move (B / W / none)."""
    cols = stats.group_columns(df, by)
    work = df[cols + list(COLUMNS[:5])].copy()
    work["first pass or virtual"] = pd.Categorical.from_codes(
        player_codes(df[FIRST]), categories=list(_FIRST_LABELS)
    )
    out = ab_summary(work, by=cols + ["first pass or virtual"])
    return out.drop(columns=["white first share"])


def ab_explain(df: pd.DataFrame) -> pd.DataFrame:
    """The games where A版 and B版 winners differ, counted by who was first to pass or virtual,
    the JPD area difference (points) and the two winners; most frequent first."""
    _, differ = _differ(df)
    first = player_codes(df[FIRST])[differ]
    sub = pd.DataFrame(
        {
            "first pass or virtual": np.asarray(_FIRST_LABELS, dtype=object)[first],
            "area_diff_jpd": df["area_diff_jpd"].to_numpy()[differ],
            "winner A": np.asarray(df["winner_jpd_a"].array[differ], dtype=object),
            "winner B": np.asarray(df["winner_jpd_b"].array[differ], dtype=object),
        }
    )
    cols = list(sub.columns)
    if sub.empty:
        return pd.DataFrame(columns=cols + ["games", "share"])
    out = sub.groupby(cols, dropna=False, observed=True).size().rename("games").reset_index()
    out["share"] = out["games"] / out["games"].sum()
    return out.sort_values(["games", "area_diff_jpd"], ascending=[False, True], ignore_index=True)


def area_diff_histogram(df: pd.DataFrame) -> pd.DataFrame:
    """Counts of games by JPD area difference (points): all games and those where A and B differ,
    split by who was first to pass or virtual (columns ``all``, ``differ first B`` ...)."""
    both, differ = _differ(df)
    d2 = np.rint(df["area_diff_jpd"].to_numpy(dtype=np.float64) * 2)
    ok = np.isfinite(d2) & both
    lo = int(d2[ok].min()) if ok.any() else 0
    idx = (d2[ok] - lo).astype(np.int64)
    size = int(idx.max()) + 1 if idx.size else 1
    first = player_codes(df[FIRST])[ok]
    out = pd.DataFrame({"area_diff_jpd": (np.arange(size) + lo) / 2})
    out["all"] = np.bincount(idx, minlength=size)
    for j, name in enumerate(_FIRST_LABELS):
        sel = differ[ok] & (first == j)
        out[f"differ, first {name}"] = np.bincount(idx[sel], minlength=size)
    return out[out["all"] > 0].reset_index(drop=True)
