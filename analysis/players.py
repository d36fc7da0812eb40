"""The players: strength between player pairs, fair komi per pair and per visit count, and
how games end by player.

Rows name each player by its canonical string (``player_b``, ``player_w``: ``sim.config.player``);
a pairing is the unordered pair, its first player the one first in sort order. Scores count a
win 1, a draw ½; games without a winner (cycle, move limit) are left out of the strength.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis import counts, groups, komi, stats
from sim.config.player import Player
from sim.options import OptionError
from sim.schema.tables import RULESETS

#: The columns these tables read.
COLUMNS = tuple(
    dict.fromkeys(("player_b", "player_w", *(f"winner_{r}" for r in RULESETS), *komi.COLUMNS))
)


def visits(names: pd.Series) -> pd.Series:
    """The ``visits`` of each canonical player name (``Player.from_name``; 0 for a kind
    without them, <NA> for a name this version cannot read, such as one an older version
    wrote)."""
    names = names.astype(str)
    return names.map({n: _visits(n) for n in names.unique()}).astype("Int64")


def _visits(name: str):
    try:
        player = Player.from_name(name)
    except OptionError:
        return pd.NA
    return player.visits if "visits" in player.parameters else 0


def strength(data, ruleset: str = "jpd_a") -> pd.DataFrame:
    """One row per pairing: games with a winner under ``ruleset``, the first player's score
    rate with its 95% Wilson interval, and its score rate as Black and as White."""
    df = counts.frame(data, ("player_b", "player_w", f"winner_{ruleset}"))
    b, w = df["player_b"].astype(str).to_numpy(), df["player_w"].astype(str).to_numpy()
    winner = df[f"winner_{ruleset}"].to_numpy(dtype=object)
    scored = pd.notna(winner)
    black_score = np.select([winner == "B", winner == "draw"], [1.0, 0.5], 0.0)
    first = np.minimum(b, w)
    black_is_first = b == first
    first_score = np.where(black_is_first, black_score, 1.0 - black_score)
    n = stats.weights(df)
    games = pd.DataFrame(
        {
            "first": first,
            "second": np.maximum(b, w),
            "points": first_score * n,
            "n": n,
            "as_black": black_is_first,
        }
    )[scored]

    def rate(g: pd.DataFrame) -> float:
        return g["points"].sum() / g["n"].sum() if len(g) else np.nan

    rows = []
    for (a, c), g in games.groupby(["first", "second"], sort=True):
        lo, hi = stats.wilson(g["points"].sum(), g["n"].sum())
        rows.append(
            {
                "first": a,
                "second": c,
                "games": g["n"].sum(),
                "first score": rate(g),
                "first score lo": float(lo),
                "first score hi": float(hi),
                "first as Black": rate(g[g["as_black"]]),
                "first as White": rate(g[~g["as_black"]]),
            }
        )
    return pd.DataFrame(rows)


def fair_komi(data, rulesets=RULESETS, n_boot: int = 1000) -> pd.DataFrame:
    """``analysis.komi.fair_komi`` per pairing, with each player's visits (0: no search)."""
    table = komi.fair_komi(data, rulesets=rulesets, by="players", n_boot=n_boot)
    names = table["players"].astype(str).str.split(" / ", n=1, expand=True)
    table.insert(1, "visits B", visits(names[0]).to_numpy())
    table.insert(2, "visits W", visits(names[1]).to_numpy())
    return table


def endings(data) -> pd.DataFrame:
    """Per pairing: games and the share of each ending."""
    df = counts.frame(data, ("player_b", "player_w", "ending"))
    frame = pd.DataFrame(
        {"players": groups.pairing(df), "ending": df["ending"].astype(str), "n": stats.weights(df)}
    )
    games = frame.groupby(["players", "ending"], sort=True)["n"].sum().unstack(fill_value=0)
    total = games.sum(axis=1)
    shares = games.div(total, axis=0)
    shares.columns = [f"{c} share" for c in shares.columns]
    out = shares.reset_index()
    out.insert(1, "games", total.to_numpy())
    return out
