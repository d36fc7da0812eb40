"""The fair komi fitted from games played at several komis (a komi sweep, or runs at different
komis analysed together): ``sim.komi.fitting`` per ruleset and group, with why a value is missing,
Black's score at each komi played, and the table ``jpdsim komi`` prints. It reads each game's
result at the komi it was played at, so it holds for players whose play depends on komi;
``analysis.komi``'s margin method stands beside it."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import counts, groups, show, stats
from analysis.disagreement import winner_codes
from analysis.komi import fair_komi
from sim.komi import fitting
from sim.schema.tables import RULESET_METHOD, RULESETS


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


def _note(
    komis: np.ndarray, fitted: np.ndarray, fair: float, interval: bool, around=(np.nan, np.nan)
) -> str:
    """Why a fitted fair komi (or, unless ``interval``, a bound of its interval) is missing,
    and whether the komis ``around`` the crossing (``sim.komi.fitting.bracket``) leave a gap;
    "" when nothing is to say."""
    if len(komis) == 0:
        return "no game with a result"
    if np.isfinite(fair):
        notes = []
        low, high = around
        if high - low > fitting.GAP:
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

    The fit and its percentile bootstrap interval (``n_boot`` redraws of the games within each
    komi, ``seed``) are ``sim.komi.fitting``'s.

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
        boot = fitting.bootstrap_counts(t, n_boot, seed) if n_boot > 0 else None
        for g in range(len(keys)):
            played = t[g].sum(axis=-1) > 0
            k, c = komis[played], t[g][played]
            replicates = None if boot is None else boot[:, g][:, played]
            fair, lo, hi, around, fitted = fitting.fit(k, c, replicates, level)
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
                    "score": fitting.score(c),
                    "score lo": lo,
                    "score hi": hi,
                    "fitted score": fitting.isotonic(fitting.score(c), games),
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
