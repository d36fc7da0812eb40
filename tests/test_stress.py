"""``jpdsim stress``: a stress config expands into one run per position x repetition rule x
suicide option x player; the runs play (and resume), the table and the example SGFs are
written; bad stress keys are one-line errors."""

import csv

import pandas as pd
import pytest

from sim.cli import main as cli
from sim.commands.stress import console_table, stress_runs
from sim.errors import UserError
from tests.test_setups import ATARI, KO

pytestmark = pytest.mark.slow  # the stress set's runs take seconds

FIVE = {
    "name": "five",
    "diagram": """
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . . . . .
    """,
}


def test_a_stress_config_expands_into_runs():
    raw = {
        "games": 3,
        "setup": [KO.to_dict(), ATARI.to_dict(), FIVE],
        "repetitions": ["global_superko", "no_result"],
        "suicides": ["none"],
        "players": ["random", {"kind": "kofight", "threat_rate": 1.0}],
        "max_actions": 40,
        "record_moves": "cycles",
    }
    runs = stress_runs(raw, "s.toml")
    assert [r.name for r in runs] == [
        f"{position}-{rep}-none-{kind}"
        for position in ("ko", "atari", "five")
        for rep in ("global_superko", "no_result")
        for kind in ("random", "kofight")
    ]
    first = runs[1]
    assert first.setup == (KO,) and first.games == 3 and first.rules.board_size == 4
    assert first.black == first.white and first.black.threat_rate == 1.0
    assert first.rules.max_actions == 40 and first.rules.suicide == "none"
    assert runs[-1].setup[0].name == "five" and runs[-1].rules.board_size == 5


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"setup": [KO.to_dict()]}, "key 'games': missing"),
        ({"games": 2, "setup": [KO.to_dict()], "repetition": "basic_ko"}, "sets it per run"),
        ({"games": 0, "setup": [KO.to_dict()]}, "key 'games': must be in 1.."),
        ({"games": 2, "setup": [KO.to_dict()], "suicides": []}, "non-empty list"),
        ({"games": 2, "setup": [KO.to_dict()], "repetitions": ["ko"]}, "key 'repetition'"),
        ({"games": 2, "setup": [KO.to_dict()], "players": ["kofight", "kofight"]}, "two runs"),
        ({"games": 2, "setup": [KO.to_dict(), KO.to_dict()]}, "two runs would be named ko-"),
        ({"games": 2, "setup": [KO.to_dict()], "players": [{"kind": "x"}]}, "key 'players'"),
        ({"games": 2, "setup": "nowhere.txt"}, "key 'setup' ('nowhere.txt')"),
        ({"games": 2, "setup": []}, "key 'setup': must be a non-empty list"),
    ],
)
def test_bad_stress_keys(raw, message):
    with pytest.raises(UserError, match="^s.toml: ") as err:
        stress_runs({"record_moves": "cycles", **raw}, "s.toml")
    assert message in str(err.value)


