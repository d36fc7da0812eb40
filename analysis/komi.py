"""Komi: Black's win, draw and loss rates as a function of komi, and the fair komi.

For every ruleset the stored raw difference (``sim.schema.tables.RULESET_SCORE``) minus the
ruleset's extra point (``extra``) is Black's lead x before komi, so Black wins under komi k
when x > k, draws when x = k. Every computation works on the histogram of x in half points
(scores are whole or half points), never on rows: the whole analysis costs one ``bincount``
per ruleset.

Fair komi: the komi at which Black's score rate (wins + half the draws) is one half, read off
by linear interpolation between half-point komis; for a distribution symmetric about m it is
m. Its interval is a percentile bootstrap on multinomial redraws of the histogram.
Games without a score (endings cycle, move_limit and resign) are left out.

The fair komi fitted from games played at several komis: ``analysis.komi_sweep``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import counts, groups, stats
from analysis.stats import extra
from sim.komi import fitting
from sim.schema.tables import (
    DEFAULT_KOMI,
    FIRST,
    LAST,
    RULESET_METHOD,
    RULESET_SCORE,
    RULESETS,
    UNSCORED_ENDINGS,
)

#: The scoring method behind each ruleset (for labels).
COLUMNS = ("ending", FIRST, LAST, "area_diff_jpd", "area_diff_chinese", "territory_diff_japanese")


def black_lead(df: pd.DataFrame, ruleset: str) -> tuple[np.ndarray, np.ndarray]:
    """(lead2, scored): Black's lead before komi in half points (int64; lead = lead2 / 2, 0
    where unscored) and whether each game has a score."""
    raw = df[RULESET_SCORE[ruleset][0]].to_numpy(dtype=np.float64)
    lead2 = np.rint((raw - extra(df, ruleset)) * 2)
    scored = np.isfinite(lead2)
    if "ending" in df.columns:
        scored &= ~df["ending"].isin(UNSCORED_ENDINGS).to_numpy()
    return np.where(scored, lead2, 0).astype(np.int64), scored


def _frame(data, ruleset: str, by=None) -> pd.DataFrame:
    """The frame with what Black's lead under ``ruleset`` needs (``analysis.counts.frame``)."""
    raw, trigger = RULESET_SCORE[ruleset]
    return counts.frame(data, ("ending", raw) + (trigger[:1] if trigger else ()), by)


