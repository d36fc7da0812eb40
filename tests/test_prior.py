"""The learned move priors (sim/players/prior.py): each feature against a Python count on
positions of random and pattern games, the pattern classes' symmetry, the weights file, and
the search with learned priors (reproducible, and playing its own moves: the engine against
the reference covers its legality under every rule, tests/test_engine_vs_reference.py)."""

import numpy as np

from sim.engine.state import BLACK, INTERIOR, PENDING_PASS, ST, WHITE, new_state
from sim.player import Player
from sim.players import pattern as P
from sim.players import prior
from sim.players.ladder import new_line
from sim.rules import Rules
from sim.selfplay import play_batch
from tests.conftest import numba_game as Game
from tests.reference import place
from tests.test_ladder import python_ladder_caught
from tests.test_pattern_player import (
    after_move,
    chain,
    code_of,
    liberties,
    own_eye,
    python_bad_self_atari,
)


def python_features(board, n, i, c, last, own):
    """``move_features`` from scratch: (code, capture, save, atari, self-atari, distance to
    the opponent's and own last moves, line), each feature by its name in ``FEATURES`` or
    None."""
    neighbours = [j for j in range(n * n) if abs(j // n - i // n) + abs(j % n - i % n) == 1]

    def biggest(colour, libs_wanted):
        sizes = [0]
        for j in neighbours:
            if board[j] == colour:
                group = chain(board, n, j)
                libs = liberties(board, n, group)
                if i in libs and len(libs) == libs_wanted:
                    sizes.append(len(group))
        return max(sizes)

    def named(base, size):
        return None if size == 0 else f"{base}_{'1' if size == 1 else 'many'}"

    captured = biggest(3 - c, 1)
    saved = biggest(c, 1)
    new, _ = after_move(board, n, i, c)
    if saved and len(liberties(new, n, chain(new, n, i))) < 2:
        saved = 0
    self_atari = python_bad_self_atari(board, n, i, c)
    runners = [
        j for j in neighbours if board[j] == c and liberties(board, n, chain(board, n, j)) == {i}
    ]
    if saved and python_ladder_caught(board, n, runners[0]):
        saved, self_atari = 0, True  # a save caught in a ladder anyway

    def near(base, point):
        if point is None:
            return None
        dy, dx = abs(point // n - i // n), abs(point % n - i % n)
        d = min(max(dx + dy + max(dx, dy), 2), 8)
        return f"{base}_{'far' if d == 8 else d}"

    y, x = divmod(i, n)
    line = 1 + min(y, x, n - 1 - y, n - 1 - x)
    return (
        code_of(board, n, i, BLACK),
        named("capture", captured),
        named("save", saved),
        named("atari", biggest(3 - c, 2)),
        "self_atari" if self_atari else None,
        near("last", last),
        near("own", own),
        f"line_{line}" if line <= 4 else None,
    )


def test_features_against_a_python_count():
    n = 7
    board_, line = new_state(Rules(n), False), new_line()
    for policy in ("random", "pattern"):
        _, moves = play_batch(
            Rules(n), seed=5, game_ids=np.arange(6), black=policy, white=policy, record_moves=True
        )
        for actions in moves:
            game = Game(n)
            last = {BLACK: None, WHITE: None}
            for k, action in enumerate(actions.tolist()):
                if k % 5 == 3:
                    board = game.board()
                    for i in (i for i in range(n * n) if board[i] == 0):
                        for c in (BLACK, WHITE):
                            p = game.state.pt[INTERIOR, i]
                            got = prior.move_features(game.state, p, c, board_, line, True)
                            names = [None if f < 0 else prior.FEATURES[f] for f in got[1:]]
                            want = python_features(board, n, i, c, last[3 - c], last[c])
                            assert (int(got[0]), *names) == want, (k, i, c)
                if 0 <= action < n * n:
                    last[game.to_move] = action
                assert game.play(action) is None


def test_candidates_are_the_legal_moves_that_fill_no_own_eye():
    """``is_candidate``: the legal moves that fill no own eye; without ``suicides`` also none
    that the pure-Python reference (``tests.reference.place``) finds removing its own group
    (6x6 pattern and random games, under multi-stone suicide)."""
    n, suicides = 6, 0
    for black in ("pattern", "random"):
        _, moves = play_batch(
            Rules(n), seed=2, game_ids=np.arange(3), black=black, white=black,
            record_moves=True,
        )  # fmt: skip
        for actions in moves:
            game = Game(n)
            for action in actions.tolist():
                board, c = game.board(), game.to_move
                legal = set(game.legal_moves())
                want = {i for i in legal if not own_eye(board, n, i, c)}
                suicide = {i for i in want if place(n, board, i, c)[2] > 0}
                suicides += len(suicide)
                pending = game.state.tab[ST, PENDING_PASS]
                for searched, expected in ((True, want), (False, want - suicide)):
                    got = {
                        i
                        for i in range(n * n)
                        if board[i] == 0
                        and prior.is_candidate(
                            game.state, game.state.pt[INTERIOR, i], c, pending, searched
                        )
                    }
                    assert got == expected
                assert game.play(action) is None
    assert suicides >= 3


def test_pattern_classes_are_the_symmetries_of_the_square():
    canon = prior.symmetric_codes()
    rows = ("XO.", "X..", ".O.")
    codes = {canon[P.codes(s)[0]] for s in P._symmetries(rows)}
    assert len(codes) == 1
    assert len(set(canon.tolist())) < prior.CODES // 6  # about an eighth: few codes symmetric
    assert (canon <= np.arange(prior.CODES)).all()


def test_weights_read_in_board_colours_for_both_movers():
    pattern, features = prior.load()
    assert pattern.shape == (2, prior.CODES) and features.shape == (len(prior.FEATURES),)
    rng = np.random.default_rng(0)
    for code in rng.integers(0, prior.CODES, 200):
        assert pattern[1, code] == pattern[0, P.colours_swapped(int(code))]
    assert np.isfinite(pattern).all() and np.isfinite(features).all()


def test_the_search_with_learned_priors_is_reproducible_and_differs():
    rules = Rules(5)
    learned = Player("mcts", visits=40, prior="learned")
    runs = [
        play_batch(rules, seed=3, game_ids=ids, black=learned, white="pattern")[0]["actions"]
        for ids in (np.arange(4), np.arange(4))
    ]
    assert runs[0].tolist() == runs[1].tolist()
    hand = play_batch(
        rules,
        seed=3,
        game_ids=np.arange(4),
        black=Player("mcts", visits=40, prior="hand"),
        white="pattern",
    )[0]["actions"]
    assert hand.tolist() != runs[0].tolist()
