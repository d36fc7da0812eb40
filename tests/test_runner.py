"""The runner against the real engine: reproducible rows whatever the workers and shards,
interrupted runs (deleted shard, crashed worker, SIGKILL, Ctrl-C) resumed to the same rows,
and every stored game replaying to its row. Small 5x5 runs keep this quick."""

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis.summary import summary
from sim.cli import main as cli
from sim.commands.run import speed
from sim.config.file import load_config
from sim.dataset.check import check_run
from sim.dataset.layout import MOVES_SCHEMA
from sim.dataset.read import read_games
from sim.dataset.write import write_atomic
from sim.errors import UserError
from sim.run import folder, runner
from sim.run.shard import play_table
from sim.run.stored import replay_stored
from sim.schema.tables import GAME_SCHEMA, RULESETS

pytestmark = pytest.mark.slow  # every test here takes seconds

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reference(config_file, tmp_path_factory):
    """An uninterrupted run with one worker: (run folder, its games table)."""
    out = tmp_path_factory.mktemp("ref") / "run"
    result = runner.run(load_config(config_file), out, workers=1)
    assert result.state.complete and not result.failures
    return out, read_games(out)


def run_cli(config_file, out, *extra):
    return cli(["run", str(config_file), "--out", str(out), "--no-progress", *extra])


def test_reference_run(reference, config_file):
    out, table = reference
    assert table.schema.equals(GAME_SCHEMA, check_metadata=True)
    assert table["game_id"].to_pylist() == list(range(120))
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["games_written"] == 120
    assert m["config"] == load_config(config_file).to_dict()
    assert m["shards"] == {"count": 4, "size": 30, "written": 4, "missing": ""}
    assert set(m["versions"]) == {"python", "numpy", "numba", "pandas", "pyarrow"}
    assert m["git_commit"] is None or len(m["git_commit"]) == 40
    assert m["seconds"] > 0 and m["throughput_games_per_s"] > 0
    log = (out / "run.log").read_text()
    assert "worker-1" in log and "shard 3: 30 games" in log  # worker records reach run.log
    assert log.rstrip().endswith("4 of 4 shards written")  # the parent's last line, drained


def test_rows_do_not_depend_on_workers_or_shards(reference, config_file, tmp_path, capsys):
    _, table = reference
    assert run_cli(config_file, tmp_path / "two", "--workers", "2") == 0
    assert read_games(tmp_path / "two").equals(table)
    out = capsys.readouterr().out
    assert "games: 120" in out and "B win rate" in out and "winner disagreement" in out
    cfg = load_config(config_file)
    other = runner.run(dataclasses.replace(cfg, shard_size=17), tmp_path / "s17", workers=2)
    assert other.state.config.n_shards == 8
    assert read_games(tmp_path / "s17").equals(table)
    # one batch of all ids, in process, gives the same rows too
    whole, _ = play_table(cfg, np.arange(120), record_moves=False)
    assert whole.equals(table)


def test_rows_on_a_dask_cluster(reference, config_file, tmp_path):
    """The same run played as tasks of a Dask distributed cluster gives the same rows."""
    from distributed import LocalCluster

    _, table = reference
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        result = runner.run(
            load_config(config_file), tmp_path / "dask", scheduler=cluster.scheduler_address
        )
    assert result.state.complete and not result.failures
    assert read_games(tmp_path / "dask").equals(table)


def test_resume_after_a_lost_shard(reference, config_file, tmp_path, capsys):
    ref_dir, table = reference
    out = tmp_path / "run"
    assert run_cli(config_file, out, "--workers", "1") == 0
    (out / "games" / "part-00002.parquet").unlink()
    (out / "games" / ".part-00001.parquet.tmp").write_bytes(b"half a shard")  # left by a kill
    state = check_run(out)
    assert state.missing == [2] and state.leftovers
    with pytest.raises(UserError, match="incomplete.*shards missing \\(2\\).*--resume"):
        read_games(out)
    assert read_games(out, allow_incomplete=True).num_rows == 90
    # another run's folder is refused in one line saying what to type, with --resume or not
    assert run_cli(config_file, out, "--seed", "12") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds another run (seed: run has 11, requested 12)" in err
    assert "choose another folder with --out DIR" in err and f"delete {out} first" in err
    assert run_cli(config_file, out, "--resume", "--seed", "12") == 2
    err = capsys.readouterr().err
    assert "cannot resume" in err and "seed: run has 11, requested 12" in err
    # the same run, incomplete: resumed without --resume too, saying so
    assert run_cli(config_file, out, "--workers", "2") == 0
    assert "holds this run (incomplete, 3 of 4 shards written): resuming it" in (
        capsys.readouterr().err
    )
    assert read_games(out).equals(table)
    assert not list((out / "games").glob(".*"))
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and len(m["sessions"]) == 2
    assert m["sessions"][1]["games_played"] == 30


