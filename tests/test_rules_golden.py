"""Golden rule tests (docs/rules.md §1-§9), run on every engine through the ``Game`` fixture.

Each test sets up an ASCII position (top row first: X Black, O White, . empty; Black moves
first), plays GTP tokens and checks values worked out by hand (the comments show the work).
Coordinates: columns A.. (no I) from the left, row 1 at the bottom.
"""

import random

import pytest

from sim.schema.coords import PASS, VIRTUAL, parse_diagram
from sim.schema.tables import OUTCOME_FIELDS, REPETITIONS, RULESETS
from tests.conftest import (
    board_of,
    check_invariants,
    diagram,
    legal,
    new_game,
    play,
    reason,
    try_moves,
)
from tests.positions import (
    ATARI_SEKI,
    BLACK_NO_ROOM,
    BOTH_WITHOUT,
    CYCLE,
    EDGE,
    KO,
    MULTI_SUICIDE,
    SEKI,
    SINGLE,
    SINGLE_SUICIDE,
    SPLIT,
    SUICIDE_RETURN,
    WHITE_NO_ROOM,
)

ZERO_KOMI = {r: 0.0 for r in RULESETS}


def expect(out, **fields):
    """Assert a subset of the outcome fields."""
    wrong = {k: (out[k], v) for k, v in fields.items() if out[k] != v}
    assert not wrong, f"(engine, expected): {wrong}"


def margins(out):
    return {r: out[f"margin_{r}"] for r in RULESETS}


def winners(out):
    return {r: out[f"winner_{r}"] for r in RULESETS}


def finish(game, setup_diagram=None, komi=None):
    """The outcome, after checking the invariants."""
    out = game.outcome(komi)
    assert set(out) == set(OUTCOME_FIELDS)
    size = out["board_size"]
    check_invariants(out, None if setup_diagram is None else parse_diagram(setup_diagram, size))
    return out


# ----------------------------------------------------------------------------------------------
# §3 captures


def test_capture_single_stone(Game):
    g = new_game(Game, diagram=SINGLE, moves="C2")
    assert diagram(g) == board_of("""
        .....
        ..X..
        .X.X.
        ..X..
        .....""")
    out = finish(g, SINGLE)
    # a captured setup stone is a lost stone and a prisoner
    expect(
        out,
        stones_b=4,
        stones_w=0,
        stones_lost_w=1,
        stones_lost_b=0,
        prisoners_b=1,
        prisoners_w=0,
        real_moves_b=1,
        suicides_b=0,
        last_real_move_by="B",
        ending=None,
    )
    # White may play into the eye? C3: neighbours all Black, captures nothing: single suicide
    assert "C3" not in legal(g)
    assert reason(g, "C3") == "suicide"


def test_capture_group_at_edge(Game):
    # the White block B5 C5 B4 C4 has one liberty, D5
    g = new_game(Game, diagram=EDGE, moves="D5")
    assert diagram(g) == board_of("""
        X..X.
        X..X.
        .XX..
        .....
        .....""")
    # Black: A5 A4 D4 B3 C3 + D5
    expect(finish(g, EDGE), stones_lost_w=4, prisoners_b=4, stones_b=6, stones_w=0)


CORNER = """
.....
.....
.....
.....
OX...
"""


def test_capture_in_corner(Game):
    g = new_game(Game, diagram=CORNER, moves="A2")
    assert diagram(g).splitlines()[-2:] == ["X....", ".X..."]
    expect(finish(g, CORNER), stones_lost_w=1, prisoners_b=1, stones_w=0, stones_b=2)


SAVE = """
.....
.....
OOX..
XXOX.
.XO..
"""


def test_capture_saves_own_group_in_atari(Game):
    # Black A2 B2 B1 has one liberty (A1); White C2 C1 has one liberty (D1). Black D1 takes
    # the two stones; the Black group then has liberties A1, C2, C1, so White A1 is a
    # single-stone suicide instead of a capture.
    g = new_game(Game, diagram=SAVE, moves="D1")
    assert diagram(g) == board_of("""
        .....
        .....
        OOX..
        XX.X.
        .X.X.""")
    expect(finish(g, SAVE), stones_lost_w=2, prisoners_b=2, stones_lost_b=0)
    assert reason(g, "A1") == "suicide"
    assert "A1" not in legal(g)


# ----------------------------------------------------------------------------------------------
# §3 suicide


