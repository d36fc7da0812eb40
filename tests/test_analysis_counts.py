"""Streamed statistics (``analysis.counts``): every table from the merged per-batch cubes is
the table from the games themselves, locally and on a Dask cluster."""

import warnings

import pandas as pd
import pytest

from analysis import (
    ab_effect,
    counts,
    cycles,
    disagreement,
    finishes_last,
    komi,
    komi_sweep,
    load,
    players,
)
from analysis import summary as run_summary
from analysis.runs import run_folders
from tests import synthetic
from tests.analysis_fixtures import rows_no_result, rows_superko, write_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    with_setups = rows_superko()
    for i, row in enumerate(with_setups):
        row["setup"] = "ko-a" if i % 3 else "cycle-b"
    return {
        "superko": write_run(root, "superko-9", rows_superko()),
        "noresult": write_run(
            root, "noresult-7", rows_no_result(), board_size=7, repetition="no_result"
        ),
        "setups": write_run(root, "setups", with_setups),
        "syn": synthetic.synthetic_run(
            root / "syn", 9000, board_size=7, repetition="no_result", shard_size=2000
        ),
        "players": synthetic.synthetic_run(
            root / "players", 6000, player_b="mcts", player_w="capture", shard_size=2500
        ),
    }


def tables(data, several: bool) -> dict:
    """Every table the notebooks show (and the run summary), from games or statistics."""
    by = ["repetition", "board_size"]
    out = {
        "disagreement": disagreement.disagreement(data),
        "disagreement by size": disagreement.disagreement(data, by="board_size"),
        "disagreement by config": disagreement.disagreement(data, by="config"),
        "matrix": disagreement.disagreement_matrix(data),
        "crosstab": disagreement.crosstab(data, "jpd_a", "chinese"),
        "shares": finishes_last.player_shares(data),
        "last x first": finishes_last.crosstab(data),
        "relations": finishes_last.relations(data, by="board_size"),
        "parity": finishes_last.parity_table(data, by="config"),
        "ab": ab_effect.ab_summary(data, by="board_size"),
        "ab by first": ab_effect.ab_by_first(data),
        "ab explain": ab_effect.ab_explain(data),
        "area histogram": ab_effect.area_diff_histogram(data),
        "komi curves": komi.komi_curves(data, by="board_size"),
        "win table": komi.win_table(komi.komi_curves(data)),
        "fair komi": komi.fair_komi(data, n_boot=200),
        "fair komi by config": komi.fair_komi(data, by="config", n_boot=50),
        "fitted fair komi": komi_sweep.fitted_fair_komi(data, by="config", n_boot=50),
        "sweep curve": komi_sweep.sweep_curve(data, by="run" if several else None),
        "ab by komi": ab_effect.by_komi(data, by="board_size"),
        "endings": cycles.endings_wide(data, by=by),
        "endings long": cycles.endings(data),
        "moves": cycles.lengths(data, by=by),
        "actions": cycles.lengths(data, by=by, column="actions"),
        "length histogram": cycles.length_histogram(data, by=by),
        "bans": cycles.repetition_bans(data, by=by),
        "conversions": cycles.conversions(data, by=by),
        "self-check": cycles.self_check(data),
        "self-check summary": cycles.self_check_summary(data, by="run" if several else None),
        "strength": players.strength(data),
        "fair komi by players": players.fair_komi(data, n_boot=50),
        "endings by players": players.endings(data),
        "summary": pd.DataFrame({"text": [run_summary.summary(data)]}),
    }
    positions = (
        data[data["setup"].notna()]
        if isinstance(data, pd.DataFrame)
        else data.where(lambda f: f["setup"].notna())
    )
    if len(positions) if isinstance(positions, pd.DataFrame) else positions.games:
        out["stress"] = cycles.stress_table(positions)
        out["examples"] = cycles.examples(positions, by=["setup", "run"] if several else "setup")
    return out


def assert_same(expected: dict, got: dict) -> None:
    assert expected.keys() == got.keys()
    for name, table in expected.items():
        pd.testing.assert_frame_equal(got[name], table, check_exact=True, obj=name)


