"""analysis.stats and analysis.load: Wilson intervals, histogram helpers, loading runs."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from analysis import load, stats, synthetic
from tests.analysis_fixtures import NO_BANS, rows_no_result, rows_superko, write_run
from sim.schema import GAME_SCHEMA


# --- stats -------------------------------------------------------------------------------

@pytest.mark.parametrize("k, n, lo, hi", [  # Newcombe (1998), Stat. Med. 17:857, method 3
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)])
def test_wilson_matches_textbook(k, n, lo, hi):
    got_lo, got_hi = stats.wilson(k, n)
    assert float(got_lo) == pytest.approx(lo, abs=5e-5)
    assert float(got_hi) == pytest.approx(hi, abs=5e-5)


def test_wilson_vectorised_and_empty():
    lo, hi = stats.wilson([0, 5, 10], [0, 10, 10])
    assert np.isnan(lo[0]) and np.isnan(hi[0])
    assert lo[1] < 0.5 < hi[1] and hi[1] - 0.5 == pytest.approx(0.5 - lo[1])
    assert hi[2] == pytest.approx(1.0) and lo[2] < 0.75


def test_hist_quantiles_agree_with_numpy():
    rng = np.random.default_rng(1)
    x = rng.integers(3, 40, 1001)
    values = np.arange(3, 40)
    counts = np.bincount(x - 3, minlength=len(values))
    qs = (0.0, 0.05, 0.5, 0.95, 1.0)
    got = stats.hist_quantiles(counts, values, qs)[0]
    np.testing.assert_array_equal(got, np.quantile(x, qs, method="inverted_cdf"))


def test_bootstrap_counts_keep_the_total():
    boot = stats.bootstrap_counts(np.array([0, 5, 0, 3]), n_boot=50, seed=3)
    assert boot.shape == (50, 4)
    assert (boot.sum(axis=1) == 8).all() and (boot[:, [0, 2]] == 0).all()


def test_groups_codes_and_keys():
    df = pd.DataFrame({"a": [2, 1, 2, 1, 3], "b": list("xxyxy")})
    codes, keys = stats.groups(df, ["a", "b"])
    assert keys.to_dict("records") == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"},
                                       {"a": 3, "b": "y"}]
    assert codes.tolist() == [1, 0, 2, 0, 3]


# --- loading -----------------------------------------------------------------------------

def test_not_a_run_errors(tmp_path):
    with pytest.raises(load.RunError, match="not a folder"):
        load.load_runs(tmp_path / "missing")
    (tmp_path / "a").mkdir()
    with pytest.raises(ValueError, match=r"a: not a jpdsim run \(no manifest.json\)"):
        load.load_runs(tmp_path / "a")
    (tmp_path / "a" / "manifest.json").write_text("{}")
    with pytest.raises(load.RunError, match=r"no games/ folder"):
        load.load_runs(tmp_path / "a")
    (tmp_path / "a" / "games").mkdir()
    with pytest.raises(load.RunError, match=r"no part-\*.parquet"):
        load.load_runs(tmp_path / "a")
    (tmp_path / "b" / "games").mkdir(parents=True)
    (tmp_path / "b" / "manifest.json").write_text("not json")
    with pytest.raises(load.RunError, match="unreadable manifest"):
        load.read_manifest(tmp_path / "b")


def test_temporary_files_are_ignored(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    (run / "games" / ".part-00009.parquet").write_bytes(b"half written")
    (run / "games" / "part-00010.parquet.tmp").write_bytes(b"half written")
    assert [p.name for p in load.part_files(run)] == ["part-00000.parquet", "part-00001.parquet"]
    assert len(load.load_runs(run, columns=["game_id"])) == 12


def test_projection_dtypes_and_filters(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    df = load.load_runs(run, columns=["game_id", "winner_jpd_a", "ending", "area_diff_jpd",
                                      "repetition_bans"])
    assert list(df.columns) == ["game_id", "winner_jpd_a", "ending", "area_diff_jpd", "repetition_bans"]
    assert list(df["winner_jpd_a"].cat.categories) == ["B", "W", "draw"]
    assert list(df["ending"].cat.categories[:4]) == ["pause", "four_virtual", "cycle", "move_limit"]
    assert df["area_diff_jpd"].dtype == np.float32
    assert df["winner_jpd_a"].isna().sum() == 1  # the move_limit game
    sub = load.load_runs(run, columns=["game_id"], filter={"ending": ["four_virtual", "move_limit"]})
    assert sorted(sub["game_id"]) == [1004, 1008, 1010]
    sub = load.load_runs(run, columns=["game_id"], filter=ds.field("area_diff_jpd") > 7)
    assert sorted(sub["game_id"]) == [1004, 1008, 1009]


def test_several_runs_get_a_run_column(tmp_path):
    a = write_run(tmp_path, "a", rows_superko())
    b = write_run(tmp_path, "b", rows_no_result(), drop=NO_BANS, board_size=7,
                  repetition="no_result")
    df = load.load_runs([a, b], columns=["board_size", "repetition_bans"])
    assert list(df.columns) == ["run", "board_size", "repetition_bans"]
    assert df["run"].value_counts().to_dict() == {"a": 12, "b": 8}
    assert (df.loc[df["run"] == "b", "board_size"] == 7).all()
    assert df.loc[df["run"] == "b", "repetition_bans"].isna().all()  # b does not record bans
    assert df.loc[df["run"] == "a", "repetition_bans"].sum() == 17
    table = load.run_table([a, b])
    assert table["run"].tolist() == ["a", "b"] and table["board_size"].tolist() == [9, 7]


def test_all_columns_of_runs_with_and_without_optional_columns(tmp_path):
    a = write_run(tmp_path, "a", rows_superko())
    b = write_run(tmp_path, "b", rows_no_result(), drop=NO_BANS, board_size=7,
                  repetition="no_result")
    df = load.load_runs([b, a])
    assert list(df.columns) == ["run"] + [c for c in GAME_SCHEMA.names if c != "repetition_bans"] \
        + ["repetition_bans"]
    assert df["repetition_bans"].isna().sum() == 8 and len(df) == 20
    assert load.run_labels([a, a])[0].endswith("#1")


def test_run_labels_fall_back_to_folders(tmp_path):
    a = write_run(tmp_path, "a", rows_superko())
    b = write_run(tmp_path, "b", rows_superko())
    for d in (a, b):
        m = json.loads((d / "manifest.json").read_text())
        (d / "manifest.json").write_text(json.dumps({**m, "name": "same"}))
    assert load.run_labels([a, b]) == ["a", "b"]


def test_missing_column_and_schema_version(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    with pytest.raises(load.RunError, match="lack column.*no_such"):
        load.load_runs(run, columns=["no_such"])
    table = synthetic.games_table(rows_superko())
    table = table.replace_schema_metadata({b"jpdsim.schema_version": b"99"})
    for p in load.part_files(run):
        p.unlink()
    pq.write_table(table, run / "games" / "part-00000.parquet")
    with pytest.raises(load.RunError, match="schema version 99"):
        load.load_runs(run)


def test_config_column(tmp_path):
    a = write_run(tmp_path, "a", rows_superko())
    b = write_run(tmp_path, "b", rows_no_result(), drop=NO_BANS, board_size=7,
                  repetition="no_result")
    df = load.add_config(load.load_runs([a, b], columns=load.CONFIG_COLUMNS))
    assert df["config"].value_counts().to_dict() == {
        "9x9 global_superko multi random/random v=0 cap=648": 12,
        "7x7 no_result multi random/random v=0 cap=392": 8}


def test_random_games_are_consistent():
    t = synthetic.random_games(2000, board_size=9, virtual_rate=0.1, seed=5)
    df = t.to_pandas()
    assert t.schema.names[:len(GAME_SCHEMA)] == GAME_SCHEMA.names
    assert (df["area_b_jpd"] + df["area_w_jpd"] == 81).all()
    s_b = df["real_moves_b"] + df["virtual_moves_b"]
    s_w = df["real_moves_w"] + df["virtual_moves_w"]
    assert set(s_b - s_w) <= {0, 1}
    assert (df["moves"] == s_b + s_w).all()
    assert (df["real_moves_b"] == df["stones_b"] + df["stones_lost_b"]).all()
    white_first = df["first_pass_or_virtual_by"] == "W"
    assert (df["equal_stones_diff"] == df["area_diff_jpd"] - white_first).all()
    m = df["area_diff_jpd"] - 6.5 - white_first
    assert np.allclose(df["margin_jpd_a"], m)
    scored = ~df["ending"].isin(["cycle", "move_limit"])
    assert (df.loc[scored, "winner_jpd_a"] == np.where(m[scored] > 0, "B", "W")).all()
    assert df.loc[~scored, "winner_jpd_a"].isna().all()
    assert isinstance(t.column("repetition_bans").type, pa.DataType)
