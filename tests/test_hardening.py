"""Issue 37, hardening, third round: outputs that are devices, FIFOs or links; studies that
mix configs or count a run twice; advice that grows a run; one line where a traceback was."""

from __future__ import annotations

import os
import re
import socket
import stat
import threading

import nbformat
import pytest

from analysis import report
from analysis.runs import run_folders
from sim import cli
from sim.commands import sgf
from tests.analysis_fixtures import two_runs

# --- 1. an output path is written, not replaced ------------------------------------------


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return two_runs(tmp_path_factory.mktemp("runs"))


@pytest.fixture
def quick(monkeypatch):
    """Notebooks replaced by a trivial executed notebook (the report's writing is tested)."""

    def fake(path, run_dirs, timeout=None, statistics=None):
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {path.name}")])

    monkeypatch.setattr(report, "execute_notebook", fake)


@pytest.fixture
def sgf_text(monkeypatch):
    text = "(;FF[4]GM[1]SZ[5];B[cc])\n"
    monkeypatch.setattr(sgf, "stored_game_sgf", lambda run_dir, game_id, ruleset=None: text)
    return text


class FifoReader:
    """A reader of a FIFO in a thread (a writer's open waits for it)."""

    def __init__(self, path):
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path):
        with open(path, "rb") as f:
            self.data = f.read()

    def result(self) -> bytes:
        self.thread.join(5)
        assert not self.thread.is_alive()
        return self.data


def _report(runs, out) -> int:
    return cli.main(["report", *map(str, runs), "--out", str(out)])


def _sgf(out) -> int:
    return cli.main(["sgf", "RUN", "0", "--out", str(out)])


@pytest.mark.parametrize("command", ["report", "sgf"])
def test_a_fifo_out_is_written_through_and_stays_a_fifo(command, runs, tmp_path, quick, sgf_text):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    rc = _report(runs, fifo) if command == "report" else _sgf(fifo)
    data = reader.result()
    assert rc == 0
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    if command == "report":
        assert data.startswith(b"<!DOCTYPE html>") and b"jpdsim report" in data
    else:
        assert data.decode() == sgf_text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file left


@pytest.mark.parametrize("command", ["report", "sgf"])
def test_a_symlink_out_writes_its_target_and_stays_a_link(command, runs, tmp_path, quick, sgf_text):
    target = tmp_path / "target" / "out.txt"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert (_report(runs, link) if command == "report" else _sgf(link)) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() != "old"
    if command == "sgf":
        assert target.read_text() == sgf_text
    # a link to a path that does not exist yet: the target is made, the link stays
    dangling = tmp_path / "dangling"
    new = tmp_path / "target" / "new.txt"
    dangling.symlink_to(new)
    assert (_report(runs, dangling) if command == "report" else _sgf(dangling)) == 0
    assert dangling.is_symlink() and new.is_file()
    assert sorted(p.name for p in target.parent.iterdir()) == ["new.txt", "out.txt"]


@pytest.mark.parametrize("command", ["report", "sgf"])
def test_a_link_loop_or_a_socket_out_is_one_line(command, runs, tmp_path, quick, sgf_text, capsys):
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    assert (_report(runs, loop) if command == "report" else _sgf(loop)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"jpdsim {command}: error: --out {loop}: ") and err.count("\n") == 1
    assert loop.is_symlink()
    sock = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sock))
        assert (_report(runs, sock) if command == "report" else _sgf(sock)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"jpdsim {command}: error: --out {sock}: ") and err.count("\n") == 1
    assert stat.S_ISSOCK(os.lstat(sock).st_mode)


def test_an_sgf_out_that_is_a_regular_file_is_replaced_whole(tmp_path, sgf_text):
    """A regular file is replaced by a rename (a new file), never truncated and rewritten in
    place: a reader of the old file sees it whole, and a failed write leaves it."""
    out = tmp_path / "game.sgf"
    out.write_text("old game")
    before = os.stat(out).st_ino
    assert _sgf(out) == 0
    assert out.read_text() == sgf_text and os.stat(out).st_ino != before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.sgf"]


def test_the_output_helper_on_a_character_device(tmp_path):
    """A character device is written through: checked by its kind, not by writing /dev/null."""
    from sim import files

    assert files.output_target("/dev/null") == (files.Path("/dev/null"), files.THROUGH)
    assert files.output_target(tmp_path / "new") == (tmp_path.resolve() / "new", files.REPLACE)
    with pytest.raises(IsADirectoryError):
        files.output_target(tmp_path)


# --- 2. studies that mix what they must not ----------------------------------------------


def _komis(komi_b: float) -> dict:
    from sim.schema import DEFAULT_KOMI, RULESETS

    return {r: DEFAULT_KOMI[r] + komi_b - DEFAULT_KOMI["jpd_b"] for r in RULESETS}


def _komi_run(root, name, komi_b, board_size=9, games=400, seed=0):
    from tests import synthetic

    table = synthetic.random_games(games, board_size=board_size, komi=_komis(komi_b), seed=seed)
    cfg = {"board_size": board_size, "games": games, "shard_size": 200, "komi": _komis(komi_b)}
    return synthetic.write_run(root / name, table, cfg)