def test_a_complete_run_again_shows_its_summary(reference, config_file, tmp_path, capsys):
    """`jpdsim run` a second time on a complete run: its summary, nothing played or written."""
    out, _ = reference
    files = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert run_cli(config_file, out) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"run small in {out} is complete already (120 games, seed 11)")
    assert "games: 120" in text and "B win rate" in text and "winner disagreement" in text
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == files
    (tmp_path / "notes.txt").write_text("mine")
    assert run_cli(config_file, tmp_path) == 2
    assert "not a jpdsim run folder" in capsys.readouterr().err


def test_speeds_a_person_can_read():
    assert speed(4, 14.3) == "3.58 s a game"
    assert speed(5, 2.0) == "2.5 games/s" and speed(95, 2.0) == "47.5 games/s"
    assert speed(3_000_000, 22.5) == "133,333 games/s"
    assert speed(0, 0.2) is None


def test_crashed_worker_is_reported_and_resumed(
    reference, config_file, tmp_path, monkeypatch, capsys
):
    _, table = reference
    out = tmp_path / "run"
    monkeypatch.setenv("JPDSIM_TEST_CRASH_SHARD", "1")
    assert run_cli(config_file, out, "--workers", "2") == 1
    err = capsys.readouterr().err
    assert "shard 1 failed: worker worker-" in err and "exited with status 70" in err
    assert "shards 1 missing" in err and "--resume" in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "incomplete" and m["shards"]["missing"] == "1"
    assert check_run(out).missing == [1]
    monkeypatch.delenv("JPDSIM_TEST_CRASH_SHARD")
    assert run_cli(config_file, out, "--resume") == 0
    assert read_games(out).equals(table)


def _start(config_file, out, delay):
    env = {**os.environ, "JPDSIM_TEST_SHARD_DELAY": str(delay)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sim",
            "run",
            str(config_file),
            "--out",
            str(out),
            "--workers",
            "1",
            "--no-progress",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )  # its own process group, as in a terminal


def _wait_for_shards(out, n, proc, timeout=300):
    t = time.monotonic()
    while len(list((out / "games").glob("part-*.parquet"))) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t < timeout
        time.sleep(0.02)


def _wait_for_manifest(out, games, proc, timeout=60):
    t = time.monotonic()
    while json.loads((out / "manifest.json").read_text()).get("games_written", 0) < games:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t < timeout
        time.sleep(0.02)


def test_sigkill_then_resume(reference, config_file, tmp_path):
    _, table = reference
    out = tmp_path / "run"
    proc = _start(config_file, out, delay=0.5)
    _wait_for_shards(out, 1, proc)
    _wait_for_manifest(out, 30, proc)  # the runner records a shard once it hears of it
    proc.kill()
    proc.wait()
    time.sleep(0.3)  # the worker dies with its parent (PR_SET_PDEATHSIG): nothing more appears
    written = sorted(p.name for p in (out / "games").iterdir())
    time.sleep(0.7)
    assert sorted(p.name for p in (out / "games").iterdir()) == written
    state = check_run(out)
    assert 1 <= len(state.done) < 4
    m = json.loads((out / "manifest.json").read_text())  # brought up to date as shards came
    assert m["status"] == "running" and 30 <= m["games_written"] <= 30 * len(state.done)
    assert m["shards"]["written"] >= 1 and m["updated"] >= m["started"]
    result = runner.run(load_config(config_file), out, workers=1, resume=True)
    assert result.state.complete
    assert read_games(out).equals(table)


def test_ctrl_c_stops_cleanly(config_file, tmp_path):
    out = tmp_path / "run"
    proc = _start(config_file, out, delay=0.5)
    _wait_for_shards(out, 1, proc)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the runner and its workers
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and f"--out {out}" in err
    assert not [p for p in (out / "games").iterdir() if p.name.startswith(".")]
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert not check_run(out).complete


