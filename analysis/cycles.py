"""Superko and cycles: endings per repetition rule, game lengths, repetition bans, virtual
moves and pass conversions, four-virtual endings; and the JPD self-check.

Self-check: the literal equal-stones count must equal the JPD area count with the A版 point,
``equal_stones_diff == area_diff_jpd - [White was first to pass or virtual]``, in every game.
Any game where it does not is a bug or a gap in the rules; ``self_check`` lists them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import counts, groups, stats
from sim.schema.tables import FIRST, RULESETS, VOCABULARY

COLUMNS = (
    "game_id",
    "board_size",
    "setup",
    "suicide",
    "player_b",
    "repetition",
    "ending",
    "moves",
    "actions",
    "passes",
    "converted_passes",
    "virtual_moves_b",
    "virtual_moves_w",
    "repetition_bans",
    FIRST,
    "area_diff_jpd",
    "equal_stones_diff",
    *(f"winner_{r}" for r in RULESETS),
)
#: The groups of a stress run (``jpdsim stress``): position, rule, suicide option, player.
STRESS_BY = ("setup", "repetition", "suicide", "player_b")
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


def endings(data, by="repetition") -> pd.DataFrame:
    """Long table: [by], ending, games (of the group), count, share with 95% Wilson lo/hi;
    every ending of the vocabulary appears, with zero counts where absent."""
    df = counts.frame(data, ("ending",), by)
    codes, keys = groups.split(df, by)
    col = df["ending"]
    names = (
        list(col.cat.categories)
        if isinstance(col.dtype, pd.CategoricalDtype)
        else list(VOCABULARY["ending"]) + sorted(set(col.dropna()) - set(VOCABULARY["ending"]))
    )
    e = stats.codes(col, names).astype(np.int64)
    t = stats.counts_2d(codes, e, len(keys), len(names), stats.weights(df))
    g_idx = np.repeat(np.arange(len(keys)), len(names))
    out = pd.DataFrame(
        {
            "ending": np.tile(names, len(keys)),
            "games": np.repeat(t.sum(axis=1), len(names)),
            "count": t.ravel(),
        }
    )
    out = stats.rate_columns(out, "count", "games")
    return groups.with_keys(keys, out, g_idx)


def endings_wide(data, by="repetition") -> pd.DataFrame:
    """``endings`` as one row per group: games, then ``<ending> share`` for each ending that
    occurs."""
    long = endings(data, by)
    cols = groups.by_columns(by)
    seen = long.groupby("ending", sort=False)["count"].sum()
    seen = [e for e in seen.index if seen[e] > 0]
    long = long[long["ending"].isin(seen)]
    if cols:
        wide = long.pivot_table(
            index=cols + ["games"], columns="ending", values="rate", observed=True, sort=False
        ).reset_index()
    else:
        wide = pd.DataFrame(
            [
                {
                    "games": long["games"].iloc[0] if len(long) else 0,
                    **dict(zip(long["ending"], long["rate"])),
                }
            ]
        )
    wide.columns.name = None
    wide = wide[cols + ["games"] + seen]
    return wide.rename(columns={e: f"{e} share" for e in seen})


def _histogram(data, column: str, by) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    df = counts.frame(data, (column,), by)
    codes, keys = groups.split(df, by)
    v = df[column].to_numpy(dtype=np.float64)
    ok = np.isfinite(v)
    vi = v[ok].astype(np.int64)
    lo = int(vi.min()) if vi.size else 0
    size = int(vi.max()) - lo + 1 if vi.size else 1
    hist = stats.counts_2d(codes[ok], vi - lo, len(keys), size, stats.weights(df)[ok])
    return keys, np.arange(size) + lo, hist


def lengths(data, by="repetition", column: str = "moves") -> pd.DataFrame:
    """Summary of an integer game-length column per group: games, mean, std, min, quantiles
    (5%, 25%, median, 75%, 95%, 99%) and max, computed from its histogram."""
    keys, values, hist = _histogram(data, column, by)
    n = hist.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = hist @ values / n
        var = hist @ (values.astype(np.float64) ** 2) / n - mean**2
    q = stats.hist_quantiles(hist, values, (0.0,) + QUANTILES + (1.0,))
    out = pd.DataFrame(
        {
            "column": column,
            "games": n,
            "mean": mean,
            "std": np.sqrt(np.maximum(var, 0)),
            "min": q[:, 0],
        }
    )
    for j, p in enumerate(QUANTILES, start=1):
        out[f"p{round(p * 100)}"] = q[:, j]
    out["max"] = q[:, -1]
    return groups.with_keys(keys, out, np.arange(len(keys)))


def length_histogram(data, by="repetition", column: str = "moves") -> pd.DataFrame:
    """Long table: [by], value of ``column``, games with that value (non-zero counts only)."""
    keys, values, hist = _histogram(data, column, by)
    g, i = np.nonzero(hist)
    out = pd.DataFrame({column: values[i], "games": hist[g, i]})
    return groups.with_keys(keys, out, g)


def repetition_bans(data, by="repetition") -> pd.DataFrame:
    """Candidate moves the policy found banned by the repetition rule, per group: games, total
    bans, mean per game, bans per 100 moves (when ``moves`` is loaded), and the share of games
    with a ban (Wilson lo/hi)."""
    df = counts.frame(data, ("with a ban",), by, ("repetition_bans", "moves"))
    codes, keys = groups.split(df, by)
    g = len(keys)
    w = stats.weights(df)
    bans = df["repetition_bans"].to_numpy(dtype=np.int64)
    banned = stats.column(df, "with a ban")
    out = pd.DataFrame(
        {
            "games": stats.bincount(codes, g, w),
            "bans": stats.bincount(codes, g, bans),
            "with a ban": stats.bincount(codes[banned], g, w[banned]),
        }
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        out["mean per game"] = out["bans"] / out["games"]
        if "moves" in df.columns:
            m = np.bincount(codes, weights=df["moves"].to_numpy(dtype=np.float64), minlength=g)
            out["per 100 moves"] = np.where(
                m > 0, 100 * out["bans"] / np.where(m > 0, m, 1), np.nan
            )
    out = stats.rate_columns(out, "with a ban", "games", prefix="with a ban ")
    return groups.with_keys(keys, out, np.arange(g))


def conversions(data, by="repetition") -> pd.DataFrame:
    """Per group: mean passes, converted passes and virtual moves per game, the share of games
    with a converted pass, and the share of four-virtual endings (each with Wilson lo/hi)."""
    sums = ("passes", "converted_passes", "virtual_moves_b", "virtual_moves_w")
    df = counts.frame(data, ("ending", "with a conversion"), by, sums)
    codes, keys = groups.split(df, by)
    g = len(keys)
    w = stats.weights(df)
    n = stats.bincount(codes, g, w)

    def mean(col):
        return np.bincount(codes, weights=df[col].to_numpy(dtype=np.float64), minlength=g) / n

    with np.errstate(invalid="ignore", divide="ignore"):
        out = pd.DataFrame(
            {
                "games": n,
                "passes per game": mean("passes"),
                "converted per game": mean("converted_passes"),
                "virtual per game": mean("virtual_moves_b") + mean("virtual_moves_w"),
            }
        )
    conv = stats.column(df, "with a conversion")
    four = (df["ending"] == "four_virtual").to_numpy()
    out["with a conversion"] = stats.bincount(codes[conv], g, w[conv])
    out["four_virtual"] = stats.bincount(codes[four], g, w[four])
    out = stats.rate_columns(out, "with a conversion", "games", prefix="conversion ")
    out = stats.rate_columns(out, "four_virtual", "games", prefix="four_virtual ")
    return groups.with_keys(keys, out, np.arange(g))


def self_check(data) -> pd.DataFrame:
    """The games whose equal-stones result differs from the JPD area result with the A版 point
    (expected: none), with run, game_id and the numbers involved (from ``Statistics``: the
    first ``analysis.counts.SELF_CHECK_ROWS``)."""
    df = counts.selected(data, "self-check")
    bad = stats.column(df, "self-check") == 2
    cols = [
        c
        for c in (
            "run",
            "game_id",
            "board_size",
            "repetition",
            "ending",
            FIRST,
            "area_diff_jpd",
            "equal_stones_diff",
        )
        if c in df.columns
    ]
    out = df.loc[bad, cols].reset_index(drop=True)
    out["expected"] = out["area_diff_jpd"].to_numpy(dtype=np.float64) - stats.extra(out, "jpd_a")
    out["difference"] = out["equal_stones_diff"].to_numpy(dtype=np.float64) - out["expected"]
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype(object)
    return out


def self_check_summary(data, by=None) -> pd.DataFrame:
    """Per group: games, games checked (both results present), mismatches (expected 0)."""
    df = counts.frame(data, ("self-check",), by)
    codes, keys = groups.split(df, by)
    check = stats.column(df, "self-check")
    w = stats.weights(df)
    g = len(keys)
    out = pd.DataFrame(
        {
            "games": stats.bincount(codes, g, w),
            "checked": stats.bincount(codes[check > 0], g, w[check > 0]),
            "mismatches": stats.bincount(codes[check == 2], g, w[check == 2]),
        }
    )
    return groups.with_keys(keys, out, np.arange(g))


def black_wins(data, by="repetition") -> pd.DataFrame:
    """Per group and ruleset: the share of games Black won (of all games; games without a
    winner count as not won), with Wilson lo/hi; one ``<ruleset> B`` column each."""
    df = counts.frame(data, [f"winner_{r}" for r in RULESETS], by)
    codes, keys = groups.split(df, by)
    g = len(keys)
    w = stats.weights(df)
    out = pd.DataFrame({"games": stats.bincount(codes, g, w)})
    for r in RULESETS:
        won = (df[f"winner_{r}"] == "B").to_numpy()
        out[f"{r} B"] = stats.bincount(codes[won], g, w[won]) / np.maximum(out["games"], 1)
    return groups.with_keys(keys, out, np.arange(g))


def stress_table(data, by=STRESS_BY) -> pd.DataFrame:
    """The table of a stress run, one row per group: games; the share of each ending; game
    length in moves (mean, p99, max); repetition bans per game; Black's win share under each
    ruleset; self-check mismatches (expected 0)."""
    cols = groups.by_columns(by)
    ends = endings_wide(data, by)
    ln = lengths(data, by)[cols + ["mean", "p99", "max"]]
    ln = ln.rename(columns={c: f"moves {c}" for c in ("mean", "p99", "max")})
    bans = repetition_bans(data, by)[cols + ["mean per game"]]
    wins = black_wins(data, by).drop(columns="games")
    checks = self_check_summary(data, by)[cols + ["mismatches"]]
    out = ends
    for part in (ln, bans.rename(columns={"mean per game": "bans per game"}), wins, checks):
        out = out.merge(part, on=cols, how="left") if cols else pd.concat([out, part], axis=1)
    return out


def examples(data, ending=("cycle", "four_virtual"), by=("setup", "repetition")):
    """One example game per group among those with an ending in ``ending``: the first by run
    and game id; columns [by], ending, run (when loaded), game_id (from ``Statistics``: among
    the endings of ``analysis.counts.EXAMPLE_ENDINGS``)."""
    df = counts.selected(data, "examples")
    cols = groups.by_columns(by)
    keep = df[df["ending"].isin(ending)]
    order = [c for c in ("run", "game_id") if c in keep.columns]
    first = keep.sort_values(order).groupby(cols, observed=True, sort=True).head(1)
    out = first[cols + ["ending"] + [c for c in order if c not in cols]].reset_index(drop=True)
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].astype(object)
    return out
