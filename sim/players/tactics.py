"""Local tactics of the heavy players: the liberties a move would leave its own chain, and the
self-atari rule with its nakade exception (docs/rules.md §11, the pattern player's step 4).

Everything here reads the state before the move and changes nothing: the chain a move would
make is the stone played and the own chains next to it; its liberties are the empty points
next to them (the point played excepted) and the stones the move would capture that touch
them. Chains keep only the sums of their pseudo-liberties (``sim.engine.board``), so the count
is exact but capped: none, one (and which) or two or more. ``judge_counted`` is the one compiled
copy of ``judge`` that the capture and pattern players' candidates share.
"""

from numba import njit

from sim.engine.board import in_atari_at, neighbour
from sim.engine.history import judge
from sim.engine.state import (
    BORDER,
    COLOR,
    CSIZE,
    EMPTY,
    HEAD,
    KO,
    LIBSQ,
    LIBSUM,
    NXT,
    PENDING_PASS,
    PLIB,
    REP_BANS,
    ST,
    SUPERKO,
    W,
    opponent,
)

MANY = 2  # liberties_after's count: two or more
NAKADE_MAX = 5  # the largest chain the nakade exception allows in atari


@njit(cache=True, _nrt=False)
def judge_counted(g, p, c):
    """``judge``'s verdict on colour ``c`` at ``p`` now (a pending pass as converted); a
    candidate banned by the repetition rule counts in st[REP_BANS]. Not inlined: the players'
    rarer candidates share this one compiled copy of ``judge`` (compile time)."""
    code = judge(g, p, c, g.tab[ST, PENDING_PASS])
    if code == KO or code == SUPERKO:
        g.tab[ST, REP_BANS] += 1
    return code


@njit(cache=True, _nrt=False, inline="always")
def _heads(pt, p, w, c):
    """The own chains next to ``p`` (up to four distinct heads, -1 for none) and the number of
    stones the move at ``p`` would make: 1 + their sizes."""
    h0 = h1 = h2 = h3 = -1
    stones = 1
    for side in range(4):
        q = neighbour(p, w, side)
        if pt[COLOR, q] == c:
            h = pt[HEAD, q]
            if h != h0 and h != h1 and h != h2:
                h0, h1, h2, h3 = h, h0, h1, h2
                stones += pt[CSIZE, h]
    return h0, h1, h2, h3, stones


@njit(cache=True, _nrt=False, inline="always")
def other_liberty(pt, h, p, w):
    """Chain ``h``'s liberties but ``p``, from its pseudo-liberty sums: the other liberty
    when there is exactly one, 0 when there is none, -1 when there are two or more."""
    m = 0
    for side in range(4):
        q = neighbour(p, w, side)
        if pt[COLOR, q] == pt[COLOR, h] and pt[HEAD, q] == h:
            m += 1
    n = pt[PLIB, h] - m
    if n == 0:
        return 0
    s1 = pt[LIBSUM, h] - m * p
    s2 = pt[LIBSQ, h] - m * p * p
    return s1 // n if n * s2 == s1 * s1 else -1


@njit(cache=True, _nrt=False)
def liberties_after(g, p, c):
    """If colour ``c`` played at the empty ``p``: (liberties of the chain of ``p`` after the
    move and its captures: 0, 1 or MANY; that liberty when there is one, else -1; the stones of
    the chain; whether the move captures)."""
    pt = g.pt
    w = g.tab[ST, W]
    o = opponent(c)
    h0, h1, h2, h3, stones = _heads(pt, p, w, c)
    lib = -1
    captures = False
    for side in range(4):  # the empty neighbours, and the neighbours it captures
        q = neighbour(p, w, side)
        cq = pt[COLOR, q]
        if cq == EMPTY or (cq == o and in_atari_at(pt, pt[HEAD, q], p)):
            captures = captures or cq == o
            if lib < 0:
                lib = q
            elif q != lib:
                return MANY, -1, stones, captures
    for h in (h0, h1, h2, h3):  # the liberties of the own chains joined, p excepted
        if h < 0:
            continue
        r = other_liberty(pt, h, p, w)
        if r == 0:
            continue
        if r < 0:
            return MANY, -1, stones, captures  # two or more other liberties
        if lib < 0:
            lib = r
        elif r != lib:
            return MANY, -1, stones, captures
    if captures:  # the captured stones that touch the joined chains become liberties too
        for h in (h0, h1, h2, h3):
            if h < 0:
                continue
            s = h
            while True:
                for side in range(4):
                    q = neighbour(s, w, side)
                    if pt[COLOR, q] == o and in_atari_at(pt, pt[HEAD, q], p):
                        if lib < 0:
                            lib = q
                        elif q != lib:
                            return MANY, -1, stones, captures
                s = pt[NXT, s]
                if s == h:
                    break
    return (0 if lib < 0 else 1), lib, stones, captures


