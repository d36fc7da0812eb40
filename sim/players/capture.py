"""The ``capture`` player: the capture heuristic of MoGo-style playouts.

With probability ``virtual_rate`` a voluntary virtual move; else, if an opponent chain at or
next to either player's last real move is in atari and taking it is legal, take the largest
such chain (the first found among equals); else as ``random`` (without a second virtual draw).
"""

from numba import njit

from sim.engine.board import has_one_liberty, neighbour
from sim.engine.history import PASS, VIRTUAL
from sim.engine.state import (
    BLACK,
    COLOR,
    CSIZE,
    HEAD,
    LAST_POINT,
    LIBSUM,
    OK,
    OK_CYCLE,
    PLIB,
    ST,
    TO_MOVE,
    WHITE,
    W,
    opponent,
    slot,
)
from sim.players.random import random_move
from sim.players.stream import uniform
from sim.players.tactics import judge_counted


@njit(cache=True, _nrt=False, inline="always")
def _capture_near(g, p, c, best, size, verdict):
    """The largest capture so far, (point, chain size, judge verdict), updated with the
    opponent chains in atari at or next to ``p`` that ``c`` may take now."""
    pt = g.pt
    w = g.tab[ST, W]
    for side in range(5):  # p itself, then its neighbours
        q = p if side == 0 else neighbour(p, w, side - 1)
        if pt[COLOR, q] != opponent(c):
            continue
        h = pt[HEAD, q]
        if pt[CSIZE, h] > size and has_one_liberty(pt, h):
            liberty = pt[LIBSUM, h] // pt[PLIB, h]
            code = judge_counted(g, liberty, c)
            if code == OK or code == OK_CYCLE:
                best, size, verdict = liberty, pt[CSIZE, h], code
    return best, size, verdict


@njit(cache=True, _nrt=False, inline="always")
def largest_capture(g, c):
    """The largest capture ``c`` may make now next to the last real moves: (point, chain size,
    judge verdict); size 0 if none. Black's last move's neighbourhood first, then White's."""
    st = g.tab[ST]
    best, size, verdict = PASS, 0, OK
    for colour in (BLACK, WHITE):
        last = st[slot(LAST_POINT, colour)]
        if last > 0:
            best, size, verdict = _capture_near(g, last, c, best, size, verdict)
    return best, size, verdict


@njit(cache=True, _nrt=False, inline="always")
def capture_move(g, rng, virtual_rate):
    """The capture heuristic's action and its ``judge`` verdict (see the module docstring)."""
    if virtual_rate > 0.0 and uniform(rng) < virtual_rate:
        return VIRTUAL, OK
    best, size, verdict = largest_capture(g, g.tab[ST, TO_MOVE])
    if size > 0:
        return best, verdict
    return random_move(g, rng, 0.0)  # its virtual move drawn above