@pytest.fixture(scope="module")
def komi_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("komi")
    return {
        "5x5 low": _komi_run(root, "five-low", -40.0, board_size=5),
        "5x5 high": _komi_run(root, "five-high", 40.0, board_size=5, seed=1),
        "9x9 low": _komi_run(root, "nine-low", -2.0, seed=2),
        "9x9 high": _komi_run(root, "nine-high", 20.0, seed=3),
    }


def test_jpdsim_komi_fits_each_config_apart(komi_runs, capsys):
    """A 5x5 and a 9x9 run are never one fit: `jpdsim komi` prints one block per config, each
    fitted on its own games only."""
    from analysis import counts, komi_sweep

    runs = [komi_runs["5x5 low"], komi_runs["9x9 high"]]
    assert cli.main(["komi", *map(str, runs)]) == 0
    printed = capsys.readouterr().out
    headings = [line for line in printed.splitlines() if line.startswith("fair komi")]
    assert len(headings) == 2
    assert "5x5" in headings[0] and "9x9" in headings[1]
    assert all(re.search(r"; (399|400) games at 1 komis\):$", h) for h in headings)  # not pooled
    table = komi_sweep.komi_study_table(counts.compute(runs), n_boot=0)
    per_config = table.groupby("config")["games"].max()
    assert [c.split()[0] for c in per_config.index] == ["5x5", "9x9"]
    assert (per_config <= 400).all()
    assert (table["komis"] == 1).all()


def test_a_run_named_twice_counts_once(komi_runs, tmp_path, capsys):
    from analysis import counts, load

    run = komi_runs["9x9 low"]
    link = tmp_path / "link"
    link.symlink_to(run)
    names = [run, f"{run}/", f"{run}/../{run.name}", link]
    assert run_folders(names) == [run]
    assert counts.compute(names).games == 400
    assert len(load.load_runs(names)) == 400
    # a stress folder (runs in its subfolders) given with one of its own runs
    stress = run.parent
    assert len(run_folders([stress, run])) == len(run_folders([stress])) == 4
    assert cli.main(["komi", str(run)]) == 0
    alone = capsys.readouterr().out
    assert cli.main(["komi", str(run), f"{run}/", str(link)]) == 0
    assert capsys.readouterr().out == alone


def test_a_report_of_a_run_named_twice_counts_it_once(komi_runs, tmp_path, quick):
    run = komi_runs["9x9 low"]
    link = tmp_path / "link"
    link.symlink_to(run)
    assert len(report.check_runs([run, f"{run}/", f"{run}/../{run.name}", link])) == 1
    html = tmp_path / "r.html"
    assert cli.main(["report", str(run), str(link), "--out", str(html)]) == 0
    assert (
        html.read_text().count(f"<li><code>{run}") + html.read_text().count(f"<li><code>{link}")
        == 1
    )


def test_a_crossing_across_a_gap_has_an_interval_that_covers_it(komi_runs, capsys):
    """Komis -2 and 20 on 9x9 (Black's score near 1 and near 0): the fitted crossing lies
    somewhere in a 22-point gap where no game was played, and the interval says so."""
    from analysis import counts, komi_sweep

    runs = [komi_runs["9x9 low"], komi_runs["9x9 high"]]
    data = counts.compute(runs)
    row = komi_sweep.fitted_fair_komi(data, ["jpd_b"], n_boot=200).iloc[0]
    assert row["bracketed"] and row["komi gap"] == 22
    assert row["fair komi lo"] <= -2 and row["fair komi hi"] >= 20
    assert row["note"].startswith("a gap: no komi played between -2 and 20")
    assert cli.main(["komi", *map(str, runs)]) == 0
    printed = capsys.readouterr().out
    assert "jpd_b: a gap: no komi played between -2 and 20" in printed
    line = next(x for x in printed.splitlines() if x.split()[:1] == ["jpd_b"])
    assert "-2.00–20.00" in line


def test_a_gap_of_one_point_or_less_is_no_gap():
    from analysis import komi_sweep
    from tests.test_analysis_komi_sweep import sweep

    row = komi_sweep.fitted_fair_komi(
        sweep({k: [25] * 10 for k in (23.5, 24.5, 25.5)}), ["jpd_b"], n_boot=100
    ).iloc[0]
    assert (row["komi gap"], row["note"]) == (1, "")
    assert 24.5 <= row["fair komi lo"] <= row["fair komi hi"] <= 25.5
    wide = komi_sweep.fitted_fair_komi(
        sweep({-1000: [3] * 10, 1000: [3] * 10}), ["jpd_b"], n_boot=100
    )
    wide = wide.iloc[0]
    assert wide["fair komi"] == 0 and wide["komi gap"] == 2000
    assert (wide["fair komi lo"], wide["fair komi hi"]) == (-1000, 1000)
    # a fit of exactly 1/2 from 20.5 to 29.5, every point played: the crossing's middle, no gap
    even = komi_sweep.fitted_fair_komi(
        sweep({k + 0.5: [20, 30] * 5 for k in range(19, 31)}), ["jpd_b"], n_boot=100
    ).iloc[0]
    assert (even["fair komi"], even["komi gap"], even["note"]) == (25, 1, "")


