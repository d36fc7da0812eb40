"""KataGo as a player (``sim.katago``): games many at a time against a fake analysis engine
(tests/data/fake_katago.py) that speaks the protocol and misbehaves on request, judged under
the rules like a GTP program's (every stored game replayed by the pure-Python reference); the
rules KataGo is asked to play for; and, where ``JPD_KATAGO`` names a KataGo binary and a
network, games against the real engine."""

import hashlib
import itertools
import json
import math
import os
import shlex
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.cli import main as cli
from sim.config.player import Player
from sim.config.rules import Rules
from sim.katago.driver import play_katago
from sim.katago.engine import KatagoEngine, QueryFault, best_move, dead_stones, move_query
from sim.katago.rules import query_rules
from sim.options import OptionError
from sim.play.program import EngineError
from sim.schema.coords import AGREE, format_action
from tests import faults
from tests.conftest import without_compile_notes
from tests.test_referee import assert_rows_replay, gone, pids

FAKE = Path(__file__).parent / "data" / "fake_katago.py"


def fake_command(*args) -> list[str]:
    return [sys.executable, str(FAKE), *map(str, args)]


def fake(model, *args, **options) -> Player:
    return Player("katago", command=fake_command(*args), model=str(model), **options)


def play(black, white, rules=None, games=4, seed=3):
    """``games`` games of ``black`` against ``white``, moves stored."""
    return play_katago(
        rules or Rules(5),
        seed=seed,
        game_ids=np.arange(games),
        black=black,
        white=white,
        record_moves=True,
    )


def same(a, b) -> bool:
    """Whether two results of ``play_katago`` have the same rows and moves."""
    (cols_a, moves_a), (cols_b, moves_b) = a, b
    return [m.tolist() for m in moves_a] == [m.tolist() for m in moves_b] and all(
        pd.Series(cols_a[k]).equals(pd.Series(cols_b[k])) for k in cols_a
    )


def test_katago_games_are_judged_under_the_rules(model, caplog):
    """The fake engine (its first empty point that is not its own eye, else pass; it knows no
    ko) against the random player: every game ends by a pause, every move stored is legal and
    every row is the outcome of its moves; KataGo's pass followed by a move is converted into
    a virtual move, as the rules do; its warnings are logged once."""
    rules = Rules(5)
    cols, moves = play(fake(model, "play", "--warn"), Player("random"), rules, games=6)
    assert list(cols["ending"]) == ["pause"] * 6
    assert_rows_replay(rules, cols, moves)
    assert any(cols["converted_passes"] > 0)
    warned = [r.getMessage() for r in caplog.records if "fake warning" in r.getMessage()]
    name = Path(sys.executable).name  # the program's name: its file's (python, python3...)
    assert warned == [f"{name}: warning (for 0:0:b and maybe more): x: fake warning"]


@pytest.mark.slow
def test_rows_do_not_depend_on_the_games_in_flight(model):
    """One game at a time, three, or six answered out of order (the fake answers the queries
    that come together in reverse): the same rows and moves, katago against random, against
    the tree search (its trees and random stream are each game's own) and against katago (one
    process for both colours)."""
    white = Player("random")
    one = play(fake(model, "play", in_flight=1), white, games=6)
    for options in (("play",), ("play", "--reverse")):
        for k in (3, 6):
            assert same(play(fake(model, *options, in_flight=k), white, games=6), one)
    both = play(fake(model, "play", in_flight=1), fake(model, "play", in_flight=1))
    again = play(fake(model, "play", "--reverse", in_flight=4), fake(model, "play", in_flight=4))
    assert same(both, again)
    search, agree = Player("mcts", visits=16), Rules(5, dead_stones="agree")  # a tree per game
    one = play(search, fake(model, "play", in_flight=1), agree, games=5)
    assert same(play(search, fake(model, "play", "--reverse", in_flight=5), agree, games=5), one)


