"""Run files: the schema and metadata written, the moves kept, and damaged, foreign or
unexpected files reported (path + reason) by every reader and by --resume, never mixed in."""

import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.config.rules import Rules
from sim.config.run import RunConfig
from sim.dataset.check import check_run
from sim.dataset.layout import MOVES_SCHEMA, format_ranges, part_name
from sim.dataset.read import load_game, read_games
from sim.dataset.write import moves_selection
from sim.errors import UserError
from sim.run import runner
from sim.run.shard import play_table
from sim.schema.tables import GAME_SCHEMA, SCHEMA_VERSION

CFG = RunConfig(
    name="rec",
    games=60,
    rules=Rules(5, repetition="basic_ko", max_actions=120),
    shard_size=20,
    seed=3,
    virtual_rate=0.2,
    record_moves="cycles",
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("rec") / "run"
    result = runner.run(CFG, out, workers=1)
    assert result.state.complete
    return out


@pytest.fixture
def copy(run_dir, tmp_path):
    dst = tmp_path / "run"
    shutil.copytree(run_dir, dst)
    return dst


def test_games_files(run_dir):
    for i in range(3):
        pf = pq.ParquetFile(run_dir / "games" / part_name(i))
        assert pf.schema_arrow.equals(GAME_SCHEMA, check_metadata=True)
        assert pf.metadata.metadata[b"jpdsim.schema_version"] == SCHEMA_VERSION.encode()
        assert pf.metadata.row_group(0).column(0).compression == "ZSTD"
    table = read_games(run_dir)
    assert table.schema.equals(GAME_SCHEMA, check_metadata=True)
    assert table["game_id"].to_pylist() == list(range(60))
    assert set(table["seed"].to_pylist()) == {3}
    assert set(table["komi_jpd_b"].to_pylist()) == {7.5}
    assert set(table["max_actions"].to_pylist()) == {120}
    part = read_games(run_dir, columns=["game_id", "ending"])
    assert part.column_names == ["game_id", "ending"] and part.num_rows == 60
    with pytest.raises(UserError, match="no column 'colour'"):
        read_games(run_dir, columns=["colour"])


def test_moves_kept_for_cycles(run_dir):
    counts = read_games(run_dir, columns=["actions"])["actions"].to_pylist()
    moves = pa.concat_tables(
        pq.read_table(p) for p in sorted((run_dir / "moves").glob("*.parquet"))
    )
    assert moves.schema.equals(MOVES_SCHEMA, check_metadata=True)
    ids = moves["game_id"].to_pylist()
    games, _ = play_table(CFG, np.arange(60), record_moves=False)
    endings, bans = games["ending"].to_pylist(), games["repetition_bans"].to_pylist()
    wanted = [g for g in range(60) if endings[g] != "pause" or bans[g] > 0]
    assert ids == wanted and 0 < len(ids)
    for g, actions in zip(ids, moves["actions"].to_pylist()):
        assert len(actions) == counts[g]
        assert load_game(run_dir, g)[2] == actions
        assert all(a in (-1, -2) or 0 <= a < 25 for a in actions)
    unkept = next((g for g in range(60) if g not in ids), None)
    assert unkept is None or load_game(run_dir, unkept)[2] is None


def test_moves_selection_rule():
    games = pa.table(
        {
            "ending": ["pause", "pause", "cycle", "four_virtual"],
            "repetition_bans": pa.array([0, 2, 0, 0], pa.int32()),
        }
    )
    assert moves_selection("cycles", games).tolist() == [False, True, True, True]
    assert moves_selection("all", games).tolist() == [True] * 4
    assert moves_selection("none", games).tolist() == [False] * 4


def _shard(run, i=1):
    return run / "games" / part_name(i)


def _truncate(run):
    data = _shard(run).read_bytes()
    _shard(run).write_bytes(data[: len(data) // 2])


def _foreign(run):
    pq.write_table(pa.table({"x": [1, 2]}), _shard(run))


def _dropped_column(run):
    t = pq.read_table(_shard(run))
    pq.write_table(t.drop_columns(["moku_b"]), _shard(run))


def _other_seed(run):
    t = pq.read_table(_shard(run))
    i = t.schema.get_field_index("seed")
    pq.write_table(t.set_column(i, "seed", pa.array([4] * t.num_rows, pa.int64())), _shard(run))


def _wrong_place(run):
    shutil.copy(_shard(run, 0), _shard(run, 1))


def _unexpected(run):
    (run / "games" / "notes.txt").write_text("mine")


def _out_of_range(run):
    shutil.copy(_shard(run, 0), run / "games" / "part-00007.parquet")


def _moves_in_games(run):
    shutil.copy(run / "moves" / part_name(1), _shard(run))


def _bad_moves(run):
    (run / "moves" / part_name(2)).write_bytes(b"PAR1 not really")


DAMAGE = {
    _truncate: "half-written or corrupt",
    _foreign: "foreign file: no jpdsim schema version",
    _dropped_column: "foreign schema: no column 'moku_b'",
    _other_seed: "column 'seed' does not hold this run's value 3",
    _wrong_place: "game ids are not 20..39 in order",
    _unexpected: "unexpected file in games/",
    _out_of_range: "shard 7 does not exist in this run",
    _moves_in_games: "foreign file: a games file in moves/ or a moves file in games/",
    _bad_moves: "not a readable Parquet file",
}


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__.strip("_"))
def test_bad_files_are_reported(copy, damage):
    damage(copy)
    reason = DAMAGE[damage]
    for read in (check_run, read_games, lambda run: runner.run(CFG, run, resume=True)):
        with pytest.raises(UserError) as err:
            read(copy)
        msg = str(err.value)
        assert reason in msg and str(copy) in msg and "\n" not in msg, msg


def test_corrupt_pages_are_reported(copy):
    path = _shard(copy)
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    body = len(data) - footer - 8
    for k in range(body // 3, 2 * body // 3, 7):  # scribble over the column chunks
        data[k] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(UserError, match=f"{path}: .*corrupt"):
        read_games(copy)
    with pytest.raises(UserError, match=f"{path}: .*corrupt"):
        runner.run(CFG, copy, resume=True)


def test_not_a_run(tmp_path):
    with pytest.raises(UserError, match="no such run folder"):
        check_run(tmp_path / "none")
    with pytest.raises(UserError, match="not a jpdsim run folder"):
        read_games(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(UserError, match="unreadable manifest"):
        read_games(tmp_path)


def test_complete_run_resumes_to_nothing(copy):
    before = read_games(copy)
    result = runner.run(CFG, copy, resume=True)
    assert result.state.complete and result.games_played == 0
    assert read_games(copy).equals(before)


def test_format_ranges():
    assert format_ranges([]) == ""
    assert format_ranges([7, 1, 2, 3, 9, 10]) == "1-3, 7, 9-10"
