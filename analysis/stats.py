"""Small statistics shared by the analyses: Wilson intervals, histogram quantiles, the
columns derived from a game's columns, and the weighted frames every table is computed from.

A table function takes a games frame: either one row per game, or a weighted frame
(``analysis.counts``), one row per combination of values with the number of games that have
it in column ``WEIGHT`` and, in summed columns, the sum over those games. A frame without
``WEIGHT`` weighs every row 1, so one piece of code computes a table from rows and from counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from sim.schema.tables import RULESET_SCORE

Z95 = 1.959963984540054  # two-sided 95% normal quantile
#: The column of a weighted frame that counts the games of each row.
WEIGHT = "weight"


def weights(df: pd.DataFrame) -> np.ndarray:
    """The number of games of each row (int64): ``WEIGHT``, or 1 for a frame of games."""
    if WEIGHT in df.columns:
        return df[WEIGHT].to_numpy(dtype=np.int64)
    return np.ones(len(df), dtype=np.int64)


def select(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """A copy of ``columns`` of a frame, with its weights when it has them."""
    return df[columns + [WEIGHT] * (WEIGHT in df.columns)].copy()


def games(df: pd.DataFrame) -> int:
    """The number of games a (weighted) frame stands for."""
    return int(weights(df).sum())


def extra(df: pd.DataFrame, ruleset: str) -> np.ndarray:
    """The extra point charged to Black (0 or 1) in every game under ``ruleset``
    (``sim.schema.tables.RULESET_SCORE``)."""
    trigger = RULESET_SCORE[ruleset][1]
    if trigger is None:
        return np.zeros(len(df), dtype=np.int8)
    column, player = trigger
    return (df[column] == player).to_numpy(dtype=np.int8)


def _self_check(df: pd.DataFrame) -> np.ndarray:
    """0: not checked (a result missing), 1: equal-stones result = JPD area result with the
    A版 point, 2: they differ (``analysis.cycles.self_check``)."""
    esd = df["equal_stones_diff"].to_numpy(dtype=np.float64)
    expected = df["area_diff_jpd"].to_numpy(dtype=np.float64) - extra(df, "jpd_a")
    checked = np.isfinite(esd) & np.isfinite(expected)
    bad = checked & (np.abs(esd - expected) > 1e-6)
    return np.where(bad, 2, checked.astype(np.int8)).astype(np.int8)


#: Columns computed from a game's columns: name -> (the game columns it is computed from, how).
#: A weighted frame keeps them as keys (a summed column loses what they tell), a frame of games
#: gets them on demand (``column``).
DERIVED = {
    "with a ban": (("repetition_bans",), lambda df: df["repetition_bans"].to_numpy() > 0),
    "with a conversion": (("converted_passes",), lambda df: df["converted_passes"].to_numpy() > 0),
    "self-check": (
        ("equal_stones_diff", "area_diff_jpd", RULESET_SCORE["jpd_a"][1][0]),
        _self_check,
    ),
}


def inputs(name: str) -> tuple[str, ...]:
    """The game columns a column is read from: its ``DERIVED`` inputs, or itself."""
    return DERIVED[name][0] if name in DERIVED else (name,)


def column(df: pd.DataFrame, name: str) -> np.ndarray:
    """A derived column (``DERIVED``) of a frame: stored, or computed from its inputs."""
    if name in df.columns:
        return df[name].to_numpy()
    sources, compute = DERIVED[name]
    return np.asarray(compute(df[list(sources)]))


def wilson(k, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for k successes in n trials (arrays or scalars); NaN where n == 0.

    Always 0 <= lo <= k/n <= hi <= 1 exactly: at k = 0 (k = n) the formula's lower (upper)
    bound is 0 (1) only up to rounding, and a bound a hair past the point estimate would make
    a negative error bar."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        lo = np.clip(np.minimum(centre - half, p), 0.0, 1.0)
        hi = np.clip(np.maximum(centre + half, p), 0.0, 1.0)
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    return lo, hi


def rate_columns(table: pd.DataFrame, k: str, n: str, prefix: str = "") -> pd.DataFrame:
    """Add ``{prefix}rate``, ``{prefix}lo``, ``{prefix}hi`` (k/n with its 95% Wilson interval)."""
    kk = table[k].to_numpy(dtype=float)
    nn = table[n].to_numpy(dtype=float)
    lo, hi = wilson(kk, nn)
    with np.errstate(invalid="ignore", divide="ignore"):
        table[f"{prefix}rate"] = np.where(nn > 0, kk / np.where(nn > 0, nn, 1), np.nan)
    table[f"{prefix}lo"] = lo
    table[f"{prefix}hi"] = hi
    return table


def codes(values: pd.Series, vocab: Sequence[str]) -> np.ndarray:
    """int8 position of each value in ``vocab``; -1 for nulls and values outside it."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        cats = list(values.cat.categories)
        lookup = np.array(
            [vocab.index(c) if c in vocab else -1 for c in cats] + [-1], dtype=np.int8
        )
        return lookup[values.cat.codes.to_numpy()]
    return pd.Categorical(values, categories=list(vocab)).codes.astype(np.int8)


def bincount(codes: np.ndarray, n: int, weights=None) -> np.ndarray:
    """``np.bincount`` of ``codes`` (length ``n``), int64 counts when the weights are integers
    or absent."""
    if weights is None:
        return np.bincount(codes, minlength=n)
    out = np.bincount(codes, weights=weights, minlength=n)
    return out.astype(np.int64) if np.issubdtype(np.asarray(weights).dtype, np.integer) else out


def counts_2d(
    codes: np.ndarray, values: np.ndarray, n_groups: int, n_values: int, weights=None
) -> np.ndarray:
    """A (groups x values) count table (games: ``weights`` per row); rows where ``values`` < 0
    are not counted."""
    ok = values >= 0
    flat = codes[ok] * n_values + values[ok]
    w = None if weights is None else np.asarray(weights)[ok]
    return bincount(flat, n_groups * n_values, w).reshape(n_groups, n_values)


def hist_quantiles(counts: np.ndarray, values: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """Quantiles (lower, as ``np.quantile(method='inverted_cdf')``) from a histogram.

    counts: (G, V) counts of the sorted ``values``; returns (G, len(qs)), NaN for empty rows.
    """
    counts = np.atleast_2d(counts)
    total = counts.sum(axis=1, keepdims=True)
    cum = np.cumsum(counts, axis=1)
    out = np.full((counts.shape[0], len(qs)), np.nan)
    for j, q in enumerate(qs):
        target = np.ceil(q * total[:, 0]).clip(min=1)
        idx = np.array([np.searchsorted(c, t) for c, t in zip(cum, target)], dtype=np.int64)
        idx = idx.clip(max=len(values) - 1)
        out[:, j] = np.where(total[:, 0] > 0, np.asarray(values)[idx], np.nan)
    return out


def quantiles(values: np.ndarray, weights: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """Quantiles of ``values`` each repeated ``weights`` times, as ``np.quantile`` (method
    'linear', the same arithmetic) computes them from the repeated values."""
    order = np.argsort(values, kind="stable")
    v = np.asarray(values, dtype=np.float64)[order]
    cum = np.cumsum(np.asarray(weights, dtype=np.int64)[order])
    n = int(cum[-1])
    out = np.empty(len(qs))
    for j, q in enumerate(qs):
        virtual = n * q - q  # numpy's virtual index of 'linear'
        below = np.floor(virtual)
        t = virtual - below
        a, b = (v[np.searchsorted(cum, min(i, n - 1), side="right")] for i in (below, below + 1))
        out[j] = b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t  # numpy's _lerp
    return out
