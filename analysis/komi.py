"""Komi: Black's win, draw and loss rates as a function of komi, and the fair komi.

For every ruleset the stored raw difference (``sim.schema.RULESET_SCORE``) minus the ruleset's
extra point (``extra``) is Black's lead x before komi, so Black wins under komi k when x > k,
draws when x = k. Every computation works on the histogram of x in half points (scores are whole
or half points), never on rows: the whole analysis costs one ``bincount`` per ruleset.

Fair komi: the komi at which Black's score rate (wins + half the draws) is one half, read off
by linear interpolation between half-point komis; for a distribution symmetric about m it is
m. Its interval is a percentile bootstrap on multinomial redraws of the histogram.
Games without a score (endings cycle, move_limit and resign) are left out.

Fitted fair komi (``fitted_fair_komi``): from games played at several komis (a komi sweep, or
runs at different komis analysed together), the komi where a monotone fit of Black's score at
each komi played (``sweep_curve``) crosses one half; it reads each game's result at the komi
it was played at, so it holds for players whose play depends on komi. ``komi_study_table``
prints it (``jpdsim komi``).

Longer than 300 lines on purpose: both fair komis (from one komi's margins, from a sweep's
fitted crossing) share the histograms, the score and the bootstrap; split, they would repeat
them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import counts, groups, show, stats
from analysis.disagreement import winner_codes
from analysis.stats import extra
from sim.schema import (
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
                boot = fair_komi_from_counts(leads, stats.bootstrap_counts(c, n_boot, seed))
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


# --- the fitted fair komi: games played at several komis (a komi sweep) --------------------


def _sweep_counts(data, ruleset: str, by=None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """(keys, komis, counts): counts[g, j] = Black's (wins, draws, losses) in the games of
    group g played at komi komis[j] (the distinct ``komi_<ruleset>`` of games with a result)."""
    df = counts.frame(data, (f"komi_{ruleset}", f"winner_{ruleset}"), by)
    codes, keys = groups.split(df, by)
    outcome = winner_codes(df[f"winner_{ruleset}"])  # 0 B, 1 W, 2 draw, -1 no winner
    has = outcome >= 0
    komis, j = np.unique(df[f"komi_{ruleset}"].to_numpy(dtype=np.float64)[has], return_inverse=True)
    cells = codes[has] * len(komis) + j
    t = stats.counts_2d(cells, outcome[has], len(keys) * len(komis), 3, stats.weights(df)[has])
    return keys, komis, t.reshape(len(keys), len(komis), 3)[..., [0, 2, 1]]


def _score(c: np.ndarray) -> np.ndarray:
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
    is above 1/2 at the highest (the sweep does not bracket the answer)."""
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


def bracket(komis: np.ndarray, fitted: np.ndarray) -> tuple[float, float]:
    """The komis played on either side of where a bracketed fit (``crossing``) meets 1/2:
    the last komi where the fitted score is above 1/2 and the first where it is below, or the
    first and last where it is 1/2 exactly (equal when one komi is); (NaN, NaN) when the fit
    does not bracket 1/2. The fair komi lies between them: a crossing read between komis far
    apart is an interpolation across komis where no game was played."""
    if len(komis) == 0 or fitted[0] < 0.5 or fitted[-1] > 0.5:
        return np.nan, np.nan
    even = np.flatnonzero(fitted == 0.5)
    if len(even):
        return float(komis[even[0]]), float(komis[even[-1]])
    a = int(np.flatnonzero(fitted > 0.5)[-1])
    return float(komis[a]), float(komis[a + 1])


#: Komis around the crossing further apart than this (points) are a gap: the fitted fair komi's
#: interval then covers the whole of it, and its note says so.
GAP = 1.0


def _fit(komis: np.ndarray, c: np.ndarray) -> float:
    """The fitted fair komi of (komis, (wins, draws, losses) per komi): ``crossing`` of the
    ``isotonic`` fit of Black's score, each komi weighted by its games."""
    return crossing(komis, isotonic(_score(c), c.sum(axis=-1)))