def test_every_stored_game_replays(reference, tmp_path, capsys):
    out, table = reference
    for game_id in range(table.num_rows):
        result = replay_stored(out, game_id)
        assert result == {"game_id": game_id, "matches": True, "differences": {}}
    # an altered row and an altered move list are found
    tampered = tmp_path / "run"
    shutil.copytree(out, tampered)
    part = read_games(out).slice(30, 30)
    counts = part["actions"].to_pylist()
    counts[5] += 1
    part = part.set_column(
        part.schema.get_field_index("actions"), "actions", pa.array(counts, pa.int32())
    )
    write_atomic(
        part,
        tampered / "games" / "part-00001.parquet",
        tampered / "games" / ".part-00001.parquet.tmp",
    )
    moves = pq.read_table(out / "moves" / "part-00001.parquet")
    lists = moves["actions"].to_pylist()
    lists[5][3] = -2 if lists[5][3] != -2 else -1
    moves = moves.set_column(1, "actions", pa.array(lists, MOVES_SCHEMA.field("actions").type))
    write_atomic(
        moves,
        tampered / "moves" / "part-00001.parquet",
        tampered / "moves" / ".part-00001.parquet.tmp",
    )
    result = replay_stored(tampered, 35)
    assert not result["matches"]
    assert list(result["differences"]) == ["actions", "action_list"]
    d = result["differences"]["actions"]
    assert d["stored"] == d["replayed"] + 1
    assert result["differences"]["action_list"]["first_difference_at"] == 3
    assert replay_stored(tampered, 36)["matches"]
    # the command: JSON on stdout, status 1 for a mismatch; errors for unknown games and runs
    assert cli(["replay", "--run", str(tampered), "--game", "35"]) == 1
    assert json.loads(capsys.readouterr().out)["matches"] is False
    assert cli(["replay", "--run", str(out), "--game", "7"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] is True
    with pytest.raises(UserError, match="no game 120"):
        replay_stored(out, 120)
    with pytest.raises(UserError, match="not a jpdsim run folder"):
        replay_stored(tmp_path, 0)


def test_default_folder_and_options(config_file, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run_cli(config_file, tmp_path / "x", "--workers", "0") == 2
    assert "--workers: must be >= 1" in capsys.readouterr().err
    assert cli(["run", str(config_file), "--games", "3", "--no-progress"]) == 0
    out = tmp_path / "results" / "small"
    assert read_games(out)["game_id"].to_pylist() == [0, 1, 2]
    assert json.loads((out / "manifest.json").read_text())["config"]["games"] == 3
    text = capsys.readouterr().out
    assert "games: 3" in text
    assert re.search(r"3 games played in [\d.]+ s \(([\d.]+ games/s|[\d.]+ s a game), ", text)
    assert "(0 games/s" not in text


def test_summary_counts():
    rulesets = RULESETS
    table = pa.table(
        {
            "ending": ["pause", "pause", "four_virtual", "cycle"],
            **{f"winner_{r}": ["B", "W", "B", None] for r in rulesets[:4]},
            "winner_japanese": ["W", "W", "draw", None],
        }
    )
    text = summary(table.to_pandas())
    lines = {}
    for line in text.splitlines():  # the first line of each label (results before disagreement)
        if line.strip():
            lines.setdefault(line.split()[0], line.split())
    assert lines["pause"][1:] == ["2", "50.00%"] and lines["cycle"][1:] == ["1", "25.00%"]
    assert lines["move_limit"][1:] == ["0", "0.00%"]
    assert lines["jpd_a"][1:6] == ["2", "1", "0", "1", "66.67%"]
    assert lines["japanese"][1:] == ["0", "2", "1", "1", "0.00%"]
    # disagreement row of jpd_a: 0% with jpd_b, jpd_tangsong, chinese; 2 of 3 with japanese
    assert [r for r in text.splitlines() if r.startswith("jpd_a") and "%" in r][-1].split()[1:] == [
        "0.00%",
        "0.00%",
        "0.00%",
        "66.67%",
    ]


def test_one_runner_per_folder(config_file, tmp_path):
    fcntl = pytest.importorskip("fcntl")
    out = tmp_path / "run"
    out.mkdir()
    with open(out / ".lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(UserError, match="another jpdsim run is writing into this folder"):
            runner.run(load_config(config_file), out, resume=True)
    (tmp_path / "file").write_text("")
    with pytest.raises(UserError, match="exists and is not a folder"):
        runner.run(load_config(config_file), tmp_path / "file")


def test_a_readers_brief_shared_lock_does_not_turn_a_run_away(tmp_path):
    """``advice.writing`` probes a folder with a shared lock for an instant: a run starting in
    that instant waits for it rather than saying another run writes there."""
    import threading

    fcntl = pytest.importorskip("fcntl")
    (tmp_path / ".lock").touch()
    with open(tmp_path / ".lock", "rb") as probe:
        fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
        threading.Timer(0.2, fcntl.flock, (probe, fcntl.LOCK_UN)).start()
        folder.lock(tmp_path).close()


def test_unwritable_out_is_one_line(config_file, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert run_cli(config_file, blocker / "run") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"jpdsim run: error: --out {blocker / 'run'}:")


def test_runs_of_searching_players_keep_the_guarantees(tmp_path):
    """mcts players in `jpdsim run`: the same rows whatever the workers and shards, a lost shard
    resumed to the same rows, every stored game replaying to its row (under dead_stones =
    "agree", with a resign threshold), progress in run.log."""
    path = tmp_path / "mcts.toml"
    path.write_text(
        "board_size = 5\ngames = 12\nshard_size = 4\nseed = 3\nrecord_moves = 'all'\n"
        "dead_stones = 'agree'\n"
        "[players.black]\nkind = 'mcts'\nvisits = 32\nplayout = 'random'\nresign_below = 0.05\n"
        "[players.white]\nkind = 'mcts'\nvisits = 48\nplay_for = 'japanese'\n"
    )
    cfg = load_config(path)
    one = runner.run(cfg, tmp_path / "one", workers=1)
    assert one.state.complete and not one.failures
    table = read_games(tmp_path / "one")
    assert set(table["player_b"].to_pylist()) == {cfg.black.name}
    assert set(table["player_w"].to_pylist()) == {cfg.white.name}
    assert run_cli(path, tmp_path / "two", "--workers", "2") == 0
    assert read_games(tmp_path / "two").equals(table)
    runner.run(dataclasses.replace(cfg, shard_size=5), tmp_path / "s5", workers=2)
    assert read_games(tmp_path / "s5").equals(table)
    (tmp_path / "two" / "games" / "part-00001.parquet").unlink()
    assert run_cli(path, tmp_path / "two", "--resume", "--workers", "1") == 0
    assert read_games(tmp_path / "two").equals(table)
    for game_id in range(12):
        assert replay_stored(tmp_path / "one", game_id)["matches"]
    assert "shard 2: 4 games" in (tmp_path / "one" / "run.log").read_text()


def test_a_run_grows_by_whole_shards(reference, config_file, tmp_path, capsys):
    """``--resume --games N`` with more games than a run holds grows it to the rows of a run of
    N games, when its games fill whole shards; a run that ends inside a shard is refused in
    one line and left as it was, and without --resume the line says what to add."""
    _, table = reference
    out = tmp_path / "run"
    assert run_cli(config_file, out, "--games", "60", "--workers", "1") == 0
    capsys.readouterr()
    assert run_cli(config_file, out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "(games: run has 60, requested 120); to grow it to 120 games, add --resume" in err
    assert run_cli(config_file, out, "--resume", "--workers", "1") == 0
    assert read_games(out).equals(table)
    m = json.loads((out / "manifest.json").read_text())
    assert m["config"] == load_config(config_file).to_dict() and m["games"] == 120
    assert m["status"] == "complete" and [g["games"] for g in m["grown"]] == [60]
    # a run of 45 games ends inside its second shard of 30
    part = tmp_path / "part"
    assert run_cli(config_file, part, "--games", "45", "--workers", "1") == 0
    files = {p: p.read_bytes() for p in part.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert run_cli(config_file, part, "--resume") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot grow the run to 120 games" in err
    assert "its 45 games end inside shard 1 (shards of 30)" in err
    assert {p: p.read_bytes() for p in part.rglob("*") if p.is_file()} == files
    # fewer games is another run
    assert run_cli(config_file, out, "--resume", "--games", "30") == 2
    assert "cannot resume" in capsys.readouterr().err
