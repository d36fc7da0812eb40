"""The players: the light-playout policy never fills its own eye and passes only when nothing
else is left; the capture player takes the largest chain in atari next to the last moves."""

import numpy as np
import pytest

from sim.coords import PASS, format_action, parse_action
from sim.game import Game
from sim.policy import capture_move, fills_own_eye, random_move, start_stream
from tests.conftest import new_game


def point_of(game, bordered):
    """A bordered kernel point as a GTP vertex."""
    w = game.size + 2
    return format_action((bordered // w - 1) * game.size + bordered % w - 1, game.size)


def rng(game_id=0):
    state = np.zeros(2, np.uint64)
    start_stream(state, 7, game_id)
    return state


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
        assert point_of(white, random_move(white._g, rng(seed), 0.0)[0]) in legal
    # Black never fills its eyes A1, C1 while the top rows are open
    chosen = set()
    for seed in range(200):
        black = new_game(Game, diagram=EYES)
        chosen.add(point_of(black, random_move(black._g, rng(seed), 0.0)[0]))
    assert chosen == {f"{c}{r}" for c in "ABCDE" for r in (4, 5)}


def test_random_move_passes_when_only_own_eyes_are_left():
    game = new_game(Game, diagram="""
        .X.X.
        XXXXX
        XXXXX
        XXXXX
        .X.X.
        """)
    assert random_move(game._g, rng(), 0.0)[0] == PASS


def test_eye_definition():
    game = new_game(Game, diagram="""
        .X...
        XO...
        .....
        ..XX.
        .X.X.
        """)
    w = 7

    def eye(vertex, colour):
        y, x = divmod(parse_action(vertex, 5), 5)
        return fills_own_eye(game._g, (y + 1) * w + x + 1, colour)

    assert not eye("A5", 1)  # on the edge with a White stone on a diagonal: a false eye
    assert eye("C1", 1)      # on the edge, no White stone on its diagonals
    assert not eye("E1", 1)  # E2 is empty
    assert not eye("C3", 1)  # empty neighbours
    assert not eye("C1", 2)  # Black's eye is no eye of White's


@pytest.mark.parametrize("diagram, moves, expected", [
    # White's last move B2 puts its own stone in atari (liberty B1): Black takes it
    (""".....
        .....
        .X...
        X.X..
        .....""", "E5 B2", "B1"),
    # Black's last move B1 put the White pair A1-A2 in atari; White played elsewhere
    (""".....
        .....
        .....
        OX...
        O....""", "B1 E5", "A3"),
    # both: the pair A1-A2 (next to Black's last move B2) beats the stone E1 (White's last)
    (""".....
        .....
        X....
        O..XX
        O.X..""", "B2 E1", "B1"),
])
def test_capture_player_takes_the_largest_chain_in_atari(diagram, moves, expected):
    game = new_game(Game, diagram=diagram, moves=moves)
    action, verdict = capture_move(game._g, rng(), 0.0)
    assert point_of(game, action) == expected and verdict == 0


def test_capture_player_without_a_capture_plays_like_the_random_player():
    for seed in range(20):
        one, two = (new_game(Game, size=9, moves="E5 C3") for _ in range(2))
        assert capture_move(one._g, rng(seed), 0.0) == random_move(two._g, rng(seed), 0.0)
