"""Golden tests of the cycle corpus ``sim/corpus/*.txt`` (docs/corpus.md), on every engine.

Every corpus position is a setup position (docs/rules.md §9) from which a documented cycle can be
played. The tests check the files, then play fixed GTP sequences under every repetition rule
(docs/rules.md §5) and assert what each rule does: which move it refuses and why, where
``no_result`` ends the game as ``cycle`` (A§4.2 可判为无胜负), where the four-virtual ending
fires (A§5.3 四虚终局), and that ``basic_ko`` lets a cycle run again.

A *trace* is a string of GTP tokens, each optionally followed by

- ``=``        the move was played and the board is the start board again;
- ``!REASON``  the move was refused with that reason and the game is unchanged;
- ``!over``    the move was refused because the game had ended (``game over (ENDING)``).

A played move without ``=`` leaves a board different from the start board.
Coordinates: columns A.. (no I) from the left, row 1 at the bottom.
"""

import re
from pathlib import Path

import pytest

from sim.config.setups import CORPUS, HEADER_KEYS, corpus_names, load_setup
from sim.schema.tables import REPETITIONS
from tests.conftest import legal, play, reason
from tests.reference import groups

DOC = Path(__file__).resolve().parents[1] / "docs" / "corpus.md"
COLOUR = {"black": 1, "white": 2}

# ----------------------------------------------------------------------------------------------
# The documented cycles.
#
# kind "global": the moves recreate the start *global* position (board, no virtual stones);
#   the last move closes the cycle: no_result ends the game there (ending "cycle"), the
#   positional superko rules refuse it.
# kind "board": the cycle contains virtual moves (or passes, converted into virtual moves), so
#   the last move recreates the start *board* but never the global position: no_result and
#   global_superko play it without ending the game; board_superko refuses it.
# situational: what situational superko answers to the closing move (board + side to move
#   next: an odd cycle, or one with a virtual move in it, reaches the start board with the
#   other side to move).
CYCLES = {
    # three kos are the only liberties of both groups; six captures, each an atari
    "triple_ko": ("A2 C3 E2 A3 C2 E3", "global", "superko"),
    # four kos; every ko is taken twice
    "quadruple_ko": ("A4 E5 C4 G5 E4 A5 G4 C5", "global", "superko"),
    # the eternal-life cycle: send two (A5), take two (C5), take two back (B5), throw in (D5)
    "eternal_life": ("A5 C5 B5 D5", "global", "superko"),
    # the same four-move cycle entered by a capture: take two (B4), throw in (D4), send two
    # (A4), take two (C4)
    "round_robin_ko": ("B4 D4 A4 C4", "global", "superko"),
    # send two (C4), White takes two (A4), return one (B4): three moves, White to move next
    "sending_two_returning_one": ("C4 A4 B4", "global", None),
    # false-eye ko C7/D7 plus the double ko C2/C3 and A2/A3 below: a triple ko
    "moonshine_life": ("C7 C2 A3 D7 C3 A2", "global", "superko"),
    # take, take, virtual (the first taker cannot go on), take, take: the board is back
    "double_ko_seki": ("A2 C3 virtual A3 C2", "board", None),
    # take, take, pass (converted into a virtual move by W A3), take, take
    "molasses_ko": ("A2 E3 pass A3 E2", "board", None),
    # White takes, two virtual moves lift the ban (隔虚可以提劫), Black takes back
    "four_virtual_ko": ("A3 virtual virtual A2", "board", "superko"),
    "virtual_lifts_ban": ("C2 virtual virtual C3", "board", "superko"),
}