@pytest.mark.parametrize("suicide", ["multi", "none"])
def test_single_stone_suicide_is_illegal(Game, suicide):
    g = new_game(Game, diagram=SINGLE_SUICIDE, moves="E5", suicide=suicide)
    before = diagram(g)
    assert "A1" not in legal(g)
    assert len(legal(g)) == 25 - 3 - 1
    assert reason(g, "A1") == "suicide"
    assert diagram(g) == before
    expect(finish(g, SINGLE_SUICIDE), actions=1, moves=1, suicides_w=0, stones_lost_w=0)


@pytest.mark.parametrize("suicide", ["multi", "none"])
def test_multi_stone_suicide(Game, suicide):
    # White B1 joins A1; the block A1 B1 has no liberty and captures nothing
    g = new_game(Game, diagram=MULTI_SUICIDE, moves="E5", suicide=suicide)
    if suicide == "none":
        assert "B1" not in legal(g)
        assert reason(g, "B1") == "suicide"
        expect(finish(g, MULTI_SUICIDE), actions=1, stones_lost_w=0, suicides_w=0)
        return
    assert "B1" in legal(g)
    assert reason(g, "B1") is None
    assert diagram(g) == board_of("""
        ....X
        .....
        .....
        XX...
        ..X..""")
    out = finish(g, MULTI_SUICIDE)
    # the setup stone A1 and the played B1 are both lost by White, both Black's prisoners
    expect(
        out,
        suicides_w=1,
        suicides_b=0,
        stones_lost_w=2,
        stones_lost_b=0,
        prisoners_b=2,
        prisoners_w=0,
        real_moves_w=1,
        stones_w=0,
        stones_b=4,
        moves=2,
        actions=2,
        last_real_move_by="W",
    )


def test_mover_stones_stay_when_both_without_liberties(Game):
    # Black A1 fills the last liberty of its own block A2 B2 and of White B1: White goes
    g = new_game(Game, diagram=BOTH_WITHOUT, moves="A1")
    assert diagram(g) == board_of("""
        .....
        .....
        OO...
        XXO..
        X.X..""")
    expect(finish(g, BOTH_WITHOUT), stones_lost_w=1, stones_lost_b=0, suicides_b=0, prisoners_b=1)


# ----------------------------------------------------------------------------------------------
# §5 repetition

KO_TAKEN = """
.....
.XO..
X.XO.
.XO..
.....
"""
IMMEDIATE_REASON = {
    "global_superko": "superko",
    "no_result": "ko",
    "board_superko": "superko",
    "situational_superko": "superko",
    "basic_ko": "ko",
}


@pytest.mark.parametrize("repetition", REPETITIONS)
def test_ko_immediate_recapture(Game, repetition):
    g = new_game(Game, diagram=KO, moves="C3", repetition=repetition)
    assert diagram(g) == board_of(KO_TAKEN)
    # White's legal moves: the 18 empty points but the ko point B3
    assert "B3" not in legal(g)
    assert len(legal(g)) == 17
    assert reason(g, "B3") == IMMEDIATE_REASON[repetition]
    assert diagram(g) == board_of(KO_TAKEN)
    expect(finish(g, KO), actions=1, moves=1, stones_lost_w=1, ending=None)


# after "C3 virtual virtual": the retake B3 recreates the start board with new virtual counts
AFTER_VIRTUALS = {
    "global_superko": None,
    "no_result": None,
    "board_superko": "superko",
    "situational_superko": "superko",
    "basic_ko": None,
}


@pytest.mark.parametrize("repetition", REPETITIONS)
def test_virtual_moves_and_ko_ban(Game, repetition):
    g = new_game(Game, diagram=KO, moves="C3 virtual virtual", repetition=repetition)
    expected = AFTER_VIRTUALS[repetition]
    assert ("B3" in legal(g)) == (expected is None)
    assert reason(g, "B3") == expected
    if expected is not None:
        return
    assert diagram(g) == board_of(KO)
    out = finish(g, KO)
    expect(
        out,
        ending=None,
        real_moves_b=1,
        real_moves_w=1,
        virtual_moves_b=1,
        virtual_moves_w=1,
        stones_lost_b=1,
        stones_lost_w=1,
        moves=4,
        first_pass_or_virtual_by="W",
    )
    # the retake stands; now Black's immediate retake is banned again
    assert "C3" not in legal(g)
    assert reason(g, "C3") == IMMEDIATE_REASON[repetition]


