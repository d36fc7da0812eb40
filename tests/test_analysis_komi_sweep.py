"""The fair komi fitted from games played at several komis (issue 23, komi sweeps): known
crossings, a logistic ground truth, sweeps that do not bracket the answer, draws, the A/B
effect per komi, the streamed statistics, and real runs at three komis."""

import numpy as np
import pandas as pd
import pytest

from analysis import ab_effect, counts, komi_sweep, load
from sim.komi import fitting
from sim.schema.tables import DEFAULT_KOMI, RULESETS
from tests import synthetic
from tests.analysis_fixtures import frame


def komis_at(komi_b: float) -> dict:
    """Every ruleset's komi when B版's is ``komi_b``, the others moved by their offsets (as a
    ``komi_sweep`` moves them)."""
    return {r: DEFAULT_KOMI[r] + komi_b - DEFAULT_KOMI["jpd_b"] for r in RULESETS}


def sweep(games: dict) -> pd.DataFrame:
    """A frame of games played at several komis: ``{komi_b: [rows or JPD area differences]}``."""
    parts = [
        frame([g if isinstance(g, dict) else {"area_diff_jpd": g} for g in rows], komis_at(k))
        for k, rows in games.items()
    ]
    return load.compact(pd.concat(parts, ignore_index=True))


def fitted(df, **kw) -> pd.Series:
    return komi_sweep.fitted_fair_komi(df, rulesets=["jpd_b"], **kw).iloc[0]


def test_a_step_in_the_score_is_found_between_the_komis():
    """Black leads by 25 in every game: score 1 at komi 24.5 and below, 0 from 25.5."""
    df = sweep({k: [25] * 10 for k in (22.5, 23.5, 24.5, 25.5, 26.5)})
    row = fitted(df, n_boot=200)
    assert (row["games"], row["komis"], row["bracketed"], row["note"]) == (50, 5, True, "")
    assert row["fair komi"] == 25 and 24.5 <= row["fair komi lo"] <= row["fair komi hi"] <= 25.5
    assert row["fair komi (margins)"] == pytest.approx(25)
    # A版, 唐宋版 and Japanese komis are one lower in this sweep, the lead the same
    assert komi_sweep.sweep_curve(df, ["jpd_a"])["komi"].tolist() == [21.5, 22.5, 23.5, 24.5, 25.5]
    assert (komi_sweep.fitted_fair_komi(df, n_boot=0)["fair komi"] == 25).all()


def test_draws_count_half():
    """At komi 25 every game is a draw: counted 0 the crossing would be 24.5, counted 1 25.5."""
    df = sweep({24.0: [25] * 4, 25.0: [25] * 4, 26.0: [25] * 4})
    curve = komi_sweep.sweep_curve(df, ["jpd_b"]).set_index("komi")
    assert curve.loc[25.0, ["games", "wins", "draws", "score"]].tolist() == [4, 0, 4, 0.5]
    assert curve["score"].tolist() == [1, 0.5, 0]
    assert fitted(df, n_boot=0)["fair komi"] == 25
    mixed = sweep({7.0: [6, 7, 7, 8], 8.0: [6, 6, 8, 8]})  # 1 win 2 draws | 0 wins 2 draws
    curve = komi_sweep.sweep_curve(mixed, ["jpd_b"]).set_index("komi")
    assert curve["score"].tolist() == [0.5, 0.25]
    lo, hi = curve.loc[7.0, ["score lo", "score hi"]]
    assert lo < 0.5 < hi and curve.loc[7.0, ["wins", "draws"]].tolist() == [1, 2]
    assert fitted(mixed, n_boot=0)["fair komi"] == 7  # a score of exactly 1/2 at komi 7


def test_a_logistic_truth_is_recovered_within_its_interval():
    """Black wins at komi k with probability 1 / (1 + exp((k - 7.3) / 1.5)), 400 games per
    komi: the fitted fair komi is near 7.3 and its interval holds it."""
    rng = np.random.default_rng(1)
    games = {}
    for k in np.arange(3.5, 11.5, 1.0):
        wins = rng.random(400) < 1 / (1 + np.exp((k - 7.3) / 1.5))
        games[k] = list(np.where(wins, k + 0.5, k - 0.5))
    row = fitted(sweep(games), n_boot=500)
    assert row["bracketed"] and abs(row["fair komi"] - 7.3) < 0.3
    assert row["fair komi lo"] < 7.3 < row["fair komi hi"]
    assert row["fair komi hi"] - row["fair komi lo"] < 1


