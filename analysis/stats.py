"""Small statistics shared by the analyses: Wilson intervals, grouping, histogram quantiles."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

Z95 = 1.959963984540054  # two-sided 95% normal quantile


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


def by_columns(by) -> list[str]:
    """Normalise a ``by`` argument (None, a name or a list of names) to a list."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def group_columns(df: pd.DataFrame, by) -> list[str]:
    """``by_columns(by)``; ``by`` may name ``config``, which is added to ``df``
    (``load.add_config``) when absent."""
    cols = by_columns(by)
    if "config" in cols and "config" not in df.columns:
        from analysis.load import add_config

        add_config(df)
    return cols


def groups(df: pd.DataFrame, by) -> tuple[np.ndarray, pd.DataFrame]:
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


def counts_2d(codes: np.ndarray, values: np.ndarray, n_groups: int, n_values: int) -> np.ndarray:
    """A (groups x values) count table; rows where ``values`` < 0 are not counted."""
    ok = values >= 0
    flat = codes[ok] * n_values + values[ok]
    return np.bincount(flat, minlength=n_groups * n_values).reshape(n_groups, n_values)


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


def bootstrap_counts(counts: np.ndarray, n_boot: int, seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of a histogram: ``n_boot`` multinomial draws of the same total.

    Resampling the games of an integer-valued statistic is exactly a multinomial draw of its
    histogram, so this costs O(bins) per replicate whatever the number of games.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return np.zeros((n_boot, counts.size), dtype=np.int64)
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, counts / n, size=n_boot)
