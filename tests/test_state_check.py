"""The state check (``sim.engine.check.check_consistency``) finds every kind of corruption of
the incremental state it promises to find, and the batched debug option changes no game."""

import numpy as np
import pytest

from sim.config.rules import Rules
from sim.engine.check import PROBLEMS
from sim.engine.state import (
    CHASH,
    COLOR,
    CSIZE,
    EMPTIES,
    EPOS,
    HASH,
    HEAD,
    INTERIOR,
    LIBSQ,
    LIBSUM,
    LOG_KEY,
    LOST,
    MOVES,
    N_EMPTY,
    NXT,
    PLIB,
    REAL,
    ST,
    TO_MOVE,
    WHITE,
    slot,
)
from sim.play.selfplay import play_batch
from sim.schema.coords import parse_action
from tests.conftest import new_game, numba_game

# Black's chain C3-C4, White's lone stone at D3; White's A5 captured, a converted pass and a
# virtual move of White's
SEQUENCE = "B5 A5 A4 D3 C3 pass C4 virtual"


def game():
    g = new_game(numba_game, size=5, moves=SEQUENCE)
    assert g.check() is None
    return g


def head_of(g, token):
    return int(g.state.pt[HEAD, g.state.pt[INTERIOR, parse_action(token, 5)]])


def point(g, token):
    return int(g.state.pt[INTERIOR, parse_action(token, 5)])


def _swap_empties(g):
    pt = g.state.pt
    pt[EPOS, pt[EMPTIES, 0]] = 1  # the first empty point claims the second one's place


CORRUPTIONS = {  # what is broken -> (how, the words the check must use)
    "empty list": (_swap_empties, "empty-point list"),
    "empty count": (
        lambda g: g.state.tab[ST].__setitem__(N_EMPTY, g.state.tab[ST, N_EMPTY] - 1),
        "empty-point list",
    ),
    "chain head": (
        lambda g: g.state.pt.__setitem__((HEAD, point(g, "C4")), point(g, "D3")),
        "head",
    ),
    "chain list": (
        lambda g: g.state.pt.__setitem__((NXT, head_of(g, "C3")), head_of(g, "C3")),
        "circular list",
    ),
    "chain size": (lambda g: g.state.pt.__setitem__((CSIZE, head_of(g, "C3")), 7), "size"),
    "liberty count": (
        lambda g: g.state.pt.__setitem__((PLIB, head_of(g, "C3")), 1),
        "pseudo-liberties",
    ),
    "liberty sum": (
        lambda g: g.state.pt.__setitem__((LIBSUM, head_of(g, "C3")), 3),
        "pseudo-liberties",
    ),
    "liberty squares": (
        lambda g: g.state.pt.__setitem__((LIBSQ, head_of(g, "D3")), 3),
        "pseudo-liberties",
    ),
    "chain key": (lambda g: g.state.pt.__setitem__((CHASH, head_of(g, "D3")), 5), "chain's key"),
    "board key": (
        lambda g: g.state.tab[ST].__setitem__(HASH, g.state.tab[ST, HASH] ^ 2),
        "board key",
    ),
    "stones lost": (lambda g: g.state.tab[ST].__setitem__(slot(LOST, WHITE), 0), "counters"),
    "move number": (lambda g: g.state.tab[ST].__setitem__(slot(REAL, WHITE), 9), "counters"),
    "side to move": (
        lambda g: g.state.tab[ST].__setitem__(TO_MOVE, 3 - g.state.tab[ST, TO_MOVE]),
        "side to move",
    ),
    "logged key": (
        lambda g: g.state.tab.__setitem__((LOG_KEY, g.state.tab[ST, MOVES]), 12345),
        "logged key",
    ),
    "a stone off the board's colours": (
        lambda g: g.state.pt.__setitem__((COLOR, point(g, "E5")), 7),
        "head",
    ),
}


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_every_corruption_is_found(name):
    corrupt, words = CORRUPTIONS[name]
    g = game()
    corrupt(g)
    problem = g.check()
    assert problem is not None and words in problem, problem


def test_every_problem_is_reachable():
    found = set()
    for corrupt, _ in CORRUPTIONS.values():
        g = game()
        corrupt(g)
        found.add(g.check().split(" (at ")[0])
    assert found == set(PROBLEMS[1:])


@pytest.mark.parametrize("repetition", ["global_superko", "no_result", "situational_superko"])
def test_the_debug_option_changes_no_game(repetition):
    rules = Rules(5, repetition=repetition)
    args = dict(
        seed=4, game_ids=np.arange(300), black="capture", virtual_rate=0.05, record_moves=True
    )
    plain, moves = play_batch(rules, **args)
    checked, moves_checked = play_batch(rules, check=True, **args)
    assert all(np.array_equal(plain[k], checked[k]) for k in plain)
    assert all(np.array_equal(a, b) for a, b in zip(moves, moves_checked))