@pytest.mark.slow
def test_sampled_openings_are_varied_and_reproducible(model):
    """KataGo (the fake: one position, one answer) against itself plays one game over and
    over; with ``sample_moves`` its moves among the first actions are drawn in proportion to
    the visits of its root moves from each game's own random stream: the openings differ, the
    games after them follow its best moves, and the rows depend only on (seed, game id), not on
    the games in flight or the order of the answers."""
    rules = Rules(5)
    plain = fake(model, "play")
    cols, moves = play(plain, plain, rules, games=6)
    assert len({tuple(m.tolist()) for m in moves}) == 1
    sampled = fake(model, "play", sample_moves=4)
    cols, moves = play(sampled, sampled, rules, games=24)
    assert_rows_replay(rules, cols, moves)
    openings = [tuple(m[:4].tolist()) for m in moves]
    first = [format_action(o[0], 5) for o in openings]  # the fake's three, visits 4:2:1
    assert set(first) == {"A5", "B5", "C5"} and first.count("A5") > first.count("C5")
    assert 4 < len(set(openings)) < 24
    after = {}  # an opening -> the game it leads to: the same, once the draws stop
    assert all(after.setdefault(o, m.tolist()) == m.tolist() for o, m in zip(openings, moves))
    reversed_ = fake(model, "play", "--reverse", sample_moves=4, in_flight=7)
    assert same(play(reversed_, reversed_, rules, games=24), (cols, moves))
    assert not same(play(sampled, sampled, rules, games=24, seed=4), (cols, moves))


def test_a_sampled_move_is_drawn_in_proportion_to_its_visits():
    """``best_move``: the first move by ``order`` whatever the list's order; with a draw, the
    move whose stretch of the visits laid end to end holds it; bad visits are a QueryFault."""
    infos = [
        {"move": "C3", "order": 2, "visits": 1},
        {"move": "A1", "order": 0, "visits": 4},
        {"move": "B2", "order": 1, "visits": 3},
    ]
    answer = {"moveInfos": infos}
    assert best_move("q", answer) == "A1"
    assert [best_move("q", answer, d) for d in (0.0, 0.49, 0.5, 0.87, 0.875, 0.999)] == [
        "A1",
        "A1",
        "B2",
        "B2",
        "C3",
        "C3",
    ]
    for visits in (-1, math.inf, math.nan, "many"):
        infos[0]["visits"] = visits
        match = "answer without a move" if visits == "many" else "not counts of visits"
        with pytest.raises(QueryFault, match=match):
            best_move("q", answer, 0.5)
    assert best_move("q", answer) == "A1"  # no draw: the visits are not read


def test_ownership_that_is_not_a_number_in_range_is_a_fault_of_its_query():
    """NaN (JSON's ``NaN``, which Python reads) or a value outside -1..1 in the ownership of a
    dead-stones answer is a QueryFault, not a stone read as alive."""
    board = [1, 2, 0, 0]
    assert dead_stones("q", {"ownership": [-0.9, -0.9, 0, 0]}, board) == [0]
    for bad in ("NaN", "2.0", "Infinity", '"x"'):
        answer = json.loads(f'{{"ownership": [{bad}, -0.9, 0, 0]}}')
        with pytest.raises(QueryFault, match="ownership: not a list of numbers in -1..1"):
            dead_stones("q", answer, board)


def test_a_query_asked_again_takes_its_kept_answer(model, tmp_path):
    """KataGo playing its best move always against itself plays one game over and over: with
    jpdsim's config each query is searched once, and asked again, or while it is searched, it
    takes that answer, so the fake is asked one game's queries; the rows are those of a KataGo
    that is asked every query (a config of the user's, whose answers are not kept), and KataGo
    searches afresh every query that differs (the random player's games)."""
    log, config = tmp_path / "queries", tmp_path / "own.cfg"
    config.write_text("maxBoardXSizeForNNBuffer = 5\nrequireMaxBoardSize = true\n")
    kept = fake(model, "play", "--log", log, in_flight=2)
    cols, moves = play(kept, kept, games=5)
    assert len({tuple(m.tolist()) for m in moves}) == 1
    asked = [line.split()[0] for line in log.read_text().splitlines()]
    assert len(asked) == len(moves[0])  # one game's actions (its closing passes KataGo's)
    assert {q.split(":")[0] for q in asked} == {"0"}  # game 1, in flight, waits for game 0's
    every = fake(model, "play", config=str(config))
    assert same((cols, moves), play(every, every, games=5))
    log.unlink()
    play(kept, Player("random"), games=3, seed=8)
    assert len({line.split()[0].split(":")[0] for line in log.read_text().splitlines()}) == 3


