"""Fault injection: a run killed at random moments (and the leftovers of a kill) resumes to the
uninterrupted rows; a flipped bit in a data page or a footer never reaches a result; a full
disk, a Ctrl-C or SIGTERM at start-up, a closed stdout, junk replay input and stray files are
each one line and a documented exit status. Helpers: ``tests/faults.py``."""

import errno
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import weakref

import pyarrow.parquet as pq
import pytest

from sim import interrupts
from sim.cli import main as cli
from sim.config.file import load_config
from sim.dataset.check import check_run
from sim.dataset.layout import part_name
from sim.errors import UserError
from sim.files import MAX_BYTES
from sim.run import runner
from tests import faults
from tests.faults import command, digest, footer_start, signal_at, silent_flip, small_disk

pytestmark = pytest.mark.slow  # every test here takes seconds


@pytest.fixture(scope="module")
def reference(config_file, tmp_path_factory):
    """An uninterrupted run: (folder, digest of its rows)."""
    out = tmp_path_factory.mktemp("ref") / "run"
    assert runner.run(load_config(config_file), out).state.complete
    return out, digest(out)


@pytest.fixture
def copy(reference, tmp_path):
    dst = tmp_path / "run"
    shutil.copytree(reference[0], dst)
    return dst


def one_line(text: str) -> str:
    """The one line a failure printed (no traceback)."""
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


def run_cli(config_file, out, *extra) -> int:
    return cli(["run", str(config_file), "--out", str(out), "--no-progress", *extra])


# -- kills ---------------------------------------------------------------------------------


def test_kills_at_random_moments_resume_to_the_same_rows(reference, config_file, tmp_path):
    """SIGKILL the runner (alone, or with its workers) at random moments from start-up to the
    end, again and again; each time the folder is left resumable, and the last resume gives
    the uninterrupted rows."""
    out = tmp_path / "run"
    rng = random.Random(13)
    args = ["run", str(config_file), "--out", str(out), "--workers", "2", "--resume"]
    for attempt in range(4):
        proc = command(*args, env={"JPDSIM_TEST_SHARD_DELAY": "0.3"})
        status, err = signal_at(proc, rng.uniform(0.0, 2.5), signal.SIGKILL, attempt % 2 == 0)
        assert status in (-signal.SIGKILL, 0), err
        if (out / "manifest.json").exists():
            json.loads((out / "manifest.json").read_text())  # never half-written
            check_run(out)
    assert run_cli(config_file, out, "--resume", "--workers", "2") == 0
    assert digest(out) == reference[1]


def test_leftovers_of_a_kill_are_cleaned(reference, config_file, tmp_path, copy):
    """What a kill leaves at each moment: a manifest's temporary file before the first
    manifest (the folder counts as empty) or beside one, a half shard, a moves file without
    its games file; all cleaned, the rows the same."""
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / ".lock").touch()
    (fresh / ".manifest.json.k1l_x9.tmp").write_text('{"na')
    assert run_cli(config_file, fresh, "--workers", "1") == 0
    assert digest(fresh) == reference[1]
    (copy / ".manifest.json.aaaa.tmp").write_text("{")
    (copy / "games" / "part-00002.parquet").unlink()  # killed between moves and games
    (copy / "games" / ".part-00002.parquet.tmp").write_bytes(b"PAR1 half")
    assert run_cli(config_file, copy, "--resume", "--workers", "1") == 0
    assert {p.name for p in copy.iterdir()} == {
        ".lock",
        "games",
        "manifest.json",
        "moves",
        "run.log",
    }
    assert not list(copy.glob("*/.*"))
    assert digest(copy) == reference[1]


def test_ctrl_c_and_sigterm_in_the_first_second(reference, config_file, tmp_path):
    """Ctrl-C (to the whole process group, as a terminal sends it) while the libraries load
    or the workers start: one line, status 130; SIGTERM: 143; then the run resumes."""
    out = tmp_path / "run"
    moments = [
        (0.2, signal.SIGINT),
        (0.4, signal.SIGINT),
        (0.9, signal.SIGINT),
        (1.2, signal.SIGTERM),
    ]
    for k, (seconds, signum) in enumerate(moments):
        args = ["run", str(config_file), "--out", str(out / str(k)), "--workers", "2"]
        proc = command(*args, env={"JPDSIM_TEST_SHARD_DELAY": "1"})
        got, err = signal_at(proc, seconds, signum)
        assert got == 128 + signum or (got == -signum and not err), (seconds, got, err)
        assert not err or one_line(err).startswith("jpdsim"), err
    assert run_cli(config_file, out / "3", "--resume", "--workers", "1") == 0
    assert digest(out / "3") == reference[1]


