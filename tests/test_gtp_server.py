"""`jpdsim gtp` (sim.gtp.server, sim.commands.gtp): the GTP 2 protocol in-process, the rules'
answers to GTP's moves (illegal moves, colours out of order, virtual moves told as passes, the
dead stones and the score), and one game against GNU Go over pipes."""

import io
import os
import re
import shutil
import subprocess
import sys
import threading

import pytest

from sim.cli import main as cli
from sim.commands.gtp import parse_player, player_table
from sim.config.player import Player
from sim.config.rules import Rules
from sim.errors import UserError
from sim.gtp.server import VIRTUAL_NOTE, GtpServer, clean

REQUIRED = (
    "protocol_version name version known_command list_commands quit boardsize clear_board "
    "komi play genmove showboard final_status_list final_score"
).split()


def responses(text: str) -> list[tuple[str, str, str]]:
    """The responses of a GTP output: (status ``=`` or ``?``, id, text) each."""
    assert text.endswith("\n\n"), repr(text[-20:])
    out = []
    for block in text[:-2].split("\n\n"):
        m = re.fullmatch(r"([=?])(\d*)(?: (.*))?", block, re.DOTALL)
        assert m, repr(block)
        out.append((m[1], m[2], m[3] or ""))
    return out


def session(commands, player="random", size=5, log=None, **kw):
    """A server on ``size`` run through ``commands``: (server, responses)."""
    rules = kw.pop("rules", None) or Rules(size, **kw.pop("rule_options", {}))
    server = GtpServer(parse_player(player), rules, log=log or io.StringIO(), **kw)
    out = io.StringIO()
    assert server.serve(io.StringIO("".join(c + "\n" for c in commands)), out) == 0
    return server, responses(out.getvalue())


def answers(commands, **kw) -> list[str]:
    """The texts of the responses, ``?`` responses marked ``? text``."""
    _, got = session(commands, **kw)
    return [text if status == "=" else f"? {text}" for status, _, text in got]


def board_of(showboard: str) -> dict[str, str]:
    """A showboard response as {vertex: "X" or "O"} (its stones only)."""
    stones = {}
    lines = showboard.strip("\n").splitlines()
    columns = lines[0].split()
    for line in lines[1:]:
        m = re.fullmatch(r"\s*(\d+) ([.XO ]+) \d+", line)
        if m:
            for col, c in zip(columns, m[2].split()):
                if c != ".":
                    stones[f"{col}{m[1]}"] = c
    return stones


def test_ids_comments_control_characters_and_unknown_commands():
    server, got = session(
        [
            "1 protocol_version",
            "# a comment line",
            "",
            "   name   # and a comment",
            "7 frobnicate",
            "2\tna\x01me",
            "3 version",
            "4 known_command genmove",
            "5 known_command frobnicate",
            "6 quit",
            "8 name",  # after quit: not read
        ]
    )
    assert got == [
        ("=", "1", "2"),
        ("=", "", "jpdsim"),
        ("?", "7", "unknown command"),
        ("=", "2", "jpdsim"),
        ("=", "3", __import__("sim").__version__),
        ("=", "4", "true"),
        ("=", "5", "false"),
        ("=", "6", ""),
    ]
    assert clean("play b C3 # x\r\n") == "play b C3"
    assert clean("\x7fshow\x00board\t\n") == "showboard"


def test_list_commands_has_the_required_ones():
    (listed,) = answers(["list_commands"])
    assert set(REQUIRED) <= set(listed.split("\n"))
    assert answers([f"known_command {c}" for c in REQUIRED]) == ["true"] * len(REQUIRED)


def test_boardsize_refuses_bad_sizes_and_clears_the_board():
    server, got = session(
        ["play b C3", "boardsize 1", "boardsize 26", "boardsize x", "boardsize 7", "showboard"]
    )
    texts = [(s, t) for s, _, t in got]
    assert texts[1:4] == [
        ("?", "unacceptable size"),
        ("?", "unacceptable size"),
        ("?", "boardsize not an integer"),
    ]
    assert texts[4] == ("=", "")
    assert board_of(texts[5][1]) == {}
    assert len([line for line in texts[5][1].splitlines() if re.match(r"\s*\d+ ", line)]) == 7
    assert server.rules.board_size == 7 and server.rules.max_actions == 8 * 7 * 7


