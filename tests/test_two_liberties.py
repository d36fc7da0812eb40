"""The heavy playout's two-liberty step (docs/rules.md §11, ``sim.players.two_liberties``):
an attack and a defence on hand-made positions, and whole games under every repetition mode
and suicide option in which every choice is checked against an independent Python version
of the step's candidates, computed from scratch on the board."""

from collections import Counter

import pytest

from sim.coords import PASS, VIRTUAL
from sim.engine.state import HEAD, INTERIOR, LAST_POINT, PLAIN, ST, WHITE, W, slot
from sim.players import pattern as P
from sim.players.random import random_move
from sim.players.two_liberties import two_liberties
from sim.schema import REPETITIONS, SUICIDES
from tests.conftest import new_game
from tests.conftest import numba_game as Game
from tests.test_pattern_player import (
    after_move,
    around_points,
    chain,
    liberties,
    own_eye,
    python_bad_self_atari,
    rng,
    vertex,
)


def heavy_choices(diagram, moves, seeds=range(200)):
    """Counter of (vertex, step) chosen by the heavy playout over ``seeds``."""
    out = Counter()
    for seed in seeds:
        game = new_game(Game, diagram=diagram, moves=moves)
        action, verdict, step = P.pattern_choice(game.state, rng(seed), 0.0, True)
        assert verdict == 0
        out[vertex(game, action) if action >= 0 else int(action), int(step)] += 1
    return out


# ---- the step from scratch -------------------------------------------------------------------


def _connects(board, n, p, owner, group):
    """Whether ``owner`` at ``p`` joins another of its chains with two or more liberties."""
    return any(
        board[j] == owner and j not in group and len(liberties(board, n, chain(board, n, j))) > 1
        for j in around_points(p, n)
    )


def _runs_out(board, n, p, other):
    return any(board[j] == 0 and j != other for j in around_points(p, n))


def python_miai(board, n, group, a, b):
    owner = board[next(iter(group))]
    ca, cb = _connects(board, n, a, owner, group), _connects(board, n, b, owner, group)
    return (ca and cb) or (ca and _runs_out(board, n, b, a)) or (cb and _runs_out(board, n, a, b))


def _fits(board, n, p, other, c, owner):
    """A liberty ``p`` (the other ``other``) of ``owner``'s chain as ``c``'s candidate."""
    near = around_points(p, n)
    if c == owner:
        mine = sum(board[j] == owner for j in near)
        empty = [j for j in near if board[j] == 0]
        if mine == 1 and (len(empty) == 1 or (len(empty) == 2 and other in empty)):
            return False  # hopeless
    new, captured = after_move(board, n, p, c)
    if len(liberties(new, n, chain(new, n, p))) < 2 and not captured:
        return False
    return not python_bad_self_atari(board, n, p, c)


def _lumpy(board, n, p, c):
    near = around_points(p, n)
    return sum(board[j] == c for j in near) + 4 - len(near) >= 3


def python_atari_candidates(board, n, group, c):
    """The liberties of a two-liberty chain that are candidates for ``c``."""
    owner = board[next(iter(group))]
    a, b = sorted(liberties(board, n, group))
    fit = {a: _fits(board, n, a, b, c, owner), b: _fits(board, n, b, a, c, owner)}
    if fit[a] and fit[b] and _lumpy(board, n, a, c) != _lumpy(board, n, b, c):
        fit[a if _lumpy(board, n, a, c) else b] = False
    return {p for p in (a, b) if fit[p]}


def python_candidates(board, n, last, c):
    """docs/rules.md §11's two-liberty candidates of ``c`` around the opponent's last real
    move ``last`` (plain points), before the legality and eye filter."""
    o = 3 - c
    groups = []
    for p in ([last] if board[last] == o else []) + around_points(last, n):
        if board[p] != 0 and not any(p in g for g in groups):
            groups.append(chain(board, n, p))
    out = set()
    for group in groups:
        libs = liberties(board, n, group)
        if len(libs) != 2 or python_miai(board, n, group, *sorted(libs)):
            continue
        out |= python_atari_candidates(board, n, group, c)
        if board[next(iter(group))] != c:
            continue
        for j in {j for s in group for j in around_points(s, n) if board[j] == o}:
            enemy = chain(board, n, j)
            enemy_libs = liberties(board, n, enemy)
            if len(enemy_libs) == 1:
                out |= enemy_libs
            elif len(enemy_libs) == 2:
                out |= python_atari_candidates(board, n, enemy, c)
    return out


# ---- hand-made positions (Black to move) -----------------------------------------------------