def test_the_fit_pools_violators_and_takes_the_middle_of_a_plateau():
    w = np.ones(4)
    assert fitting.isotonic(np.array([0.8, 0.6, 0.7, 0.3]), w).tolist() == pytest.approx(
        [0.8, 0.65, 0.65, 0.3]
    )
    weighted = fitting.isotonic(np.array([0.8, 0.4, 0.7]), np.array([1, 3, 1]))
    assert weighted.tolist() == pytest.approx([0.8, 0.475, 0.475])
    k = np.array([5.0, 6.0, 7.0, 8.0])
    assert fitting.crossing(k, np.array([0.8, 0.65, 0.65, 0.3])) == pytest.approx(7 + 0.15 / 0.35)
    assert fitting.crossing(k, np.array([0.9, 0.5, 0.5, 0.1])) == 6.5  # 1/2 from 6 to 7
    assert fitting.crossing(k, np.array([0.9, 0.7, 0.6, 0.55])) == np.inf
    assert fitting.crossing(k, np.array([0.4, 0.3, 0.2, 0.1])) == -np.inf
    # Black's score 0.6 at 6.5 and 0.7 at 7.5 (noise): pooled to 0.65, no crossing yet
    df = sweep({6.5: [7] * 6 + [6] * 4, 7.5: [8] * 7 + [7] * 3, 8.5: [8] * 10})
    row = fitted(df, n_boot=0)
    assert row["fair komi"] == pytest.approx(7.5 + 0.15 / 0.65)


def test_a_sweep_that_does_not_bracket_says_so():
    high = fitted(sweep({6.5: [9] * 3 + [0], 7.5: [9] * 3 + [0]}), n_boot=100)
    assert not high["bracketed"] and np.isnan([high["fair komi"], high["fair komi lo"]]).all()
    assert high["note"] == (
        "not bracketed: Black's score is 0.750 at the highest komi 7.5; the fair komi is higher"
    )
    low = fitted(sweep({6.5: [0] * 3 + [9], 7.5: [0] * 3 + [9]}), n_boot=100)
    assert low["note"].startswith("not bracketed: Black's score is 0.250 at the lowest komi 6.5")
    assert low["note"].endswith("the fair komi is lower") and np.isnan(low["fair komi"])
    one = fitted(sweep({7.5: [9, 9, 0]}))  # one komi (an ordinary run): never a crash
    assert (one["komis"], one["bracketed"]) == (1, False)
    assert "at the only komi 7.5" in one["note"] and one["fair komi (margins)"] > 0
    even = fitted(sweep({7.5: [9, 0]}), n_boot=100)  # ... unless Black's score is 1/2 there
    assert even["bracketed"] and even["fair komi"] == 7.5
    # bracketed, but the interval reaches past the komis played: a missing bound, said
    edge = fitted(sweep({6.5: [9] * 6 + [0] * 4, 7.5: [0] * 10}), n_boot=200)
    assert edge["bracketed"] and np.isnan(edge["fair komi lo"])
    assert edge["note"] == "the interval reaches past the komis played (6.5 to 7.5)"
    none = fitted(sweep({7.5: [{"area_diff_jpd": 9, "ending": "cycle"}]}))
    assert (none["games"], none["komis"], none["note"]) == (0, 0, "no game with a result")
    assert komi_sweep.sweep_curve(sweep({7.5: [{"ending": "cycle"}]}), ["jpd_b"]).empty