# ----------------------------------------------------------------------------------------------
# What every repetition rule does: (trace, ending, (Black stones, White stones) at the end).
TRACES = {
    "triple_ko": {
        # the cycle runs twice; no rule stops it
        "basic_ko": ("A2 C3 E2 A3 C2 E3= A2 C3 E2 A3 C2 E3=", None, (13, 9)),
        # E3 recreates the start global position: no result
        "no_result": ("A2 C3 E2 A3 C2 E3= A2!over", "cycle", (13, 9)),
        # White may not close the cycle; her group has one liberty left (A2), so Black captures
        # all of it: under superko the triple ko is won by the side that need not repeat
        "global_superko": ("A2 C3 E2 A3 C2 E3!superko virtual A2", None, (15, 0)),
        "board_superko": ("A2 C3 E2 A3 C2 E3!superko virtual A2", None, (15, 0)),
        "situational_superko": ("A2 C3 E2 A3 C2 E3!superko virtual A2", None, (15, 0)),
    },
    "quadruple_ko": {
        "basic_ko": ("A4 E5 C4 G5 E4 A5 G4 C5= A4 E5 C4 G5 E4 A5 G4 C5=", None, (19, 26)),
        "no_result": ("A4 E5 C4 G5 E4 A5 G4 C5= A4!over", "cycle", (19, 26)),
        # White, in atari, may not retake C5; Black A4 fills her last liberty
        "global_superko": ("A4 E5 C4 G5 E4 A5 G4 C5!superko virtual A4", None, (21, 0)),
        "board_superko": ("A4 E5 C4 G5 E4 A5 G4 C5!superko virtual A4", None, (21, 0)),
        "situational_superko": ("A4 E5 C4 G5 E4 A5 G4 C5!superko virtual A4", None, (21, 0)),
    },
    "eternal_life": {
        "basic_ko": ("A5 C5 B5 D5= A5 C5 B5 D5=", None, (12, 7)),
        "no_result": ("A5 C5 B5 D5= A5!over", "cycle", (12, 7)),
        # the throw-in D5 would repeat the start: White must play elsewhere, and Black keeps
        # the two stones he took back
        "global_superko": ("A5 C5 B5 D5!superko virtual", None, (12, 6)),
        "board_superko": ("A5 C5 B5 D5!superko virtual", None, (12, 6)),
        "situational_superko": ("A5 C5 B5 D5!superko virtual", None, (12, 6)),
    },
    "round_robin_ko": {
        "basic_ko": ("B4 D4 A4 C4= B4 D4 A4 C4=", None, (6, 6)),
        "no_result": ("B4 D4 A4 C4= B4!over", "cycle", (6, 6)),
        # White may not take the two stones back (C4): Black keeps the two he took first
        "global_superko": ("B4 D4 A4 C4!superko virtual", None, (8, 5)),
        "board_superko": ("B4 D4 A4 C4!superko virtual", None, (8, 5)),
        "situational_superko": ("B4 D4 A4 C4!superko virtual", None, (8, 5)),
    },
    "sending_two_returning_one": {
        # the board recurs after three moves; White makes a virtual move and Black sends again
        "basic_ko": ("C4 A4 B4= virtual= C4 A4 B4=", None, (9, 4)),
        "no_result": ("C4 A4 B4= virtual!over", "cycle", (9, 4)),
        # Black may not return one stone: his group (liberty C2 only) is lost
        "global_superko": ("C4 A4 B4!superko virtual C2", None, (0, 6)),
        "board_superko": ("C4 A4 B4!superko virtual C2", None, (0, 6)),
        # odd cycle: B4 gives the start board with White to move, a new situation; after a
        # White virtual move, sending two again repeats the situation after C4
        "situational_superko": ("C4 A4 B4= virtual= C4!superko virtual=", None, (9, 4)),
    },
    "moonshine_life": {
        "basic_ko": ("C7 C2 A3 D7 C3 A2= C7 C2 A3 D7 C3 A2=", None, (25, 17)),
        "no_result": ("C7 C2 A3 D7 C3 A2= C7!over", "cycle", (25, 17)),
        # W A2 is prohibited, so the White group of the double ko (only liberty G3, the dame)
        # is captured, and with it the source of her unremovable ko threats
        "global_superko": ("C7 C2 A3 D7 C3 A2!superko virtual G3", None, (27, 5)),
        "board_superko": ("C7 C2 A3 D7 C3 A2!superko virtual G3", None, (27, 5)),
        "situational_superko": ("C7 C2 A3 D7 C3 A2!superko virtual G3", None, (27, 5)),
    },
    "double_ko_seki": {
        # Black's virtual moves (moves 3, 9, 15, 21) all stand on the board after C3; the
        # fourth one ends the game (A3 is refused: game over)
        "basic_ko": (
            "A2 C3 virtual A3 C2= virtual= A2 C3 virtual A3 C2= virtual= "
            "A2 C3 virtual A3 C2= virtual= A2 C3 virtual A3!over",
            "four_virtual",
            (13, 9),
        ),
        "no_result": (
            "A2 C3 virtual A3 C2= virtual= A2 C3 virtual A3 C2= virtual= "
            "A2 C3 virtual A3 C2= virtual= A2 C3 virtual A3!over",
            "four_virtual",
            (13, 9),
        ),
        "global_superko": (
            "A2 C3 virtual A3 C2= virtual= A2 C3 virtual A3 C2= virtual= "
            "A2 C3 virtual A3 C2= virtual= A2 C3 virtual A3!over",
            "four_virtual",
            (13, 9),
        ),
        # Black, in atari after W A3, may not retake C2 (the board repeats): White fills the
        # dame E3 and captures him
        "board_superko": ("A2 C3 virtual A3 C2!superko virtual E3", None, (0, 11)),
        # C2 is a new situation (White to move); taking A2 again repeats the one after move 1
        "situational_superko": ("A2 C3 virtual A3 C2= virtual= A2!superko virtual=", None, (13, 9)),
    },
    "molasses_ko": {
        # the passes of moves 3, 9, 15, 21 are converted when White answers them; the fourth
        # conversion completes four virtual moves at the board after E3, and the game ends
        # there: White's A3 (action 22) counts as an action but is not played
        "basic_ko": (
            "A2 E3 pass A3 E2= pass= A2 E3 pass A3 E2= pass= "
            "A2 E3 pass A3 E2= pass= A2 E3 pass A3 E2!over",
            "four_virtual",
            (13, 8),
        ),
        "no_result": (
            "A2 E3 pass A3 E2= pass= A2 E3 pass A3 E2= pass= "
            "A2 E3 pass A3 E2= pass= A2 E3 pass A3 E2!over",
            "four_virtual",
            (13, 8),
        ),
        "global_superko": (
            "A2 E3 pass A3 E2= pass= A2 E3 pass A3 E2= pass= "
            "A2 E3 pass A3 E2= pass= A2 E3 pass A3 E2!over",
            "four_virtual",
            (13, 8),
        ),
        # Black may not retake E2 and passes; White fills his eye C5 and captures him
        "board_superko": ("A2 E3 pass A3 E2!superko pass C5", None, (0, 10)),
        # A2 repeats a situation; Black passes after White's pass: the game pauses
        "situational_superko": ("A2 E3 pass A3 E2= pass= A2!superko pass=", "pause", (13, 8)),
    },
    "four_virtual_ko": {
        # the board after A3 gets virtual moves 2, 3, 8 and 9: the game ends at move 9
        "basic_ko": (
            "A3 virtual virtual A2= virtual= virtual= A3 virtual virtual A2!over",
            "four_virtual",
            (12, 8),
        ),
        "no_result": (
            "A3 virtual virtual A2= virtual= virtual= A3 virtual virtual A2!over",
            "four_virtual",
            (12, 8),
        ),
        "global_superko": (
            "A3 virtual virtual A2= virtual= virtual= A3 virtual virtual A2!over",
            "four_virtual",
            (12, 8),
        ),
        # virtual moves do not lift a board-superko ban: two more virtual moves end the game
        "board_superko": ("A3 virtual virtual A2!superko virtual virtual", "four_virtual", (12, 8)),
        "situational_superko": (
            "A3 virtual virtual A2!superko virtual virtual",
            "four_virtual",
            (12, 8),
        ),
    },
    "virtual_lifts_ban": {
        # the immediate retake is the two-move ko; after the virtual moves C3 is legal and,
        # the global position being new, no_result does not end the game
        "basic_ko": ("C2 C3!ko virtual virtual C3=", None, (12, 8)),
        "no_result": ("C2 C3!ko virtual virtual C3=", None, (12, 8)),
        # A§4.2 隔虚可以提劫: the virtual stones make the retake a new global position
        "global_superko": ("C2 C3!superko virtual virtual C3=", None, (12, 8)),
        # board superko ignores virtual stones, situational superko sees Black to move again
        "board_superko": ("C2 C3!superko virtual virtual C3!superko", None, (13, 7)),
        "situational_superko": ("C2 C3!superko virtual virtual C3!superko", None, (13, 7)),
    },
}

