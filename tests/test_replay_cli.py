"""`jpdsim replay` as other tools script against it: the JSON object (every outcome field,
final_board, legal_moves with --legal), the error line and exit status of an illegal or
malformed move, --from-file, --setup, --komi, and one-line errors for bad options."""

import json

import pytest

from sim.config.setups import load_setup
from sim.schema.tables import OUTCOME_FIELDS
from tests.conftest import EXAMPLE_CASES as CASES
from tests.conftest import replay


def example_args(case):
    a = case["args"]
    assert a["setup"] is None  # the examples start from the empty board
    return [
        "--size",
        a["size"],
        "--repetition",
        a["repetition"],
        "--suicide",
        a["suicide"],
        "--legal",
        *a["moves"],
    ]


@pytest.mark.parametrize("case", CASES, ids=[c["title"] for c in CASES])
def test_worked_example_through_the_command(capsys, case):
    status, out, err = replay(capsys, *example_args(case))
    if "error" in case:
        assert (status, out, err) == (2, "", case["error"] + "\n")
        return
    assert status == 0 and err == ""
    got = json.loads(out)
    assert list(got) == [*OUTCOME_FIELDS, "final_board", "legal_moves"]
    assert got == case["output"]


def test_unfinished_game_and_legal_moves(capsys):
    status, out, _ = replay(capsys, "--size", 3, "--legal", "B2,a1", "pass")
    got = json.loads(out)
    assert status == 0 and got["ending"] is None and got["passes"] == 1
    assert got["first_pass_or_virtual_by"] == "B" and got["converted_passes"] == 0
    assert got["final_board"] == ["...", ".X.", "O.."]
    # White to move with Black's pass pending: every empty point but none illegal here
    assert got["legal_moves"] == ["A2", "A3", "B1", "B3", "C1", "C2", "C3"]
    status, out, _ = replay(capsys, "--size", 3, "B2")
    assert "legal_moves" not in json.loads(out)


@pytest.mark.parametrize(
    "moves, line",
    [
        (["C3", "Z9"], "move 2 (Z9): off board"),
        (["C3", "C6"], "move 2 (C6): off board"),
        (["C3", "I3"], "move 2 (I3): not a move"),
        (["C3", "foo"], "move 2 (foo): not a move"),
        (["pass", "pass", "C3"], "move 3 (C3): game over (pause)"),
        (
            ["C3", "virtual", "virtual", "virtual", "virtual", "A1"],
            "move 6 (A1): game over (four_virtual)",
        ),
    ],
)
def test_bad_moves(capsys, moves, line):
    assert replay(capsys, "--size", 5, *moves) == (2, "", line + "\n")


KO = """
.XO.
X.XO
.XO.
....
"""


@pytest.mark.parametrize(
    "repetition, reason",
    [
        ("global_superko", "superko"),
        ("board_superko", "superko"),
        ("situational_superko", "superko"),
        ("no_result", "ko"),
        ("basic_ko", "ko"),
    ],
)
def test_ko_retake_reason(capsys, tmp_path, repetition, reason):
    setup = tmp_path / "ko.txt"
    setup.write_text(KO)
    # White B3 takes C3; Black's immediate retake at C3 would recreate the position
    assert replay(
        capsys, "--size", 4, "--setup", setup, "--repetition", repetition, "D1", "B3", "C3"
    ) == (2, "", f"move 3 (C3): {reason}\n")
    # after a virtual move each, the retake recreates the board (with the same side to move)
    # but not the global position: banned only where virtual stones are not part of it
    status, out, err = replay(
        capsys,
        "--size",
        4,
        "--setup",
        setup,
        "--repetition",
        repetition,
        "D1",
        "B3",
        "virtual",
        "virtual",
        "C3",
    )
    if repetition in ("board_superko", "situational_superko"):
        assert (status, err) == (2, "move 5 (C3): superko\n")
    else:
        assert status == 0 and json.loads(out)["stones_lost_w"] == 1


def test_from_file(capsys, tmp_path):
    games = tmp_path / "games.txt"
    games.write_text("C3 D3\nC3, C3\n\nA1 B2 pass pass\n")
    status, out, err = replay(capsys, "--size", 5, "--from-file", games)
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 2 and err == "" and len(lines) == 4
    assert lines[0]["moves"] == 2 and lines[0]["ending"] is None
    assert lines[1] == {"error": "move 2 (C3): occupied"}
    assert lines[2]["actions"] == 0  # a blank line is a game with no moves
    assert lines[3]["ending"] == "pause" and lines[3]["stones_b"] == 1
    games.write_text("C3\nD4\n")
    assert replay(capsys, "--size", 5, "--from-file", games)[0] == 0