@pytest.mark.parametrize("repetition", REPETITIONS)
def test_situational_versus_board_superko(Game, repetition):
    # Black A1 (one liberty, B1), White virtual, Black B1: the block A1 B1 suicides and the
    # start board returns, now with White to move (situational: never seen) and with one
    # White virtual stone (global: never seen); the board alone was seen.
    g = new_game(Game, diagram=SUICIDE_RETURN, moves="A1 virtual", repetition=repetition)
    expected = "superko" if repetition == "board_superko" else None
    assert ("B1" in legal(g)) == (expected is None)
    assert reason(g, "B1") == expected
    if expected is not None:
        return
    assert diagram(g) == board_of(SUICIDE_RETURN)
    expect(
        finish(g, SUICIDE_RETURN),
        ending=None,
        suicides_b=1,
        stones_lost_b=2,
        prisoners_w=2,
        real_moves_b=2,
        virtual_moves_w=1,
        stones_b=0,
    )


def test_multi_stone_suicide_forbidden_by_option_none(Game):
    g = new_game(Game, diagram=SUICIDE_RETURN, moves="A1 virtual", suicide="none")
    assert "B1" not in legal(g)
    assert reason(g, "B1") == "suicide"


# A1 E5 B1 (Black A1 B1 suicide) D5 (White E5 D5 suicide): the start position returns,
# the same global position as four moves ago (not the two-move ko position).
CYCLE_REASON = {
    "global_superko": "superko",
    "no_result": None,
    "board_superko": "superko",
    "situational_superko": "superko",
    "basic_ko": None,
}


@pytest.mark.parametrize("repetition", REPETITIONS)
def test_cycle(Game, repetition):
    g = new_game(Game, diagram=CYCLE, moves="A1 E5 B1", repetition=repetition)
    expected = CYCLE_REASON[repetition]
    assert ("D5" in legal(g)) == (expected is None)
    assert reason(g, "D5") == expected
    if expected is not None:
        return
    assert diagram(g) == board_of(CYCLE)
    out = finish(g, CYCLE)
    # the start board: Black C5 D4 E4, White A2 B2 C1; {D5, E5} Black's, {A1, B1} White's,
    # the other 15 empty points one component touching both colours: public.
    # Japanese: the 15 points are dame; every stone touches them, so all is in seki.
    expect(
        out,
        actions=4,
        moves=4,
        real_moves_b=2,
        real_moves_w=2,
        suicides_b=1,
        suicides_w=1,
        stones_lost_b=2,
        stones_lost_w=2,
        prisoners_b=2,
        prisoners_w=2,
        stones_b=3,
        stones_w=3,
        public_points=15,
        territory_b_jpd=2,
        territory_w_jpd=2,
        area_b_jpd=12.5,
        area_w_jpd=12.5,
        area_diff_jpd=0.0,
        moku_b=0,
        moku_w=0,
        balanced_moves=4,
        equal_stones_diff=0.0,
        area_diff_chinese=0,
        territory_diff_japanese=0,
        first_pass_or_virtual_by=None,
        last_real_move_by="W",
    )
    assert margins(out) == {
        "jpd_a": -6.5,
        "jpd_b": -7.5,
        "jpd_tangsong": -6.5,
        "chinese": -7.5,
        "japanese": -6.5,
    }
    if repetition == "no_result":
        assert out["ending"] == "cycle"
        assert set(winners(out).values()) == {None}
        assert legal(g) == []
        assert reason(g, "A1") == "game over (cycle)"
    else:  # basic_ko: cycles run on
        assert out["ending"] is None
        assert set(winners(out).values()) == {"W"}
        play(g, "A1")


# ----------------------------------------------------------------------------------------------
# §4 passes, virtual moves, pauses


def test_pass_conversion_counts(Game):
    g = new_game(Game, size=5, moves="C3 pass D4")
    out = finish(g)
    expect(
        out,
        ending=None,
        actions=3,
        moves=3,
        passes=1,
        converted_passes=1,
        virtual_moves_w=1,
        virtual_moves_b=0,
        real_moves_b=2,
        first_pass_or_virtual_by="W",
        last_real_move_by="B",
        balanced_moves=2,
    )
    assert g.to_move == 2


