"""The players: the light-playout policy never fills its own eye and passes only when nothing
else is left; the capture player takes the largest chain in atari next to the last moves."""

import numpy as np
import pytest

from sim.engine.state import INTERIOR, PLAIN
from sim.players.capture import capture_move
from sim.players.random import fills_own_eye, random_move
from sim.players.stream import below, start_stream, uniform
from sim.schema.coords import PASS, format_action, parse_action
from tests.conftest import new_game
from tests.conftest import numba_game as Game


def point_of(game, bordered):
    """A bordered kernel point as a GTP vertex."""
    return format_action(int(game.state.pt[PLAIN, bordered]), game.size)


def rng(game_id=0):
    state = np.zeros(2, np.uint64)
    start_stream(state, 7, game_id)
    return state


def test_random_stream_is_the_documented_splitmix64():
    """docs/rules.md §11: a game's stream starts at mix(mix(seed) + game_id); each draw adds
    the golden gamma and returns mix(state); below(k) = ((x >> 32) * k) >> 32, uniform =
    (x >> 11) * 2**-53. Written out here in plain Python integers."""
    mask = 2**64 - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    for seed, game_id in ((0, 0), (20240601, 12345), (2**63 - 1, 2**40)):
        state = mix((mix(seed) + game_id) & mask)
        expected = []
        for k in (361, 7, 1, 2**31):
            state = (state + 0x9E3779B97F4A7C15) & mask
            expected.append(((mix(state) >> 32) * k) >> 32)
        state = (state + 0x9E3779B97F4A7C15) & mask
        expected.append((mix(state) >> 11) * 2.0**-53)
        stream = np.zeros(2, np.uint64)
        start_stream(stream, seed, game_id)
        drawn = [int(below(stream, k)) for k in (361, 7, 1, 2**31)] + [float(uniform(stream))]
        assert drawn == expected


EYES = """
    .....
    .....
    XXXXX
    XXXXX
    .X.XX
    """


def test_random_move_is_legal_and_not_an_own_eye():
    white = new_game(Game, diagram=EYES, moves="pass")  # White to move
    legal = {format_action(p, 5) for p in white.legal_moves()}
    for seed in range(50):
        assert point_of(white, random_move(white.state, rng(seed), 0.0)[0]) in legal
    # Black never fills its eyes A1, C1 while the top rows are open
    chosen = set()
    for seed in range(200):
        black = new_game(Game, diagram=EYES)
        chosen.add(point_of(black, random_move(black.state, rng(seed), 0.0)[0]))
    assert chosen == {f"{c}{r}" for c in "ABCDE" for r in (4, 5)}


def test_random_move_passes_when_only_own_eyes_are_left():
    game = new_game(
        Game,
        diagram="""
        .X.X.
        XXXXX
        XXXXX
        XXXXX
        .X.X.
        """,
    )
    assert random_move(game.state, rng(), 0.0)[0] == PASS


def test_eye_definition():
    game = new_game(
        Game,
        diagram="""
        .X...
        XO...
        .....
        ..XX.
        .X.X.
        """,
    )

    def eye(vertex, colour):
        return fills_own_eye(game.state, game.state.pt[INTERIOR, parse_action(vertex, 5)], colour)

    assert not eye("A5", 1)  # on the edge with a White stone on a diagonal: a false eye
    assert eye("C1", 1)  # on the edge, no White stone on its diagonals
    assert not eye("E1", 1)  # E2 is empty
    assert not eye("C3", 1)  # empty neighbours
    assert not eye("C1", 2)  # Black's eye is no eye of White's


@pytest.mark.parametrize(
    "diagram, moves, expected",
    [
        # White's last move B2 puts its own stone in atari (liberty B1): Black takes it
        (
            """.....
        .....
        .X...
        X.X..
        .....""",
            "E5 B2",
            "B1",
        ),
        # Black's last move B1 put the White pair A1-A2 in atari; White played elsewhere
        (
            """.....
        .....
        .....
        OX...
        O....""",
            "B1 E5",
            "A3",
        ),
        # both: the pair A1-A2 (next to Black's last move B2) beats the stone E1 (White's last)
        (
            """.....
        .....
        X....
        O..XX
        O.X..""",
            "B2 E1",
            "B1",
        ),
    ],
)
def test_capture_player_takes_the_largest_chain_in_atari(diagram, moves, expected):
    game = new_game(Game, diagram=diagram, moves=moves)
    action, verdict = capture_move(game.state, rng(), 0.0)
    assert point_of(game, action) == expected and verdict == 0


def test_capture_player_without_a_capture_plays_like_the_random_player():
    for seed in range(20):
        one, two = (new_game(Game, size=9, moves="E5 C3") for _ in range(2))
        assert capture_move(one.state, rng(seed), 0.0) == random_move(two.state, rng(seed), 0.0)