STEP = re.compile(r"^(?P<token>[A-Za-z]+[0-9]*)(?P<back>=?)(?:!(?P<reason>.+))?$")


def start(Game, name, repetition, moves=()):
    """A game of ``Game`` from the corpus position ``name`` with ``moves`` played."""
    setup = load_setup(name)
    game = Game(
        setup.size,
        setup=list(setup.cells),
        to_move=COLOUR[setup.to_move],
        repetition=repetition,
    )
    play(game, moves)
    return game


def follow(game, start_board, trace):
    """Play a trace (see the module docstring), asserting every step."""
    for k, step in enumerate(trace.split(), 1):
        m = STEP.match(step)
        assert m, f"bad trace step {step!r}"
        token, back, want = m["token"], m["back"] == "=", m["reason"]
        if want == "over":
            assert game.ending is not None, f"step {k} ({step}): the game has not ended"
            want = f"game over ({game.ending})"
        before = game.board()
        got = reason(game, token)
        assert got == want, f"step {k} ({step}): {got!r}"
        if got is not None:
            assert game.board() == before, f"step {k} ({step}): a refused move changed the board"
        else:
            assert (game.board() == start_board) == back, f"step {k} ({step}): board"


# ----------------------------------------------------------------------------------------------
# The files


def header(name):
    """The ``# key: value`` lines of a corpus file as (key, value) pairs, in order."""
    text = (CORPUS / f"{name}.txt").read_text(encoding="utf-8")
    pairs = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            pairs.append((key.strip(), value.strip()))
    return pairs