@pytest.mark.parametrize(
    "moves",
    [
        "virtual pass",
        "pass virtual",
        "virtual virtual",
        "C3 virtual pass",
        "C3 pass virtual",
        "pass virtual pass",
    ],
)
def test_no_pause_without_two_passes(Game, moves):
    g = new_game(Game, size=5, moves=moves)
    assert g.ending is None


def test_pass_then_virtual_converts(Game):
    # Black pass, White virtual: the pass becomes a Black virtual move placed before it
    g = new_game(Game, size=5, moves="pass virtual")
    expect(
        finish(g),
        ending=None,
        actions=2,
        moves=2,
        passes=1,
        converted_passes=1,
        virtual_moves_b=1,
        virtual_moves_w=1,
        first_pass_or_virtual_by="B",
    )


def test_pause_and_game_over(Game):
    g = new_game(Game, size=5, moves="C3 pass pass")
    assert g.ending == "pause"
    out = finish(g)
    # one Black stone, 24 Black points; White passed first: A-negative move, S_B - S_W = 1,
    # the stone goes back to the bowl: k = 0, public 0 + 1, moku_b 24, moku_w 0 -> 24
    expect(
        out,
        ending="pause",
        actions=3,
        moves=1,
        passes=2,
        converted_passes=0,
        first_pass_or_virtual_by="W",
        last_real_move_by="B",
        public_points=0,
        territory_b_jpd=24,
        area_b_jpd=25.0,
        area_w_jpd=0.0,
        area_diff_jpd=25.0,
        moku_b=24,
        moku_w=0,
        balanced_moves=0,
        equal_stones_diff=24.0,
        area_diff_chinese=25,
        territory_diff_japanese=24,
    )
    assert margins(out) == {r: 17.5 for r in RULESETS}
    assert set(winners(out).values()) == {"B"}
    assert legal(g) == []
    for token in ("D4", "pass", "virtual"):
        assert reason(g, token) == "game over (pause)"
    assert finish(g)["actions"] == 3


PENDING = CYCLE


@pytest.mark.parametrize("repetition", REPETITIONS)
def test_pending_pass_counts_as_converted(Game, repetition):
    # After A1 E5 pass, White to move. White D5 suicides E5 D5 and recreates the board after
    # move 1 (Black A1); the declined pass first becomes a Black virtual stone, so the global
    # position is new: legal but under board_superko.
    g = new_game(Game, diagram=PENDING, moves="A1 E5 pass", repetition=repetition)
    expected = "superko" if repetition == "board_superko" else None
    assert ("D5" in legal(g)) == (expected is None)
    # an illegal declining action changes nothing: the pass stays pending, unconverted
    assert reason(g, "A1") == "occupied"
    expect(finish(g, PENDING), actions=3, passes=1, converted_passes=0, virtual_moves_b=0)
    assert reason(g, "D5") == expected
    if expected is not None:
        expect(finish(g, PENDING), converted_passes=0, virtual_moves_b=0)
        return
    expect(
        finish(g, PENDING),
        ending=None,
        actions=4,
        moves=4,
        passes=1,
        converted_passes=1,
        virtual_moves_b=1,
        suicides_w=1,
        stones_lost_w=2,
        first_pass_or_virtual_by="B",
    )
    assert diagram(g).splitlines()[0:2] == ["..X..", "...XX"]
    assert diagram(g).splitlines()[-1] == "X.O.."


def test_four_virtual_non_consecutive(Game):
    # start board P0 (the ko): B virtual, W virtual [P0: 2], B C3, W virtual, B virtual
    # [P1: 2], W B3 retakes (new virtual counts) [P0 again], B virtual [P0: 3], W virtual [P0: 4]
    g = new_game(Game, diagram=KO, moves="virtual virtual C3 virtual virtual B3 virtual")
    assert g.ending is None
    play(g, "virtual")
    assert g.ending == "four_virtual"
    assert diagram(g) == board_of(KO)
    out = finish(g, KO)
    expect(
        out,
        ending="four_virtual",
        actions=8,
        moves=8,
        real_moves_b=1,
        real_moves_w=1,
        virtual_moves_b=3,
        virtual_moves_w=3,
        passes=0,
        stones_lost_b=1,
        stones_lost_w=1,
        first_pass_or_virtual_by="B",
        last_real_move_by="W",
    )
    # P0: no point touches both colours; C3 (all White around) is White's, the other 17
    # empty points one component touching both: public
    expect(
        out,
        public_points=17,
        territory_b_jpd=0,
        territory_w_jpd=1,
        area_b_jpd=11.5,
        area_w_jpd=13.5,
        area_diff_jpd=-2.0,
        moku_b=-4,
        moku_w=-3,
        balanced_moves=8,
        equal_stones_diff=-2.0,
    )
    assert legal(g) == []
    assert reason(g, "C3") == "game over (four_virtual)"