def test_a_boardsize_that_fails_changes_nothing(monkeypatch):
    """A board the player's work arrays find no memory for: `boardsize` is refused and the
    session keeps its board, rules and game (clear_board and genmove work on)."""
    import sim.gtp.server as server_module

    def native(rules, *args):
        if rules.board_size == 19:
            raise MemoryError
        return make(rules, *args)

    make = server_module.NativePlayers
    monkeypatch.setattr(server_module, "NativePlayers", native)
    server, got = session(["play b C3", "boardsize 19", "showboard", "clear_board", "genmove b"])
    texts = [(s, t) for s, _, t in got]
    assert texts[1] == ("?", "unacceptable size (no memory for the player's search)")
    assert board_of(texts[2][1]) == {"C3": "X"} and server.rules.board_size == 5
    assert texts[3] == ("=", "") and texts[4][0] == "="


def test_illegal_moves_are_refused_and_change_nothing():
    # occupied, then a ko recapture: W B2 is captured by B C2 and may not retake at once
    ko = "B3 C3 A2 D2 B1 C1 E5 B2 C2".split()
    colours = "bw" * 5
    plays = [f"play {c} {v}" for c, v in zip(colours, ko)]
    got = answers(["play b C3", "play w C3", "play w Z9", "play w virtual", "play x C4"])
    assert got == [
        "",
        "? illegal move: occupied",
        "? illegal move: off board",
        "? invalid coordinate",
        "? invalid color",
    ]
    server, got = session([*plays, "play w B2", "showboard"])
    assert [t for s, _, t in got[:-2]] == [""] * len(ko)
    assert got[-2][0] == "?" and got[-2][2] == "illegal move: superko"
    stones = board_of(got[-1][2])
    assert "B2" not in stones and stones["C2"] == "X" and server.game.to_move == 2
    # under basic ko, the same recapture is a ko
    assert answers([*plays, "play w B2"], rule_options={"repetition": "basic_ko"})[-1] == (
        "? illegal move: ko"
    )


def test_genmove_plays_a_legal_vertex_on_the_board():
    server, got = session(["genmove b", "genmove w", "showboard"], player="capture", size=5)
    first, second, board = (t for _, _, t in got)
    stones = board_of(board)
    assert stones == {first.upper(): "X", second.upper(): "O"}
    assert server.game.outcome()["real_moves_b"] == 1


def test_the_same_seed_plays_the_same_moves():
    moves = ["genmove b", "genmove w", "genmove b", "genmove w"]
    a = answers(moves, player="pattern", size=9, seed=5)
    assert a == answers(moves, player="pattern", size=9, seed=5)
    assert a != answers(moves, player="pattern", size=9, seed=6)


def test_komi_sets_the_play_for_rulesets_and_changes_the_score():
    # Black alone on the board: area 25; jpd_a: 25 - komi - 1 (White passed first)
    moves = ["play b C3", "play w pass", "play b pass"]
    server, got = session([*moves, "final_score", "komi 30", "final_score", "komi x"])
    assert [t for _, _, t in got[3:]] == ["B+17.5", "", "W+6", "komi not a float"]
    assert server.rules.komi["jpd_a"] == 30 and server.rules.komi["jpd_b"] == 7.5
    # play_for chinese: 25 - 7.5; a komi of 25 is a draw
    got = answers(
        [*moves, "final_score", "komi 25", "final_score"], player="mcts(visits=2,play_for=chinese)"
    )
    assert got[3:] == ["B+17.5", "", "0"]


def test_colour_out_of_order_passes_for_the_side_to_move():
    server, got = session(["play w C3", "genmove w"])
    assert got[0] == ("=", "", "")
    out = server.game.outcome()
    # each time Black's inserted pass was declined: a virtual move of Black's (docs/rules.md §4)
    assert (out["real_moves_w"], out["virtual_moves_b"], out["converted_passes"]) == (2, 2, 2)
    assert out["real_moves_b"] == 0 and server.game.to_move == 1
    # a refused move takes its inserted pass back
    server, got = session(["play b C3", "play b C3"])
    assert got[1][0] == "?" and got[1][2] == "illegal move: occupied"
    assert server.game.outcome()["passes"] == 0 and server.game.to_move == 2