def test_corpus_has_the_positions():
    # every corpus file has its documented cycle and its trace under every rule, and back
    assert set(CYCLES) == set(corpus_names()) == set(TRACES)
    assert {"triple_ko", "quadruple_ko", "moonshine_life", "four_virtual_ko"} <= set(CYCLES)


@pytest.mark.parametrize("name", corpus_names())
def test_corpus_file(name):
    pairs = header(name)
    keys = [k for k, _ in pairs]
    assert sorted(keys) == sorted(HEADER_KEYS), "each header key exactly once"
    info = dict(pairs)
    assert info["name"] == name
    assert re.fullmatch(r"[a-z][a-z0-9_]*", name)
    assert info["to_move"] in COLOUR
    assert info["source"] and info["shows"]
    setup = load_setup(name)
    assert (setup.name, setup.to_move, setup.source, setup.shows) == (
        name,
        info["to_move"],
        info["source"],
        info["shows"],
    )
    assert 2 <= setup.size <= 25 and len(setup.cells) == setup.size**2
    # every group has a liberty (docs/rules.md §9), and both colours are on the board
    for group, libs in groups(setup.size, list(setup.cells)):
        assert libs, f"a group at {sorted(group)} has no liberty"
    assert 1 in setup.cells and 2 in setup.cells


def test_corpus_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for name in corpus_names():
        assert f"`{name}`" in text, f"{name} is missing from docs/corpus.md"


@pytest.mark.parametrize("name", corpus_names())
def test_corpus_setup_starts_a_game(Game, name):
    setup = load_setup(name)
    game = start(Game, name, "global_superko")
    assert game.board() == list(setup.cells)
    assert game.to_move == COLOUR[setup.to_move]
    assert game.ending is None and game.legal_moves()


# ----------------------------------------------------------------------------------------------
# The cycles


