"""The text summary that ``jpdsim run`` prints at the end of a run (and appends to its run.log):
endings, each ruleset's results with Black's win rate, and the winner disagreement between
rulesets (``analysis.disagreement``: the share of games, among those where both rulesets name
a winner, whose winners differ)."""

from __future__ import annotations

import math

import pandas as pd

from analysis import counts, stats
from analysis.disagreement import COLUMNS as WINNER_COLUMNS
from analysis.disagreement import disagreement_matrix, winner_codes
from sim.schema.tables import ENDINGS, RULESETS

#: The game columns the summary reads.
COLUMNS = ("ending", *WINNER_COLUMNS)


def _endings(df: pd.DataFrame) -> list[str]:
    n = stats.games(df)
    per = pd.Series(stats.weights(df)).groupby(df["ending"].to_numpy(), dropna=False).sum()
    found = per.to_dict()
    lines = [f"{'ending':<14}{'games':>12}{'share':>9}"]
    for ending in [*ENDINGS, *sorted(set(found) - set(ENDINGS), key=str)]:
        c = int(found.get(ending, 0))
        if c or ending in ENDINGS:
            lines.append(f"{str(ending):<14}{c:>12,}{c / max(n, 1):>9.2%}")
    return lines


def _results(df: pd.DataFrame) -> list[str]:
    lines = [
        f"{'ruleset':<14}{'B wins':>12}{'W wins':>12}{'draws':>10}{'no result':>11}"
        f"{'B win rate':>12}"
    ]
    for r in RULESETS:
        codes = winner_codes(df[f"winner_{r}"]) + 1  # 0 no result, 1 B, 2 W, 3 draw
        b, w, d = (int(c) for c in stats.bincount(codes, 4, stats.weights(df))[1:])
        decided = b + w + d
        rate = f"{b / decided:.2%}" if decided else "-"
        lines.append(f"{r:<14}{b:>12,}{w:>12,}{d:>10,}{stats.games(df) - decided:>11,}{rate:>12}")
    return lines + ["(B win rate: Black's wins / games with a result, draws included)"]


def _disagreement(df: pd.DataFrame) -> list[str]:
    rates = disagreement_matrix(df)
    lines = [
        "winner disagreement (share of games where both rulesets have a result):",
        " " * 14 + "".join(f"{r:>14}" for r in RULESETS[1:]),
    ]
    for i, a in enumerate(RULESETS[:-1]):
        cells = [
            " " * 14
            if j <= i
            else f"{'-':>14}"
            if math.isnan(rates.loc[a, b])
            else f"{rates.loc[a, b]:>14.2%}"
            for j, b in enumerate(RULESETS[1:], 1)
        ]
        lines.append(f"{a:<14}" + "".join(cells))
    return lines


def summary(data) -> str:
    """A short text table of games (a frame with at least ``COLUMNS``, or their
    ``analysis.counts.Statistics``): endings, results per ruleset, winner disagreement between
    rulesets."""
    df = counts.frame(data, COLUMNS)
    parts = [_endings(df), _results(df), _disagreement(df)]
    return "\n\n".join([f"games: {stats.games(df):,}", *("\n".join(p) for p in parts)])
