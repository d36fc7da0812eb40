"""GTP programs as players (``sim.play.referee``, ``sim.gtp.engine``): real GNU Go games judged
under the rules, and the faults of a misbehaving engine (tests/data/fake_gtp.py). Every game
is replayed by the pure-Python reference (``tests.reference``) and the engine, and its row
checked against the reference's outcome."""

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.cli import main as cli
from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.game import Game
from sim.gtp.engine import EngineError, resolve
from sim.options import OptionError
from sim.play.referee import play_refereed
from sim.schema.coords import AGREE, RESUME
from tests import faults
from tests.conftest import without_compile_notes
from tests.reference import RefGame
from tests.test_engine_vs_reference import none_for_nan

FAKE = Path(__file__).parent / "data" / "fake_gtp.py"


def _gnugo() -> str:
    """GNU Go's path; the test is skipped where it is missing, except in CI (which installs
    it: a skip there would hide the real-engine tests)."""
    try:
        return resolve("gnugo")[0]
    except EngineError:
        if os.environ.get("CI"):
            pytest.fail("GNU Go is not installed (.ci/run installs the Debian package gnugo)")
        pytest.skip("GNU Go is not installed (apt-get install gnugo)")


def gnugo(level=0) -> Player:
    return Player("gtp", command=[_gnugo(), "--mode", "gtp", "--level", str(level)])


def fake(mode: str, timeout=30.0) -> Player:
    return Player(
        "gtp", command=[sys.executable, str(FAKE), *mode.split()], genmove_timeout=timeout
    )


def replayed(rules: Rules, actions) -> RefGame:
    """The game of ``actions`` played again by the pure-Python reference and by the engine,
    each action checked legal in both and the boards equal after each."""
    ref = RefGame(
        rules.board_size,
        rules.repetition,
        rules.suicide,
        rules.max_actions,
        dead_stones=rules.dead_stones,
    )
    game = Game(rules)
    for k, action in enumerate(actions.tolist()):
        assert ref.play(action) is None, f"action {k} ({action}) illegal for the reference"
        assert game.play(action) is None, f"action {k} ({action}) illegal for the engine"
        assert game.board() == ref.board(), f"boards differ after action {k}"
    return ref


def assert_rows_replay(rules, cols, moves):
    """Every stored game is legal move by move (reference and engine) and its row is the
    reference's outcome; a game ended by an engine error is the reference's position, with
    that ending and no winner."""
    for j, actions in enumerate(moves):
        expected = replayed(rules, actions).outcome()
        if cols["ending"][j] == "engine_error":
            no_result = {k for k in expected if k.startswith("winner_")} | {"ending"}
            assert all(cols[k][j] is None for k in no_result if k != "ending")
            expected = {k: v for k, v in expected.items() if k not in no_result}
        for name, value in expected.items():
            assert none_for_nan(cols[name][j]) == value, (j, name, cols[name][j], value)


def refereed(white: Player, seed: int, games=2):
    """``games`` 5x5 games of the random player (Black) against ``white``, moves stored."""
    return play_refereed(
        Rules(5),
        seed=seed,
        game_ids=np.arange(games),
        black=Player("random"),
        white=white,
        record_moves=True,
    )


@pytest.mark.gnugo
def test_gnugo_plays_complete_games_under_the_rules():
    """Real GNU Go against the pattern player: games end by the pause, every GNU Go move is
    legal here and every row is the outcome of its moves; the same seed gives the same games
    (GNU Go is given a seed from (run seed, game id))."""
    rules = Rules(9)
    kwargs = dict(seed=5, game_ids=np.arange(2), record_moves=True)
    cols, moves = play_refereed(rules, black=gnugo(), white=Player("pattern"), **kwargs)
    assert list(cols["ending"]) == ["pause", "pause"]
    assert list(cols["engine_illegal"]) == [0, 0]
    assert all(len(m) > 20 for m in moves)
    assert_rows_replay(rules, cols, moves)
    again, moves2 = play_refereed(rules, black=gnugo(), white=Player("pattern"), **kwargs)
    assert [m.tolist() for m in moves2] == [m.tolist() for m in moves]