# --- 3. advice that grows a run ------------------------------------------------------------


@pytest.fixture
def small_run(tmp_path):
    """A synthetic run of 400 games in two shards, seed 5."""
    from tests import synthetic

    cfg = {"board_size": 9, "games": 400, "shard_size": 200, "seed": 5}
    return synthetic.write_run(tmp_path / "run", synthetic.random_games(400, seed=5), cfg)


def _error(argv, capsys) -> str:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


def test_the_resume_hint_carries_the_runs_own_games_and_seed(small_run, capsys):
    (small_run / "games" / "part-00001.parquet").unlink()
    for command in ("komi", "report"):
        err = _error([command, str(small_run)], capsys)
        assert f"`jpdsim run CONFIG --out {small_run} --games 400 --seed 5 --resume`" in err
    part = small_run / "games" / "part-00000.parquet"
    part.write_bytes(part.read_bytes()[:100])  # damaged: played again by --resume
    err = _error(["komi", str(small_run)], capsys)
    assert f"`jpdsim run CONFIG --out {small_run} --games 400 --seed 5 --resume` plays " in err


def test_no_resume_hint_while_a_run_writes_into_the_folder(small_run, capsys):
    import subprocess
    import sys

    (small_run / "games" / "part-00001.parquet").unlink()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time\n"
            f"f = open({str(small_run / '.lock')!r}, 'a+')\n"
            "fcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "locked\n"
        for command in ("komi", "report"):
            err = _error([command, str(small_run)], capsys)
            assert "--resume" not in err
            assert f"a jpdsim run is writing into {small_run} now: wait for it to end" in err
    finally:
        holder.kill()
        holder.wait()
    err = _error(["komi", str(small_run)], capsys)  # the lock let go: the hint again
    assert "--games 400 --seed 5 --resume`" in err


def test_the_runner_holding_the_lock_itself_is_not_another_run(small_run):
    """The runner checks a folder under its own lock: its advice names the command."""
    from sim.dataset.advice import writing

    with open(small_run / ".lock", "a+") as f:
        import fcntl

        fcntl.flock(f, fcntl.LOCK_EX)
        assert not writing(small_run)


@pytest.mark.slow
def test_following_the_hint_completes_the_run_without_growing_it(tmp_path, capsys):
    """The config says 60 games, the run was played with --games 20 and lost a shard: the
    command the hint gives completes the 20 games, never the config's 60."""
    import json
    import shlex

    config = tmp_path / "small.toml"
    config.write_text("board_size = 3\ngames = 60\nshard_size = 10\n")
    run = tmp_path / "run"
    base = ["--out", str(run), "--workers", "1", "--no-progress"]
    assert cli.main(["run", str(config), "--games", "20", *base]) == 0
    (run / "games" / "part-00001.parquet").unlink()
    capsys.readouterr()
    err = _error(["komi", str(run)], capsys)
    hint = shlex.split(err.split("`")[1])
    assert hint[:3] == ["jpdsim", "run", "CONFIG"]
    assert cli.main(["run", str(config), *hint[3:], "--workers", "1", "--no-progress"]) == 0
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["games"] == manifest["config"]["games"] == 20
    assert manifest["status"] == "complete"


# --- 4. one line where a traceback was -----------------------------------------------------


@pytest.mark.slow
@pytest.mark.notebook
@pytest.mark.parametrize("signum, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_while_the_notebooks_run_stops_the_report_in_one_line(
    signum, status, small_run, tmp_path
):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) or SIGTERM while a
    notebook executes: exit 130 or 143, one line, no report."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out" / "r.html"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim", "report", str(small_run), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        first = proc.stdout.readline()
        assert first.startswith("report: statistics"), first
        time.sleep(1.5)  # the first notebook's kernel is up and executing
        os.killpg(proc.pid, getattr(signal, signum))
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status
    word = "interrupted" if signum == "SIGINT" else "terminated"
    assert err.splitlines() == [f"jpdsim report: {word}"]
    assert not out.exists() and not out.parent.exists()


# --- 5. smaller ----------------------------------------------------------------------------


def test_a_games_folder_that_is_a_link_loop_is_named(small_run, capsys):
    import shutil

    games = small_run / "games"
    shutil.rmtree(games)
    games.symlink_to(games)  # a loop
    for command in ("komi", "report", "sgf"):
        argv = [command, str(small_run)] + (["0"] if command == "sgf" else [])
        err = _error(argv, capsys)
        assert f"{games}: cannot be read (Too many levels of symbolic links)" in err
        assert "missing" not in err
    games.unlink()
    games.symlink_to(small_run / "gone")
    err = _error(["komi", str(small_run)], capsys)
    assert f"{games}: a symbolic link to {small_run / 'gone'}, which does not exist" in err