def test_a_ctrl_c_that_python_drops_is_raised_again(capfd):
    """A Ctrl-C whose KeyboardInterrupt lands where CPython drops errors (a weakref callback,
    as while modules load) prints nothing and is raised by ``check``; one that was handled is
    not; one within ``deferred`` is raised at its end; outside ``handled`` Python's own handler
    is back."""

    class Thing:
        pass

    hook = sys.unraisablehook
    with interrupts.handled(signal.SIGINT):
        thing = Thing()
        ref = weakref.ref(thing, lambda ref: os.kill(os.getpid(), signal.SIGINT))
        del thing  # the callback runs, and its KeyboardInterrupt is dropped
        assert ref() is None
        assert capfd.readouterr().err == ""
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
        interrupts.check()  # raised once
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        interrupts.forget()  # handled
        interrupts.check()
        done = []
        with pytest.raises(KeyboardInterrupt):
            with interrupts.deferred():  # held until the block is done
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.1)
                done.append(True)
        assert done and signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert sys.unraisablehook is hook


def test_a_ctrl_c_that_a_loading_module_turns_into_another_error(tmp_path, monkeypatch):
    """``interrupts.load``: a Ctrl-C that a module's import wraps in a RuntimeError, or turns
    into an ImportError (as Cython modules do), comes out as the Ctrl-C; other errors stay."""
    (tmp_path / "wraps.py").write_text("raise RuntimeError('set_name') from KeyboardInterrupt()\n")
    (tmp_path / "turns.py").write_text(
        "import os, signal, time\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(1)\n"
        "except BaseException:\n"
        "    raise ImportError('multiarray failed to import') from None\n"
    )
    (tmp_path / "broken.py").write_text("raise ImportError('really broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with interrupts.handled(signal.SIGINT):
        for name in ("wraps", "turns"):
            with pytest.raises(KeyboardInterrupt):
                interrupts.load(name)
        with pytest.raises(ImportError, match="really broken"):
            interrupts.load("broken")


def test_a_handled_ctrl_c_in_exec_exits_with_the_status():
    """CPython marks a Ctrl-C that stops an ``exec`` of a string (dataclasses, while modules
    load) as never handled and dies by SIGINT at exit even when it was; the CLI clears the
    mark, so that ``jpdsim`` exits with its status (130)."""
    script = (
        "import os, signal, sys\n"
        "from sim.cli import _forget_handled_interrupt\n"
        "try:\n"
        "    exec('os.kill(os.getpid(), signal.SIGINT)\\nfor _ in range(10**8): pass')\n"
        "except KeyboardInterrupt:\n"
        "    pass\n"
        "if sys.argv[1] == 'clear':\n"
        "    _forget_handled_interrupt()\n"
    )
    status = {
        how: subprocess.run([sys.executable, "-c", script, how], cwd=faults.ROOT).returncode
        for how in ("clear", "keep")
    }
    assert status == {"clear": 0, "keep": -signal.SIGINT}


# -- damaged bytes -------------------------------------------------------------------------


def test_a_flipped_bit_in_a_data_page_reaches_no_reader(copy, config_file, capsys):
    """A bit that a reader without page checksums would read as another winner: every reader
    (check on resume, loader and report, replay --run, sgf, run's summary) names the file."""
    path = copy / "games" / part_name(1)
    silent_flip(path, "winner_jpd_a")
    for name, read in faults.readers(copy).items():
        if name == "check":
            continue  # the cheap check reads no data pages
        with pytest.raises(UserError) as err:
            read()
        assert str(path) in one_line(str(err.value) + "\n") and "corrupt data" in str(err.value)
    for argv in (
        ["replay", "--run", str(copy), "--game", "31"],
        ["sgf", str(copy), "31"],
        ["run", str(config_file), "--out", str(copy), "--resume", "--no-progress"],
    ):
        assert cli(argv) == 2
        assert str(path) in one_line(capsys.readouterr().err)


def test_a_flipped_bit_stops_the_report(copy):
    silent_flip(copy / "games" / part_name(1), "winner_jpd_a")
    proc = command("report", str(copy), "--out", str(copy / "report.html"))
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2 and str(copy / "games" / part_name(1)) in one_line(err)
    assert not (copy / "report.html").exists()


def test_flipped_bits_in_footers_and_page_headers(reference, copy):
    """Bits flipped at random in the footer and the page headers (which no checksum covers):
    every reader gives the right rows or names the file in one line; none aborts (pyarrow
    does, on the statistics of some damaged footers)."""
    path = copy / "games" / part_name(1)
    meta = pq.ParquetFile(path).metadata
    headers = [
        offset + k
        for i in range(meta.num_columns)
        for offset in (
            meta.row_group(0).column(i).dictionary_page_offset,
            meta.row_group(0).column(i).data_page_offset,
        )
        if offset is not None
        for k in range(12)
    ]
    rng = random.Random(7)
    footer = range(footer_start(path), path.stat().st_size - 8)
    spots = [(p, rng.randrange(8)) for p in rng.sample(headers, 12) + rng.sample(footer, 24)]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.faults",
            *map(str, (copy, reference[0], path)),
            json.dumps(spots),
        ],
        cwd=faults.ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    last = (proc.stderr.strip().splitlines() or ["?"])[-1]
    assert proc.returncode == 0, f"aborted at byte/bit {last}: {proc.stderr[-500:]}"
    assert proc.stdout == ""


