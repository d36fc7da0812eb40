"""analysis.stats, analysis.groups and analysis.load: Wilson intervals, histogram helpers,
groups, loading runs."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from analysis import groups, load, stats
from analysis.runs import run_labels
from sim.dataset.check import check_run
from sim.dataset.layout import part_name
from sim.dataset.manifest import read_manifest
from sim.dataset.read import read_games
from sim.errors import UserError
from sim.schema.tables import CONFIG_COLUMNS, GAME_SCHEMA
from tests import synthetic
from tests.analysis_fixtures import rows_no_result, rows_superko, write_run

# --- stats -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "k, n, lo, hi",
    [  # Newcombe (1998), Stat. Med. 17:857, method 3
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_matches_textbook(k, n, lo, hi):
    got_lo, got_hi = stats.wilson(k, n)
    assert float(got_lo) == pytest.approx(lo, abs=5e-5)
    assert float(got_hi) == pytest.approx(hi, abs=5e-5)


def test_wilson_vectorised_and_empty():
    lo, hi = stats.wilson([0, 5, 10], [0, 10, 10])
    assert np.isnan(lo[0]) and np.isnan(hi[0])
    assert lo[1] < 0.5 < hi[1] and hi[1] - 0.5 == pytest.approx(0.5 - lo[1])
    assert hi[2] == pytest.approx(1.0) and lo[2] < 0.75


def test_wilson_bounds_never_cross_the_rate():
    """At k = 0 or k = n the formula's bound equals the rate only up to rounding; a bound past
    the rate would make a negative error bar."""
    n = np.arange(1, 20001)
    k = np.concatenate([np.zeros_like(n), n, np.random.default_rng(2).integers(0, n + 1)])
    n = np.tile(n, 3)
    lo, hi = stats.wilson(k, n)
    p = k / n
    assert (lo <= p).all() and (hi >= p).all() and (lo >= 0).all() and (hi <= 1).all()
    assert (lo[:20000] == 0).all() and (hi[20000:40000] == 1).all()


def test_hist_quantiles_agree_with_numpy():
    rng = np.random.default_rng(1)
    x = rng.integers(3, 40, 1001)
    values = np.arange(3, 40)
    counts = np.bincount(x - 3, minlength=len(values))
    qs = (0.0, 0.05, 0.5, 0.95, 1.0)
    got = stats.hist_quantiles(counts, values, qs)[0]
    np.testing.assert_array_equal(got, np.quantile(x, qs, method="inverted_cdf"))


def test_groups_codes_and_keys():
    df = pd.DataFrame({"a": [2, 1, 2, 1, 3], "b": list("xxyxy")})
    codes, keys = groups.split(df, ["a", "b"])
    assert keys.to_dict("records") == [
        {"a": 1, "b": "x"},
        {"a": 2, "b": "x"},
        {"a": 2, "b": "y"},
        {"a": 3, "b": "y"},
    ]
    assert codes.tolist() == [1, 0, 2, 0, 3]


# --- loading: every run is checked by sim.dataset -----------------------------------------


def test_not_a_run_errors(tmp_path):
    with pytest.raises(UserError, match="missing: no such run folder"):
        load.load_runs(tmp_path / "missing")
    (tmp_path / "a").mkdir()
    with pytest.raises(UserError, match=r"a: not a jpdsim run folder \(no manifest.json\)"):
        load.load_runs(tmp_path / "a")
    (tmp_path / "a" / "manifest.json").write_text("not json")
    with pytest.raises(UserError, match="unreadable manifest"):
        load.load_runs(tmp_path / "a")
    (tmp_path / "a" / "manifest.json").write_text("{}")
    with pytest.raises(UserError, match="no config table"):
        run_labels([tmp_path / "a"])
    with pytest.raises(UserError, match="no run folder given"):
        load.load_runs([])


def _run_with_a_bad_file(tmp_path, name, write):
    run = write_run(tmp_path, "r", rows_superko())
    write(run / "games" / name)
    return run


@pytest.mark.parametrize(
    "name, write, reason",
    [
        (
            "part-00001.parquet",
            lambda p: p.write_bytes(p.read_bytes()[:-100]),
            "not a readable Parquet file, half-written or corrupt",
        ),
        (
            "part-00001.parquet",
            lambda p: p.write_bytes(b"PAR1 garbage PAR1"),
            "not a readable Parquet file",
        ),
        ("notes.txt", lambda p: p.write_text("hello"), r"unexpected file in games/"),
        (
            "part-00002.parquet",
            lambda p: pq.write_table(synthetic.games_table(rows_superko()), p),
            "shard 2 does not exist in this run",
        ),
        (
            "part-00001.parquet",
            lambda p: pq.write_table(pa.table({"x": [1]}), p),
            "foreign file: no jpdsim schema version",
        ),
        (
            "part-00001.parquet",
            lambda p: pq.write_table(
                synthetic.games_table(rows_superko()).replace_schema_metadata(
                    {b"jpdsim.schema_version": b"99"}
                ),
                p,
            ),
            r"written by a newer jpdsim \(schema version 99\)",
        ),
        (
            "part-00001.parquet",
            lambda p: pq.write_table(
                synthetic.games_table(rows_superko()[6:]).drop_columns(["repetition_bans"]), p
            ),
            "foreign schema: no column 'repetition_bans'",
        ),
        (
            "part-00001.parquet",
            lambda p: pq.write_table(synthetic.games_table(rows_superko()[:6]), p),
            "game ids are not 6..11",
        ),
    ],
)
def test_bad_files_in_games_are_reported(tmp_path, name, write, reason):
    """A corrupt, foreign or misplaced file is an error naming it, never mixed in or skipped."""
    run = _run_with_a_bad_file(tmp_path, name, write)
    with pytest.raises(UserError, match=f"{run / 'games' / name}: {reason}"):
        load.load_runs(run, columns=["game_id"])


def test_a_shard_of_another_run_is_reported(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    other = write_run(tmp_path, "other", rows_superko(), seed=7)
    (run / "games" / "part-00001.parquet").write_bytes(
        (other / "games" / "part-00001.parquet").read_bytes()
    )
    with pytest.raises(
        UserError,
        match=r"part-00001.parquet: column 'seed' does not hold this "
        r"run's value 0 \(a file from another run\?\)",
    ):
        load.load_runs(run)


def test_temporary_files_are_not_read(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    (run / "games" / ".part-00001.parquet.tmp").write_bytes(b"half written")
    assert load.shard_files(load.open_run(run)) == [
        run / "games" / "part-00000.parquet",
        run / "games" / "part-00001.parquet",
    ]
    assert load.load_runs(run, columns=["game_id"])["game_id"].tolist() == list(range(12))


def test_incomplete_run_is_an_error_unless_allowed(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    (run / "games" / "part-00000.parquet").unlink()
    with pytest.raises(
        UserError,
        match=r"r: run is incomplete: 1 of 2 shards missing \(0\); "
        r"complete it with `jpdsim run CONFIG --out .* --resume`",
    ):
        load.load_runs(run)
    with pytest.warns(load.IncompleteRunWarning, match="reading its 6 of 12 games") as caught:
        df = load.load_runs(run, columns=["game_id"], allow_incomplete=True)
    assert caught[0].filename == __file__  # the warning points at the caller
    assert df["game_id"].tolist() == list(range(6, 12))
    with pytest.warns(load.IncompleteRunWarning):
        table = load.run_table([run], allow_incomplete=True)
    assert table[["games", "games planned"]].values.tolist() == [[6, 12]]
    (run / "games" / "part-00001.parquet").unlink()
    with pytest.warns(load.IncompleteRunWarning, match="reading its 0 of 12"):
        empty = load.load_runs(run, columns=["game_id", "ending"], allow_incomplete=True)
    assert empty.empty and list(empty.columns) == ["game_id", "ending"]


def test_projection_dtypes_and_filters(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    df = load.load_runs(
        run, columns=["game_id", "winner_jpd_a", "ending", "area_diff_jpd", "repetition_bans"]
    )
    assert list(df.columns) == [
        "game_id",
        "winner_jpd_a",
        "ending",
        "area_diff_jpd",
        "repetition_bans",
    ]
    assert list(df["winner_jpd_a"].cat.categories) == ["B", "W", "draw"]
    assert list(df["ending"].cat.categories[:4]) == ["pause", "four_virtual", "cycle", "move_limit"]
    assert df["area_diff_jpd"].dtype == np.float32
    assert df["winner_jpd_a"].isna().sum() == 1  # the move_limit game
    sub = load.load_runs(
        run, columns=["game_id"], filter={"ending": ["four_virtual", "move_limit"]}
    )
    assert sorted(sub["game_id"]) == [4, 8, 10]
    sub = load.load_runs(run, columns=["game_id"], filter=ds.field("area_diff_jpd") > 7)
    assert sorted(sub["game_id"]) == [4, 8, 9]
    sub = load.load_runs(run, columns=["game_id"], filter={"ending": "pause", "board_size": 9})
    assert len(sub) == 9
    with pytest.raises(UserError, match="no column 'no_such' in the games schema"):
        load.load_runs(run, columns=["game_id", "no_such"])
    with pytest.raises(UserError, match=f"{run}: cannot apply the filter"):
        load.load_runs(run, columns=["game_id"], filter={"no_such": 1})


def test_read_run_loads_a_checked_run_without_checking_it_again(tmp_path):
    run = write_run(tmp_path, "r", rows_superko())
    state = load.open_run(run)
    (run / "manifest.json").unlink()  # a second check would fail
    cols = ["game_id", "winner_jpd_a", "area_diff_jpd"]
    df = load.read_run(state, columns=cols)
    assert list(df.columns) == cols and df["game_id"].tolist() == list(range(12))
    assert list(df["winner_jpd_a"].cat.categories) == ["B", "W", "draw"]
    assert df["area_diff_jpd"].dtype == np.float32
    assert list(load.read_run(state, filter={"ending": "cycle"}).columns) == GAME_SCHEMA.names
    with pytest.raises(UserError, match="no column 'no_such' in the games schema"):
        load.read_run(state, columns=["no_such"])


def test_several_runs_get_a_run_column(tmp_path):
    a = write_run(tmp_path, "a", rows_superko())
    b = write_run(tmp_path, "b", rows_no_result(), board_size=7, repetition="no_result")
    df = load.load_runs([a, b], columns=["board_size", "repetition_bans", "game_id"])
    assert list(df.columns) == ["run", "board_size", "repetition_bans", "game_id"]
    assert df["run"].value_counts().to_dict() == {"a": 12, "b": 8}
    assert (df.loc[df["run"] == "b", "board_size"] == 7).all()
    assert df.loc[df["run"] == "b", "game_id"].tolist() == list(range(8))
    assert df.loc[df["run"] == "a", "repetition_bans"].sum() == 17
    everything = load.load_runs([b, a])
    assert list(everything.columns) == ["run"] + GAME_SCHEMA.names and len(everything) == 20
    table = load.run_table([a, b])
    assert table["run"].tolist() == ["a", "b"] and table["board_size"].tolist() == [9, 7]
    assert table["games"].tolist() == [12, 8] and "games planned" not in table  # both complete
    assert "komi sweep" not in table  # neither has one
    assert run_labels([a, a])[0].endswith("#1")


def test_run_labels_fall_back_to_folders(tmp_path):
    a = write_run(tmp_path, "a", rows_superko())
    b = write_run(tmp_path, "b", rows_superko())
    for d in (a, b):
        m = json.loads((d / "manifest.json").read_text())
        (d / "manifest.json").write_text(json.dumps({**m, "name": "same"}))
    assert run_labels([a, b]) == ["a", "b"]


def test_config_column(tmp_path):
    a = write_run(tmp_path, "a", rows_superko())
    b = write_run(tmp_path, "b", rows_no_result(), board_size=7, repetition="no_result")
    df = groups.add_config(load.load_runs([a, b], columns=CONFIG_COLUMNS))
    assert df["config"].value_counts().to_dict() == {
        "9x9 global_superko multi random/random v=0 cap=648": 12,
        "7x7 no_result multi random/random v=0 cap=392": 8,
    }


# --- synthetic runs -----------------------------------------------------------------------


def test_synthetic_runs_pass_the_records_check(tmp_path):
    run = synthetic.synthetic_run(
        tmp_path / "s", 2500, board_size=7, virtual_rate=0.1, seed=11, shard_size=1000, name="syn"
    )
    state = check_run(run, verify=True)
    assert state.complete and state.games_shards == {0, 1, 2} and state.config.name == "syn"
    assert sorted(p.name for p in (run / "games").iterdir()) == [part_name(i) for i in range(3)]
    assert read_games(run, ["game_id"]).column(0).to_pylist() == list(range(2500))
    df = load.load_runs(run, columns=["seed", "board_size", "virtual_rate", "komi_jpd_b"])
    assert (df["seed"] == 11).all() and (df["board_size"] == 7).all()
    assert (df["virtual_rate"] == 0.1).all() and (df["komi_jpd_b"] == 7.5).all()


def test_write_run_recuts_tables_into_shards_and_checks_them(tmp_path):
    table = synthetic.games_table(rows_superko())
    pieces = [table.slice(0, 5), table.slice(5, 1), table.slice(6)]
    run = synthetic.write_run(
        tmp_path / "r", pieces, {"board_size": 9, "games": 12, "shard_size": 4}
    )
    assert check_run(run).games_shards == {0, 1, 2}
    assert read_manifest(run)["name"] == "r"
    with pytest.raises(ValueError, match="12 games given, the config says 13"):
        synthetic.write_run(tmp_path / "x", table, {"board_size": 9, "games": 13})
    with pytest.raises(ValueError, match="column 'board_size' holds \\[9\\], the config says 7"):
        synthetic.write_run(tmp_path / "y", table, {"board_size": 7, "games": 12})
    with pytest.raises(UserError, match="key 'shard_size'"):
        synthetic.write_run(tmp_path / "z", table, {"board_size": 9, "games": 12, "shard_size": 0})


def test_random_games_are_consistent():
    t = synthetic.random_games(2000, board_size=9, virtual_rate=0.1, seed=5)
    df = t.to_pandas()
    assert t.schema.equals(GAME_SCHEMA, check_metadata=True)
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
    assert (df["repetition_bans"] >= 0).all() and df["repetition_bans"].sum() > 0