@pytest.mark.gnugo
def test_gnugo_names_dead_stones_at_the_pause():
    """dead_stones = "agree" with GNU Go on both sides: its final_status_list dead lists are
    compared, equal lists removed and counted (the record holds AGREE and the stones), a
    disagreement resumes play; the rows replay from the record."""
    rules = Rules(9, dead_stones="agree")
    cols, moves = play_refereed(
        rules, seed=3, game_ids=np.arange(3), black=gnugo(), white=gnugo(), record_moves=True
    )
    assert_rows_replay(rules, cols, moves)
    for j, actions in enumerate(moves):
        actions = actions.tolist()
        settled = [a for a in actions if a in (AGREE, RESUME)]
        assert settled and settled[-1] == AGREE or cols["resumptions"][j] == 3
        assert settled.count(RESUME) == cols["resumptions"][j]
        if AGREE in actions:
            assert len(actions) - 1 - actions.index(AGREE) == cols["dead_b"][j] + cols["dead_w"][j]


@pytest.mark.gnugo
def test_mcts_against_gnugo_with_tree_reuse():
    """The tree search against GNU Go: its tree follows GNU Go's moves (advance), and the
    games are as legal as any."""
    rules = Rules(7)
    cols, moves = play_refereed(
        rules,
        seed=1,
        game_ids=np.arange(2),
        black=Player("mcts", visits=64),
        white=gnugo(),
        record_moves=True,
    )
    assert_rows_replay(rules, cols, moves)


@pytest.mark.parametrize(
    "mode, words",
    [
        ("crash 2", "exited"),
        ("hang 2", "no answer"),
        ("garbage", "not a GTP answer"),
        ("refuse", "refused"),
    ],
)
def test_engine_faults_end_the_game_and_restart_the_engine(mode, words, caplog):
    """A crash, a hang past the timeout, garbage, or a refused legal move: that game ends
    ``engine_error`` with no winner, the reason in the log, and the next game is played by a
    fresh process."""
    cols, moves = refereed(fake(mode, timeout=0.5), seed=1)
    assert list(cols["ending"]) == ["engine_error", "engine_error"]
    assert all(cols[f"winner_{r}"][j] is None for r in ("jpd_a", "chinese") for j in range(2))
    assert [len(m) for m in moves] == [len(moves[0])] * 2  # the second game went as far
    errors = [r.getMessage() for r in caplog.records if "engine error" in r.getMessage()]
    assert len(errors) == 2 and all(words in e for e in errors), errors
    assert_rows_replay(Rules(5), cols, moves)


def test_a_huge_answer_is_logged_cut(caplog):
    """A program that answers genmove with a million letters: the game ends engine_error, and
    the log shows the start of the answer and how many bytes were cut, not the whole of it."""
    cols, _ = refereed(fake("huge"), seed=1, games=1)
    assert list(cols["ending"]) == ["engine_error"]
    [error] = [r.getMessage() for r in caplog.records if "engine error" in r.getMessage()]
    assert len(error) < 500 and "answered 'XXXX" in error, error[:500]
    assert "... (999,800 more bytes cut): not a move" in error


def test_an_illegal_engine_move_is_a_pass():
    """A move the rules forbid (here: a point already taken) is counted in engine_illegal and
    played as a pass; the game goes on to its end; resignations end games with ending
    ``resign``."""
    cols, moves = refereed(fake("occupied"), seed=2)
    assert list(cols["ending"]) == ["pause", "pause"]
    assert all(cols["engine_illegal"] > 0)
    assert_rows_replay(Rules(5), cols, moves)
    cols, _ = play_refereed(
        Rules(5), seed=2, game_ids=np.arange(1), black=fake("resign 2"), white=Player("random")
    )
    assert cols["ending"][0] == "resign" and cols["winner_jpd_a"][0] == "W"


