"""The analysis tables on small hand-made frames whose right answers are counted by hand."""

import numpy as np
import pandas as pd
import pytest

from analysis import ab_effect, cycles, disagreement, finishes_last, komi, load
from sim.schema.tables import RULESETS
from tests.analysis_fixtures import PLANTED_BAD_GAME, frame, rows_superko


def winners_frame(categorical: bool) -> pd.DataFrame:
    w = {  # one row per game: jpd_a, jpd_b, jpd_tangsong, chinese, japanese
        0: ("B", "W", "B", "W", "B"),
        1: ("B", "B", "B", "B", "W"),
        2: ("W", "W", "draw", "W", "W"),
        3: (None, None, None, None, None),
        4: ("B", "W", "W", "W", "B"),
    }
    df = pd.DataFrame({f"winner_{r}": [w[i][j] for i in range(5)] for j, r in enumerate(RULESETS)})
    df["board_size"] = [9, 9, 13, 9, 13]
    return load.compact(df) if categorical else df


def _row(table, r1, r2, **keys):
    sel = (table["ruleset_1"] == r1) & (table["ruleset_2"] == r2)
    for k, v in keys.items():
        sel &= table[k] == v
    assert sel.sum() == 1
    return table[sel].iloc[0]


@pytest.mark.parametrize("categorical", [False, True])
def test_disagreement_counts_and_directions(categorical):
    t = disagreement.disagreement(winners_frame(categorical))
    assert len(t) == 10
    ab = _row(t, "jpd_a", "jpd_b")
    assert (ab["games"], ab["differ"], ab["B|W"], ab["W|B"]) == (4, 2, 2, 0)
    assert ab["rate"] == 0.5 and ab["lo"] < 0.5 < ab["hi"]
    at = _row(t, "jpd_a", "jpd_tangsong")
    assert (at["differ"], at["B|W"], at["W|draw"]) == (2, 1, 1)
    bt = _row(t, "jpd_b", "jpd_tangsong")
    assert (bt["differ"], bt["W|B"], bt["W|draw"]) == (2, 1, 1)
    cj = _row(t, "chinese", "japanese")
    assert (cj["differ"], cj["W|B"], cj["B|W"]) == (3, 2, 1)
    assert (t["differ"] == t[list(disagreement.DIRECTIONS)].sum(axis=1)).all()


def test_disagreement_by_board_size_matrix_and_crosstab():
    df = winners_frame(True)
    t = disagreement.disagreement(df, by="board_size")
    assert list(t.columns[:3]) == ["board_size", "ruleset_1", "ruleset_2"]
    for size in (9, 13):
        row = _row(t, "jpd_a", "jpd_b", board_size=size)
        assert (row["games"], row["differ"]) == (2, 1)
    m = disagreement.disagreement_matrix(df)
    assert m.loc["jpd_a", "jpd_b"] == m.loc["jpd_b", "jpd_a"] == 0.5
    assert m.loc["chinese", "japanese"] == 0.75 and m.loc["jpd_a", "jpd_a"] == 0
    x = disagreement.crosstab(df, "jpd_a", "jpd_b")
    assert x.loc["B", "W"] == 2 and x.loc["B", "B"] == 1 and x.loc["none", "none"] == 1
    assert x.to_numpy().sum() == 5


def players_frame() -> pd.DataFrame:
    return load.compact(
        pd.DataFrame(
            {
                "last_real_move_by": ["B", "B", "W", "W", None, "B"],
                "first_pass_or_virtual_by": ["W", "B", "B", "W", "W", None],
                "area_diff_jpd": [7.0, 8.0, 9.0, 10.0, 0.0, 1.0],
                "board_size": [9, 9, 9, 13, 13, 13],
            }
        )
    )


def test_who_finishes_last_tables():
    df = players_frame()
    x = finishes_last.crosstab(df)
    assert x.loc["B"].tolist() == [1, 1, 1] and x.loc["W"].tolist() == [1, 1, 0]
    assert x.loc["none"].tolist() == [0, 1, 0]
    assert finishes_last.crosstab(df, normalize=True).to_numpy().sum() == pytest.approx(1)
    shares = finishes_last.player_shares(df).set_index("column")
    assert shares.loc["last_real_move_by", ["B", "W", "none"]].tolist() == [3, 2, 1]
    assert shares.loc["first_pass_or_virtual_by", ["B", "W", "none"]].tolist() == [2, 3, 1]
    rel = finishes_last.relations(df).iloc[0]
    assert (rel["opposite"], rel["same"], rel["no pass or virtual"], rel["no real move"]) == (
        2,
        2,
        1,
        1,
    )
    assert rel["not opposite rate"] == 0.5
    by = finishes_last.relations(df, by="board_size").set_index("board_size")
    assert by.loc[9, ["opposite", "same"]].tolist() == [2, 1]
    assert by.loc[13, ["same", "no real move", "no pass or virtual"]].tolist() == [1, 1, 1]


