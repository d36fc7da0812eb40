"""The fair komi fitted from games played at several komis, and its bootstrap interval.

Black's score rate (wins + draws/2, over the games with a result) at each komi played is
fitted by a non-increasing curve: the isotonic regression weighted by the games (pool adjacent
violators), then the broken line through the fitted points; the fair komi is where it crosses
1/2 (the middle, where it is 1/2 over a stretch). Model-free on purpose: Black's score against
komi is a step function of the lead distribution (steps at whole and half points, draws at
whole-point komis, two humps on small boards), which a logistic curve would bend, biasing the
crossing. The interval is a percentile bootstrap: multinomial redraws of each komi's (wins,
draws, losses), which is exactly a redraw of its games.

Pure numpy: the analysis (``analysis.komi_sweep``) prints it, and a komi search steers by it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Komis around the crossing further apart than this (points) are a gap: the fitted fair komi's
#: interval then covers the whole of it.
GAP = 1.0


def bootstrap_counts(counts: np.ndarray, n_boot: int, seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of a histogram: ``n_boot`` multinomial draws of the same total.

    Resampling the games of an integer-valued statistic is exactly a multinomial draw of its
    histogram, so this costs O(bins) per replicate whatever the number of games. ``counts``
    may hold several histograms along its last axis (shape ``(..., bins)``), each redrawn
    with its own total, independently: the replicates are ``(n_boot, ..., bins)``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = counts.sum(axis=-1)
    p = counts / np.maximum(n, 1)[..., None]
    p[..., -1] += n == 0  # an empty histogram draws nothing, from any probabilities
    return np.random.default_rng(seed).multinomial(n, p, size=(n_boot, *counts.shape[:-1]))


def score(c: np.ndarray) -> np.ndarray:
    """Black's score rate (wins + draws/2) / games from (..., wins draws losses) counts."""
    return (c[..., 0] + c[..., 1] / 2) / c.sum(axis=-1)


def isotonic(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The weighted least-squares non-increasing fit of ``y`` (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [mean, weight, length]
    for yi, wi in zip(y, w):
        blocks.append([yi, wi, 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks[-1]
            blocks[-1] = [(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2]
    return np.repeat([b[0] for b in blocks], [b[2] for b in blocks])


def crossing(komis: np.ndarray, fitted: np.ndarray) -> float:
    """Where the non-increasing broken line through (komis, fitted) meets 1/2: the middle of
    the komis where it equals 1/2; -inf when it is below 1/2 at the lowest komi, +inf when it
    is above 1/2 at the highest (the komis do not bracket the answer)."""
    if fitted[0] < 0.5:
        return -np.inf
    if fitted[-1] > 0.5:
        return np.inf

    def at(a: int) -> float:  # the crossing between komis a and a + 1
        return komis[a] + (fitted[a] - 0.5) / (fitted[a] - fitted[a + 1]) * (
            komis[a + 1] - komis[a]
        )

    first = int(np.argmax(fitted <= 0.5))  # the first komi at or below 1/2
    last = len(fitted) - 1 - int(np.argmax(fitted[::-1] >= 0.5))  # the last at or above
    low = komis[0] if first == 0 else at(first - 1)
    high = komis[-1] if last == len(fitted) - 1 else at(last)
    return (low + high) / 2


def value_crossing(komis, values) -> float:
    """Where ``values`` at the sorted ``komis`` (a search's value for Black, not games) fall
    through 1/2, read as a fair komi is: their non-increasing fit, ``crossing``."""
    values = np.asarray(values, np.float64)
    return crossing(np.asarray(komis, np.float64), isotonic(values, np.ones(len(values))))


def bracket(komis: np.ndarray, fitted: np.ndarray) -> tuple[float, float]:
    """The komis played on either side of where a bracketed fit (``crossing``) meets 1/2:
    the last komi where the fitted score is above 1/2 and the first where it is below; where
    it is 1/2 exactly, the two neighbours furthest apart among those komis (equal when one
    komi is); (NaN, NaN) when the fit does not bracket 1/2. No game was played between
    them: a crossing read between komis far apart is an interpolation across a gap."""
    if len(komis) == 0 or fitted[0] < 0.5 or fitted[-1] > 0.5:
        return np.nan, np.nan
    even = komis[fitted == 0.5]  # neighbours: the fit does not increase
    if len(even):
        a = int(np.argmax(np.diff(even))) if len(even) > 1 else 0
        return float(even[a]), float(even[min(a + 1, len(even) - 1)])
    a = int(np.flatnonzero(fitted > 0.5)[-1])
    return float(komis[a]), float(komis[a + 1])


class Fit(NamedTuple):
    """A fitted fair komi: ``fair`` (±inf when the komis do not bracket it, NaN without
    games), its interval ``lo``–``hi`` (NaN without a bootstrap, ±inf past the komis played),
    ``around`` (``bracket``) and the ``fitted`` score at each komi."""

    fair: float
    lo: float
    hi: float
    around: tuple[float, float]
    fitted: np.ndarray


def fit(komis: np.ndarray, counts: np.ndarray, boot=None, level: float = 0.95) -> Fit:
    """The fair komi of (wins, draws, losses) ``counts`` at each of the sorted ``komis``
    played, with the ``level`` percentile interval of its bootstrap replicates ``boot``
    (``bootstrap_counts(counts)``; None: no interval). Across a gap (``GAP``) the interval
    covers the whole gap, however sure the bootstrap is of the interpolation."""
    if len(komis) == 0:
        return Fit(np.nan, np.nan, np.nan, (np.nan, np.nan), np.empty(0))
    fitted = isotonic(score(counts), counts.sum(axis=-1))
    fair = crossing(komis, fitted)
    lo = hi = np.nan
    if boot is not None and np.isfinite(fair):
        fits = [crossing(komis, isotonic(score(b), b.sum(axis=-1))) for b in boot]
        lo, hi = np.quantile(fits, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf")
    around = bracket(komis, fitted)
    if around[1] - around[0] > GAP:  # no bootstrap sees inside a gap: it is all open
        lo, hi = min(lo, around[0]), max(hi, around[1])  # NaN (no bootstrap) stays
    return Fit(fair, lo, hi, around, fitted)
