"""``jpdsim root-komi`` (``sim.katago.root``): a network's own fair komi from its root
evaluations of the empty board, against the fake analysis engine (tests/data/fake_katago.py),
whose root believes Black's first move worth N/2 points by area and one less by territory."""

import csv
import shlex
import sys

import pytest

from sim.cli import main as cli
from sim.katago.root import grid, root_query
from sim.komi import fitting
from tests.test_katago import FAKE


def fake(*args) -> str:
    return shlex.join([sys.executable, str(FAKE), "play", *args])


def root_komi(model, *options) -> int:
    return cli(["root-komi", "--katago", fake(), "--model", str(model), *options])


def test_the_crossing_is_read_as_a_fair_komi_is():
    assert fitting.value_crossing([1.0, 2.0, 3.0], [0.8, 0.6, 0.4]) == 2.5
    assert fitting.value_crossing([1.0, 2.0], [0.75, 0.25]) == 1.5
    # a value that rises with komi is pooled with its neighbour (0.45, 0.55 -> 1/2 at both)
    assert fitting.value_crossing([1.0, 2.0, 3.0, 4.0], [0.6, 0.45, 0.55, 0.4]) == 2.5
    assert fitting.value_crossing([1.0, 2.0], [0.7, 0.6]) == float("inf")  # past the komis
    assert fitting.value_crossing([1.0, 2.0], [0.4, 0.3]) == float("-inf")


def test_the_grid_lies_around_the_lead_within_the_board():
    assert grid(6, 3.2, 1.0) == [0.0, 2.0, 2.5, 3.0, 3.5, 4.0]
    assert grid(5, 24.4, 1.0) == [0.0, 23.5, 24.0, 24.5, 25.0]  # no komi past 25
    assert grid(7, -0.1, 0.5) == [-0.5, 0.0, 0.5]


def test_the_query_is_a_katago_players_of_the_empty_board():
    query = root_query(6, "japanese", 3.0, 400)
    assert query["moves"] == [] and query["komi"] == 3.0 and query["maxVisits"] == 400
    assert query["rules"]["scoring"] == "TERRITORY" and query["boardXSize"] == 6
    a = root_query(6, "jpd_a", 3.0, 400)  # A版's point: the button at half a point more komi
    assert a["komi"] == 3.5 and a["rules"]["hasButton"]


def test_fair_komi_by_winrate_and_by_lead(model, tmp_path, capsys):
    out = tmp_path / "root.csv"
    assert root_komi(model, "--size", "6", "--visits", "8", "32", "--csv", str(out)) == 0
    text = capsys.readouterr().out
    assert "chinese, 8 visits: fair komi 3.00 by winrate, 3.00 by komi 0's score lead" in text
    assert "japanese, 32 visits: fair komi 2.00 by winrate, 2.00 by komi 0's score lead" in text
    with open(out) as f:
        rows = list(csv.DictReader(f))
    # komi 0, then the half points within 2 of each pair's lead
    chinese = sorted(float(r["komi"]) for r in rows if r["ruleset"] == "chinese")
    assert chinese == [0.0] * 2 + [k / 2 for k in range(2, 11) for _ in range(2)]
    assert {(r["ruleset"], r["visits"]) for r in rows} == {
        (r, v) for r in ("chinese", "japanese") for v in ("8", "32")
    }
    area = [r for r in rows if r["ruleset"] == "chinese"]
    assert all(float(r["komi"]) + float(r["lead"]) == 3.0 for r in area)


def test_komis_that_do_not_bracket_it_say_so(model, capsys):
    assert root_komi(model, "--size", "6", "--ruleset", "chinese", "--komi", "-2", "-1") == 0
    out = capsys.readouterr().out  # komi 0 always asked: its lead
    assert "fair komi above the komis asked by winrate, 3.00 by komi 0's score lead (3 komis" in out


@pytest.mark.parametrize(
    "options, words",
    [
        (["--komi", "200"], "--komi 200: KataGo takes a whole or half komi in -150..150"),
        (["--komi", "0.3"], "--komi 0.3: KataGo takes a whole or half komi"),
        (["--visits", "1"], "--visits 1: at least 2"),
        (["--csv", "/no/such/folder/x.csv"], "--csv /no/such/folder/x.csv: no such folder"),
        (["--timeout", "0"], "--timeout: must be in 0.1..3,600, got 0.0"),
        (["--span", "-1"], "--span -1: not negative"),
    ],
)
def test_bad_options_are_one_line(model, capsys, options, words):
    assert root_komi(model, "--size", "5", *options) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1, err


def test_a_missing_network_or_program_is_one_line(tmp_path, model, capsys):
    args = ["root-komi", "--size", "5"]
    assert cli([*args, "--katago", fake(), "--model", str(tmp_path / "none.bin.gz")]) == 2
    assert "--model: no such file" in capsys.readouterr().err
    assert cli([*args, "--katago", str(tmp_path / "katago"), "--model", str(model)]) == 2
    err = capsys.readouterr().err
    assert "--katago: program" in err and "not found" in err and err.count("\n") == 1
    assert cli([*args, "--katago", "", "--model", str(model)]) == 2
    assert "--katago: a katago player needs the command" in capsys.readouterr().err


def test_a_refused_query_is_one_line(model, capsys):
    command = shlex.join([sys.executable, str(FAKE), "error"])
    status = cli(["root-komi", "--katago", command, "--model", str(model), "--size", "5"])
    err = capsys.readouterr().err
    assert status == 2 and "--katago:" in err and "fake error" in err and err.count("\n") == 1


def test_two_processes_give_what_one_gives(model, tmp_path, capsys):
    """Each process answers the next query as it is free: the evaluations, in the order
    asked, do not depend on how many there are (the fake answering slowly, so that both
    work at once)."""
    rows = []
    for processes in ("1", "2"):
        out = tmp_path / f"p{processes}.csv"
        command = shlex.join([sys.executable, str(FAKE), "play", "--slow", "0.05"])
        args = ["--size", "7", "--ruleset", "chinese", "jpd_b", "--processes", processes]
        cli(["root-komi", "--katago", command, "--model", str(model), *args, "--csv", str(out)])
        with open(out) as f:
            rows.append([{k: v for k, v in r.items() if k != "seconds"} for r in csv.DictReader(f)])
    assert rows[0] == rows[1] and len(rows[0]) == 2 * 10  # komi 0 and 1.5..5.5
    assert "3.50 by winrate" in capsys.readouterr().out


def test_a_crossing_read_across_a_gap_says_so(model, capsys):
    assert root_komi(model, "--size", "6", "--ruleset", "chinese", "--komi", "5") == 0
    assert "fair komi 3.00 (a line across 0..5) by winrate" in capsys.readouterr().out