def test_the_bootstrap_is_reproducible_from_its_seed():
    rng = np.random.default_rng(7)
    df = sweep({k: list(rng.integers(0, 16, 60)) for k in (5.5, 7.5, 9.5)})
    a, b = fitted(df, n_boot=300, seed=3), fitted(df, n_boot=300, seed=3)
    other = fitted(df, n_boot=300, seed=4)
    assert (
        a[["fair komi lo", "fair komi hi"]].tolist() == b[["fair komi lo", "fair komi hi"]].tolist()
    )
    assert (
        a[["fair komi lo", "fair komi hi"]].tolist()
        != other[["fair komi lo", "fair komi hi"]].tolist()
    )
    assert a["fair komi lo"] < a["fair komi"] < a["fair komi hi"]


def test_by_groups_fit_each_group():
    df = sweep({k: [25] * 5 for k in (24.5, 25.5)})
    df["board_size"] = 9
    other = sweep({k: [10] * 5 for k in (9.5, 10.5)})
    other["board_size"] = 13
    both = load.compact(pd.concat([df, other], ignore_index=True))
    t = komi_sweep.fitted_fair_komi(both, ["jpd_b"], by="board_size", n_boot=50).set_index(
        "board_size"
    )
    assert t["fair komi"].to_dict() == {9: 25, 13: 10}
    assert t["fair komi (margins)"].to_dict() == pytest.approx({9: 25, 13: 10})
    curve = komi_sweep.sweep_curve(both, ["jpd_b"], by="board_size")
    assert curve[["board_size", "komi"]].values.tolist() == [
        [9, 24.5],
        [9, 25.5],
        [13, 9.5],
        [13, 10.5],
    ]


def test_the_ab_effect_moves_with_komi():
    """The A版 point decides the games with d = komi_b - 0.5 where Black was first."""
    games = [  # JPD area difference, first to pass or virtual, finished last
        {"area_diff_jpd": d, "first_pass_or_virtual_by": f, "last_real_move_by": last}
        for d, f, last in ((6, "B", "W"), (7, "B", "B"), (8, "B", "W"), (9, "W", "B"))
    ]
    t = ab_effect.by_komi(sweep({7.5: games, 8.5: games})).set_index("komi_jpd_b")
    assert t.loc[
        :, ["games", "both winners", "differ", "white first", "black last"]
    ].values.tolist() == [
        [4, 4, 1, 1, 2],
        [4, 4, 1, 1, 2],
    ]
    assert t["black score"].tolist() == [0.5, 0.25]
    assert t["from fair komi (points)"].tolist() == [0, 1]  # fitted fair komi of B版: 7.5
    assert (t["differ lo"] < 0.25).all() and (t["differ hi"] > 0.25).all()
    assert (t["white first rate"] == 0.25).all() and (t["black last rate"] == 0.5).all()
    assert t["black score lo"].iloc[1] < 0.25 < t["black score hi"].iloc[1]
    by = ab_effect.by_komi(sweep({7.5: games, 8.5: games}).assign(board_size=9), by="board_size")
    assert by.columns[:3].tolist() == ["board_size", "komi_jpd_b", "from fair komi (points)"]
    assert by["differ"].tolist() == [1, 1]
    unbracketed = ab_effect.by_komi(sweep({7.5: games}))  # one komi, score 1/2: bracketed
    assert unbracketed["from fair komi (points)"].tolist() == [0]
    assert ab_effect.by_komi(sweep({6.5: games}))["from fair komi (points)"].isna().all()


def test_the_printable_table():
    df = sweep({k: [25] * 10 for k in (24.5, 25.5)})
    t = komi_sweep.komi_study_table(df, n_boot=50)
    assert t.columns.tolist() == [
        "config",
        "players",
        "ruleset",
        "games",
        "komis",
        "fair komi",
        "95% interval",
        "margin method",
        "note",
    ]
    row = t.set_index("ruleset").loc["jpd_b"]
    assert row.tolist() == [
        "9x9 global_superko multi v=0 cap=648",
        "random / random",
        20,
        2,
        "25.00",
        "25.00–25.00",
        "25.00",
        "",
    ]
    one = komi_sweep.komi_study_table(sweep({7.5: [9, 9, 0]}), n_boot=50).set_index("ruleset")
    assert one.loc["jpd_b", ["fair komi", "95% interval"]].tolist() == ["–", "–"]
    assert "not bracketed" in one.loc["jpd_b", "note"]