@njit(cache=True, _nrt=False, inline="always")
def _in_chain(pt, r, p, c, h0, h1, h2, h3):
    """Whether ``r`` is in the chain that ``c`` at ``p`` would make (p and the heads' chains)."""
    if r == p:
        return True
    if pt[COLOR, r] != c:
        return False
    h = pt[HEAD, r]
    return h == h0 or h == h1 or h == h2 or h == h3


@njit(cache=True, _nrt=False)
def nakade(g, p, c, lib):
    """Whether ``c`` at ``p``, making a chain of at most NAKADE_MAX stones whose one liberty
    is ``lib`` (and capturing nothing), is the nakade exception: every neighbour of ``lib`` is
    in that chain, an opponent stone or the edge (the chain and its liberty fill a region the
    opponent encloses), and the chain is a killing shape once captured: any 2 or 3 stones,
    the square or the T of 4, the bulky five or the cross of 5."""
    pt = g.pt
    w = g.tab[ST, W]
    o = opponent(c)
    h0, h1, h2, h3, stones = _heads(pt, p, w, c)
    if stones > NAKADE_MAX:
        return False
    for side in range(4):
        r = neighbour(lib, w, side)
        cr = pt[COLOR, r]
        if not (cr == BORDER or cr == o or _in_chain(pt, r, p, c, h0, h1, h2, h3)):
            return False
    if stones <= 3:
        return True
    # the shape: adjacencies inside the chain (each counted from both ends) and the most
    # neighbours in the chain that one stone has
    twice = 0
    most = 0
    for side in range(4):  # the stone played: its own neighbours are all in the chain
        if pt[COLOR, neighbour(p, w, side)] == c:
            twice += 1
    most = twice
    for h in (h0, h1, h2, h3):
        if h < 0:
            continue
        s = h
        while True:
            k = 0
            for side in range(4):
                if _in_chain(pt, neighbour(s, w, side), p, c, h0, h1, h2, h3):
                    k += 1
            twice += k
            most = max(most, k)
            s = pt[NXT, s]
            if s == h:
                break
    edges = twice // 2
    if stones == 4:  # the square (4 adjacencies) or the T (a stone with 3 neighbours)
        return edges == 4 or most == 3
    return edges == 5 or most == 4  # the bulky five (a square and one) or the cross


@njit(cache=True, _nrt=False, inline="always")
def bad_self_atari(g, p, c):
    """Whether ``c`` at the empty ``p`` is a self-atari the pattern player refuses: its chain
    would have two or more stones and fewer than two liberties (none: a multi-stone suicide),
    unless it is the nakade exception (one liberty, no capture, ``nakade``). A point with two
    empty neighbours is none (the common case, decided here without a call)."""
    w = g.tab[ST, W]
    empty = 0
    for side in range(4):
        if g.pt[COLOR, neighbour(p, w, side)] == EMPTY:
            empty += 1
    return empty < 2 and _bad_self_atari(g, p, c)


@njit(cache=True, _nrt=False)
def _bad_self_atari(g, p, c):
    """``bad_self_atari`` for a point with at most one empty neighbour."""
    libs, lib, stones, captures = liberties_after(g, p, c)
    if libs == MANY or stones < 2:
        return False
    if libs == 0:
        return True
    return captures or not nakade(g, p, c, lib)
