"""Disagreement between rulesets: how often two rulesets name different winners, and which way.

A game counts for a pair when both rulesets name a winner (B, W or draw); games without a
winner (endings cycle and move_limit) are left out. Directions are written ``X|Y``: the first
ruleset of the pair says X, the second says Y.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from analysis import counts, groups, stats
from sim.schema.tables import RULESETS

OUTCOMES = ("B", "W", "draw")
COLUMNS = tuple(f"winner_{r}" for r in RULESETS)
DIRECTIONS = tuple(f"{a}|{b}" for a in OUTCOMES for b in OUTCOMES if a != b)


def winner_codes(winners: pd.Series) -> np.ndarray:
    """int8 codes of a winner column: 0 = B, 1 = W, 2 = draw, -1 = no winner."""
    return stats.codes(winners, OUTCOMES)


def pairs(rulesets=RULESETS) -> list[tuple[str, str]]:
    """Every unordered pair of rulesets, in RULESETS order."""
    return list(combinations(rulesets, 2))


def disagreement(data, by=None, rulesets=RULESETS) -> pd.DataFrame:
    """One row per pair of rulesets (and group): games, differ, rate with 95% Wilson lo/hi,
    and the count of each direction ``X|Y`` (first ruleset says X, second says Y).

    ``data``: games (a frame), or their ``analysis.counts.Statistics``, as in every table."""
    df = counts.frame(data, COLUMNS, by)
    w = stats.weights(df)
    codes, keys = groups.split(df, by)
    n_groups = len(keys)
    winners = {r: winner_codes(df[f"winner_{r}"]) for r in rulesets}
    frames = []
    for r1, r2 in pairs(rulesets):
        a, b = winners[r1], winners[r2]
        both = np.where((a >= 0) & (b >= 0), a * 3 + b, -1)
        table = stats.counts_2d(codes, both, n_groups, 9, w).reshape(n_groups, 3, 3)
        games = table.sum(axis=(1, 2))
        same = np.trace(table, axis1=1, axis2=2)
        out = pd.DataFrame(
            {"ruleset_1": r1, "ruleset_2": r2, "games": games, "differ": games - same}
        )
        for i, x in enumerate(OUTCOMES):
            for j, y in enumerate(OUTCOMES):
                if i != j:
                    out[f"{x}|{y}"] = table[:, i, j]
        frames.append(groups.with_keys(keys, out, np.arange(n_groups)))
    result = pd.concat(frames, ignore_index=True)
    result = stats.rate_columns(result, "differ", "games")
    if groups.by_columns(by):
        result = result.sort_values(groups.by_columns(by), kind="stable", ignore_index=True)
    lead = groups.by_columns(by) + ["ruleset_1", "ruleset_2", "games", "differ", "rate", "lo", "hi"]
    return result[lead + list(DIRECTIONS)]


def top(table: pd.DataFrame, by: str, k: int) -> pd.DataFrame:
    """A ``disagreement`` table by ``by`` with at most ``k`` groups: the ``k`` - 1 with the most
    games, the others pooled into one group ``other (M)`` (counts added up, rates and intervals
    from the sums); the table itself when it has ``k`` groups or fewer."""
    games = table.groupby(by, observed=True, sort=False)["games"].max()
    if len(games) <= k:
        return table
    keep = set(games.sort_values(ascending=False, kind="stable").index[: k - 1])
    rest = table[~table[by].isin(keep)]
    counts_ = ["games", "differ", *DIRECTIONS]
    pooled = rest.groupby(["ruleset_1", "ruleset_2"], sort=False)[counts_].sum().reset_index()
    pooled.insert(0, by, f"other ({len(games) - len(keep)})")
    pooled = stats.rate_columns(pooled, "differ", "games")[table.columns]
    kept = table[table[by].isin(keep)].astype({by: object})
    return pd.concat([kept, pooled], ignore_index=True)


def disagreement_matrix(data, rulesets=RULESETS) -> pd.DataFrame:
    """Square table of disagreement rates (share of games whose winners differ), zero diagonal."""
    table = disagreement(data, rulesets=rulesets)
    m = pd.DataFrame(0.0, index=list(rulesets), columns=list(rulesets))
    for row in table.itertuples(index=False):
        m.loc[row.ruleset_1, row.ruleset_2] = row.rate
        m.loc[row.ruleset_2, row.ruleset_1] = row.rate
    return m


def crosstab(data, ruleset_1: str, ruleset_2: str) -> pd.DataFrame:
    """Counts of (winner under ruleset_1) x (winner under ruleset_2), ``none`` = no winner."""
    df = counts.frame(data, COLUMNS)
    a = winner_codes(df[f"winner_{ruleset_1}"])
    b = winner_codes(df[f"winner_{ruleset_2}"])
    labels = list(OUTCOMES) + ["none"]
    a = np.where(a < 0, 3, a)
    b = np.where(b < 0, 3, b)
    table = stats.bincount(a.astype(np.int64) * 4 + b, 16, stats.weights(df)).reshape(4, 4)
    return pd.DataFrame(
        table, index=pd.Index(labels, name=ruleset_1), columns=pd.Index(labels, name=ruleset_2)
    )