def test_parity_of_the_area_difference():
    p = finishes_last.parity_table(players_frame()).set_index("area diff parity")
    assert p.loc["odd", ["games", "opposite", "same", "no pass or virtual"]].tolist() == [
        3,
        2,
        0,
        1,
    ]
    assert p.loc["even", ["games", "same", "no real move"]].tolist() == [3, 2, 1]
    assert p.loc["odd", "not opposite rate"] == 0 and p.loc["even", "not opposite rate"] == 1
    by_config = finishes_last.parity_table(players_frame(), by="config")  # added when absent
    assert by_config.groupby("area diff parity", observed=True)["games"].sum()["odd"] == 3
    codes = finishes_last.parity_codes(pd.Series([2.0, -3.0, 0.5, np.nan]))
    assert codes.tolist() == [0, 1, 2, 2]


def ab_frame() -> pd.DataFrame:
    return frame(
        [
            {"area_diff_jpd": 7, "first_pass_or_virtual_by": "B"},  # A: B +0.5, B: W -0.5 -> differ
            {"area_diff_jpd": 7, "first_pass_or_virtual_by": "W"},  # both W -0.5
            {"area_diff_jpd": 7, "first_pass_or_virtual_by": None},  # differ
            {"area_diff_jpd": 8, "first_pass_or_virtual_by": "B"},  # both B
            {"area_diff_jpd": 6, "first_pass_or_virtual_by": "B"},  # both W
            {"area_diff_jpd": 7, "first_pass_or_virtual_by": "B", "ending": "cycle"},  # no winner
        ]
    )


def test_ab_effect():
    df = ab_frame()
    s = ab_effect.ab_summary(df).iloc[0]
    assert (s["games"], s["differ"]) == (5, 2)
    assert s["mean shift A-B (points)"] == pytest.approx(5 / 6)
    assert s["white first share"] == pytest.approx(1 / 6)
    by = ab_effect.ab_by_first(df).set_index("first pass or virtual")
    assert by.loc["B", ["games", "differ"]].tolist() == [3, 1]
    assert by.loc["W", ["games", "differ"]].tolist() == [1, 0]
    assert by.loc["none", ["games", "differ"]].tolist() == [1, 1]
    assert (
        by.loc["W", "mean shift A-B (points)"] == 0 and by.loc["B", "mean shift A-B (points)"] == 1
    )
    by_config = ab_effect.ab_by_first(ab_frame(), by="config")  # added when absent
    assert by_config["games"].sum() == 5 and "config" in by_config.columns
    ex = ab_effect.ab_explain(df)
    cols = ["first pass or virtual", "area_diff_jpd", "winner A", "winner B", "games"]
    assert ex[cols].values.tolist() == [["B", 7.0, "B", "W", 1], ["none", 7.0, "B", "W", 1]]
    h = ab_effect.area_diff_histogram(df).set_index("area_diff_jpd")
    assert h.loc[7.0, "all"] == 3 and h.loc[7.0, "differ, first B"] == 1
    assert h.loc[7.0, "differ, first none"] == 1 and h["differ, first W"].sum() == 0


def symmetric_frame(first=None) -> pd.DataFrame:
    rows = [
        {"area_diff_jpd": d, "first_pass_or_virtual_by": first}
        for d, n in ((5, 1), (6, 2), (7, 3), (8, 2), (9, 1))
        for _ in range(n)
    ]
    rows.append({"area_diff_jpd": 100, "ending": "cycle"})  # unscored: left out
    return frame(rows)