TIGER = """
    ......
    ......
    ......
    ..X...
    .X....
    ......
    """  # then F6 and White C2: two liberties, C1 and D2, neither in miai


def test_a_chain_of_two_liberties_is_put_in_atari_from_either_side():
    chosen = heavy_choices(TIGER, "F6 C2", range(300))
    assert set(chosen) == {("C1", P.STEP_TWO_LIBERTIES), ("D2", P.STEP_TWO_LIBERTIES)}
    assert min(chosen.values()) > 100  # about uniform
    # the pattern playout has no such step
    game = new_game(Game, diagram=TIGER, moves="F6 C2")
    assert P.pattern_choice(game.state, rng(0), 0.0, False)[2] != P.STEP_TWO_LIBERTIES


def test_an_own_chain_left_two_liberties_runs_out():
    position = """
    ......
    ......
    ..O...
    ..X...
    ......
    ......
    """  # then F6 and White B3: Black C3 has D3 and C2 left
    chosen = heavy_choices(position, "F6 B3", range(200))
    assert set(chosen) == {("D3", P.STEP_TWO_LIBERTIES), ("C2", P.STEP_TWO_LIBERTIES)}


def test_a_lumpy_atari_gives_way_to_the_other():
    """D2 touches three Black stones (D3, E2, D1): of C2's liberties only C1 is played."""
    position = """
    ......
    ......
    ......
    ..XX..
    .X..X.
    ...X..
    """
    chosen = heavy_choices(position, "F6 C2", range(100))
    assert set(chosen) == {("C1", P.STEP_TWO_LIBERTIES)}


def test_a_chain_whose_liberties_are_miai_is_left_alone():
    """White E2 lets C2 connect at D2 and run out at C1: no atari (capture and save have
    nothing either)."""
    position = TIGER.replace(".X....", ".X..O.", 1)
    chosen = heavy_choices(position, "F6 C2", range(50))
    assert P.STEP_TWO_LIBERTIES not in {step for _, step in chosen}


# ---- whole games ----------------------------------------------------------------------------


@pytest.mark.parametrize("suicide", SUICIDES)
@pytest.mark.parametrize("repetition", REPETITIONS)
def test_every_choice_of_whole_games_against_python(repetition, suicide):
    """Games of the heavy playout against itself and against random on 7x7 (with virtual
    moves): every two-liberty move is a legal candidate of ``python_candidates`` that fills
    no own eye, the step chooses whenever such a candidate exists (and capture and save did
    not), and ``two_liberties`` finds exactly the chains of two liberties."""
    n = 7
    steps = Counter()
    checked_chains = moves = 0
    for game_id in range(6):
        game = Game(n, repetition=repetition, suicide=suicide)
        stream = rng(game_id)
        while game.ending is None:
            c = game.to_move
            if c == WHITE and game_id % 2:
                action = random_move(game.state, stream, 0.05)[0]
                assert game.play(action if action < 0 else game.state.pt[PLAIN, action]) is None
                continue
            board = game.board()
            st, pt = game.state.tab[ST], game.state.pt
            moves += 1
            if moves % 5 == 0:
                for i in (i for i in range(n * n) if board[i] != 0):
                    libs = liberties(board, n, chain(board, n, i))
                    a, b = two_liberties(pt, pt[HEAD, pt[INTERIOR, i]], st[W])
                    found = {int(pt[PLAIN, a]), int(pt[PLAIN, b])} if a >= 0 else set()
                    assert found == (libs if len(libs) == 2 else set())
                    checked_chains += len(libs) == 2
            last = int(st[slot(LAST_POINT, 3 - c)])
            legal = set(game.legal_moves())
            action, verdict, step = (
                int(v) for v in P.pattern_choice(game.state, stream, 0.05, True)
            )
            steps[step] += 1
            plain = action if action < 0 else int(pt[PLAIN, action])
            if last > 0 and step not in (P.STEP_VIRTUAL, P.STEP_CAPTURE, P.STEP_SAVE):
                found = python_candidates(board, n, int(pt[PLAIN, last]), c)
                found = {p for p in found if p in legal and not own_eye(board, n, p, c)}
                if step == P.STEP_TWO_LIBERTIES:
                    assert plain in found
                else:
                    assert not found, (plain, step, found)
            assert game.play(plain) is None
            assert plain not in (PASS, VIRTUAL) or step in (P.STEP_VIRTUAL, P.STEP_RANDOM)
    assert steps[P.STEP_TWO_LIBERTIES] > 20 and checked_chains > 20
