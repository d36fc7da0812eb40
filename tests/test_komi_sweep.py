"""Komi sweeps (``komi_sweep`` in a run config): game i at komi ``values[i mod k]`` of one
ruleset, the others moved by their offsets; every player playing for its game's komi; rows
reproducible, checked and re-playable like every run's."""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis import load
from sim.cli import main as cli
from sim.config.file import load_config
from sim.config.run import KomiSweep
from sim.dataset.check import check_run
from sim.dataset.read import read_games
from sim.errors import UserError
from sim.run import runner
from sim.run.shard import play_table
from sim.run.stored import replay_stored
from sim.schema.tables import DEFAULT_KOMI

FAKE = Path(__file__).parent / "data" / "fake_gtp.py"
SWEEP = (
    "board_size = 5\ngames = 12\nshard_size = 5\nseed = 4\nrecord_moves = 'all'\n"
    "komi_sweep = {{ ruleset = 'chinese', values = [{values}] }}\n"
    "[komi]\njpd_a = 6.5\njpd_b = 7.5\nchinese = 7.5\n"
    "[players.black]\nkind = 'mcts'\nvisits = 24\nplayout = 'random'\nplay_for = 'chinese'\n"
    "[players.white]\nkind = 'mcts'\nvisits = 24\nplayout = 'random'\nplay_for = 'chinese'\n"
)