@pytest.mark.parametrize("name", corpus_names())
def test_documented_cycle_recurs(Game, name):
    moves, kind, situational = CYCLES[name]
    *body, closing = moves.split()
    setup = load_setup(name)
    board = list(setup.cells)

    # basic_ko: the whole cycle is playable and the start board comes back; a global cycle
    # runs again at once (after an odd one the other side is to move: it makes a virtual move
    # first). The board cycles end with a ko capture, so they go on after other moves only
    # (TRACES).
    game = start(Game, name, "basic_ko", moves)
    assert game.board() == board and game.ending is None
    if kind == "global":
        if game.to_move != COLOUR[setup.to_move]:
            play(game, "virtual")
        play(game, moves)
        assert game.board() == board and game.ending is None

    # no_result: the closing move is played; it ends the game iff the global position recurs
    game = start(Game, name, "no_result", body)
    assert game.ending is None and game.board() != board
    assert reason(game, closing) is None
    assert game.board() == board
    assert game.ending == ("cycle" if kind == "global" else None)

    # global superko refuses the closing move iff the global position recurs
    game = start(Game, name, "global_superko", body)
    assert reason(game, closing) == ("superko" if kind == "global" else None)

    # board superko refuses every return to the start board
    game = start(Game, name, "board_superko", body)
    assert reason(game, closing) == "superko"
    assert game.board() != board

    game = start(Game, name, "situational_superko", body)
    assert reason(game, closing) == situational


@pytest.mark.parametrize("repetition", REPETITIONS)
@pytest.mark.parametrize("name", sorted(TRACES))
def test_every_repetition_rule(Game, name, repetition):
    trace, ending, stones = TRACES[name][repetition]
    setup = load_setup(name)
    game = start(Game, name, repetition)
    follow(game, list(setup.cells), trace)
    assert game.ending == ending
    board = game.board()
    assert (board.count(1), board.count(2)) == stones


# ----------------------------------------------------------------------------------------------
# Details of the virtual-move positions


def test_four_virtual_ending_counts_virtual_moves_per_board(Game):
    # White first: W A3, B virtual, W virtual (2 at the board after A3), B A2 (the start
    # board), W virtual, B virtual (2 at the start board), W A3, B virtual, W virtual: the
    # fourth virtual move at the board after A3 ends the game at move 9, not before
    game = start(Game, "four_virtual_ko", "global_superko")
    play(game, "A3 virtual virtual A2 virtual virtual A3 virtual")
    assert game.ending is None
    play(game, "virtual")
    assert game.ending == "four_virtual"
    out = game.outcome()
    assert out["moves"] == 9 and out["actions"] == 9
    assert (out["virtual_moves_b"], out["virtual_moves_w"]) == (3, 3)
    assert (out["real_moves_b"], out["real_moves_w"]) == (1, 2)
    assert out["first_pass_or_virtual_by"] == "B"


def test_molasses_ko_ends_on_a_converted_pass(Game):
    # three cycles, then A2 E3 pass: the board after E3 has had three converted Black passes
    game = start(Game, "molasses_ko", "global_superko")
    play(game, "A2 E3 pass A3 E2 pass " * 3 + "A2 E3 pass")
    before = game.board()
    assert game.ending is None
    # White's A3 declines the pass: the conversion is the fourth virtual move at this board,
    # the game ends and A3 is not played
    assert reason(game, "A3") is None
    assert game.ending == "four_virtual"
    assert game.board() == before
    out = game.outcome()
    assert out["actions"] == 22 and out["moves"] == 21
    assert out["passes"] == 7 and out["converted_passes"] == 7
    assert (out["virtual_moves_b"], out["virtual_moves_w"]) == (4, 3)


@pytest.mark.parametrize(
    "repetition, retake",
    [
        ("global_superko", None),
        ("no_result", None),
        ("basic_ko", None),
        ("board_superko", "superko"),
        ("situational_superko", "superko"),
    ],
)
def test_virtual_move_lifts_the_ban(Game, repetition, retake):
    game = start(Game, "virtual_lifts_ban", repetition, "C2")
    banned = "ko" if repetition in ("no_result", "basic_ko") else "superko"
    assert reason(game, "C3") == banned
    assert "C3" not in legal(game)
    play(game, "virtual virtual")
    assert ("C3" in legal(game)) == (retake is None)
    assert reason(game, "C3") == retake
    assert game.ending is None