def test_a_virtual_move_is_told_as_pass():
    log = io.StringIO()
    server, got = session(["genmove b", "genmove w"], virtual_rate=1.0, log=log)
    assert [t for _, _, t in got] == ["pass", "pass"]
    assert log.getvalue().splitlines() == [VIRTUAL_NOTE, VIRTUAL_NOTE]
    out = server.game.outcome()
    assert (out["virtual_moves_b"], out["virtual_moves_w"], out["passes"]) == (1, 1, 0)
    assert server.game.ending is None


def test_after_two_passes_the_game_is_over():
    got = answers(["play b pass", "play w pass", "genmove b", "play b C3", "play w pass"])
    assert got == ["", "", "pass", "? game over (pause)", ""]
    # Black again after its pass: White's pass would end the game, so the move is refused
    server, got = session(["play b pass", "play b C3"])
    assert got[1] == ("?", "", "illegal move: a pass for white, the side to move, ends the game")
    assert server.game.ending is None and server.game.outcome()["passes"] == 1


def test_undo_takes_back_one_command():
    server, got = session(["play b C3", "play b D3", "undo", "showboard", "undo", "undo"])
    assert [s for s, _, _ in got] == ["=", "=", "=", "=", "=", "?"]
    assert board_of(got[3][2]) == {"C3": "X"}
    assert got[5][2] == "cannot undo"
    assert server.game.outcome()["actions"] == 0


def test_final_status_list_of_a_finished_game():
    # Black strong around a lone White stone in the corner; the mcts player (dead stones
    # agreed at a pause) searches for Black and passes: A1 is dead
    setup = "C3 A1 B2 pass A3 pass C1 pass D3 pass".split()
    plays = [f"play {c} {v}" for c, v in zip("bw" * 5, setup)]
    server, got = session(
        [
            *plays,
            "genmove b",
            "final_status_list dead",
            "final_status_list alive",
            "final_status_list seki",
            "final_score",
            "final_status_list",
        ],
        player="mcts(visits=50)",
        rule_options={"dead_stones": "agree"},
    )
    tail = [t for _, _, t in got[len(plays) :]]
    assert tail[0] == "pass" and server.game.ending == "pause"
    assert tail[1] == "A1"
    assert set(tail[2].split()) == {"C3", "B2", "A3", "C1", "D3"}
    assert tail[3] == ""
    # A1 removed: Black's area is the board (25), komi 6.5, White passed first (+1)
    assert tail[4] == "B+17.5"
    assert got[-1][0] == "?"
    # a player that does not search names no dead stones
    got = answers([*plays, "play b pass", "final_status_list dead", "final_status_list alive"])
    assert got[-2] == "" and set(got[-1].split()) == {"C3", "A1", "B2", "A3", "C1", "D3"}


def test_player_specs():
    name = "mcts(visits=400,playout=pattern,play_for=jpd_b,resign_below=0.1,explore=1.5)"
    # a run's player name is that player: rave, stop_early, prior, score_utility, prior_visits,
    # tactics, doubt_passes and avoid_suicides left out at their legacy values
    legacy = Player(
        "mcts", 400, "pattern", "jpd_b", 0.1, 1.5, rave=0.0, prior="hand", score_utility=0,
        prior_visits=0, tactics=False, doubt_passes=False, avoid_suicides=False,
    )  # fmt: skip
    assert parse_player(name) == legacy and legacy.name == name
    assert parse_player("mcts(visits=400,play_for=jpd_b)") == Player("mcts", 400, play_for="jpd_b")
    default = Player("mcts", 400)
    assert parse_player(default.name) == default
    assert parse_player(" pattern ") == Player("pattern")
    assert parse_player("mcts(stop_early=true)").stop_early
    assert parse_player("mcts(stop_early=False)") == Player("mcts")
    assert player_table("mcts( visits = 3 )") == {"kind": "mcts", "visits": 3}
    for bad, says in [
        ("mcts(visits=0)", "visits: must be in 1..100,000"),
        ("pattern(visits=3)", "visits: unknown for kind 'pattern'"),
        ("alphago", "kind: must be one of"),
        ("mcts(visits)", "'visits' is not KEY=VALUE"),
        ("mcts(visits=3,visits=4)", "visits given twice"),
        ("mcts(visits=3", "expected KIND"),
        ("mcts(stop_early=1)", "stop_early: must be true or false, got 1"),
        ("gtp(command=gnugo)", "kind: "),  # a GTP program is served by itself
        ("katago", "kind: must be one of random, "),  # not: command missing
        ("gtp", "kind: must be one of random, "),
    ]:
        with pytest.raises(UserError, match=re.escape(f"--player {bad}: {says}")):
            parse_player(bad)