def write(tmp_path, text, name="sweep.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_sweep_moves_every_ruleset_by_the_same_shift(tmp_path):
    cfg = load_config(write(tmp_path, SWEEP.format(values="24.5, 0, -3.5")))
    assert cfg.komi_sweep == KomiSweep("chinese", (24.5, 0.0, -3.5))
    for value in (24.5, 0.0, -3.5):
        komi = cfg.at_komi(value).rules.komi
        shift = value - 7.5
        assert komi["chinese"] == value and komi["jpd_b"] == 7.5 + shift
        assert komi["jpd_a"] == 6.5 + shift and komi["japanese"] == DEFAULT_KOMI["japanese"] + shift
        assert cfg.at_komi(value).komi_sweep is None
    odd = load_config(write(tmp_path, SWEEP.format(values="0.1"), "odd.toml")).at_komi(0.1)
    assert odd.rules.komi["jpd_a"] == -0.9 and odd.rules.komi["chinese"] == 0.1
    groups = cfg.komi_groups(np.arange(2, 9))
    assert [g.rules.komi["chinese"] for g, _ in groups] == [-3.5, 0.0, 24.5]  # by komi
    assert [rows.tolist() for _, rows in groups] == [[0, 3, 6], [2, 5], [1, 4]]
    assert cfg.game_config(7).rules.komi["chinese"] == 0.0
    plain = load_config(write(tmp_path, "board_size = 5\ngames = 3\n", "plain.toml"))
    assert plain.komi_sweep is None and plain.komi_groups(np.arange(3))[0][0] is plain
    assert "komi_sweep" not in plain.to_dict()  # the manifests of runs without a sweep unchanged


def test_the_sweep_survives_the_manifest_and_the_overrides(tmp_path):
    path = write(tmp_path, SWEEP.format(values="24.5, 25.5"))
    cfg = load_config(path, games=30, seed=9)
    assert cfg.games == 30 and cfg.seed == 9 and cfg.komi_sweep.values == (24.5, 25.5)
    assert cfg.to_dict()["komi_sweep"] == {
        "ruleset": "chinese",
        "values": [24.5, 25.5],
        "cross_setups": True,
    }


@pytest.mark.parametrize(
    "line, key, reason",
    [
        ("komi_sweep = 7.5", "komi_sweep", "must be a table"),
        ("komi_sweep = { values = [7.5] }", "komi_sweep.ruleset", "missing"),
        ("komi_sweep = { ruleset = 'chinese' }", "komi_sweep.values", "missing"),
        ("komi_sweep = { ruleset = 'korean', values = [7.5] }", "komi_sweep.ruleset", "one of"),
        ("komi_sweep = { ruleset = 'chinese', values = [] }", "komi_sweep.values", "1..1000"),
        ("komi_sweep = { ruleset = 'chinese', values = 7.5 }", "komi_sweep.values", "a list"),
        ("komi_sweep = { ruleset = 'chinese', values = ['7'] }", "komi_sweep.values", "number"),
        ("komi_sweep = { ruleset = 'chinese', values = [nan] }", "komi_sweep.values", "in -1,000"),
        ("komi_sweep = { ruleset = 'chinese', values = [7, 7.0] }", "komi_sweep.values", "twice"),
        ("komi_sweep = { ruleset = 'jpd_a', values = [7], step = 1 }", "komi_sweep.step", "unkno"),
    ],
)
def test_a_bad_sweep_is_one_line_naming_the_key(tmp_path, line, key, reason):
    path = write(tmp_path, f"board_size = 5\ngames = 10\n{line}\n")
    with pytest.raises(UserError) as err:
        load_config(path)
    message = str(err.value)
    assert "\n" not in message and f"{path}: key '{key}'" in message and reason in message


def test_a_fixed_komi_to_engine_cannot_follow_a_sweep(tmp_path):
    path = write(
        tmp_path,
        "board_size = 5\ngames = 10\nkomi_sweep = { ruleset = 'jpd_b', values = [6.5, 7.5] }\n"
        "[players.white]\nkind = 'gtp'\ncommand = 'gnugo --mode gtp'\nkomi_to_engine = 7\n",
    )
    with pytest.raises(UserError, match="key 'players.white.komi_to_engine': a komi sweep"):
        load_config(path)


def test_each_game_is_the_game_of_a_run_at_its_komi(tmp_path):
    """Game i of a sweep is game i of a plain run whose [komi] is the sweep's i mod k-th: the
    searching players play for their game's komi (the komis change the games, so this would
    fail if they played for the run's)."""
    cfg = load_config(write(tmp_path, SWEEP.format(values="0.5, 24.5")))
    ids = np.arange(12)
    table, moves = play_table(cfg, ids, True)
    assert table["game_id"].to_pylist() == list(range(12))
    assert table["komi_chinese"].to_pylist() == [0.5, 24.5] * 6
    assert table["komi_jpd_a"].to_pylist() == [-0.5, 23.5] * 6
    plays = []
    for k in range(2):
        plain = cfg.at_komi(cfg.komi_sweep.values[k])
        alone, alone_moves = play_table(plain, ids, True)
        plays.append(alone_moves)
        for i in range(k, 12, 2):
            assert table.slice(i, 1).equals(alone.slice(i, 1))
            assert np.array_equal(moves[i], alone_moves[i])
    assert any(not np.array_equal(a, b) for a, b in zip(*plays))


@pytest.mark.slow
def test_sweep_runs_are_reproducible_checked_and_replayed(tmp_path, capsys):
    path = write(tmp_path, SWEEP.format(values="24.5, 25.5, 26.5"))
    cfg = load_config(path)
    one = runner.run(cfg, tmp_path / "one", workers=1)
    assert one.state.complete
    table = read_games(tmp_path / "one")
    runner.run(dataclasses.replace(cfg, shard_size=7), tmp_path / "s7", workers=2)
    assert read_games(tmp_path / "s7").equals(table)
    (tmp_path / "one" / "games" / "part-00001.parquet").unlink()
    assert cli(["run", str(path), "--out", str(tmp_path / "one"), "--no-progress"]) == 0
    assert read_games(tmp_path / "one").equals(table)
    for game_id in range(12):
        assert replay_stored(tmp_path / "one", game_id)["matches"]
    sweep = "chinese 24.5, 25.5, 26.5 (the others moved by as much)"
    assert load.run_table([tmp_path / "one"])["komi sweep"].tolist() == [sweep]
    # a shard of a sweep over other komis is another run's, whatever else it shares
    other = dataclasses.replace(cfg, komi_sweep=KomiSweep("chinese", (24.5, 25.5, 27.5)))
    runner.run(other, tmp_path / "other", workers=1)
    shard = "games/part-00001.parquet"
    (tmp_path / "one" / shard).write_bytes((tmp_path / "other" / shard).read_bytes())
    with pytest.raises(UserError, match=r"column 'komi_\w+' does not hold this run's value"):
        check_run(tmp_path / "one", verify=True)
    capsys.readouterr()


def test_gtp_programs_are_told_the_komi_of_their_game(tmp_path):
    log = tmp_path / "gtp.log"
    path = write(
        tmp_path,
        "board_size = 5\ngames = 4\nkomi_sweep = { ruleset = 'jpd_a', values = [3.5, 9] }\n"
        f"[players.white]\nkind = 'gtp'\nplay_for = 'jpd_b'\n"
        f"command = [{sys.executable!r}, {str(FAKE)!r}, 'pass', '--pids', {str(log)!r}]\n",
    )
    cfg = load_config(path)
    table, _ = play_table(cfg, np.arange(4), True)
    told = [line.split(" ", 1)[1] for line in log.read_text().splitlines() if " komi " in line]
    assert told == ["komi 4.5", "komi 4.5", "komi 10", "komi 10"]  # games 0, 2, then 1, 3
    assert table["komi_jpd_b"].to_pylist() == [4.5, 10.0, 4.5, 10.0]


def test_a_sweep_run_prints_its_fair_komi_and_jpdsim_komi_prints_it_again(tmp_path, capsys):
    """Random self-play on 5x5 at komis past the board's 25 points on either side: Black's
    score falls from 1 to 0 across them, so each ruleset's fitted fair komi lies inside."""
    path = write(
        tmp_path,
        "board_size = 5\ngames = 400\nshard_size = 100\n"
        "komi_sweep = { ruleset = 'chinese', values = [-30.5, 0.5, 30.5] }\n",
    )
    out = tmp_path / "run"
    assert cli(["run", str(path), "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    header = "fair komi, fitted across the komis played (random self-play; 400 games at 3 komis):"
    assert header in printed
    table = printed[printed.index(header) :].splitlines()
    assert table[1].split() == ["ruleset", "fair", "komi", "95%", "interval", "margin", "method"]
    for line in table[2:7]:
        ruleset, fair, interval, margins = line.split()
        lo, hi = map(float, interval.split("–"))
        assert -30.5 <= lo <= float(fair) <= hi <= 30.5
    assert cli(["komi", str(out)]) == 0
    assert capsys.readouterr().out.strip() == printed[printed.index(header) :].strip()
    assert cli(["komi", str(tmp_path / "nothing")]) == 2
    assert "nothing" in capsys.readouterr().err