# --- streamed: the tables from the statistics of runs are the tables of their games ---------


def sweep_runs(root, komi_values, games=3000) -> list:
    """Synthetic 9x9 runs of random games, one per B版 komi (the other komis by offsets)."""
    runs = []
    for i, k in enumerate(komi_values):
        table = synthetic.random_games(games, komi=komis_at(k), seed=i)
        cfg = {"board_size": 9, "games": games, "shard_size": 1000, "komi": komis_at(k)}
        runs.append(synthetic.write_run(root / f"komi-{k:g}", table, cfg))
    return runs


def tables(data) -> dict:
    return {
        "fitted": komi_sweep.fitted_fair_komi(data, n_boot=200),
        "fitted by config": komi_sweep.fitted_fair_komi(data, by="config", n_boot=50),
        "curve": komi_sweep.sweep_curve(data),
        "curve by run": komi_sweep.sweep_curve(data, by="run"),
        "ab by komi": ab_effect.by_komi(data),
        "ab by komi and size": ab_effect.by_komi(data, by="board_size"),
        "study": komi_sweep.komi_study_table(data, n_boot=50),
    }


def test_sweep_tables_from_statistics_are_the_tables_of_the_games(tmp_path):
    runs = sweep_runs(tmp_path, (5.5, 7.5, 9.5))
    data = counts.compute(runs, batch_rows=1000)
    games = load.load_runs(runs)
    assert data.games == len(games) == 9000
    expected, got = tables(games), tables(data)
    for name, table in expected.items():
        pd.testing.assert_frame_equal(got[name], table, check_exact=True, obj=name)
    assert expected["fitted"]["komis"].eq(3).all() and expected["fitted"]["bracketed"].all()
    assert len(data.cubes["outcomes"]) < 3000  # 9,000 games: the cube grows with komis only


# --- real runs: the simulator's own games at three komis ------------------------------------


@pytest.mark.slow
def test_real_runs_at_three_komis(tmp_path):
    """3x3 random games: Black leads by 9 or loses by 9, so Black's score is the same at komi
    7.5 and 8.5 (above 1/2) and 0 at 9.5; the fitted fair komi lies between 8.5 and 9.5
    where the broken line through the scores crosses 1/2, and so does the margin method's."""
    from sim import cli

    runs = []
    for i, k in enumerate((7.5, 8.5, 9.5)):
        table = "".join(f"{r} = {v}\n" for r, v in komis_at(k).items())
        config = tmp_path / f"k{i}.toml"
        config.write_text(f"board_size = 3\ngames = 1000\nseed = {i + 1}\n[komi]\n{table}")
        runs.append(tmp_path / f"komi-{k:g}")
        argv = ["run", str(config), "--out", str(runs[-1]), "--workers", "1", "--no-progress"]
        assert cli.main(argv) == 0
    data = counts.compute(runs)
    curve = komi_sweep.sweep_curve(data, ["jpd_b"]).set_index("komi")
    assert curve["games"].tolist() == [1000, 1000, 1000]
    s = curve["fitted score"]
    assert s[7.5] >= s[8.5] > 0.5 and curve.loc[9.5, "score"] == 0
    row = komi_sweep.fitted_fair_komi(data, ["jpd_b"]).iloc[0]
    assert row["bracketed"] and row["fair komi"] == pytest.approx(8.5 + (s[8.5] - 0.5) / s[8.5])
    assert 8.5 < row["fair komi lo"] <= row["fair komi"] <= row["fair komi hi"] < 9.5
    assert 8.5 < row["fair komi (margins)"] < 9.5
    table = komi_sweep.komi_study_table(data, n_boot=100)
    assert set(table["players"]) == {"random / random"} and (table["komis"] == 3).all()


def test_bootstrap_counts_keep_the_total():
    boot = fitting.bootstrap_counts(np.array([0, 5, 0, 3]), n_boot=50, seed=3)
    assert boot.shape == (50, 4)
    assert (boot.sum(axis=1) == 8).all() and (boot[:, [0, 2]] == 0).all()