def histogram(data, ruleset: str, by=None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """(keys, leads, counts): counts[g, i] = scored games of group g with Black's lead leads[i]
    (points, a half-point grid that starts one step below the lowest lead and ends one above)."""
    df = _frame(data, ruleset, by)
    codes, keys = groups.split(df, by)
    lead2, scored = black_lead(df, ruleset)
    if scored.any():
        lo, hi = int(lead2[scored].min()) - 1, int(lead2[scored].max()) + 1
    else:
        lo, hi = -1, 1
    size = hi - lo + 1
    w = stats.weights(df)[scored]
    hist = stats.counts_2d(codes[scored], lead2[scored] - lo, len(keys), size, w)
    return keys, (np.arange(size) + lo) / 2, hist


def rates_at(
    leads: np.ndarray, counts: np.ndarray, komis
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Black's (win, draw, loss) rates at each komi from one histogram (1-D counts)."""
    komis = np.asarray(komis, dtype=np.float64)
    cum = np.concatenate([[0], np.cumsum(counts)])
    n = cum[-1]
    below = cum[np.searchsorted(leads, komis, side="left")]
    upto = cum[np.searchsorted(leads, komis, side="right")]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (n - upto) / n, (upto - below) / n, below / n


def _default_komis(data, rulesets) -> np.ndarray:
    lows, highs = [], []
    for r in rulesets:
        df = _frame(data, r)
        lead2, scored = black_lead(df, r)
        if scored.any():
            q = stats.quantiles(lead2[scored], stats.weights(df)[scored], [0.01, 0.99]) / 2
            lows.append(q[0])
            highs.append(q[1])
    if not lows:
        return np.arange(0, 15.5, 0.5)
    return np.arange(np.floor(min(lows)) - 2, np.ceil(max(highs)) + 2.5, 0.5)


def komi_curves(data, rulesets=RULESETS, komis=None, by=None) -> pd.DataFrame:
    """Long table: [by], ruleset, komi, games, win, draw, loss (Black's rates).

    komis: the komi values (default: half points covering the central 98% of leads)."""
    komis = _default_komis(data, rulesets) if komis is None else np.asarray(komis, dtype=np.float64)
    frames = []
    for r in rulesets:
        keys, leads, hist = histogram(data, r, by)
        for g in range(len(keys)):
            win, draw, loss = rates_at(leads, hist[g], komis)
            out = pd.DataFrame(
                {
                    "ruleset": r,
                    "komi": komis,
                    "games": hist[g].sum(),
                    "win": win,
                    "draw": draw,
                    "loss": loss,
                }
            )
            frames.append(groups.with_keys(keys, out, np.full(len(komis), g)))
    return pd.concat(frames, ignore_index=True)


def win_table(curves: pd.DataFrame, komis=None) -> pd.DataFrame:
    """Black's win rate by komi (rows) and ruleset (columns) from ``komi_curves`` (no groups),
    at the given komis (default: every whole and half point from 4 to 9)."""
    komis = np.arange(4, 9.5, 0.5) if komis is None else np.asarray(komis, dtype=np.float64)
    sub = curves[np.isin(curves["komi"], komis)]
    wide = sub.pivot(index="komi", columns="ruleset", values="win")
    wide = wide[[r for r in curves["ruleset"].unique() if r in wide.columns]]
    wide.columns.name = None
    return wide.reset_index()


def fair_komi_from_counts(leads: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Fair komi of one histogram (1-D) or of many (2-D, one per row); NaN when empty.

    ``leads`` must be an evenly spaced grid whose first and last bins are empty."""
    counts = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    n = counts.sum(axis=1, keepdims=True)
    above = n - np.cumsum(counts, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = (above + 0.5 * counts) / n
    j = np.argmax(score <= 0.5, axis=1).clip(min=1)
    rows = np.arange(counts.shape[0])
    s0, s1 = score[rows, j - 1], score[rows, j]
    step = leads[1] - leads[0] if len(leads) > 1 else 0.5
    with np.errstate(invalid="ignore", divide="ignore"):
        k = leads[j - 1] + (s0 - 0.5) / (s0 - s1) * step
    return np.where(n[:, 0] > 0, k, np.nan)


def fair_komi(
    data,
    rulesets=RULESETS,
    by=None,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """One row per ruleset (and group): scored games, the fair komi (points) with its bootstrap
    interval (fair komi lo / hi), the default komi and Black's score rate (wins + draws/2) at it."""
    rows = []
    for r in rulesets:
        keys, leads, hist = histogram(data, r, by)
        for g in range(len(keys)):
            c = hist[g]
            fair = fair_komi_from_counts(leads, c)[0]
            if c.sum() > 0 and n_boot > 0:
                boot = fair_komi_from_counts(leads, fitting.bootstrap_counts(c, n_boot, seed))
                lo, hi = np.nanquantile(boot, [(1 - level) / 2, (1 + level) / 2])
            else:
                lo = hi = np.nan
            win, draw, _ = rates_at(leads, c, [DEFAULT_KOMI[r]])
            row = {
                "ruleset": r,
                "method": RULESET_METHOD[r],
                "games": int(c.sum()),
                "fair komi": fair,
                "fair komi lo": lo,
                "fair komi hi": hi,
                "default komi": DEFAULT_KOMI[r],
                "black score at default": win[0] + draw[0] / 2,
            }
            rows.append(groups.with_keys(keys, pd.DataFrame([row]), np.array([g])))
    return pd.concat(rows, ignore_index=True)