# -- full disk -----------------------------------------------------------------------------


def _no_space(*args, **kw):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_at_the_start(config_file, tmp_path, monkeypatch, capsys):
    """No room for the first manifest: one line, status 2, nothing left that blocks a later
    run. On a small tmpfs where the test may mount one, else a fake ENOSPC."""
    with small_disk() as disk:
        if disk is None:
            monkeypatch.setattr("sim.dataset.manifest.write_text_atomic", _no_space)
            out = tmp_path / "run"
        else:
            out = disk / "run"
            filler = faults.fill(disk)
        assert run_cli(config_file, out, "--workers", "1") == 2
        err = one_line(capsys.readouterr().err)
        assert f"{out / 'manifest.json'}: cannot write (No space left on device)" in err
        assert [p.name for p in out.iterdir()] == [".lock"]
        if disk is None:
            monkeypatch.undo()
        else:
            filler.unlink()
        assert run_cli(config_file, out, "--workers", "1") == 0


def test_a_full_disk_while_shards_are_written(reference, config_file, capsys):
    """Room for two shards: the shard that finds the disk full stops the run, in one line
    naming its file, status 2 (as a full disk is everywhere else); a resume with room gives
    the same rows."""
    with small_disk("1m") as disk:
        if disk is None:
            pytest.skip("no tmpfs can be mounted here")
        out = disk / "run"
        filler = faults.fill(disk)
        filler.write_bytes(filler.read_bytes()[: -40 * 1024])  # room for about two shards
        assert run_cli(config_file, out, "--workers", "1") == 2
        err = one_line(capsys.readouterr().err)  # (and the manifest, if it found no room)
        assert re.search(rf"{out}/(games|moves)/part-\d+\.parquet: cannot write \(No space", err)
        filler.unlink()
        assert run_cli(config_file, out, "--workers", "1", "--resume") == 0
        assert digest(out) == reference[1]


def test_a_full_disk_on_resume_and_at_the_end(
    reference, config_file, tmp_path, monkeypatch, capsys
):
    """The manifest cannot be written when a resume starts (it keeps what it said) or when
    the run ends (it keeps saying "running", with the shards written so far): one line that
    says what to do, status 2; a resume with room records the run."""
    import sim.dataset.manifest as manifest_module

    out = tmp_path / "run"
    write = manifest_module.write_text_atomic

    def full_at_the_end(path, text):
        if '"status": "running"' not in text:
            _no_space()
        write(path, text)

    monkeypatch.setattr(manifest_module, "write_text_atomic", full_at_the_end)
    assert run_cli(config_file, out, "--workers", "1") == 2
    err = one_line(capsys.readouterr().err)
    assert "manifest.json: cannot write (No space left on device)" in err
    assert "4 of 4 shards are written" in err and "--resume" in err
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "running" and m["games_written"] >= 30
    monkeypatch.setattr(manifest_module, "write_text_atomic", _no_space)
    assert run_cli(config_file, out, "--resume", "--workers", "1") == 2
    assert "cannot write (No space left on device)" in one_line(capsys.readouterr().err)
    assert json.loads((out / "manifest.json").read_text()) == m
    monkeypatch.undo()
    assert run_cli(config_file, out, "--resume", "--workers", "1") == 0
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    assert digest(out) == reference[1]


# -- stray, missing and foreign files ------------------------------------------------------


