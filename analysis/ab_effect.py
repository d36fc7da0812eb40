"""The A/B effect: where 计枰点 A版 (``jpd_a``) and B版 (``jpd_b``) name different winners.

Both score the JPD area difference d. A版 charges Black komi_a plus one point when White was
first to pass or play a virtual move; B版 charges komi_b. So
``margin_a - margin_b = komi_b - komi_a - [White first]``: with the default komis (6.5, 7.5)
the margins are equal when White was first and A版 is one point kinder to Black otherwise,
and the winners differ exactly when Black was first (or nobody passed) and d = 7.
``by_komi`` follows the effect across the komis of a komi sweep.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import counts, finishes_last, groups, komi_sweep, stats
from analysis.disagreement import winner_codes
from analysis.finishes_last import player_codes
from sim.schema.tables import FIRST, LAST

COLUMNS = ("winner_jpd_a", "winner_jpd_b", "margin_jpd_a", "margin_jpd_b", FIRST, "area_diff_jpd")
_FIRST_LABELS = ("B", "W", "none")
#: The komi ``by_komi`` splits by: B版's, which a komi sweep names.
KOMI = "komi_jpd_b"


def _differ(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    a, b = winner_codes(df["winner_jpd_a"]), winner_codes(df["winner_jpd_b"])
    both = (a >= 0) & (b >= 0)
    return both, both & (a != b)


def _shift(df: pd.DataFrame) -> np.ndarray:
    return df["margin_jpd_a"].to_numpy(dtype=np.float64) - df["margin_jpd_b"].to_numpy(
        dtype=np.float64
    )


def ab_summary(data, by=None) -> pd.DataFrame:
    """Games with both winners, how many differ (rate, 95% Wilson lo/hi), the share where
    White was first to pass or virtual, and the mean margin shift A − B (points)."""
    df = counts.frame(data, COLUMNS, by)
    codes, keys = groups.split(df, by)
    g = len(keys)
    w = stats.weights(df)
    both, differ = _differ(df)
    shift = _shift(df)
    ok = np.isfinite(shift)
    white_first = player_codes(df[FIRST]) == 1
    out = pd.DataFrame(
        {
            "games": stats.bincount(codes[both], g, w[both]),
            "differ": stats.bincount(codes[differ], g, w[differ]),
        }
    )
    out = stats.rate_columns(out, "differ", "games")
    n_all = stats.bincount(codes, g, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["white first share"] = np.bincount(codes, weights=white_first * w, minlength=g) / n_all
        out["mean shift A-B (points)"] = np.bincount(
            codes[ok], weights=shift[ok] * w[ok], minlength=g
        ) / stats.bincount(codes[ok], g, w[ok])
    return groups.with_keys(keys, out, np.arange(g))


def ab_by_first(data, by=None) -> pd.DataFrame:
    """``ab_summary`` split by who was first to pass or play a virtual move (B / W / none)."""
    df = counts.frame(data, COLUMNS, by)
    cols = groups.group_columns(df, by)
    work = stats.select(df, cols + list(COLUMNS[:5]))
    work["first pass or virtual"] = pd.Categorical.from_codes(
        player_codes(df[FIRST]), categories=list(_FIRST_LABELS)
    )
    out = ab_summary(work, by=cols + ["first pass or virtual"])
    return out.drop(columns=["white first share"])


def ab_explain(data) -> pd.DataFrame:
    """The games where A版 and B版 winners differ, counted by who was first to pass or virtual,
    the JPD area difference (points) and the two winners; most frequent first."""
    df = counts.frame(data, COLUMNS)
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
    sub["games"] = stats.weights(df)[differ]
    out = sub.groupby(cols, dropna=False, observed=True)["games"].sum().reset_index()
    out["share"] = out["games"] / out["games"].sum()
    return out.sort_values(["games", "area_diff_jpd"], ascending=[False, True], ignore_index=True)


def area_diff_histogram(data) -> pd.DataFrame:
    """Counts of games by JPD area difference (points): all games and those where A and B differ,
    split by who was first to pass or virtual (columns ``all``, ``differ first B`` ...)."""
    df = counts.frame(data, COLUMNS)
    w = stats.weights(df)
    both, differ = _differ(df)
    d2 = np.rint(df["area_diff_jpd"].to_numpy(dtype=np.float64) * 2)
    ok = np.isfinite(d2) & both
    lo = int(d2[ok].min()) if ok.any() else 0
    idx = (d2[ok] - lo).astype(np.int64)
    size = int(idx.max()) + 1 if idx.size else 1
    first = player_codes(df[FIRST])[ok]
    out = pd.DataFrame({"area_diff_jpd": (np.arange(size) + lo) / 2})
    w = w[ok]
    out["all"] = stats.bincount(idx, size, w)
    for j, name in enumerate(_FIRST_LABELS):
        sel = differ[ok] & (first == j)
        out[f"differ, first {name}"] = stats.bincount(idx[sel], size, w[sel])
    return out[out["all"] > 0].reset_index(drop=True)


def by_komi(data, by=None) -> pd.DataFrame:
    """The A/B effect per komi of B版 (``komi_jpd_b``, the komi a sweep varies) and group:
    its distance from the fitted fair komi of B版 (``komi_sweep.fitted_fair_komi``; NaN when the
    komis do not bracket it), the games, how many of those with both winners the A版 point
    decides (``differ``, rate lo hi: ``ab_summary``), the games where White was first to pass
    or virtual and where Black finished last (``finishes_last.player_shares``), and Black's
    B版 score (``komi_sweep.sweep_curve``), each rate with its 95% Wilson interval."""
    cols = groups.by_columns(by)
    keys = [*cols, KOMI]
    shares = finishes_last.player_shares(data, by=keys).set_index("column")
    out = shares.loc[[FIRST], keys + ["games"]].reset_index(drop=True)
    fair = komi_sweep.fitted_fair_komi(data, ["jpd_b"], by=cols, n_boot=0)
    fair = out[cols].merge(fair, on=cols, how="left") if cols else fair.iloc[[0] * len(out)]
    out.insert(len(keys), "from fair komi (points)", out[KOMI] - fair["fair komi"].to_numpy())
    ab = ab_summary(data, by=keys).drop(columns="white first share")
    ab = ab.rename(
        columns={
            "games": "both winners",
            "rate": "differ rate",
            "lo": "differ lo",
            "hi": "differ hi",
        }
    )
    out = out.merge(ab, on=keys, how="left")
    for name, column, player in (("white first", FIRST, "W"), ("black last", LAST, "B")):
        out[name] = shares.loc[[column], player].to_numpy()
        out = stats.rate_columns(out, name, "games", prefix=f"{name} ")
    score = {"komi": KOMI} | {f"score{c}": f"black score{c}" for c in ("", " lo", " hi")}
    curve = komi_sweep.sweep_curve(data, ["jpd_b"], by=cols).rename(columns=score)
    return out.merge(curve[[*cols, *score.values()]], on=keys, how="left")
