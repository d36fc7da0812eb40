"""``analysis.players``: the strength matrix, fair komi per pairing and visits, endings."""

import pandas as pd
import pytest

from analysis import players

MCTS = "mcts(visits=400,playout=pattern,play_for=jpd_a,resign_below=0,explore=1)"


def frame(rows):
    """Games from (player_b, player_w, winner under every ruleset, ending, area difference)."""
    out = pd.DataFrame(rows, columns=["player_b", "player_w", "winner", "ending", "area_diff_jpd"])
    for r in ("jpd_a", "jpd_b", "jpd_tangsong", "chinese", "japanese"):
        out[f"winner_{r}"] = out["winner"]
    out["area_diff_chinese"] = out["area_diff_jpd"]
    out["territory_diff_japanese"] = out["area_diff_jpd"]
    out["first_pass_or_virtual_by"] = "B"
    out["last_real_move_by"] = "B"
    return out.drop(columns="winner")


def test_strength_counts_both_colours_of_a_pairing():
    df = frame(
        [
            ("random", MCTS, "W", "pause", -20.0),
            ("random", MCTS, "W", "pause", -10.0),
            ("random", MCTS, "draw", "pause", 6.5),
            ("random", MCTS, "B", "pause", 10.0),
            (MCTS, "random", "B", "resign", 0.0),
            (MCTS, "random", "W", "pause", 3.0),
            (MCTS, "random", None, "cycle", 0.0),  # no winner: left out
        ]
    )
    table = players.strength(df)
    assert len(table) == 1
    row = table.iloc[0]
    assert (row["first"], row["second"], row["games"]) == (MCTS, "random", 6)
    # as White against random: 1, 1, 0.5, 0; as Black: 1, 0
    assert row["first score"] == pytest.approx(3.5 / 6)
    assert row["first as White"] == pytest.approx(2.5 / 4)
    assert row["first as Black"] == pytest.approx(0.5)
    assert row["first score lo"] < 3.5 / 6 < row["first score hi"]


def test_fair_komi_and_endings_per_pairing():
    df = frame(
        [(MCTS, MCTS, "B", "pause", d) for d in (8.0, 10.0, 12.0)]
        + [("random", "random", "B", "four_virtual", d) for d in (1.0, 3.0, 5.0)]
    )
    fair = players.fair_komi(df, rulesets=("jpd_b",), n_boot=0)
    assert fair["visits B"].tolist() == [400, 0] and fair["visits W"].tolist() == [400, 0]
    assert fair["fair komi"].tolist() == [10.0, 3.0]
    ends = players.endings(df).set_index("players")
    assert ends.loc[f"{MCTS} / {MCTS}", "pause share"] == 1.0
    assert ends.loc["random / random", "four_virtual share"] == 1.0
    assert ends["games"].tolist() == [3, 3]
    assert players.visits(pd.Series(["random", MCTS])).tolist() == [0, 400]
    # a name this version cannot read back (an older version's number format) has no count
    old = players.visits(pd.Series([MCTS, "mcts(visits=4e+02)", "nobody"]))
    assert old.iloc[0] == 400 and old.iloc[1:].isna().all()