def test_four_virtual_completed_by_conversion(Game):
    g = new_game(Game, size=5, moves="virtual virtual virtual pass")
    assert len(legal(g)) == 25  # listed as usual
    assert reason(g, "C3") is None  # legal: counts as an action, not played
    assert g.ending == "four_virtual"
    out = finish(g)
    expect(
        out,
        ending="four_virtual",
        actions=5,
        moves=4,
        passes=1,
        converted_passes=1,
        virtual_moves_b=2,
        virtual_moves_w=2,
        real_moves_b=0,
        real_moves_w=0,
        stones_b=0,
        last_real_move_by=None,
        first_pass_or_virtual_by="B",
        public_points=25,
        area_b_jpd=12.5,
        area_w_jpd=12.5,
        moku_b=-2,
        moku_w=-2,
        balanced_moves=4,
        equal_stones_diff=0.0,
    )
    assert diagram(g) == board_of("\n".join(["....."] * 5))


def test_four_virtual_completed_by_a_resumption(Game):
    """dead_stones = "agree": the second resumption's conversions are the third and fourth
    virtual moves on the empty board, and the game ends there; the move has passed on as after
    any virtual move (to Black, after White's), so the engine's state stays consistent."""
    g = new_game(Game, size=5, dead_stones="agree", moves="pass pass resume pass pass resume")
    assert g.ending == "four_virtual" and g.to_move == 1
    if hasattr(g, "check"):
        assert g.check() is None
    out = finish(g)
    expect(
        out,
        ending="four_virtual",
        moves=4,
        passes=4,
        converted_passes=4,
        virtual_moves_b=2,
        virtual_moves_w=2,
        resumptions=2,
        first_pass_or_virtual_by="B",
    )


def test_four_virtual_conversion_with_illegal_declining_action(Game):
    # board {C3}: W virtual, B virtual, W virtual [3], B pass; White declines
    g = new_game(Game, size=5, moves="C3 virtual virtual virtual pass")
    assert reason(g, "C3") == "occupied"  # judged after the conversion; nothing applied
    expect(
        finish(g),
        ending=None,
        actions=5,
        passes=1,
        converted_passes=0,
        virtual_moves_b=1,
        virtual_moves_w=2,
    )
    assert reason(g, "D4") is None
    expect(
        finish(g),
        ending="four_virtual",
        actions=6,
        moves=5,
        converted_passes=1,
        virtual_moves_b=2,
        virtual_moves_w=2,
        real_moves_b=1,
        real_moves_w=0,
        stones_w=0,
    )


# ----------------------------------------------------------------------------------------------
# move cap


def test_move_cap(Game):
    g = new_game(Game, size=5, moves="C3 D3 C4", max_actions=3)
    out = finish(g)
    expect(out, ending="move_limit", actions=3)
    assert set(winners(out).values()) == {None}
    assert all(isinstance(m, float) for m in margins(out).values())
    assert legal(g) == []
    assert reason(g, "D4") == "game over (move_limit)"


def test_pass_at_cap_stays_unconverted(Game):
    g = new_game(Game, size=5, moves="C3 pass", max_actions=2)
    expect(
        finish(g),
        ending="move_limit",
        actions=2,
        moves=1,
        passes=1,
        converted_passes=0,
        virtual_moves_w=0,
        first_pass_or_virtual_by="W",
    )


@pytest.mark.parametrize(
    "moves, ending",
    [("C3 pass pass", "pause"), ("virtual virtual virtual virtual", "four_virtual")],
)
def test_cap_does_not_replace_an_ending(Game, moves, ending):
    g = new_game(Game, size=5, moves=moves, max_actions=len(moves.split()))
    assert g.ending == ending


# ----------------------------------------------------------------------------------------------
# setup positions (§9)


@pytest.mark.parametrize("text", ["XO.\nO..\n...", "OX.\nX..\n...", "XXO\nOO.\n..."])
def test_setup_group_without_liberty_is_rejected(Game, text):
    with pytest.raises(ValueError, match="has no liberty"):
        Game(3, setup=parse_diagram(text, 3))