def test_fair_komi_of_a_symmetric_distribution():
    fk = komi.fair_komi(symmetric_frame(), n_boot=300).set_index("ruleset")
    assert (fk["games"] == 9).all()
    assert fk["fair komi"].tolist() == pytest.approx([7.0] * 5)
    assert (fk["fair komi lo"] <= 7).all() and (fk["fair komi hi"] >= 7).all()
    assert (fk["fair komi lo"] < fk["fair komi hi"]).all()
    # White first everywhere: A版 charges one more point, so its fair komi is one lower
    fk_w = komi.fair_komi(symmetric_frame("W"), n_boot=0).set_index("ruleset")
    assert fk_w.loc["jpd_a", "fair komi"] == pytest.approx(6.0)
    assert fk_w.loc["jpd_b", "fair komi"] == pytest.approx(7.0)


def test_fair_komi_between_half_points():
    leads = np.arange(-1, 3.5, 0.5)  # histogram grid with empty ends
    counts = np.zeros(len(leads))
    counts[leads == 0] = 5
    counts[leads == 1] = 5
    assert komi.fair_komi_from_counts(leads, counts)[0] == pytest.approx(0.5)
    counts[leads == 1] = 15  # score(0.5) = 0.75, score(1) = 0.375 -> 0.5 + 0.5 * 0.25 / 0.375
    assert komi.fair_komi_from_counts(leads, counts)[0] == pytest.approx(0.5 + 0.5 * 0.25 / 0.375)
    assert np.isnan(komi.fair_komi_from_counts(leads, np.zeros(len(leads)))[0])


def test_komi_curves():
    c = komi.komi_curves(symmetric_frame(), komis=[6.5, 7.0, 20.0])
    jb = c[c["ruleset"] == "jpd_b"].set_index("komi")
    assert jb.loc[7.0, ["win", "draw", "loss"]].tolist() == pytest.approx([3 / 9, 3 / 9, 3 / 9])
    assert jb.loc[6.5, ["win", "draw", "loss"]].tolist() == pytest.approx([6 / 9, 0, 3 / 9])
    assert jb.loc[20.0, "loss"] == 1 and (jb["games"] == 9).all()
    assert set(c["ruleset"]) == set(RULESETS)
    wide = komi.win_table(komi.komi_curves(symmetric_frame()), komis=[6.5, 7.5])
    assert wide["komi"].tolist() == [6.5, 7.5]
    assert wide["jpd_b"].tolist() == pytest.approx([6 / 9, 3 / 9])
    # extras: A版 point when White first, 唐宋版 point when Black finished last
    f = frame([{"area_diff_jpd": 7, "first_pass_or_virtual_by": "W", "last_real_move_by": "B"}])
    assert komi.extra(f, "jpd_a").tolist() == [1] and komi.extra(f, "jpd_tangsong").tolist() == [1]
    assert komi.extra(f, "jpd_b").tolist() == [0]


def test_komi_by_group():
    df = pd.concat(
        [
            symmetric_frame().assign(board_size=9),
            frame([{"area_diff_jpd": 3}] * 4).assign(board_size=13),
        ],
        ignore_index=True,
    )
    fk = komi.fair_komi(df, rulesets=["jpd_b"], by="board_size", n_boot=50).set_index("board_size")
    assert fk.loc[9, "fair komi"] == pytest.approx(7) and fk.loc[13, "fair komi"] == pytest.approx(
        3
    )
    assert fk.loc[13, "fair komi lo"] == pytest.approx(3) and fk.loc[13, "games"] == 4


def test_endings_lengths_bans_conversions():
    df = frame(rows_superko())
    e = cycles.endings(df).set_index("ending")
    assert e.loc[["pause", "four_virtual", "move_limit", "cycle"], "count"].tolist() == [9, 2, 1, 0]
    assert (e["games"] == 12).all() and e.loc["pause", "rate"] == 0.75
    wide = cycles.endings_wide(df)
    assert wide.columns.tolist() == [
        "repetition",
        "games",
        "pause share",
        "four_virtual share",
        "move_limit share",
    ]
    moves = np.array([r["moves"] for r in rows_superko()])
    ln = cycles.lengths(df).iloc[0]
    assert ln["mean"] == pytest.approx(moves.mean()) and ln["std"] == pytest.approx(moves.std())
    assert [ln["min"], ln["p50"], ln["p95"], ln["max"]] == np.quantile(
        moves, [0, 0.5, 0.95, 1], method="inverted_cdf"
    ).tolist()
    h = cycles.length_histogram(df)
    assert h["games"].sum() == 12 and h.set_index("moves").loc[648, "games"] == 1
    b = cycles.repetition_bans(df).iloc[0]
    assert (b["games"], b["bans"], b["with a ban"]) == (12, 17, 5)
    assert b["mean per game"] == pytest.approx(17 / 12)
    assert b["per 100 moves"] == pytest.approx(100 * 17 / moves.sum())
    assert b["with a ban rate"] == pytest.approx(5 / 12)
    c = cycles.conversions(df).iloc[0]
    assert (c["with a conversion"], c["four_virtual"]) == (8, 2)
    assert c["converted per game"] == pytest.approx(16 / 12)
    assert c["four_virtual rate"] == pytest.approx(2 / 12)