def test_stray_missing_and_foreign_files(reference, config_file, copy, capsys):
    stray = copy / "games" / ".DS_Store"
    stray.write_bytes(b"\0\0\0\1Bud1")
    for read in faults.readers(copy).values():
        with pytest.raises(UserError, match=f"{stray}: unexpected file .*; move it out of"):
            read()
    stray.unlink()
    foreign = copy / "games" / "extra.parquet"
    shutil.copy(copy / "games" / part_name(0), foreign)
    assert run_cli(config_file, copy, "--resume") == 2
    err = one_line(capsys.readouterr().err)
    assert f"{foreign}: unexpected file" in err and "plays" not in err
    foreign.unlink()
    # a deleted manifest: the readers say how to write it again, --resume does
    (copy / "manifest.json").unlink()
    with pytest.raises(UserError, match="no manifest.json .*--resume` with the run's config"):
        check_run(copy)
    assert run_cli(config_file, copy, "--seed", "6") == 2  # another config: its shards refuse
    assert "column 'seed' does not hold this run's value 6" in capsys.readouterr().err
    assert not (copy / "manifest.json").exists()
    assert run_cli(config_file, copy) == 0  # the same config: resumed without --resume
    assert "resuming it" in capsys.readouterr().err
    assert "rewritten" in json.loads((copy / "manifest.json").read_text())
    assert digest(copy) == reference[1]
    # a folder that holds something else
    other = copy.parent / "other"
    other.mkdir()
    (other / ".DS_Store").write_text("")
    assert run_cli(config_file, other, "--resume") == 2
    assert "not a jpdsim run folder (no manifest.json, and it holds '.DS_Store')" in one_line(
        capsys.readouterr().err
    )


# -- command line --------------------------------------------------------------------------