@pytest.mark.parametrize(
    "names",
    [
        ["superko"],
        ["setups"],
        ["players"],
        ["superko", "noresult"],
        ["syn", "players", "setups", "superko"],
    ],
)
def test_tables_from_streamed_statistics_are_the_tables_of_the_games(runs, names):
    dirs = [runs[n] for n in names]
    data = counts.compute(dirs, batch_rows=3000)  # several batches a run: merged
    games = load.load_runs(dirs)
    assert data.games == len(games)
    assert_same(tables(games, len(dirs) > 1), tables(data, len(dirs) > 1))


def test_statistics_do_not_grow_with_the_games(runs):
    """The cubes of 6,000 games hold far fewer rows, and a self-check failure is kept as a
    row (the planted game) while the cubes count it."""
    data = counts.compute(runs["players"])
    assert data.games == 6000
    assert max(len(f) for f in data.cubes.values()) < 2000
    assert (counts.compute(runs["superko"]).rows["self-check"]["game_id"] == 5).all()


def test_a_stress_folder_stands_for_its_runs(runs, tmp_path):
    folder = tmp_path / "stress"
    folder.mkdir()
    (folder / "stress.csv").write_text("setup,games\n")
    for name in ("superko", "setups"):
        (folder / runs[name].name).symlink_to(runs[name])
    assert run_folders([folder]) == [folder / "setups", folder / "superko-9"]
    expected = tables(counts.compute([runs["setups"], runs["superko"]]), True)
    assert_same(expected, tables(counts.compute(folder), True))


def test_a_missing_run_says_what_to_run(tmp_path):
    from sim.errors import UserError

    with pytest.raises(UserError, match="jpdsim run configs/quickstart.toml"):
        counts.statistics([tmp_path / "results" / "quickstart"])


def test_top_pools_the_smaller_groups():
    rows = [
        {
            "config": f"c{i:02d}",
            "ruleset_1": "jpd_a",
            "ruleset_2": "jpd_b",
            "games": 100 + i,
            "differ": i,
            **dict.fromkeys(disagreement.DIRECTIONS, 0),
        }
        for i in range(15)
    ]
    table = pd.DataFrame(rows)
    table["B|W"] = table["differ"]
    table = table.assign(rate=0.0, lo=0.0, hi=0.0)[
        [
            "config",
            "ruleset_1",
            "ruleset_2",
            "games",
            "differ",
            "rate",
            "lo",
            "hi",
            *disagreement.DIRECTIONS,
        ]
    ]
    top = disagreement.top(table, "config", 12)
    assert len(top) == 12 and top["config"].iloc[-1] == "other (4)"
    assert set(top["config"][:11]) == {f"c{i:02d}" for i in range(4, 15)}
    other = top.iloc[-1]
    assert (other["games"], other["differ"], other["B|W"]) == (406, 6, 6)
    assert other["rate"] == pytest.approx(6 / 406) and other["lo"] < other["rate"] < other["hi"]
    assert disagreement.top(table, "config", 15) is table


@pytest.mark.slow
def test_report_statistics_on_a_dask_cluster(runs, tmp_path):
    """``jpdsim report --scheduler``: the statistics computed by the cluster's worker are
    those computed here, and the report is written."""
    distributed = pytest.importorskip("distributed")
    from sim import cli

    dirs = [runs["syn"], runs["setups"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with distributed.LocalCluster(
            n_workers=1, processes=False, dashboard_address=None
        ) as cluster:
            remote = counts.compute(dirs, scheduler=cluster.scheduler_address, batch_rows=3000)
            out = tmp_path / "report.html"
            argv = ["report", *map(str, dirs), "--out", str(out)]
            assert cli.main([*argv, "--scheduler", cluster.scheduler_address]) == 0
    assert_same(tables(counts.compute(dirs, batch_rows=3000), True), tables(remote, True))
    html = out.read_text(encoding="utf-8")
    assert "<strong>9,012 games</strong> from 2 run(s)" in html and "Cycle positions" in html