def test_the_rules_and_komi_of_each_query(model, tmp_path):
    """Each query carries the rules its player plays for and the komi of its game: a komi
    sweep tells each game its own komi (A版: the button, half a point more komi)."""
    log = tmp_path / "queries"
    config = tmp_path / "k.toml"
    command = json.dumps(fake_command("play", "--log", log))
    config.write_text(
        f"board_size = 5\ngames = 4\nrules = 'japanese'\n"
        f"komi_sweep = {{ ruleset = 'jpd_a', values = [5.5, 7.5] }}\n"
        f"[players.black]\nkind = 'katago'\ncommand = {command}\nmodel = '{model}'\n"
    )
    assert cli(["run", str(config), "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    seen = {}
    for line in log.read_text().splitlines():
        qid, komi, rules = line.split(" ", 2)
        if not qid.startswith("check"):
            seen.setdefault(int(qid.split(":")[0]), set()).add((float(komi), rules))
    expected = json.dumps(query_rules(Rules.preset("japanese", 5), "jpd_a")[0])
    assert seen == {g: {(6.0 if g % 2 == 0 else 8.0, expected)} for g in range(4)}
    assert json.loads(expected)["ko"] == "SIMPLE" and json.loads(expected)["hasButton"]


def test_rules_mapping():
    """What each ruleset and repetition rule asks KataGo to play for (docs/rules.md §14); a
    komi KataGo cannot take is a ValueError naming it."""
    rules = Rules(9)
    assert query_rules(rules, "jpd_b") == (
        {
            "ko": "POSITIONAL",
            "scoring": "AREA",
            "tax": "NONE",
            "suicide": True,
            "hasButton": False,
            "whiteHandicapBonus": "0",
            "friendlyPassOk": False,
        },
        7.5,
    )
    katago, komi = query_rules(rules, "jpd_a")
    assert katago["hasButton"] and komi == 7.0
    katago, komi = query_rules(Rules.preset("japanese", 9), "japanese")
    assert (katago["scoring"], katago["tax"], katago["ko"], katago["suicide"], komi) == (
        "TERRITORY",
        "SEKI",
        "SIMPLE",
        False,
        6.5,
    )
    assert query_rules(Rules.preset("new_zealand", 9), "chinese")[0]["ko"] == "SITUATIONAL"
    with pytest.raises(ValueError, match="whole or half komi.*jpd_b.*6.25"):
        query_rules(rules.with_(komi={**rules.komi, "jpd_b": 6.25}), "jpd_b")


@pytest.mark.parametrize("read", [0, 1])
def test_a_crash_blames_the_query_that_crashed_it_not_an_answer_unread(model, read):
    """The fake exits at the third query (each query another komi: each is searched); a
    fourth cannot be written. The answers written
    before the exit and not taken yet (``read`` of them taken before the failed write, as the
    driver takes one and asks that game's next move) are taken by ``answers_left``, so the
    oldest query still waiting, the one to blame, is the third."""
    player = fake(model, "crash", "--at", "0:2")
    engine = KatagoEngine(player, 5)
    try:
        for turn in range(3):
            engine.ask(f"0:{turn}:b", move_query(player, Rules(5, komi={"jpd_a": turn}), []))
        engine.proc.wait(timeout=30)
        engine.read_more(time.monotonic() + 10, "the answers")
        taken = [qid for qid, _ in itertools.islice(engine.answers(), read)]
        with pytest.raises(EngineError, match="engine exited"):
            engine.ask("1:0:b", move_query(player, Rules(5, komi={"jpd_a": 3}), []))
        good, named = engine.answers_left()
        assert taken + [qid for qid, _ in good] == ["0:0:b", "0:1:b"] and named is None
        assert list(engine.waiting) == ["0:2:b", "1:0:b"]
    finally:
        engine.kill()


def test_an_error_answer_among_the_answers_left_is_named(model):
    """Of the answers waiting to be read at a fault, those before an error answer are taken,
    and the error answer's query is named (it is to blame), not the oldest waiting."""
    player = fake(model, "error", "--at", "0:1")
    engine = KatagoEngine(player, 5)
    try:
        for turn in range(3):  # three queries (three komis): each searched
            engine.ask(f"0:{turn}:b", move_query(player, Rules(5, komi={"jpd_a": turn}), []))
        while engine.pending.count(b"\n") < 3:
            engine.read_more(time.monotonic() + 10, "the answers")
        good, named = engine.answers_left()
        assert [qid for qid, _ in good] == ["0:0:b"] and named.qid == "0:1:b"
        assert "fake error" in str(named) and list(engine.waiting) == ["0:2:b"]
    finally:
        engine.kill()


@pytest.mark.parametrize(
    "mode, words",
    [
        ("crash", "exited"),
        ("hang", "no answer within 1 s"),
        ("garbage", "not a JSON object"),
        ("wrongid", "an id that waits for nothing"),
        ("error", "error answer: fake error"),
        ("nomove", "answer without a move"),
        ("chatty", "no answer within 1 s"),
    ],
)
def test_a_fault_ends_one_game_and_restarts_the_engine(mode, words, model, tmp_path, caplog):
    """A crash, a hang past move_timeout, garbage, an answer under an id nobody asked, an error
    answer, an answer without a move, or search lines past move_timeout (a query's whole time
    is bounded, not the silence between lines), at game 2's fourth move while other games
    wait: game 2
    ends ``engine_error`` (no winner, the reason in the log), a fresh process plays on, and
    every other game is the game of a run without the fault."""
    log = tmp_path / "pids"
    clean = play(fake(model, "play", in_flight=3), Player("random"), games=5)
    black = fake(model, mode, "--at", "2:6", "--pids", log, in_flight=3, move_timeout=1)
    cols, moves = play(black, Player("random"), games=5)
    assert list(cols["ending"]) == ["pause"] * 2 + ["engine_error"] + ["pause"] * 2
    assert cols["winner_jpd_a"][2] is None and len(moves[2]) == 6
    for j in (0, 1, 3, 4):
        assert moves[j].tolist() == clean[1][j].tolist()
    errors = [r.getMessage() for r in caplog.records if "engine error" in r.getMessage()]
    assert len(errors) == 1 and errors[0].startswith("game 2: engine error:"), errors
    assert words in errors[0], errors
    started = pids(log)
    assert len(started) == 2 and gone(started[0])
    assert_rows_replay(Rules(5), cols, moves)


def test_a_forbidden_move_is_a_pass(model):
    """KataGo's move on a point that is taken: counted in engine_illegal, played as a pass;
    the game goes on to its end."""
    cols, moves = play(fake(model, "occupied"), Player("random"), games=3)
    assert list(cols["ending"]) == ["pause"] * 3
    assert all(cols["engine_illegal"] > 0)
    assert_rows_replay(Rules(5), cols, moves)


def test_katago_names_dead_stones_from_its_ownership(model):
    """dead_stones = "agree", KataGo on both sides, its ownership estimate giving every point
    to Black: both name every White stone, the lists agree and the stones are removed."""
    rules = Rules(5, dead_stones="agree")
    cols, moves = play(fake(model, "blackowns"), fake(model, "blackowns"), rules, games=2)
    assert_rows_replay(rules, cols, moves)
    for j, actions in enumerate(moves):
        actions = actions.tolist()
        assert AGREE in actions and cols["dead_w"][j] > 0 and cols["dead_b"][j] == 0
        assert len(actions) - 1 - actions.index(AGREE) == cols["dead_w"][j]


def config(path: Path, model, black: list, white="kind = 'random'", games=6, extra="") -> Path:
    path.write_text(
        f"board_size = 5\ngames = {games}\nshard_size = 2\nseed = 7\n{extra}"
        f"[players.black]\nkind = 'katago'\nname = 'kata'\ncommand = {json.dumps(black)}\n"
        f"model = '{model}'\nin_flight = 2\n[players.white]\n{white}\n"
    )
    return path


def run(config_file: Path, out: Path, *options) -> int:
    return cli(["run", str(config_file), "--out", str(out), "--no-progress", *options])


def test_a_shard_too_small_for_the_games_in_flight_is_said(model, tmp_path, capsys):
    """A worker plays a shard's games of one komi together: when they are fewer than
    ``in_flight``, KataGo's batch cannot fill, and the run says so on stderr (it still plays)."""
    c = config(tmp_path / "c.toml", model, fake_command("play"), games=2)
    assert run(c, tmp_path / "a") == 0 and "in_flight" not in capsys.readouterr().err
    c.write_text(c.read_text().replace("in_flight = 2", "in_flight = 3"))
    assert run(c, tmp_path / "b") == 0
    assert (
        "jpdsim: players.black.in_flight 3: at most 2 games are in flight (shard_size 2, 1 komi);"
        " a shard_size of 3 or more keeps KataGo's batch full\n"
    ) in capsys.readouterr().err


@pytest.mark.slow
def test_run_with_katago(model, tmp_path, capsys):
    """`jpdsim run`: the same rows with 1 and 2 workers, katago against random and against
    katago; every move stored; replay --run judges a stored game by the rules alone, and
    --engine re-plays it with the fake; SGF export; the manifest says what cannot be
    reproduced."""
    kata = f"kind = 'katago'\ncommand = {json.dumps(fake_command('play'))}\nmodel = '{model}'"
    for white in (kata, "kind = 'random'"):
        c = config(tmp_path / "c.toml", model, fake_command("play"), white=white)
        out1, out2 = tmp_path / f"one{len(white)}", tmp_path / f"two{len(white)}"
        assert run(c, out1, "--workers", "1") == 0 and run(c, out2, "--workers", "2") == 0
        assert faults.digest(out1) == faults.digest(out2)
    games = pd.read_parquet(out1 / "games")  # katago against random
    assert set(games["ending"]) == {"pause"} and games["player_b"][0].startswith(
        "katago(name=kata,command="
    )
    assert "in_flight" not in games["player_b"][0]
    assert len(pd.read_parquet(out1 / "moves")) == 6
    manifest = json.loads((out1 / "manifest.json").read_text())
    assert "takes no seed" in manifest["reproducibility"]
    capsys.readouterr()
    assert cli(["replay", "--run", str(out1), "--game", "3"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (
        result["matches"]
        and result["engine_rerun"] is False
        and "(kata) not re-run" in (result["note"])
    )
    engine = f"kata={shlex.join(fake_command('play'))}"
    assert cli(["replay", "--run", str(out1), "--game", "3", "--engine", engine]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["matches"] and result["engine_rerun"] is True
    assert cli(["sgf", str(out1), "1"]) == 0
    assert "PB[katago(name=kata" in capsys.readouterr().out


def shards(out: Path) -> list[Path]:
    """The game shards written in a run folder."""
    return list((out / "games").glob("part-*.parquet")) if (out / "games").exists() else []


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_rows_of_an_uninterrupted_one(model, tmp_path):
    """SIGKILL to a run while KataGo plays (after its first shard), then --resume: the rows of a
    run that was never stopped; no fake engine outlives it."""
    log = tmp_path / "pids"
    c = config(tmp_path / "c.toml", model, fake_command("play", "--slow", 0.02, "--pids", log))
    whole = tmp_path / "whole"
    assert run(c, whole, "--workers", "1") == 0
    out = tmp_path / "out"
    proc = faults.command("run", str(c), "--out", str(out), "--workers", "1", "--no-progress")
    deadline = time.monotonic() + 120
    while not shards(out):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    status, _ = faults.signal_at(proc, 0, signal.SIGKILL)
    assert status == -signal.SIGKILL and len(shards(out)) < 3
    assert run(c, out, "--resume") == 0
    assert faults.digest(out) == faults.digest(whole)
    assert all(gone(pid) for pid in pids(log))


@pytest.mark.slow
def test_no_katago_outlives_a_run(model, tmp_path):
    """A KataGo that ignores the end of its input and SIGTERM: a finished run ends it (the
    start-up check's process and the workers'), by SIGKILL to its process group."""
    log = tmp_path / "pids"
    c = config(tmp_path / "c.toml", model, fake_command("play", "--pids", log, "--stubborn"))
    assert run(c, tmp_path / "run", "--workers", "2") == 0
    assert len(pids(log)) == 3 and all(gone(pid) for pid in pids(log))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_long_query_leaves_no_katago(signum, model, tmp_path):
    """Ctrl-C (or SIGTERM) while KataGo thinks: the run stops with its status and KataGo
    (which ignores SIGTERM) is killed with its worker."""
    log, queries = tmp_path / "pids", tmp_path / "queries"
    command = fake_command("hang", "--at", "0:0", "--pids", log, "--log", queries, "--stubborn")
    c = config(tmp_path / "c.toml", model, command, extra="")
    c.write_text(c.read_text().replace("in_flight = 2", "in_flight = 2\nmove_timeout = 3600"))
    proc = faults.command("run", str(c), "--out", str(tmp_path / "run"), "--workers", "1")
    deadline = time.monotonic() + 300
    while "0:0:b" not in (queries.read_text() if queries.exists() else ""):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.1)
    status, err = faults.signal_at(proc, 0, signum)
    assert status == 128 + signum, err
    assert all(gone(pid) for pid in pids(log))


def test_a_run_whose_games_keep_ending_engine_error_stops(model, tmp_path, capsys):
    """An engine that answers every game's second query with an error (its start-up check
    passes): after GIVE_UP_AFTER games in a row end engine_error the run stops, one line says
    why, exit 2, the manifest says stopped."""
    from sim.play.referee import GIVE_UP_AFTER

    c = config(tmp_path / "c.toml", model, fake_command("error", "--at", ":2"), games=40)
    out = tmp_path / "run"
    assert run(c, out, "--workers", "1") == 2
    err = without_compile_notes(capsys.readouterr().err)
    assert err.count("\n") == 1, err
    assert f"kata: {GIVE_UP_AFTER} games in a row ended engine_error" in err
    assert "error answer: fake error" in err and "--resume" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and "engine_error" in manifest["stopped_because"]


@pytest.mark.parametrize(
    "change, said",
    [
        ({"model": "/no/such/net.gz"}, "players.black.model: no such file: /no/such/net.gz"),
        ({"config": "/no/such.cfg"}, "players.black.config: no such file: /no/such.cfg"),
        ({"command": ["no-such-katago"]}, "players.black.command: program 'no-such-katago' not"),
        ({"fail": "cannot load model"}, "its stderr: cannot load model"),
        ({"komi": 6.25}, "players.black.play_for: KataGo takes a whole or half komi"),
    ],
)
def test_a_katago_that_cannot_start_is_one_line_before_any_game(
    change, said, model, tmp_path, capsys
):
    """A missing network, config or binary, a KataGo that fails to start (what it wrote on
    stderr shown), a komi it cannot take: one line naming the key, exit 2, no run folder."""
    fail = ["--fail", change["fail"]] if "fail" in change else []
    command = change.get("command") or fake_command("play", *fail)
    extra = f"[komi]\njpd_a = {change['komi']}\n" if "komi" in change else ""
    c = config(tmp_path / "c.toml", change.get("model", model), command, extra=extra)
    if "config" in change:
        c.write_text(c.read_text().replace("in_flight = 2", f"config = '{change['config']}'"))
    out = tmp_path / "run"
    assert run(c, out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err
    assert not out.exists()


def test_a_cache_folder_that_cannot_be_written_is_one_line(model, tmp_path, capsys, monkeypatch):
    """The config jpdsim writes goes under XDG_CACHE_HOME: where that cannot be written (here
    a file, which no user, root included, can make a folder in), one line naming the key and
    what to do, exit 2, no run folder."""
    from sim import kernel_cache

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(kernel_cache.folder()))  # the kernels stay
    blocker = tmp_path / "cache"
    blocker.write_text("a file, not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    out = tmp_path / "run"
    assert run(config(tmp_path / "c.toml", model, fake_command("play")), out) == 2
    err = without_compile_notes(capsys.readouterr().err)
    assert err.count("\n") == 1, err
    assert err.startswith("jpdsim run: error: players.black.config: cannot write the analysis ")
    assert "set XDG_CACHE_HOME to a folder you can write" in err and not out.exists()


def test_the_network_played_is_recorded_and_resume_refuses_another(tmp_path, monkeypatch, capsys):
    """The manifest records each network's size and sha256 and KataGo's version; --resume
    refuses, in one line, a network whose contents changed since, or a relative ``model`` that
    names another file from the folder it is run in; the same network resumes."""
    here, there = tmp_path / "here", tmp_path / "there"
    for folder, data in ((here, b"network one"), (there, b"network two!")):
        folder.mkdir()
        (folder / "net.bin.gz").write_bytes(data)
    c = config(tmp_path / "c.toml", "net.bin.gz", fake_command("play"), games=4)
    out = tmp_path / "run"
    monkeypatch.chdir(here)
    assert run(c, out) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    sha = hashlib.sha256(b"network one").hexdigest()
    assert manifest["networks"] == {"black": {"model": "net.bin.gz", "bytes": 11, "sha256": sha}}
    assert manifest["katago_version"] == {"black": "1.17.2"}
    capsys.readouterr()
    monkeypatch.chdir(there)
    assert run(c, out, "--resume") == 2
    err = without_compile_notes(capsys.readouterr().err)
    assert err.count("\n") == 1 and "cannot resume" in err, err
    assert f"players.black.model: the run played net.bin.gz (11 bytes, sha256 {sha[:16]}...)" in err
    assert "net.bin.gz is 12 bytes" in err
    monkeypatch.chdir(here)
    (here / "net.bin.gz").write_bytes(b"network 1!!")  # the same size, other contents
    assert run(c, out, "--resume") == 2
    assert "players.black.model: the run played" in capsys.readouterr().err
    (here / "net.bin.gz").write_bytes(b"network one")
    assert run(c, out, "--resume") == 0


def test_a_config_of_ones_own_may_give_rows_that_differ_with_the_workers(model, tmp_path, capsys):
    """With the config jpdsim writes, nothing is said; with a KataGo config of the user's
    (which may batch evaluations), the manifest and the summary say that the rows may differ
    with the number of workers, and why."""
    c = config(tmp_path / "c.toml", model, fake_command("play"), games=2)
    assert run(c, tmp_path / "a") == 0
    assert "not reproducible" not in capsys.readouterr().out
    assert "not_reproducible" not in json.loads((tmp_path / "a" / "manifest.json").read_text())
    own = tmp_path / "own.cfg"
    own.write_text("numAnalysisThreads = 2\nnnMaxBatchSize = 2\n")
    c.write_text(c.read_text().replace("in_flight = 2", f"in_flight = 2\nconfig = '{own}'"))
    assert run(c, tmp_path / "b") == 0
    said = json.loads((tmp_path / "b" / "manifest.json").read_text())["not_reproducible"]
    assert said.startswith("players.black.config is a KataGo config of the user's")
    assert f"\nnot reproducible across worker counts: {said}\n" in capsys.readouterr().out


def test_katago_parameters():
    """The katago player's keys: validated in one line naming the key; in_flight and the
    timeouts kept out of its name (rows do not change with them)."""
    kata = Player("katago", command="katago", model="net.bin.gz", in_flight=64, move_timeout=5)
    assert kata.name == Player("katago", command="katago", model="net.bin.gz").name
    sampled = Player("katago", command="katago", model="net.bin.gz", sample_moves=8)
    assert sampled.name == kata.name[:-1] + ",sample_moves=8)"
    assert kata.name == (
        "katago(name=katago,command=katago,model=net.bin.gz,visits=1000,play_for=jpd_a)"
    )
    for kwargs, message in [
        ({"model": ""}, "model: a katago player needs the network file"),
        ({"command": ""}, "command: a katago player needs the command"),
        ({"in_flight": 0}, "in_flight: must be in 1..4,096"),
        ({"config": 3}, "config: must be a file name"),
        ({"move_timeout": 0}, "move_timeout: must be in 0.1..3,600"),
        ({"visits": 1}, "visits: must be at least 2 for katago"),
        ({"sample_moves": -1}, "sample_moves: must be in 0..1,000"),
        ({"sample_moves": 1.5}, "sample_moves: must be an integer"),
    ]:
        with pytest.raises(OptionError, match=message):
            Player("katago", **{"command": "katago", "model": "m", **kwargs})
    with pytest.raises(OptionError, match="model: unknown for kind 'gtp'"):
        Player.from_table({"kind": "gtp", "command": "gnugo", "model": "m"})


def test_the_trees_of_the_games_in_flight_count_for_memory(model):
    """A searching player against KataGo keeps a tree per game in flight: the runner's memory
    check counts them (a tree of 10,000 visits on 19x19 takes about 1 GB with RAVE: 4096 of
    them are more than any machine has)."""
    from sim.config.run import RunConfig
    from sim.errors import UserError
    from sim.run.capacity import check_workers

    search = Player("mcts", visits=10_000)
    kata = Player("katago", command="katago", model=str(model), in_flight=4096)
    check_workers([RunConfig("a", 4, Rules(19), black=search)], 1)
    with pytest.raises(UserError, match="option --workers: 1 workers need about 4,[0-9,.]+ GiB"):
        check_workers([RunConfig("a", 4, Rules(19), black=search, white=kata)], 1)


def test_a_gtp_player_cannot_play_katago(tmp_path, model):
    from sim.config.file import load_config
    from sim.errors import UserError

    c = config(tmp_path / "c.toml", model, ["katago"], white="kind = 'gtp'\ncommand = 'gnugo'")
    with pytest.raises(UserError, match="key 'players': a gtp player cannot play a katago"):
        load_config(c)


# -- the real KataGo -----------------------------------------------------------------------


def _real() -> tuple[list[str], str]:
    """``JPD_KATAGO`` = "BINARY NETWORK" (a KataGo and a network file); skipped without it."""
    named = shlex.split(os.environ.get("JPD_KATAGO", ""))
    if len(named) != 2:
        pytest.skip('JPD_KATAGO="KATAGO_BINARY NETWORK_FILE" runs the tests with a real KataGo')
    return [named[0]], named[1]


@pytest.mark.katago
def test_real_katago_plays_legal_games_under_the_rules():
    """The real KataGo (few visits) against the pattern player on 9x9 and against itself on
    7x7: games end, every move is legal here, every row is the outcome of its moves."""
    command, network = _real()
    kata = Player("katago", command=command, model=network, visits=8, in_flight=4)
    for rules, white in ((Rules(9), Player("pattern")), (Rules(7, dead_stones="agree"), kata)):
        cols, moves = play(kata, white, rules, games=4)
        assert set(cols["ending"]) <= {"pause", "four_virtual", "resign"}, cols["ending"]
        assert_rows_replay(rules, cols, moves)


@pytest.mark.katago
def test_real_katago_run_checks_its_setup(tmp_path, capsys):
    """`jpdsim run` with the real KataGo: its start-up check passes; a komi it cannot take is
    one line before any game."""
    command, network = _real()
    kata = f"kind = 'katago'\ncommand = {json.dumps(command)}\nmodel = '{network}'\nvisits = 4"
    c = tmp_path / "c.toml"
    c.write_text(f"board_size = 9\ngames = 2\n[players.black]\n{kata}\n[players.white]\n{kata}\n")
    assert run(c, tmp_path / "run") == 0
    assert set(pd.read_parquet(tmp_path / "run" / "games")["ending"]) <= {"pause", "four_virtual"}


def _katago_children() -> list[int]:
    """The KataGo processes this process started that are still running (not zombies)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"analysis" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.katago
def test_real_katago_rows_do_not_depend_on_the_workers(tmp_path):
    """The config jpdsim writes: KataGo against itself (openings drawn by sample_moves, a komi
    sweep, several games in flight) gives the same rows with 1 and 2 workers and on an
    in-process Dask cluster whose worker plays two shards at a time, and no KataGo is left
    running in that worker after the run."""
    command, network = _real()
    distributed = pytest.importorskip("distributed")
    kata = (
        f"kind = 'katago'\ncommand = {json.dumps(command)}\nmodel = '{network}'\n"
        "visits = 20\nsample_moves = 4\nin_flight = 4"
    )
    c = tmp_path / "c.toml"
    c.write_text(
        "board_size = 7\ngames = 12\nshard_size = 6\nseed = 9\n"
        "komi_sweep = { ruleset = 'jpd_a', values = [8.5, 9.5] }\n"
        f"[players.black]\n{kata}\n[players.white]\n{kata}\n"
    )
    assert run(c, tmp_path / "w1", "--workers", "1") == 0
    assert run(c, tmp_path / "w2", "--workers", "2") == 0
    before = set(_katago_children())  # this process's own (``play``'s, earlier tests')
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        assert run(c, tmp_path / "dask", "--scheduler", cluster.scheduler_address) == 0
        assert set(_katago_children()) <= before
    one = faults.digest(tmp_path / "w1")
    assert faults.digest(tmp_path / "w2") == one and faults.digest(tmp_path / "dask") == one