def test_huge_and_empty_options_are_one_line(config_file, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for games in ("281474976710656", "10000000000000"):
        assert run_cli(config_file, tmp_path / "big", "--games", games) == 2
        assert "a run has at most 1,000,000 shards" in one_line(capsys.readouterr().err)
    assert not (tmp_path / "big").exists()
    with pytest.raises(SystemExit) as exit_:
        cli(["run", str(config_file), "--out", ""])
    assert exit_.value.code == 2 and "--out: empty path" in one_line(capsys.readouterr().err)
    assert not (tmp_path / "results").exists()


JUNK = [
    (b"C3 D3", None),
    (b"A1\xff B2", "line 2: not UTF-8 (byte 0xff at column 3)"),
    ("C3\fD3 E3\u2028B2".encode(), None),  # one line: four moves
    ("C3 A²".encode(), "move 2 (A²): not a move"),
    (b"C3 A" + b"1" * 5000, "off board"),
    ("C3 A１".encode(), "move 2 (A１): not a move"),
    ("C3 C١".encode(), "move 2 (C١): not a move"),
    (b"C3 D3\r", None),
    (b"", None),
    (b"C3 C3", "move 2 (C3): occupied"),
]


def test_junk_replay_input(tmp_path, capsys):
    """Line N of the output is the game of line N of the input, whatever the bytes."""
    path = tmp_path / "games.txt"
    path.write_bytes(b"\n".join(line for line, _ in JUNK) + b"\n")
    assert cli(["replay", "--size", "5", "--from-file", str(path)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(JUNK)
    for (line, error), got in zip(JUNK, out):
        got = json.loads(got)
        if error is None:
            assert "error" not in got, (line, got)
        else:
            assert error in got["error"], (line, got)
    assert json.loads(out[2])["moves"] == 4
    for token in ("A²", "A１", "C١", "ſ3"):
        assert cli(["replay", "--size", "5", "C3", token]) == 2
        assert capsys.readouterr().err == f"move 2 ({token}): not a move\n"


def test_a_closed_stdout(reference, config_file, tmp_path):
    """Output into a closed pipe (`| head -1`): no traceback, status 141; run's summary is in
    run.log all the same."""
    path = tmp_path / "games.txt"
    path.write_text("C3 D3 B2 pass pass\n" * 20000)
    proc = command("replay", "--size", "5", "--from-file", str(path))
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141 and proc.stderr.read() == ""
    out = tmp_path / "run"
    proc = command("run", str(config_file), "--out", str(out), "--workers", "1")
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141 and proc.stderr.read() == ""
    assert "winner disagreement" in (out / "run.log").read_text()
    assert digest(out) == reference[1]


# -- reading one game, reading many shards --------------------------------------------------


def test_a_missing_moves_file_is_named(copy, capsys):
    """A run that stores moves whose moves file of a shard is gone: sgf and replay --run of a
    game of that shard name the missing file (they neither re-play instead nor skip the
    comparison of the moves)."""
    path = copy / "moves" / part_name(1)
    path.unlink()
    for argv in (["sgf", str(copy), "31"], ["replay", "--run", str(copy), "--game", "31"]):
        assert cli(argv) == 2
        err = one_line(capsys.readouterr().err)
        assert f"{path}: missing (the moves of shard 1, record_moves = 'all')" in err
        assert "--resume` plays shard 1 again" in err


def test_one_damaged_shard_blocks_only_its_own_games(copy, capsys, monkeypatch):
    """Reading one game opens its own shard's files alone (the cost does not grow with the
    shards of the run), so a damaged shard stops only the games in it."""
    import sim.dataset.check as check

    damaged = copy / "games" / part_name(1)
    damaged.write_bytes(b"PAR1 not a whole file")
    opened, original = [], check.open_part

    def counted(path, *args):
        opened.append(path)
        return original(path, *args)

    monkeypatch.setattr(check, "open_part", counted)
    assert cli(["replay", "--run", str(copy), "--game", "95"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"] is True
    assert {p.name for p in opened} == {part_name(3)}
    assert cli(["sgf", str(copy), "5"]) == 0
    assert cli(["sgf", str(copy), "31"]) == 2
    assert str(damaged) in one_line(capsys.readouterr().err)


def test_resume_names_every_damaged_shard_at_once(copy, config_file, capsys):
    for i in (1, 2):
        (copy / "games" / part_name(i)).write_bytes(b"PAR1 not a whole file")
    assert run_cli(config_file, copy, "--resume") == 2
    err = one_line(capsys.readouterr().err)
    assert all(str(copy / "games" / part_name(i)) in err for i in (1, 2)), err
    assert "move them away, then `jpdsim run CONFIG" in err and "plays shards 1-2 again" in err


def test_a_newer_schema_says_upgrade(copy, capsys):
    """A manifest or a shard written by a newer jpdsim: one line saying to upgrade (not to
    move the shard away and play it again, which would throw its games away)."""
    path = copy / "games" / part_name(2)
    table = pq.read_table(path)
    pq.write_table(table.replace_schema_metadata({"jpdsim.schema_version": "99"}), path)
    assert cli(["replay", "--run", str(copy), "--game", "61"]) == 2
    err = one_line(capsys.readouterr().err)
    assert f"{path}: written by a newer jpdsim (schema version 99)" in err
    assert "upgrade jpdsim" in err and "move it away" not in err
    manifest = json.loads((copy / "manifest.json").read_text())
    (copy / "manifest.json").write_text(json.dumps({**manifest, "schema_version": "99"}))
    assert cli(["replay", "--run", str(copy), "--game", "5"]) == 2
    err = one_line(capsys.readouterr().err)
    assert "manifest.json: written by a newer jpdsim (schema version 99)" in err
    assert "upgrade jpdsim" in err


def test_setup_and_config_files_are_read_safely(tmp_path, capsys):
    """A diagram over the size cap, a FIFO, /dev/zero: one line each (no hang, no
    MemoryError); a UTF-8 byte-order mark in a config or a diagram is read as UTF-8."""
    big = tmp_path / "big.txt"
    big.write_bytes(b"." * (MAX_BYTES + 1))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, reason in ((big, "larger than 1,048,576 bytes"), (fifo, "not a regular file")):
        assert cli(["replay", "--setup", str(path), "C3"]) == 2
        assert f"--setup {path}: '{path}': {reason}" in one_line(capsys.readouterr().err)
    assert cli(["replay", "--setup", "/dev/zero", "C3"]) == 2
    assert "not a regular file" in one_line(capsys.readouterr().err)
    config = tmp_path / "c.toml"
    config.write_text("\ufeffboard_size = 5\ngames = 2\n", encoding="utf-8")
    assert load_config(config).games == 2
    diagram = tmp_path / "d.txt"
    diagram.write_text("\ufeff# name: bom\n. X .\nX . .\n. . .\n", encoding="utf-8")
    assert cli(["replay", "--setup", str(diagram), "pass"]) == 0


def test_workers_beyond_the_memory_or_the_cores(config_file, tmp_path, capsys):
    """More workers than the memory holds: refused in one line before anything is written;
    more than the cores: a warning, and the run plays."""
    assert run_cli(config_file, tmp_path / "many", "--workers", "100000") == 2
    err = one_line(capsys.readouterr().err)
    assert "option --workers: 100000 workers need about" in err and "use at most" in err
    assert not (tmp_path / "many").exists()
    cores = os.cpu_count()
    assert run_cli(config_file, tmp_path / "more", "--workers", str(cores + 1)) == 0
    assert f"more workers than the {cores} cores" in capsys.readouterr().err
