"""Nakade (sim/players/nakade.py): the vital point against a Python reading of the rule
(docs/rules.md §11) after every move of random and pattern games, the killing shapes one by
one, and the search's playout playing it (the pattern player does not)."""

import numpy as np
import pytest

from sim.engine.state import INTERIOR, LAST_POINT, PLAIN, ST, new_state, slot
from sim.players import pattern as P
from sim.players.ladder import new_line
from sim.players.nakade import NAKADE_AREA, vital_point
from tests.conftest import new_game
from tests.conftest import numba_game as Game
from tests.test_ladder import positions_of_games
from tests.test_pattern_player import around_points, rng, vertex


def python_vital_point(board, n, last, c):
    """The rule from scratch: the empty neighbours of ``last`` within one 3x3 square, their
    region of empty points touching no stone of ``c``, at most NAKADE_AREA points; in it the
    one point with 2 neighbours of three, 3 of the T four, 3 of the bulky five (a point with
    one neighbour beside it) or 4 of the cross five, 4 of the rabbity six (three points with
    two); else None."""
    empties = [q for q in around_points(last, n) if board[q] == 0]
    if not empties or any(
        abs(q // n - empties[0] // n) > 1 or abs(q % n - empties[0] % n) > 1 for q in empties
    ):
        return None
    region, todo = {empties[0]}, [empties[0]]
    while todo:
        for q in around_points(todo.pop(), n):
            if board[q] == c:
                return None
            if board[q] == 0 and q not in region:
                region.add(q)
                todo.append(q)
    if not 3 <= len(region) <= NAKADE_AREA:
        return None
    degree = {p: sum(q in region for q in around_points(p, n)) for p in region}
    having = {d: [p for p in region if degree[p] == d] for d in range(5)}
    k = len(region)
    if k == 3:
        return having[2][0]
    if k == 4 and len(having[3]) == 1:
        return having[3][0]
    if k == 5 and len(having[3]) == 1 and len(having[1]) == 1:
        return having[3][0]
    if k == 5 and len(having[4]) == 1:
        return having[4][0]
    if k == 6 and len(having[4]) == 1 and len(having[2]) == 3:
        return having[4][0]
    return None


def numba_vital_point(game, last, c):
    """``vital_point`` on a game's board, in plain points (None for none)."""
    pt = game.state.pt
    p = vital_point(game.state, pt[INTERIOR, last], c, np.zeros(NAKADE_AREA, np.int64))
    return None if p < 0 else int(pt[PLAIN, p])


def enclosed(region, n=7):
    """A board of White stones but for the (row, column) points of ``region``."""
    return "\n".join("".join("." if (r, c) in region else "O" for c in range(n)) for r in range(n))


SHAPES = {  # region -> its vital point (None: none)
    "straight three": ({(3, 2), (3, 3), (3, 4)}, (3, 3)),
    "bent three": ({(2, 2), (3, 2), (3, 3)}, (3, 2)),
    "T four": ({(2, 2), (2, 3), (2, 4), (3, 3)}, (2, 3)),
    "square four": ({(2, 2), (2, 3), (3, 2), (3, 3)}, None),
    "L four": ({(2, 2), (3, 2), (4, 2), (4, 3)}, None),
    "straight four": ({(3, 1), (3, 2), (3, 3), (3, 4)}, None),
    "bulky five": ({(2, 2), (2, 3), (3, 2), (3, 3), (4, 2)}, (3, 2)),
    "cross five": ({(2, 3), (3, 2), (3, 3), (3, 4), (4, 3)}, (3, 3)),
    "rabbity six": ({(2, 3), (3, 2), (3, 3), (3, 4), (4, 3), (4, 4)}, (3, 3)),
    "seven": ({(2, 3), (3, 2), (3, 3), (3, 4), (4, 3), (4, 4), (2, 2)}, None),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_vital_point_of_each_shape(shape):
    region, point = SHAPES[shape]
    n = 7
    game = new_game(Game, diagram=enclosed(region))
    board = game.board()
    want = None if point is None else point[0] * n + point[1]
    lasts = [
        q
        for r, c in region
        for q in around_points(r * n + c, n)
        if board[q] == 2 and sum(board[j] == 0 for j in around_points(q, n)) == 1
    ]
    assert lasts
    for last in lasts:
        assert python_vital_point(board, n, last, 1) == want
        assert numba_vital_point(game, last, 1) == want
    # a Black stone beside the region: not a space White encloses
    q0 = min(q for r, c in region for q in around_points(r * n + c, n) if board[q] == 2)
    rows = enclosed(region).split()
    rows[q0 // n] = rows[q0 // n][: q0 % n] + "X" + rows[q0 // n][q0 % n + 1 :]
    touched = new_game(Game, diagram="\n".join(rows))
    for last in (q for q in lasts if q != q0):
        assert python_vital_point(touched.board(), n, last, 1) is None
        assert numba_vital_point(touched, last, 1) is None


def test_vital_point_against_python_after_every_move_of_random_and_pattern_games():
    found = 0
    settings = ((7, "random"), (7, "pattern"), (9, "pattern"))
    for n, game, board in positions_of_games(settings, 3, 6):
        for last in (q for q in range(n * n) if board[q]):
            c = 3 - board[last]
            want = python_vital_point(board, n, last, c)
            assert numba_vital_point(game, last, c) == want, (n, last)
            found += want is not None
    assert found > 20  # the games made eye spaces with a vital point


CORNER = """
..O......
..O......
OO.......
.........
.........
.........
.........
.........
.........
"""  # then Black E5 and White B8: White's bent three A9 B9 A8, its vital point A9


def test_the_searchs_playout_plays_the_vital_point_with_tactics_only():
    for seed in range(20):
        for board, tactics in ((False, False), (True, False), (True, True)):
            game = new_game(Game, diagram=CORNER, moves=["E5", "B8"])
            assert game.state.tab[ST, slot(LAST_POINT, 2)] == game.state.pt[INTERIOR, 10]
            scratch = (new_state(game.rules, False), new_line()) if board else (None, None)
            action, _, step = P.pattern_choice(game.state, rng(seed), 0.0, *scratch, tactics)
            nakade = (vertex(game, action), int(step)) == ("A9", P.STEP_NAKADE)
            assert nakade == tactics