def test_self_check_lists_the_planted_game():
    df = frame(rows_superko())
    bad = cycles.self_check(df)
    assert bad["game_id"].tolist() == [PLANTED_BAD_GAME]
    assert bad.iloc[0][
        ["area_diff_jpd", "equal_stones_diff", "expected", "difference"]
    ].tolist() == [5.0, 3.0, 4.0, -1.0]
    s = cycles.self_check_summary(df).iloc[0]
    assert (s["games"], s["checked"], s["mismatches"]) == (12, 12, 1)
    fine = frame([r for r in rows_superko() if r["game_id"] != PLANTED_BAD_GAME])
    assert cycles.self_check(fine).empty


def test_everything_survives_games_without_a_winner():
    df = frame(
        [{"area_diff_jpd": 3, "ending": "cycle"}, {"area_diff_jpd": -2, "ending": "move_limit"}]
    )
    # a resignation has a winner but no score: the komi analysis leaves it out too
    resigned = frame([{"area_diff_jpd": 40, "ending": "resign"}])
    assert (komi.fair_komi(resigned, n_boot=0)["games"] == 0).all()
    assert (disagreement.disagreement(df)["games"] == 0).all()
    assert disagreement.disagreement(df)["rate"].isna().all()
    assert ab_effect.ab_summary(df).iloc[0]["games"] == 0
    assert ab_effect.ab_explain(df).empty
    assert ab_effect.area_diff_histogram(df).empty
    fk = komi.fair_komi(df, n_boot=20)
    assert (fk["games"] == 0).all() and fk["fair komi"].isna().all()
    assert komi.komi_curves(df)["win"].isna().all()
    assert cycles.endings(df).set_index("ending").loc["cycle", "count"] == 1
    assert finishes_last.relations(df).iloc[0]["games"] == 2


def test_show_formats_small_rates_and_merges_intervals():
    from analysis import show

    assert [show.percent(v) for v in (0, 0.0083, 2.82e-5, 0.005, 0.99999, float("nan"))] == [
        "0%",
        "0.83%",
        "0.0028%",
        "0.50%",
        "100.00%",
        "–",
    ]
    assert [show.significant(v) for v in (0.0019855, 0.0999, 3.8e-5, 112.384, -0.0123)] == [
        "0.0020",
        "0.10",
        "0.000038",
        "112.38",
        "-0.012",
    ]
    df = pd.DataFrame(
        {
            "games": [1_100_000, 0],
            "differ": [31, 0],
            "rate": [31 / 1.1e6, np.nan],
            "lo": [1.9855e-5, np.nan],
            "hi": [4.0e-5, np.nan],
            "fair komi": [1.84, 7.0],
            "fair komi lo": [1.75, 6.5],
            "fair komi hi": [1.92, 7.5],
            "min": [73.0, np.nan],
            "game_id": [5, 6],
        }
    )
    assert show.intervals(df.columns) == [
        ("rate", "lo", "hi"),
        ("fair komi", "fair komi lo", "fair komi hi"),
    ]
    shown = show.table(df)
    assert list(shown.data.columns) == [
        "games",
        "differ",
        "rate (95% CI)",
        "fair komi (95% CI)",
        "min",
        "game_id",
    ]
    assert shown.data["rate (95% CI)"].tolist() == [
        "0.0028%\u00a0(0.0020\u2060–\u20600.0040%)",
        "–",
    ]
    assert shown.data["fair komi (95% CI)"].tolist()[1] == "7.00\u00a0(6.50\u2060–\u20607.50)"
    html = shown.to_html()
    assert ">1,100,000<" in html and ">73<" in html and ">5<" in html  # whole floats, ids plain
    assert list(show.table(df, merge_intervals=False).data.columns) == list(df.columns)
