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
    from sim.schema.tables import DEFAULT_KOMI, RULESETS

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


# --- 6. a sweep that crosses setups; runs under limits; one line where a traceback was ------

CROSSED = """\
board_size = 5
games = {games}
shard_size = {shard_size}
setup = [{{ name = "a", diagram = "X....\\n.....\\n.....\\n.....\\n....." }},
         {{ name = "b", diagram = "....O\\n.....\\n.....\\n.....\\n....." }}]
komi_sweep = {{ ruleset = "jpd_b", values = [{values}] }}
"""


def _config(tmp_path, text: str, name: str = "c.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("values", ["6.5, 7.5", "6.5, 7.5, 8.5, 9.5"])
def test_a_komi_sweep_plays_every_komi_from_every_setup(tmp_path, values):
    """Two setups and k komis (k even: game i mod 2 would give each komi one setup only):
    every (komi, setup) pair has as many games, and the rows say so."""
    from collections import Counter

    import numpy as np

    from sim.config.file import load_config
    from sim.run.shard import play_table

    cfg = load_config(_config(tmp_path, CROSSED.format(games=16, shard_size=16, values=values)))
    k = len(cfg.komi_sweep.values)
    table, _ = play_table(cfg, np.arange(8 * k), record_moves=False)
    pairs = Counter(zip(table["komi_jpd_b"].to_pylist(), table["setup"].to_pylist()))
    assert len(pairs) == 2 * k and set(pairs.values()) == {4}
    assert cfg.game_config(3).rules.komi["jpd_b"] == 7.5  # game 3: setup b, komi (3 div 2) = 1


def test_a_stored_sweep_without_the_key_keeps_the_komis_it_was_played_at(tmp_path):
    """A run stored before the crossing played game i at komi i mod k: read back, its config
    says so (its shards stay readable) and resuming it with the crossing is another config;
    a sweep without several setups is the same either way."""
    import numpy as np

    from sim.config.file import config_from_dict, load_config
    from sim.run import identity

    cfg = load_config(_config(tmp_path, CROSSED.format(games=16, shard_size=16, values="6.5, 7.5")))
    old = cfg.to_dict()
    del old["komi_sweep"]["cross_setups"]
    stored = config_from_dict(old, "manifest", stored=True)
    assert [g.rules.komi["jpd_b"] for g, _ in stored.komi_groups(np.arange(4))] == [6.5, 7.5]
    assert [rows.tolist() for _, rows in stored.komi_groups(np.arange(4))] == [[0, 2], [1, 3]]
    assert [rows.tolist() for _, rows in cfg.komi_groups(np.arange(4))] == [[0, 1], [2, 3]]
    (diff,) = identity.config_differences(old, cfg)
    assert diff == "komi_sweep.cross_setups: run has False, requested True"
    sweep = 'komi_sweep = { ruleset = "jpd_b", values = [6.5, 7.5] }\n'
    plain = load_config(_config(tmp_path, "board_size = 5\ngames = 4\n" + sweep))
    old = plain.to_dict()
    del old["komi_sweep"]["cross_setups"]
    assert identity.config_differences(old, plain) == []


def test_a_huge_sweep_is_a_short_line(tmp_path):
    from sim.config.file import load_config
    from sim.errors import UserError

    values = ", ".join(str(v / 2) for v in range(10_000))
    sweep = f'komi_sweep = {{ ruleset = "jpd_b", values = [{values}] }}\n'
    with pytest.raises(UserError) as err:
        load_config(_config(tmp_path, "board_size = 5\ngames = 4\n" + sweep))
    message = str(err.value)
    assert len(message) < 300 and "\n" not in message
    assert "got [0.0, 0.5, 1.0, 1.5, 2.0, ... (9,995 more)]" in message


@pytest.mark.parametrize(
    "key",
    [
        "repetition = [{many}]",
        "seed = [{many}]",
        "[players.black]\nkind = [{many}]",
        'setup = "{long}"',
    ],
)
def test_any_huge_value_is_a_short_line(tmp_path, key):
    """Every option checker (``sim.options``, the player, the setups) quotes a value bounded."""
    from sim.config.file import load_config
    from sim.errors import UserError

    text = key.format(many=", ".join(["1"] * 10_000), long="x" * 100_000)
    with pytest.raises(UserError) as err:
        load_config(_config(tmp_path, "board_size = 5\ngames = 4\n" + text))
    assert len(str(err.value)) < 1600 and "\n" not in str(err.value)  # a path, the corpus


def test_quoted_values_are_bounded():
    from sim.errors import quoted

    assert quoted([1, 2]) == "[1, 2]" and quoted((1,)) == "(1,)" and quoted({"a": 1}) == "{'a': 1}"
    assert quoted(list(range(7))) == "[0, 1, 2, 3, 4, ... (2 more)]"
    assert quoted("x" * 70) == repr("x" * 60) + "... (10 more characters)"
    assert quoted({i: [0] * 9 for i in range(9)}).startswith("{0: [0, 0, 0, 0, 0, ... (4 more)], ")
    assert quoted({i: 0 for i in range(9)}).endswith("4: 0, ... (4 more)}")


SMALL = "board_size = 5\ngames = {games}\nshard_size = {shard_size}\nseed = 3\n"


def _limited(argv, cwd, limits: dict, timeout=300):
    """``jpdsim ARGV`` in a process under ``limits`` ({resource.RLIMIT_*: soft limit})."""
    import resource
    import subprocess
    import sys

    def apply():
        for which, value in limits.items():
            resource.setrlimit(which, (value, resource.getrlimit(which)[1]))

    return subprocess.run(
        [sys.executable, "-m", "sim", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        preexec_fn=apply,
        timeout=timeout,
    )


def _run_argv(config, out, *extra):
    return ["run", str(config), "--out", str(out), "--workers", "1", "--no-progress", *extra]


@pytest.mark.slow
def test_a_file_size_limit_stops_the_run_at_its_first_shard(tmp_path):
    """``ulimit -f 100``: no shard fits; the first stops the run in one line, status 2."""
    import resource

    config = _config(tmp_path, SMALL.format(games=20_000, shard_size=10_000))
    out = tmp_path / "run"
    done = _limited(_run_argv(config, out), tmp_path, {resource.RLIMIT_FSIZE: 100 * 1024})
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert f"{out}/games/part-00000.parquet: cannot write (File too large: files are " in line
    assert "limited to 102,400 bytes here, ulimit -f)" in line and "the run stopped" in line
    log = (out / "run.log").read_text()
    assert "shard 0: " in log and "shard 1: " not in log  # no shard after it was started


def _stress_config(tmp_path):
    return _config(
        tmp_path,
        'games = 20\nshard_size = 10\nsetup = "triple_ko"\nrecord_moves = "cycles"\n'
        'repetitions = ["global_superko"]\nsuicides = ["multi"]\nplayers = ["random"]\n',
        "stress.toml",
    )


@pytest.mark.slow
@pytest.mark.parametrize("command", ["run", "stress"])
@pytest.mark.parametrize("limit", ["open files", "memory"])
def test_a_process_limit_is_one_line_and_leaves_no_folder(tmp_path, command, limit):
    """``ulimit -n 14`` (two workers) or ``ulimit -v 480000``: one line that names the limit,
    status 2, and no folder left behind by a run that had not started."""
    import resource

    if command == "run":
        argv = _run_argv(_config(tmp_path, SMALL.format(games=20, shard_size=10)), tmp_path / "a")
    else:
        argv = ["stress", str(_stress_config(tmp_path)), "--out", str(tmp_path / "a" / "b")]
        argv += ["--workers", "1", "--no-progress"]
    argv[argv.index("--workers") + 1] = "2"
    limits = (
        {resource.RLIMIT_NOFILE: 14}
        if limit == "open files"
        else {resource.RLIMIT_AS: 480_000 * 1024}
    )
    done = _limited(argv, tmp_path, limits)
    assert done.returncode == 2, done.stderr
    line = done.stderr.splitlines()[-1]
    assert line.startswith(f"jpdsim {command}: error: ")
    if limit == "open files":
        assert "too many open files: a process may have 14 open here (ulimit -n)" in line
    else:
        assert "out of memory: a process may use 469 MiB of address space here (ulimit -v)" in line
    assert all(x.startswith("[1/1] ") for x in done.stderr.splitlines()[:-1])  # stress's
    assert not (tmp_path / "a").exists()


def test_a_limit_error_names_the_limit():
    import errno

    from sim.errors import limit_error

    assert "too many open files" in str(limit_error(OSError(errno.EMFILE, "Too many open files")))
    assert str(limit_error(MemoryError())).startswith("out of memory")
    try:
        try:
            raise OSError("libx.so: failed to map segment from shared object")
        except OSError:
            raise OSError("Could not find/load shared object file") from None
    except OSError as err:
        assert limit_error(err) is not None  # the loader's failure, however it is wrapped
    assert limit_error(OSError(errno.ENOENT, "No such file")) is None
    assert limit_error(ValueError("x")) is None


@pytest.mark.slow
def test_a_short_run_whose_games_all_end_engine_error_stops(tmp_path, capsys):
    """Three games, all ``engine_error`` (fewer than the five in a row that stop a run): the
    run stops, status 2, its shards not kept, and ``--resume`` plays them again."""
    import json
    import sys
    from pathlib import Path

    fake = Path(__file__).parent / "data" / "fake_gtp.py"
    command = json.dumps([sys.executable, str(fake), "crash"])
    config = _config(
        tmp_path,
        f"board_size = 5\ngames = 3\nshard_size = 2\n[players.black]\nkind = 'gtp'\n"
        f"command = {command}\ngenmove_timeout = 5\n",
    )
    out = tmp_path / "run"
    argv = _run_argv(config, out)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "every game played (3) ended engine_error: the programs cannot play" in err
    assert "0 of 2 shards written" in err and "--resume" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and manifest["games_written"] == 0
    assert list((out / "games").iterdir()) == []


def test_a_run_inside_another_runs_folder_is_refused(small_run, tmp_path, capsys):
    """``--out`` inside a run folder (its games/ or any folder below it) is refused before
    anything is written there; the outer run stays readable."""
    config = _config(tmp_path, SMALL.format(games=4, shard_size=2))
    for inner in (small_run / "games" / "x", small_run / "sub" / "run"):
        err = _error(_run_argv(config, inner), capsys)
        assert f"--out {inner}: inside the run folder {small_run}, which holds its own run" in err
        assert not inner.exists()
    assert not (small_run / "sub").exists()
    assert cli.main(["komi", str(small_run)]) == 0
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "manifest.json").write_text("{}")  # not a run's manifest
    from sim.run.folder import check_folder

    assert check_folder(tmp_path / "plain" / "run", resume=False) is False


@pytest.mark.slow
def test_resuming_a_run_whose_games_folder_is_a_link_loop_is_one_line(tmp_path, capsys):
    import shutil

    config = _config(tmp_path, SMALL.format(games=4, shard_size=2))
    out = tmp_path / "run"
    assert cli.main(_run_argv(config, out)) == 0
    shutil.rmtree(out / "games")
    (out / "games").symlink_to(out / "games")
    capsys.readouterr()
    for argv in (_run_argv(config, out, "--resume"), _run_argv(config, out)):
        err = _error(argv, capsys)
        assert f"{out / 'games'}: cannot be read (Too many levels of symbolic links)" in err
