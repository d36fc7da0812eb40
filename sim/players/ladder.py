"""Ladders (shicho): whether a chain in atari that runs is caught anyway. docs/rules.md §11.

The runner extends at its one liberty; with two liberties after that the attacker ataris it
at either one (both are read), with three or more it has escaped, with one it is caught. It
also escapes where it can capture an attacking chain next to it (that chain in atari), as in
Pachi's ladder reading. The line is played on a scratch board (``sim.engine.board.copy_board``:
the stones, chains and empty points, no ko or repetition rule: a ladder is read as on an
empty board around it); a line longer than ``LADDER_PLIES`` moves, or a reading of more than
``LADDER_READS`` stones, counts as an escape.
"""

import numpy as np
from numba import njit

from sim.engine.board import copy_board, has_one_liberty, neighbour, play_stone
from sim.engine.state import COLOR, EMPTY, HEAD, LIBSUM, NXT, PLIB, ST, W, opponent

LADDER_PLIES = 64  # the longest line read (runner's and attacker's moves)
LADDER_READS = 200  # the most stones one reading plays
# ``line``'s rows: each ply's move; at an attacker's ply its two choices and how many it tried
LINE_ROWS = ("move", "choice", "other choice", "tried")
MOVE, CHOICE, _, TRIED = range(len(LINE_ROWS))
CAUGHT, ESCAPED, CHASED = range(3)  # a runner's move


def new_line() -> np.ndarray:
    """The work space of a reading (``caught_running``'s ``line``)."""
    return np.zeros((len(LINE_ROWS), LADDER_PLIES), np.int64)


@njit(cache=True, _nrt=False)
def _liberties(pt, h, w):
    """Chain ``h``'s liberties, counted up to 3 (3: three or more), and the first two."""
    a, b, k = -1, -1, 0
    s = h
    while True:
        for side in range(4):
            q = neighbour(s, w, side)
            if pt[COLOR, q] == EMPTY and q != a and q != b:
                if k == 2:
                    return 3, a, b
                if k == 0:
                    a = q
                else:
                    b = q
                k += 1
        s = pt[NXT, s]
        if s == h:
            return k, a, b


@njit(cache=True, _nrt=False)
def _can_capture_next(pt, h, w):
    """Whether an opponent chain next to chain ``h`` is in atari."""
    o = opponent(pt[COLOR, h])
    s = h
    while True:
        for side in range(4):
            q = neighbour(s, w, side)
            if pt[COLOR, q] == o and has_one_liberty(pt, pt[HEAD, q]):
                return True
        s = pt[NXT, s]
        if s == h:
            return False


@njit(cache=True, _nrt=False)
def _play(b, p, c):
    """``play_stone`` on the scratch board, compiled once for the whole reader (it is inlined
    wherever it is called)."""
    play_stone(b, p, c)


@njit(cache=True, _nrt=False)
def _replay(b, g, c, line, k):
    """The board of ``g`` with the first ``k`` moves of ``line`` played on it, colour ``c``
    first, the colours alternating."""
    copy_board(b, g)
    for i in range(k):
        _play(b, line[MOVE, i], c if i % 2 == 0 else opponent(c))


@njit(cache=True, _nrt=False)
def _run(b, p, line, k):
    """The runner at ``p`` (in atari, to move at ply ``k``) extends: CAUGHT, ESCAPED, or
    CHASED with two liberties (the attacker's two choices at ply k + 1 set in ``line``)."""
    pt = b.pt
    w = b.tab[ST, W]
    c = pt[COLOR, p]
    h = pt[HEAD, p]
    if k + 2 > line.shape[1] or _can_capture_next(pt, h, w):
        return ESCAPED
    line[MOVE, k] = pt[LIBSUM, h] // pt[PLIB, h]
    _play(b, line[MOVE, k], c)
    if pt[COLOR, p] != c:  # a suicide
        return CAUGHT
    n, x, y = _liberties(pt, pt[HEAD, p], w)
    if n != 2:
        return CAUGHT if n < 2 else ESCAPED
    line[CHOICE, k + 1], line[CHOICE + 1, k + 1], line[TRIED, k + 1] = x, y, 0
    return CHASED


@njit(cache=True, _nrt=False)
def caught_running(b, g, p, line):
    """Whether the chain at ``p`` in ``g``, in atari, is caught in a ladder if it runs (the
    module docstring): a depth-first reading of the attacker's choices, caught as soon as one
    line captures it. ``b``: a scratch state; ``line``: ``new_line()``."""
    c = g.pt[COLOR, p]
    copy_board(b, g)
    k, left = 0, LADDER_READS  # the ply to play (b: g after line[MOVE, :k]), stones left
    while left > 0:
        if k % 2 == 0:  # the runner's ply
            verdict = _run(b, p, line, k)
            left -= 1
            if verdict == CAUGHT:
                return True
            if verdict == CHASED:
                k += 1
                continue
        elif line[TRIED, k] < 2:  # the attacker's ply: its next choice
            i = line[TRIED, k]
            line[TRIED, k] = i + 1
            if i == 1:
                _replay(b, g, c, line, k)
            a = line[CHOICE + i, k]
            line[MOVE, k] = a
            _play(b, a, opponent(c))
            left -= 1
            if b.pt[COLOR, a] != EMPTY and has_one_liberty(b.pt, b.pt[HEAD, p]):
                k += 1
            continue
        # escaped here: back to the last attacker's ply with a choice untried
        k -= 1 if k % 2 == 0 else 2
        while k > 0 and line[TRIED, k] == 2:
            k -= 2
        if k < 0:
            return False
    return False