def test_cli_refuses_a_bad_player_in_one_line(capsys):
    assert cli(["gtp", "--player", "mcts(visits=0)"]) == 2
    err = capsys.readouterr().err
    assert (
        err == "jpdsim gtp: error: --player mcts(visits=0): visits: must be in 1..100,000, got 0\n"
    )
    assert cli(["gtp", "--size", "30"]) == 2
    assert "--size" in capsys.readouterr().err


# -- against GNU Go -------------------------------------------------------------------------


def _gnugo():
    path = shutil.which("gnugo", path=os.environ.get("PATH", "") + os.pathsep + "/usr/games")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("gnugo is not installed (CI installs it)")
        pytest.skip("gnugo is not installed")
    return path


def _ask(proc, command: str) -> tuple[bool, str]:
    """Send one command, read its response: (success, text)."""
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    lines = []
    while True:
        line = proc.stdout.readline()
        assert line, f"{command}: the engine closed its output"
        line = line.rstrip("\r\n")
        if not line and lines:
            break
        if line:
            lines.append(line)
    text = "\n".join(lines)
    assert text[0] in "=?", text
    return text[0] == "=", re.sub(r"^\d*", "", text[1:]).strip(" ")


@pytest.mark.gnugo
def test_a_game_against_gnugo(tmp_path):
    gnugo = _gnugo()
    log = open(tmp_path / "jpdsim.err", "w+")
    ours = subprocess.Popen(
        [sys.executable, "-m", "sim", "gtp", "--player", "pattern", "--size", "9"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    theirs = subprocess.Popen(
        [gnugo, "--mode", "gtp", "--level", "0", "--boardsize", "9"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    watchdog = threading.Timer(600, lambda: (ours.kill(), theirs.kill()))
    watchdog.start()
    try:
        engines = {"b": ours, "w": theirs}
        for proc in engines.values():
            assert _ask(proc, "boardsize 9") == (True, "")
            assert _ask(proc, "clear_board") == (True, "")
        moves, passes, colour = [], 0, "b"
        while passes < 2 and len(moves) < 200:
            other = "w" if colour == "b" else "b"
            ok, move = _ask(engines[colour], f"genmove {colour}")
            assert ok and move.lower() != "resign", (moves, move)
            ok, text = _ask(engines[other], f"play {colour} {move}")
            assert ok, (moves, move, text)
            moves.append(move.upper())
            passes = passes + 1 if move.lower() == "pass" else 0
            colour = other
        assert passes == 2, moves
        ok, board = _ask(ours, "showboard")
        assert ok and "game over (pause)" in board
        stones = board_of(board)
        for colour, letter in (("black", "X"), ("white", "O")):
            ok, listed = _ask(theirs, f"list_stones {colour}")
            assert ok
            assert set(listed.upper().split()) == {v for v, c in stones.items() if c == letter}
        assert _ask(ours, "final_score")[0]
        for proc in engines.values():
            assert _ask(proc, "quit") == (True, "")
            assert proc.wait(timeout=30) == 0
    finally:
        watchdog.cancel()
        for proc in (ours, theirs):
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        log.seek(0)
        print(log.read())
        log.close()
