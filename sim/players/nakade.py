"""Nakade: the vital point of a small eye space, as the search's playouts play it
(docs/rules.md §11; Pachi's ``tactics/nakade.c`` has the idea).

After the opponent's real move at ``last``: its empty neighbours (all of them within one 3x3
square, else none) lead into one empty region; if that region has at most ``NAKADE_AREA``
points and touches no stone of the mover, it is a space the opponent encloses, and where its
shape has one point that kills it, that point is the vital point: the middle of three, the
knob of the T of four, the middle of the bulky five and of the cross, the middle of the
rabbity six. Other shapes (two points, the line or L of four, the square, other fives and
sixes) have none here.
"""

from numba import njit

from sim.engine.board import neighbour
from sim.engine.state import COLOR, EMPTY, ST, W

NAKADE_AREA = 6  # the largest eye space read


@njit(cache=True, _nrt=False, inline="always")
def _in(area, k, q):
    """Whether ``q`` is among the first ``k`` points of ``area``."""
    for i in range(k):
        if area[i] == q:
            return True
    return False


@njit(cache=True, _nrt=False)
def _region(g, last, c, area):
    """The empty region next to ``last`` into ``area``: its size, or 0 if the empty
    neighbours of ``last`` are not within one 3x3 square, it touches a stone of ``c`` or it
    has more than ``NAKADE_AREA`` points."""
    pt = g.pt
    w = g.tab[ST, W]
    e = -1
    for side in range(4):
        q = neighbour(last, w, side)
        if pt[COLOR, q] == EMPTY:
            if e < 0:
                e = q
            elif abs(q // w - e // w) > 1 or abs(q % w - e % w) > 1:
                return 0
    if e < 0:
        return 0
    area[0] = e
    k, i = 1, 0
    while i < k:
        for side in range(4):
            q = neighbour(area[i], w, side)
            if pt[COLOR, q] == c:
                return 0
            if pt[COLOR, q] == EMPTY and not _in(area, k, q):
                if k == NAKADE_AREA:
                    return 0
                area[k] = q
                k += 1
        i += 1
    return k


@njit(cache=True, _nrt=False)
def vital_point(g, last, c, area):
    """Colour ``c``'s vital point in the eye space next to the opponent's move at ``last``
    (the module docstring), or -1; ``area``: int64 work space of ``NAKADE_AREA`` points."""
    k = _region(g, last, c, area)
    if k < 3:
        return -1
    w = g.tab[ST, W]
    n1 = n2 = n3 = n4 = 0  # the region's points with 1, 2, 3 and 4 neighbours in it
    p2 = p3 = p4 = -1  # one point of each
    for i in range(k):
        d = 0
        for side in range(4):
            if _in(area, k, neighbour(area[i], w, side)):
                d += 1
        if d == 1:
            n1 += 1
        elif d == 2:
            n2, p2 = n2 + 1, area[i]
        elif d == 3:
            n3, p3 = n3 + 1, area[i]
        elif d == 4:
            n4, p4 = n4 + 1, area[i]
    if k == 3:
        return p2
    if k == 4:
        return p3 if n3 == 1 else -1
    if k == 5:
        if n3 == 1 and n1 == 1:
            return p3
        return p4 if n4 == 1 else -1
    return p4 if n4 == 1 and n2 == 3 else -1