def test_seki_diagram_of_A_6_1(Game):
    g = new_game(Game, diagram=SEKI)
    out = finish(g, SEKI)
    # Black 12 stones + a, b (C6, D6) + half of the two shared liberties C5, D5 = 15;
    # White 20 stones + the G column and row 1 (13) + 1 = 34.
    # Chinese: {C6, D6, C5, D5} touches both colours: neutral; 12 - 33 = -21.
    # Japanese: the region is dame; every stone next to it is in seki and the flood through
    # Black stones reaches all Black points; White's C4 D4 are in seki but not the outer
    # group: White 13, Black 0 -> -13.
    # Equal stones with setup stones: (2 + 0 + 12 + 1) - (13 + 0 + 20 + 1) = -19.
    expect(
        out,
        ending=None,
        actions=0,
        moves=0,
        stones_b=12,
        stones_w=20,
        stones_lost_b=0,
        stones_lost_w=0,
        prisoners_b=0,
        prisoners_w=0,
        public_points=2,
        territory_b_jpd=2,
        territory_w_jpd=13,
        area_b_jpd=15.0,
        area_w_jpd=34.0,
        area_diff_jpd=-19.0,
        moku_b=2,
        moku_w=13,
        balanced_moves=0,
        equal_stones_diff=-19.0,
        area_diff_chinese=-21,
        territory_diff_japanese=-13,
        first_pass_or_virtual_by=None,
        last_real_move_by=None,
    )
    assert margins(out) == {
        "jpd_a": -25.5,
        "jpd_b": -26.5,
        "jpd_tangsong": -25.5,
        "chinese": -28.5,
        "japanese": -19.5,
    }
    assert set(winners(out).values()) == {"W"}


# ----------------------------------------------------------------------------------------------
# scoring (§7, §8)


def test_empty_board(Game):
    out = finish(new_game(Game, size=4))
    # one empty component touching no colour: public; nobody owns anything elsewhere
    expect(
        out,
        ending=None,
        actions=0,
        public_points=16,
        territory_b_jpd=0,
        territory_w_jpd=0,
        area_b_jpd=8.0,
        area_w_jpd=8.0,
        area_diff_jpd=0.0,
        moku_b=0,
        moku_w=0,
        balanced_moves=0,
        equal_stones_diff=0.0,
        area_diff_chinese=0,
        territory_diff_japanese=0,
        first_pass_or_virtual_by=None,
        last_real_move_by=None,
    )
    assert margins(out) == {
        "jpd_a": -6.5,
        "jpd_b": -7.5,
        "jpd_tangsong": -6.5,
        "chinese": -7.5,
        "japanese": -6.5,
    }
    assert set(winners(out).values()) == {"W"}


def test_japanese_seed_stone_in_atari(Game):
    # Black B4 A3 B3 has one liberty, A4: a seed; A4 is in seki -> Black 0, White 7
    out = finish(new_game(Game, diagram=ATARI_SEKI), ATARI_SEKI)
    expect(
        out,
        territory_b_jpd=1,
        territory_w_jpd=7,
        public_points=0,
        area_b_jpd=4.0,
        area_w_jpd=12.0,
        area_diff_chinese=-8,
        territory_diff_japanese=-7,
        moku_b=1,
        moku_w=7,
        equal_stones_diff=-8.0,
    )


DAME_OPEN = """
..X.O
..X.O
..X.O
..X.O
..X.O
"""
DAME_FILLED = """
..XO.
..XO.
..XO.
..XO.
..XO.
"""


def test_japanese_seed_next_to_dame(Game):
    # D column: dame (public for JPD); both sides' stones touch it, so all their points are
    # in seki for the Japanese count.
    out = finish(new_game(Game, diagram=DAME_OPEN), DAME_OPEN)
    expect(
        out,
        public_points=5,
        territory_b_jpd=10,
        territory_w_jpd=0,
        area_b_jpd=17.5,
        area_w_jpd=7.5,
        area_diff_jpd=10.0,
        area_diff_chinese=10,
        territory_diff_japanese=0,
    )
    out = finish(new_game(Game, diagram=DAME_FILLED), DAME_FILLED)
    expect(
        out,
        public_points=0,
        territory_b_jpd=10,
        territory_w_jpd=5,
        area_b_jpd=15.0,
        area_w_jpd=10.0,
        area_diff_jpd=5.0,
        area_diff_chinese=5,
        territory_diff_japanese=5,
    )