def test_setup_and_komi(capsys, tmp_path):
    setup = tmp_path / "setup.txt"
    setup.write_text("X X .\nX . O\n. O O\n")
    status, out, _ = replay(
        capsys,
        "--size",
        3,
        "--setup",
        setup,
        "--komi",
        "jpd_b=0.5",
        "--komi",
        "chinese=-2",
        "--legal",
    )
    got = json.loads(out)
    assert status == 0 and got["stones_b"] == 3 and got["stones_w"] == 3 and got["moves"] == 0
    assert got["stones_lost_b"] == got["prisoners_w"] == 0  # setup stones are nobody's prisoners
    # C3, B2 and A1 each touch both colours: public
    assert got["public_points"] == 3 and got["area_diff_jpd"] == 0.0
    assert (
        got["margin_jpd_b"] == -0.5 and got["margin_chinese"] == 2.0 and got["margin_jpd_a"] == -6.5
    )
    assert got["legal_moves"] == ["A1", "B2", "C3"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--size", 30, "A1"], "jpdsim replay: error: --size: must be in 2..25, got 30"),
        (["--size", 5, "--komi", "jpd_x=1"], "jpdsim replay: error: --komi jpd_x: unknown ruleset"),
        (
            ["--size", 5, "--komi", "jpd_a"],
            "jpdsim replay: error: --komi jpd_a: expected RULESET=NUMBER",
        ),
        (
            ["--size", 5, "--max-actions", 0],
            "jpdsim replay: error: --max-actions: must be in 1..1,000,000, got 0",
        ),
        (
            ["--size", 5, "--max-actions", 10**11],
            "jpdsim replay: error: --max-actions: must be in 1..1,000,000",
        ),
        (
            ["--size", 5, "--komi", "jpd_a=nan"],
            "jpdsim replay: error: --komi jpd_a: must be a finite number",
        ),
        (["A1"], "jpdsim replay: error: --size is required (or a --setup that gives it)"),
        (
            ["--size", 5, "--repetition", "superko"],
            "jpdsim replay: error: argument --repetition: invalid choice",
        ),
    ],
)
def test_bad_options_are_one_line(capsys, args, message):
    status, out, err = replay(capsys, *args)
    assert status == 2 and out == "" and err.count("\n") == 1 and err.startswith(message)


@pytest.mark.parametrize(
    "diagram, message",
    [
        ("..\n..\n", "a 2x2 diagram, --size is 3"),
        ("...\n..\n...\n", "diagram row 2 has 2 points, board size is 3"),
        ("...\n.#.\n...\n", "diagram row 2 has letter '#'; use X, O or ."),
        ("XO.\nO..\n...\n", "setup stone at A3 has no liberty"),
    ],
)
def test_bad_setup(capsys, tmp_path, diagram, message):
    path = tmp_path / "setup.txt"
    path.write_text(diagram)
    status, out, err = replay(capsys, "--size", 3, "--setup", path)
    assert (status, out, err) == (2, "", f"jpdsim replay: error: --setup {path}: {message}\n")


def test_a_setup_gives_the_size(capsys):
    """--size may be left out when --setup gives it; an error when they disagree."""
    n = load_setup("triple_ko").size
    status, out, err = replay(capsys, "--setup", "triple_ko", "pass")
    assert (status, err) == (0, "") and json.loads(out)["board_size"] == n
    assert replay(capsys, "--size", n + 1, "--setup", "triple_ko") == (
        2,
        "",
        f"jpdsim replay: error: --setup triple_ko: a {n}x{n} diagram, --size is {n + 1}\n",
    )


def test_from_file_plays_a_long_line_lazily(capsys, tmp_path):
    """A line of a million moves that fails at move 2: read, decoded and split a piece at a
    time, it stops being played there (memory follows what is played, not the line); the
    rest of the line is still read for a byte that is not UTF-8, as before."""
    import tracemalloc

    games = tmp_path / "games.txt"
    games.write_text("C3\n")
    assert replay(capsys, "--size", 5, "--from-file", games)[0] == 0  # imports, kernels
    long = "C3 C3 " + "A1 " * 1_000_000
    games.write_text(f"{long}\nC3 D3\n")
    tracemalloc.start()
    try:
        status, out, err = replay(capsys, "--size", 5, "--from-file", games)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    lines = [json.loads(line) for line in out.splitlines()]
    assert status == 2 and lines[0] == {"error": "move 2 (C3): occupied"}
    assert lines[1]["moves"] == 2 and len(lines) == 2
    assert peak < 8 << 20, f"{peak:,} bytes for a {len(long):,}-byte line"
    games.write_bytes(long.encode() + b" \xff\n")
    status, out, _ = replay(capsys, "--size", 5, "--from-file", games)
    assert json.loads(out) == {"error": f"line 1: not UTF-8 (byte 0xff at column {len(long) + 2})"}


def test_from_file_a_byte_order_mark_is_no_move(capsys, tmp_path):
    games = tmp_path / "games.txt"
    games.write_bytes(b"\xef\xbb\xbfC3 D3\n\xef\xbb\xbfC3\n")
    status, out, _ = replay(capsys, "--size", 5, "--from-file", games)
    first, second = [json.loads(line) for line in out.splitlines()]
    assert first["moves"] == 2  # the file's mark is left out
    assert second["error"].startswith("move 1 (")  # a mark inside the file is a character
    games.write_bytes(b"\xef\xbb\xbf")
    status, out, _ = replay(capsys, "--size", 5, "--from-file", games)
    assert (status, out) == (0, "")