@pytest.mark.gnugo
def test_run_with_an_engine(tmp_path, capsys):
    """`jpdsim run` with a gtp player: rows with engine_illegal, every move stored, replay
    of a stored game through the engine matches, SGF export; a missing program is one line
    and exit 2 before any folder is made."""
    gnu = _gnugo()
    config = tmp_path / "g.toml"
    config.write_text(
        "board_size = 7\ngames = 4\nshard_size = 2\nseed = 8\n[players.black]\nkind = 'gtp'\n"
        f"name = 'gnugo'\ncommand = ['{gnu}', '--mode', 'gtp', '--level', '0']\n"
        "[players.white]\nkind = 'pattern'\n"
    )
    out = tmp_path / "run"
    assert cli(["run", str(config), "--out", str(out), "--workers", "2", "--no-progress"]) == 0
    games = pd.read_parquet(out / "games")
    assert len(games) == 4 and set(games["ending"]) == {"pause"}
    assert (games["engine_illegal"] == 0).all()
    assert games["player_b"].iloc[0].startswith("gtp(name=gnugo,command=")
    assert len(pd.read_parquet(out / "moves")) == 4
    capsys.readouterr()
    engine = f"gnugo={shlex.join([gnu, '--mode', 'gtp', '--level', '0'])}"
    assert cli(["replay", "--run", str(out), "--game", "3", "--engine", engine]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["matches"] is True and result["engine_rerun"] is True
    assert cli(["sgf", str(out), "1"]) == 0
    assert "PB[gtp(name=gnugo" in capsys.readouterr().out

    config.write_text(
        "board_size = 7\ngames = 4\n[players.white]\nkind = 'gtp'\ncommand = 'no-such-gtp-engine'\n"
    )
    assert cli(["run", str(config), "--out", str(tmp_path / "none"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "players.white.command" in err and "not found" in err
    assert not (tmp_path / "none").exists()


@pytest.mark.gnugo
def test_gnugo_rows_do_not_depend_on_the_workers(tmp_path):
    """GNU Go, told a seed from (run seed, game id) before each game, plays each game as it
    would alone: the same rows and moves with 1 and 2 workers (docs/gtp.md,
    Reproducibility)."""
    config = tmp_path / "g.toml"
    config.write_text(
        "board_size = 7\ngames = 6\nshard_size = 2\nseed = 4\n[players.black]\nkind = 'gtp'\n"
        f"command = ['{_gnugo()}', '--mode', 'gtp', '--level', '1']\n"
        "[players.white]\nkind = 'pattern'\n"
    )
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        argv = ["run", str(config), "--out", str(out), "--workers", str(workers)]
        assert cli([*argv, "--no-progress"]) == 0
    assert faults.digest(tmp_path / "w1") == faults.digest(tmp_path / "w2")


# -- programs that cannot play, and processes left running ---------------------------------


def gtp_config(path: Path, command: list, games=4, size=5, extra="") -> Path:
    """A run config: the random player (Black) against a GTP program (White)."""
    path.write_text(
        f"board_size = {size}\ngames = {games}\nshard_size = 2\n[players.white]\nkind = 'gtp'\n"
        f"name = 'fake'\ncommand = {json.dumps([str(c) for c in command])}\n{extra}"
    )
    return path


def fake_command(*args) -> list:
    return [sys.executable, str(FAKE), *map(str, args)]


def pids(path: Path) -> list[int]:
    """The processes a fake engine said it started as (``--pids``)."""
    lines = path.read_text().split("\n") if path.exists() else []
    return sorted({int(line.split()[0]) for line in lines if line.endswith("start")})


def gone(pid: int) -> bool:
    """Whether ``pid`` is gone (or a zombie), waiting up to 10 s for a SIGKILL to land."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(
    "where, command, size, said",
    [
        ("komi", ["--refuse", "komi"], 5, "fake: 'komi 6.5' refused: unacceptable"),
        ("boardsize", ["--refuse", "boardsize"], 5, "fake: 'boardsize 5' refused: unacceptable"),
        pytest.param(
            "gnugo 21x21",
            None,
            21,
            "'boardsize 21' refused: unacceptable size",
            marks=pytest.mark.gnugo,
        ),
    ],
)
def test_a_setup_the_program_refuses_is_one_line_before_any_game(
    where, command, size, said, tmp_path, capsys
):
    """The start-up check sets up a first game (boardsize, clear_board, komi): a program that
    refuses it is one line naming the program, the command and its answer, exit 2, no run
    folder (GNU Go plays at most 19x19)."""
    args = [_gnugo(), "--mode", "gtp"] if command is None else fake_command("pass", *command)
    config = gtp_config(tmp_path / "c.toml", args, size=size)
    out = tmp_path / "run"
    assert cli(["run", str(config), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "players.white.command: " in err and said in err, err
    assert not out.exists()


def test_a_run_whose_games_keep_ending_engine_error_stops(tmp_path, capsys):
    """A program that refuses every move of the other side (as GNU Go refuses multi-stone
    suicides): after GIVE_UP_AFTER games in a row end engine_error the run stops, one line
    says why, exit 2, the manifest says "stopped" and why; the program is gone."""
    from sim.play.referee import GIVE_UP_AFTER

    log = tmp_path / "pids"
    config = gtp_config(tmp_path / "c.toml", fake_command("refuse", "--pids", log), games=40)
    out = tmp_path / "run"
    argv = ["run", str(config), "--out", str(out), "--workers", "1", "--no-progress"]
    assert cli(argv) == 2
    err = without_compile_notes(capsys.readouterr().err)
    assert err.count("\n") == 1, err
    assert f"fake: {GIVE_UP_AFTER} games in a row ended engine_error" in err
    assert "'play b" in err and "refused: illegal move" in err and "--resume" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and "engine_error" in manifest["stopped_because"]
    assert manifest["games_written"] < GIVE_UP_AFTER
    assert all(gone(pid) for pid in pids(log))


def test_no_engine_outlives_a_run(tmp_path, capsys):
    """Programs that ignore the end of their input and SIGTERM: a finished run quits them
    (the start-up check's, the workers'); one that does not answer its first command within
    startup_timeout is killed, and the error shows what it wrote on stderr."""
    log = tmp_path / "pids"
    command = fake_command("pass", "--pids", log, "--stubborn")
    config = gtp_config(tmp_path / "c.toml", command, games=4)
    out = tmp_path / "run"
    assert cli(["run", str(config), "--out", str(out), "--workers", "2", "--no-progress"]) == 0
    assert len(pids(log)) == 3 and all(gone(pid) for pid in pids(log))
    log.unlink()
    command = fake_command("silent", "--pids", log, "--stubborn")
    config = gtp_config(tmp_path / "d.toml", command, extra="startup_timeout = 0.5\n")
    assert cli(["run", str(config), "--out", str(tmp_path / "d"), "--no-progress"]) == 2
    assert "no answer to 'protocol_version'" in capsys.readouterr().err
    assert len(pids(log)) == 1 and gone(pids(log)[0])
    config = gtp_config(tmp_path / "e.toml", fake_command("pass", "--fail", "no network.bin"))
    assert cli(["run", str(config), "--out", str(tmp_path / "e"), "--no-progress"]) == 2
    assert "its stderr: no network.bin" in capsys.readouterr().err


def test_a_timeout_kills_the_program_behind_a_wrapper(tmp_path):
    """A program started by a shell (not exec'd) that hangs in genmove: the timeout kills its
    whole process group, the real program too, not only the shell."""
    log = tmp_path / "pids"
    script = shlex.join(fake_command("hang", "--pids", log, "--stubborn")) + "; exit $?"
    white = Player("gtp", command=["sh", "-c", script], genmove_timeout=0.5)
    cols, _ = refereed(white, seed=1, games=1)
    assert list(cols["ending"]) == ["engine_error"]
    first = pids(log)[0]  # the one that hung; a fresh one was started after it
    assert len(pids(log)) == 2 and gone(first)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_long_genmove_leaves_no_program(signum, tmp_path):
    """Ctrl-C (or SIGTERM) while a program thinks: the run stops with its status and the
    program (which ignores SIGTERM) is killed with its worker."""
    log = tmp_path / "pids"
    command = fake_command("hang", "--pids", log, "--stubborn")
    config = gtp_config(tmp_path / "c.toml", command, extra="genmove_timeout = 3600\n")
    proc = faults.command("run", str(config), "--out", str(tmp_path / "run"), "--workers", "1")
    deadline = time.monotonic() + 300
    while "genmove" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    status, err = faults.signal_at(proc, 0, signum)
    assert status == 128 + signum, err
    assert all(gone(pid) for pid in pids(log))


def test_timeouts_are_player_options():
    """startup_timeout and command_timeout: validated like genmove_timeout, kept out of the
    player's name (the rows of a run do not change with them)."""
    player = Player("gtp", command="gnugo", startup_timeout=300, command_timeout=20)
    assert player.to_dict()["startup_timeout"] == 300.0 and "timeout=300" not in player.name
    assert player.name == Player("gtp", command="gnugo").name
    for key in ("startup_timeout", "command_timeout"):
        with pytest.raises(OptionError, match=f"{key}: must be in 0.1..3,600"):
            Player("gtp", command="gnugo", **{key: 0})


def test_replay_of_a_stored_game_runs_no_command_from_the_folder(tmp_path, capsys):
    """`replay --run` of a GTP program's game starts no program that the run folder names:
    the stored moves are judged by the rules alone, and the output says so; an altered move
    is found. `--engine NAME=COMMAND` re-plays it with the command given (anything else is one
    line)."""
    log = tmp_path / "pids"
    config = gtp_config(tmp_path / "c.toml", fake_command("pass", "--pids", log), games=4)
    out = tmp_path / "run"
    assert cli(["run", str(config), "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    log.unlink()
    capsys.readouterr()
    assert cli(["replay", "--run", str(out), "--game", "2"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["matches"] is True and result["engine_rerun"] is False
    assert "(fake) not re-run" in result["note"] and not log.exists()
    command = shlex.join(fake_command("pass", "--pids", log))
    assert cli(["replay", "--run", str(out), "--game", "2", "--engine", f"fake={command}"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["matches"] is True and result["engine_rerun"] is True and len(pids(log)) == 1
    assert cli(["replay", "--run", str(out), "--game", "2", "--engine", "gnugo=gnugo"]) == 2
    assert "no gtp player named 'gnugo' (its gtp players: fake)" in capsys.readouterr().err
    assert cli(["replay", "--run", str(out), "--game", "2", "--engine", "fake"]) == 2
    assert capsys.readouterr().err == "jpdsim replay: error: --engine fake: expected NAME=COMMAND\n"
    moves = out / "moves" / "part-00001.parquet"
    table = pq.read_table(moves)
    actions = table["actions"].to_pylist()
    actions[0][0] = (actions[0][0] + 1) % 25  # Black's first move elsewhere
    pq.write_table(table.set_column(1, "actions", pa.array(actions, table["actions"].type)), moves)
    assert cli(["replay", "--run", str(out), "--game", "2"]) == 1
    assert json.loads(capsys.readouterr().out)["matches"] is False


def test_a_program_that_is_not_executable(tmp_path, capsys):
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\n")
    config = gtp_config(tmp_path / "c.toml", [script])
    assert cli(["run", str(config), "--out", str(tmp_path / "run"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"program '{script}' is not executable" in err


@pytest.mark.slow
def test_the_match_tool_plays_any_gtp_program(tmp_path):
    """``bench/gtp.py match --engine NAME=COMMAND`` plays the mcts player against that program
    (here the fake, which resigns at once: mcts wins every game, each colour half of them) and
    its table names the program; a malformed ``--engine`` is one line."""
    bench = Path(__file__).resolve().parents[1] / "bench" / "gtp.py"
    fake_engine = shlex.join([sys.executable, str(FAKE), "resign"])
    common = ["--games", "4", "--visits", "16", "--levels", "", "--out", str(tmp_path)]
    done = subprocess.run(
        [sys.executable, str(bench), "match", *common, "--workers", "1"]
        + ["--engine", f"fake={fake_engine}"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "| 16 | fake | 4 | 100.0% |" in done.stdout
    assert {p.name for p in tmp_path.iterdir()} == {
        "mcts16rave1000diamondpv60tacticsscore0.3doubtnosuicides-fake-mcts-black",
        "mcts16rave1000diamondpv60tacticsscore0.3doubtnosuicides-fake-mcts-white",
    }
    bad = subprocess.run(
        [sys.executable, str(bench), "table", *common, "--engine", "fake"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and bad.stderr.strip() == "--engine fake: expected NAME=COMMAND"
