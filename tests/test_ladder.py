"""Ladders (sim/players/ladder.py): the reader against a Python one written from the rule
(docs/rules.md §11) on the chains in atari of random and pattern games, and on the shapes
that define a ladder: caught on an open board, escaped past a ladder breaker, escaped by a
capture of an attacking stone in atari."""

import numpy as np

from sim.config.rules import Rules
from sim.engine.state import INTERIOR, new_state
from sim.play.selfplay import play_batch
from sim.players import pattern as P
from sim.players.ladder import LADDER_PLIES, caught_running, new_line
from tests.conftest import new_game
from tests.conftest import numba_game as Game
from tests.test_pattern_player import after_move, around_points, chain, liberties, rng, vertex


def python_ladder_caught(board, n, p, plies=LADDER_PLIES):
    """Whether the chain at ``p`` (in atari) is caught if it runs, from scratch: it escapes
    if it can capture a neighbouring chain in atari; else it extends at its liberty and is
    caught with one liberty (or none), escapes with three, and with two the attacker tries an
    atari at each (a stone that keeps a liberty and leaves the runner one); a line longer than
    ``plies`` moves escapes."""
    c = board[p]

    def runs(board, depth):
        group = chain(board, n, p)
        for q in group:
            for j in around_points(q, n):
                if board[j] == 3 - c and len(liberties(board, n, chain(board, n, j))) == 1:
                    return False
        if depth + 2 > plies:
            return False
        (lib,) = liberties(board, n, group)
        new, _ = after_move(board, n, lib, c)
        libs = liberties(new, n, chain(new, n, p))
        if len(libs) != 2:
            return len(libs) < 2
        for a in libs:
            chased, _ = after_move(new, n, a, 3 - c)
            if (
                liberties(chased, n, chain(chased, n, a))
                and len(liberties(chased, n, chain(chased, n, p))) == 1
                and runs(chased, depth + 2)
            ):
                return True
        return False

    return runs(list(board), 0)


def caught(game, p):
    """The numba reader on the chain at the plain point ``p`` of ``game``."""
    board = new_state(game.rules, False)
    line = new_line()
    return caught_running(board, game.state, game.state.pt[INTERIOR, p], line)


#: White's stone at D5 in atari (its liberty D4): running, it is chased toward the lower left.
LADDER = """
.........
.........
.........
...X.....
..XOX....
....X....
.........
.........
.........
"""
RUNNER = 4 * 9 + 3  # D5


def with_stones(diagram, stones):
    """``diagram`` with White's stones at the (row, column) points ``stones``."""
    rows = diagram.split()
    for r, c in stones:
        rows[r] = rows[r][:c] + "O" + rows[r][c + 1 :]
    return "\n".join(rows)


def test_a_ladder_is_caught_on_an_open_board_and_escapes_past_a_breaker_or_by_a_capture():
    n = 9
    for stones, want in (
        ((), True),  # the ladder works
        (((7, 2),), False),  # a breaker on its path
        (((1, 7),), True),  # a stone far from it changes nothing
        (((2, 3), (3, 2)), False),  # the attacker's D6 in atari: the runner takes it
    ):
        game = new_game(Game, diagram=with_stones(LADDER, stones))
        board = game.board()
        assert len(liberties(board, n, chain(board, n, RUNNER))) == 1
        assert python_ladder_caught(board, n, RUNNER) == want, stones
        assert caught(game, RUNNER) == want, stones


def positions_of_games(settings, seed, games):
    """(size, game, board) before every action of ``games`` recorded games of each
    ``settings`` (size, the policy of both colours)."""
    for n, policy in settings:
        _, moves = play_batch(
            Rules(n), seed=seed, game_ids=np.arange(games), black=policy, white=policy,
            record_moves=True,
        )  # fmt: skip
        for actions in moves:
            game = Game(n)
            for action in actions.tolist():
                yield n, game, game.board()
                if game.play(action) is not None:
                    break


def test_the_reader_against_python_on_every_chain_in_atari_of_random_and_pattern_games():
    read = 0
    settings = ((7, "pattern"), (9, "random"), (9, "pattern"))
    for n, game, board in positions_of_games(settings, 11, 8):
        heads = {min(chain(board, n, p)) for p in range(n * n) if board[p]}
        for p in heads:
            if len(liberties(board, n, chain(board, n, p))) == 1:
                assert caught(game, p) == python_ladder_caught(board, n, p), (n, p)
                read += 1
    assert read > 200  # the games put many chains in atari


def test_the_searchs_playout_does_not_run_a_chain_a_ladder_catches():
    """Step 2 of the pattern playout (docs/rules.md §11) with a scratch board and ``tactics``
    (the search's playouts) leaves a chain that a ladder catches where it stands; without
    them (the pattern player, the search with ``tactics = false``) it runs, and all run past
    a ladder breaker."""
    opened = LADDER.replace("..XOX....", "..XO.....")  # then Black E5 puts D5 in atari
    for stones, caught_here in (((), True), (((7, 2),), False)):
        diagram = with_stones(opened, stones)
        for seed in range(20):
            for board, tactics in ((False, False), (True, False), (True, True)):
                game = new_game(Game, diagram=diagram, moves=["E5"])
                scratch = (new_state(game.rules, False), new_line()) if board else (None, None)
                action, _, step = P.pattern_choice(game.state, rng(seed), 0.0, *scratch, tactics)
                saved = (vertex(game, action), int(step)) == ("D4", P.STEP_SAVE)
                assert saved == (not (tactics and caught_here)), (stones, board, tactics)