def test_a_set_of_one_run_and_a_set_without_stored_moves(tmp_path, capsys):
    """One run makes a table and its example games (the table's run labels of one run); a
    set that stores no moves, which its example games need, is one line before any game."""
    config = tmp_path / "s.toml"
    text = 'games = 20\nsetup = ["triple_ko"]\nrepetitions = ["no_result"]\nsuicides = ["multi"]\n'
    config.write_text(text + 'players = ["kofight"]\nrecord_moves = "cycles"\n')
    out = tmp_path / "out"
    args = ["stress", str(config), "--out", str(out), "--workers", "1", "--no-progress"]
    assert cli(args) == 0
    assert len(list(csv.DictReader((out / "stress.csv").open()))) == 1
    assert [p.name.split(".")[0] for p in (out / "sgf").iterdir()] == [
        "triple_ko-no_result-multi-kofight"
    ]
    config.write_text(text)
    capsys.readouterr()
    assert cli([*args[:3], str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "key 'record_moves': the example games are stored cycle games" in err
    assert err.count("\n") == 1 and not (tmp_path / "none").exists()


def test_stress_runs_writes_the_table_and_example_games(tmp_path, capsys):
    config = tmp_path / "s.toml"
    (tmp_path / "ko.txt").write_text("# name: ko\n" + KO.diagram())
    config.write_text(
        'games = 30\nseed = 2\nmax_actions = 48\nrecord_moves = "cycles"\n'
        f'setup = ["{tmp_path / "ko.txt"}"]\n'
        'repetitions = ["global_superko", "no_result", "basic_ko"]\nsuicides = ["multi"]\n'
        'players = [{ kind = "kofight", threat_rate = 1.0, playout = "random" }]\n'
    )
    out = tmp_path / "out"
    args = ["stress", str(config), "--out", str(out), "--workers", "1", "--no-progress"]
    assert cli(args) == 0
    rows = list(csv.DictReader((out / "stress.csv").open()))
    assert [(r["setup"], r["repetition"], r["games"]) for r in rows] == [
        ("ko", rep, "30") for rep in ("global_superko", "no_result", "basic_ko")
    ]
    assert all(r["mismatches"] == "0" for r in rows)
    assert "cycle share" in rows[0] and "pause share" in rows[0]
    shares = {  # the cycle and four-virtual shares per rule
        r["repetition"]: (float(r["cycle share"]), float(r.get("four_virtual share", 0)))
        for r in rows
    }
    assert shares["no_result"][0] > 0 and shares["global_superko"][0] == 0  # A§4.2, T§5
    # one example game for each rule under which some game ended cycle or four_virtual
    sgfs = {p.name: p.read_text() for p in (out / "sgf").iterdir()}
    assert {name.split(".")[0].split("-")[1] for name in sgfs} == {
        rep for rep, (cycle, four) in shares.items() if cycle + four > 0
    }
    for name, text in sgfs.items():
        assert name.startswith("ko-") and f"ending {name.split('.')[1]};" in text
    capsys.readouterr()
    assert cli(args) == 0  # again: every run is complete, nothing is played
    assert "(0 played now" in capsys.readouterr().out


def test_games_option_and_a_table_that_fits_the_terminal(tmp_path, capsys, monkeypatch):
    """--games N plays N games a run; the printed table fits the terminal (COLUMNS), leaving
    out columns that stress.csv keeps."""
    config = tmp_path / "s.toml"
    config.write_text(
        'games = 1_000_000\nseed = 3\nrecord_moves = "cycles"\nsetup = ["triple_ko"]\n'
        'repetitions = ["no_result", '
        '"basic_ko"]\nsuicides = ["multi"]\nplayers = ["kofight"]\n'
    )
    out = tmp_path / "out"
    monkeypatch.setenv("COLUMNS", "60")
    args = ["stress", str(config), "--out", str(out), "--workers", "1", "--no-progress"]
    assert cli([*args, "--games", "5"]) == 0
    rows = list(csv.DictReader((out / "stress.csv").open()))
    assert [r["games"] for r in rows] == ["5", "5"] and "jpd_a B" in rows[0]
    text = capsys.readouterr().out.splitlines()
    table = text[1 : next(i for i, line in enumerate(text) if line.startswith("checks:"))]
    assert table[0].split()[0] == "repetition" and table[0].split()[-1] == "mismatches"
    assert [line.split()[0] for line in table[1:3]] == ["no_result", "basic_ko"]
    notes = " ".join(table[3:])
    assert notes.startswith("every run: games 5, suicide multi, player kofight, setup triple_ko ")
    assert "left out to fit the terminal (stress.csv has them): japanese B, " in notes
    assert max(len(line) for line in text[1:]) <= 60
    assert cli([*args, "--games", "0"]) == 2
    assert "error: option --games: key 'games': must be in 1.." in capsys.readouterr().err


def test_console_table_leaves_out_columns_only_when_it_must():
    table = pd.DataFrame(
        {
            "setup": ["ko", "ko"],
            "repetition": ["basic_ko", "no_result"],
            "suicide": ["none", "none"],
            "player_b": ["kofight(threat_rate=0.5,playout=pattern)", "random"],
            "games": [3, 4],
            "cycle share": [0.25, 0.5],
            "moves mean": [12.5, 10.0],
            "jpd_a B": [0.5, 0.75],
        }
    )
    wide = console_table(table, 200).splitlines()
    assert wide[0].split() == [
        *("setup", "repetition", "suicide", "player", "games", "cycle", "length", "jpd_a", "B")
    ]
    assert len(wide) == 3 and wide[1].split()[3] == "kofight"
    narrow = console_table(table, 44).splitlines()
    assert narrow[0].split() == ["repetition", "player", "games", "cycle", "length"]
    assert narrow[3:] == [
        "every run: suicide none, setup ko",
        "left out to fit the terminal (stress.csv has",
        "them): jpd_a B",
    ]
    assert max(map(len, narrow)) <= 44


def test_the_whole_set_fits_eighty_columns():
    """The runs of the whole corpus (long setup names, every run column varying) fit 80
    columns: the statistics go, the self-check's mismatches stay."""
    stats = ("four_virtual share", "cycle share", "pause share", "moves mean", "mismatches")
    rows = [
        {
            "setup": setup,
            "repetition": rep,
            "suicide": suicide,
            "player_b": player,
            "games": 50_000,
            **{column: 0.125 for column in stats},
        }
        for setup in ("sending_two_returning_one", "ko")
        for rep in ("situational_superko", "basic_ko")
        for suicide in ("multi", "none")
        for player in ("random", "kofight(threat_rate=0.5,playout=pattern)")
    ]
    lines = console_table(pd.DataFrame(rows), 80).splitlines()
    assert max(map(len, lines)) <= 80
    assert lines[0].split() == ["setup", "repetition", "suicide", "player", "mismatches"]