def _note(
    komis: np.ndarray, fitted: np.ndarray, fair: float, interval: bool, around=(np.nan, np.nan)
) -> str:
    """Why a fitted fair komi (or, unless ``interval``, a bound of its interval) is missing,
    and whether the komis ``around`` the crossing (``bracket``) leave a gap; "" when
    nothing is to say."""
    if len(komis) == 0:
        return "no game with a result"
    if np.isfinite(fair):
        notes = []
        low, high = around
        if high - low > GAP:
            notes.append(
                f"a gap: no komi played between {low:g} and {high:g}, where the fit crosses "
                f"1/2; the fair komi lies anywhere between them (the interval covers them)"
            )
        if not interval:
            notes.append(
                f"the interval reaches past the komis played ({komis[0]:g} to {komis[-1]:g})"
            )
        return "; ".join(notes)
    end = 0 if fair < 0 else -1
    which = "only" if len(komis) == 1 else ("lowest" if fair < 0 else "highest")
    return (
        f"not bracketed: Black's score is {fitted[end]:.3f} at the {which} komi "
        f"{komis[end]:g}; the fair komi is {'lower' if fair < 0 else 'higher'}"
    )


def fitted_fair_komi(
    data,
    rulesets=RULESETS,
    by=None,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """The fair komi fitted from games played at several komis (a komi sweep, or runs at
    different komis): one row per ruleset (and group).

    Black's score rate (wins + draws/2, over the games with a result under the ruleset) at
    each komi played is fitted by a non-increasing curve: the isotonic regression weighted by
    the games (pool adjacent violators), then the broken line through the fitted points; the
    fair komi is where it crosses 1/2 (the middle, where it is 1/2 over a stretch). Model-free
    on purpose: Black's score against komi is a step function of the lead distribution (steps
    at whole and half points, draws at whole-point komis, two humps on small boards: 3x3 random
    games end at +9 or -9), which a logistic curve would bend, biasing the crossing; the broken
    line is the margin method's interpolation between half-point komis. The interval is a
    percentile bootstrap (``n_boot`` redraws of the games within each komi, ``seed``).

    Columns: [by], ruleset, method, games, komis (distinct komi values), fair komi, fair komi
    lo, fair komi hi, bracketed (Black's fitted score is at least 1/2 at the lowest komi and
    at most 1/2 at the highest), komi gap (points between the komis played on either side of
    the crossing, ``bracket``: more than ``GAP`` is a gap no game looked inside, and then the
    interval covers the whole of it, however sure the bootstrap is of the interpolation),
    fair komi (margins) (``fair_komi``, the margin method, on the
    scored games of the same rows: it pools their leads across komis, which is right only for
    players whose play ignores komi) and note (why a value is missing: e.g. "not bracketed:
    Black's score is 0.620 at the highest komi 8.5; the fair komi is higher", or the gap).
    Unbracketed,
    the fair komi is NaN; a bound past the komis played is NaN."""
    margins = fair_komi(data, rulesets, by, n_boot=0)
    rows = []
    for r in rulesets:
        keys, komis, t = _sweep_counts(data, r, by)
        boot = stats.bootstrap_counts(t, n_boot, seed) if n_boot > 0 else None
        for g in range(len(keys)):
            played = t[g].sum(axis=-1) > 0
            k, c = komis[played], t[g][played]
            fitted = isotonic(_score(c), c.sum(axis=-1))
            fair = crossing(k, fitted) if len(k) else np.nan
            lo = hi = np.nan
            if boot is not None and np.isfinite(fair):
                fits = [_fit(k, b[g][played]) for b in boot]
                lo, hi = np.quantile(
                    fits, [(1 - level) / 2, (1 + level) / 2], method="inverted_cdf"
                )
            around = bracket(k, fitted)
            if around[1] - around[0] > GAP:  # no bootstrap sees inside a gap: it is all open
                lo, hi = min(lo, around[0]), max(hi, around[1])  # NaN (past the komis) stays
            finite = np.isfinite([fair, lo, hi])
            row = {
                "ruleset": r,
                "method": RULESET_METHOD[r],
                "games": int(c.sum()),
                "komis": len(k),
                "fair komi": fair if finite[0] else np.nan,
                "fair komi lo": lo if finite[1] else np.nan,
                "fair komi hi": hi if finite[2] else np.nan,
                "bracketed": bool(finite[0]),
                "komi gap": around[1] - around[0] if finite[0] else np.nan,
                "note": _note(k, fitted, fair, boot is None or finite.all(), around),
            }
            rows.append(groups.with_keys(keys, pd.DataFrame([row]), np.array([g])))
    out = pd.concat(rows, ignore_index=True)
    on = [*groups.by_columns(by), "ruleset"]
    out.insert(
        len(out.columns) - 1,
        "fair komi (margins)",
        out[on].merge(margins[[*on, "fair komi"]], on=on, how="left")["fair komi"].to_numpy(),
    )
    return out


def sweep_curve(data, rulesets=RULESETS, by=None) -> pd.DataFrame:
    """Black's score against the komis played: one row per ruleset (and group) and komi with
    games (with a result), wins, draws, score (wins + draws/2, rate) with its 95% Wilson
    interval (score lo / hi) and fitted score (the isotonic fit of ``fitted_fair_komi``)."""
    frames = []
    for r in rulesets:
        keys, komis, t = _sweep_counts(data, r, by)
        for g in range(len(keys)):
            played = t[g].sum(axis=-1) > 0
            c = t[g][played]
            games = c.sum(axis=-1)
            lo, hi = stats.wilson(c[:, 0] + c[:, 1] / 2, games)
            out = pd.DataFrame(
                {
                    "ruleset": r,
                    "komi": komis[played],
                    "games": games,
                    "wins": c[:, 0],
                    "draws": c[:, 1],
                    "score": _score(c),
                    "score lo": lo,
                    "score hi": hi,
                    "fitted score": isotonic(_score(c), games),
                }
            )
            frames.append(groups.with_keys(keys, out, np.full(len(out), g)))
    return pd.concat(frames, ignore_index=True)


def komi_study_table(data, n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """``fitted_fair_komi`` per config (as the report splits it: board size, rules, players,
    virtual-move rate, move cap; runs of different configs are never fitted as one), as text
    to print (``jpdsim komi``): one row per config and ruleset with config (the label of
    ``analysis.groups.config_label`` without the players), players, games, komis, the fair
    komi and its interval ("lo–hi"), the margin method's fair komi and the note (why a value
    is missing, or a gap between the komis around the crossing); points with two decimals,
    "–" where a value is missing."""
    rules = [c for c in groups.SOURCES["config"] if c not in groups.SOURCES["players"]]
    t = fitted_fair_komi(data, by=[*rules, "players"], n_boot=n_boot, seed=seed, level=level)
    t.insert(0, "config", [groups.config_label(r) for r in t[rules].to_dict("records")])
    t = t.sort_values([*rules, "players"], kind="stable", ignore_index=True)

    def points(values) -> list[str]:
        return [f"{v:.2f}" if np.isfinite(v) else show.NA for v in values]

    lo, hi = points(t["fair komi lo"]), points(t["fair komi hi"])
    return pd.DataFrame(
        {
            "config": t["config"],
            "players": t["players"].astype(str),
            "ruleset": t["ruleset"],
            "games": t["games"],
            "komis": t["komis"],
            "fair komi": points(t["fair komi"]),
            f"{level:.0%} interval": [
                show.NA if show.NA in (a, b) else f"{a}–{b}" for a, b in zip(lo, hi)
            ],
            "margin method": points(t["fair komi (margins)"]),
            "note": t["note"],
        }
    )