def test_a_version_point_when_white_passes_first(Game):
    # Black fills A3 (last real move), White passes first, Black passes: pause.
    g = new_game(Game, diagram=SPLIT, moves="A3 pass pass")
    out = finish(g, SPLIT, komi=ZERO_KOMI)
    # area: Black 6 + 4 = 10, White 5 + 10 = 15 -> -5; Japanese 4 - 10 = -6.
    # equal stones: S_B 1, S_W 0, A-negative to the bowl: k 0, q 1, moku 4 / 10:
    # (4 + 0 + 5 + .5) - (10 + 0 + 5 + .5) = -6
    expect(
        out,
        first_pass_or_virtual_by="W",
        last_real_move_by="B",
        area_diff_jpd=-5.0,
        public_points=0,
        moku_b=4,
        moku_w=10,
        balanced_moves=0,
        equal_stones_diff=-6.0,
        area_diff_chinese=-5,
        territory_diff_japanese=-6,
    )
    assert margins(out) == {
        "jpd_a": -6.0,
        "jpd_b": -5.0,
        "jpd_tangsong": -6.0,
        "chinese": -5.0,
        "japanese": -6.0,
    }


def test_tang_song_point_when_black_finishes_last(Game):
    # Black virtual (first), White D3, Black A3 (last real move), White pass, Black pass
    g = new_game(Game, diagram=SPLIT, moves="virtual D3 A3 pass pass")
    out = finish(g, SPLIT, komi=ZERO_KOMI)
    # area: Black 6 + 4 = 10, White 6 + 9 = 15 -> -5.
    # equal stones: S_B 2, S_W 1, not A: B-negative, Black territory 4 + 1; refill_b 1 virtual:
    # moku_b 4, moku_w 9, k 1 -> (4 + 1 + 5) - (9 + 1 + 5) = -5
    expect(
        out,
        first_pass_or_virtual_by="B",
        last_real_move_by="B",
        area_diff_jpd=-5.0,
        moku_b=4,
        moku_w=9,
        balanced_moves=2,
        equal_stones_diff=-5.0,
        area_diff_chinese=-5,
        territory_diff_japanese=-5,
    )
    assert margins(out) == {
        "jpd_a": -5.0,
        "jpd_b": -5.0,
        "jpd_tangsong": -6.0,
        "chinese": -5.0,
        "japanese": -5.0,
    }


PRISONER = """
.XO..
XXO..
OXO..
.XO..
.XO..
"""


def test_japanese_prisoners(Game):
    # Black A2 captures White A3, then two passes (White first)
    g = new_game(Game, diagram=PRISONER, moves="A2 pass pass")
    out = finish(g, PRISONER, komi=ZERO_KOMI)
    # Black: 7 stones + A5 A3 A1 = 10, White 5 + 10 = 15 -> -5 (Chinese too).
    # Japanese: (3 + 1 prisoner) - 10 = -6.
    # equal stones: A-negative to the bowl (S_B 1, S_W 0), q 1, moku_b 3, moku_w 10 - 1 lost:
    # (3 + 0 + 6 + .5) - (9 + 0 + 6 + .5) = -6
    expect(
        out,
        stones_b=7,
        stones_w=5,
        stones_lost_w=1,
        prisoners_b=1,
        prisoners_w=0,
        territory_b_jpd=3,
        territory_w_jpd=10,
        area_diff_jpd=-5.0,
        area_diff_chinese=-5,
        territory_diff_japanese=-6,
        moku_b=3,
        moku_w=9,
        equal_stones_diff=-6.0,
    )
    assert margins(out) == {
        "jpd_a": -6.0,
        "jpd_b": -5.0,
        "jpd_tangsong": -6.0,
        "chinese": -5.0,
        "japanese": -6.0,
    }
    out = g.outcome()  # default komi
    assert margins(out) == {r: -12.5 for r in RULESETS}


def test_equal_stones_overflow_black(Game):
    # Black: 13 stones and a two-point eye (B4 B3); White: D column and the E column.
    # B virtual, W E3, B virtual, W E4, B virtual, W E5, B virtual (each at another board),
    # W pass, B pass. S_B 4, S_W 3, Black first: B-negative (Black territory 2 + 1);
    # refill 4 virtual stones -> moku_b -1; moku_w 5 - 3 = 2; k 3:
    # (-1 + 3 + 13 + 0) - (2 + 3 + 5 + 0) = 5 = area (13 + 2) - (8 + 2)
    g = new_game(
        Game, diagram=BLACK_NO_ROOM, moves="virtual E3 virtual E4 virtual E5 virtual pass pass"
    )
    out = finish(g, BLACK_NO_ROOM)
    expect(
        out,
        ending="pause",
        territory_b_jpd=2,
        territory_w_jpd=2,
        public_points=0,
        area_b_jpd=15.0,
        area_w_jpd=10.0,
        area_diff_jpd=5.0,
        moku_b=-1,
        moku_w=2,
        balanced_moves=6,
        equal_stones_diff=5.0,
        area_diff_chinese=5,
        territory_diff_japanese=0,
        last_real_move_by="W",
        first_pass_or_virtual_by="B",
        virtual_moves_b=4,
        passes=2,
        converted_passes=0,
    )
    assert margins(out) == {
        "jpd_a": -1.5,
        "jpd_b": -2.5,
        "jpd_tangsong": -1.5,
        "chinese": -2.5,
        "japanese": -6.5,
    }


def test_equal_stones_overflow_white_with_a_negative_move(Game):
    # Black: C column and 10 points; White: 8 stones and a two-point eye (E4 E3).
    # B A3, W virtual (first), B A4, W virtual, B A5, W virtual, B pass, W pass.
    # S_B 3 = S_W 3, White first: A-negative refilled (refill_b 1), q 0 + 1, k 3;
    # moku_b 7 - 1 = 6, moku_w 2 - 3 virtual = -1:
    # (6 + 3 + 5 + .5) - (-1 + 3 + 8 + .5) = 4 = area (8 + 7) - (8 + 2) - 1
    g = new_game(Game, diagram=WHITE_NO_ROOM, moves="A3 virtual A4 virtual A5 virtual pass pass")
    out = finish(g, WHITE_NO_ROOM, komi=ZERO_KOMI)
    expect(
        out,
        ending="pause",
        territory_b_jpd=7,
        territory_w_jpd=2,
        public_points=0,
        area_b_jpd=15.0,
        area_w_jpd=10.0,
        area_diff_jpd=5.0,
        moku_b=6,
        moku_w=-1,
        balanced_moves=6,
        equal_stones_diff=4.0,
        area_diff_chinese=5,
        territory_diff_japanese=5,
        first_pass_or_virtual_by="W",
        last_real_move_by="B",
    )
    assert margins(out) == {
        "jpd_a": 4.0,
        "jpd_b": 5.0,
        "jpd_tangsong": 4.0,
        "chinese": 5.0,
        "japanese": 5.0,
    }


def test_komi_override_and_draw(Game):
    g = new_game(Game, diagram=SPLIT, moves="A3 pass pass")
    out = g.outcome({"jpd_b": -5.0})  # only jpd_b overridden: area diff -5 - (-5) = 0
    assert out["margin_jpd_b"] == 0.0 and out["winner_jpd_b"] == "draw"
    assert out["margin_chinese"] == -12.5 and out["winner_chinese"] == "W"


# ----------------------------------------------------------------------------------------------
# random games: invariants after every action, legal_moves == what play accepts


@pytest.mark.parametrize("repetition", REPETITIONS)
def test_random_games_invariants(Game, repetition):
    rng = random.Random(repetition)
    for _ in range(6):
        g = Game(5, repetition=repetition, max_actions=120)
        while g.ending is None:
            moves = set(g.legal_moves())
            r = rng.random()
            action = PASS if r < 0.06 else VIRTUAL if r < 0.12 else rng.randrange(25)
            before = g.board()
            answer = g.play(action)
            if action >= 0:
                assert (answer is None) == (action in moves), (action, answer)
            else:
                assert answer is None
            if answer is not None:
                assert answer in ("occupied", "suicide", "ko", "superko")
                assert g.board() == before
            check_invariants(g.outcome())
        assert g.legal_moves() == []
        assert g.play(PASS) == f"game over ({g.ending})"


def test_error_line_helper(Game):
    g = new_game(Game, size=5)
    assert try_moves(g, "C3 C3") == "move 2 (C3): occupied"
