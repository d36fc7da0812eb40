"""Two-liberty fights in the heavy playout (docs/rules.md §11): the moves that put a chain of
two liberties next to the opponent's last move in atari, or save one, after Pachi's moggy
playout (``tactics/2lib.c``; written here from its description, not its code).

The chains looked at: the chain of the opponent's last real move and the chains next to it,
each with exactly two liberties, unless its owner has them in miai (it can connect to another
of its chains of two or more liberties at both, or connect at one and run out at the other).
For each, each liberty is a candidate, unless

- the mover owns the chain and running out there is hopeless (the liberty touches no other
  stone of the mover and has one empty neighbour, or two with the other liberty one of them);
- the move would leave the mover's chain with fewer than two liberties without capturing
  (the attacker's atari gets captured), or is a self-atari the pattern player refuses;

and of two candidates of one chain, one next to three or more of the mover's stones and the
edge (a lumpy move) gives way to the other. The owner of the chain also has, as candidates,
capturing an opponent chain in atari next to it and the attacker's candidates against a
neighbouring opponent chain of two liberties. One candidate is drawn uniformly among those
that are legal and fill no own eye (a candidate found twice counts twice).
"""

from numba import njit

from sim.engine.board import has_one_liberty, neighbour
from sim.engine.history import PASS
from sim.engine.state import (
    BORDER,
    COLOR,
    EMPTY,
    HEAD,
    LIBSUM,
    NXT,
    OK,
    OK_CYCLE,
    PLIB,
    ST,
    W,
    opponent,
)
from sim.players.random import fills_own_eye
from sim.players.stream import below
from sim.players.tactics import MANY, bad_self_atari, judge_counted, liberties_after


@njit(cache=True, _nrt=False)
def two_liberties(pt, h, w):
    """Chain ``h``'s two liberties, or (-1, -1) when it has one or three or more."""
    if has_one_liberty(pt, h):
        return -1, -1
    a = b = -1
    s = h
    while True:
        for side in range(4):
            q = neighbour(s, w, side)
            if pt[COLOR, q] == EMPTY and q != a and q != b:
                if a < 0:
                    a = q
                elif b < 0:
                    b = q
                else:
                    return -1, -1
        s = pt[NXT, s]
        if s == h:
            break
    return (a, b) if b >= 0 else (-1, -1)


@njit(cache=True, _nrt=False, inline="always")
def _connects(pt, p, w, owner, h):
    """Whether ``owner`` at ``p`` joins another of its chains (not ``h``) with two or more
    liberties."""
    for side in range(4):
        q = neighbour(p, w, side)
        if pt[COLOR, q] == owner and pt[HEAD, q] != h and not has_one_liberty(pt, pt[HEAD, q]):
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _runs_out(pt, p, other, w):
    """Whether ``p`` has an empty neighbour other than ``other``."""
    for side in range(4):
        q = neighbour(p, w, side)
        if pt[COLOR, q] == EMPTY and q != other:
            return True
    return False


@njit(cache=True, _nrt=False)
def miai(pt, h, a, b, w):
    """Whether the owner of chain ``h`` (liberties ``a`` and ``b``) has them in miai."""
    owner = pt[COLOR, h]
    ca, cb = _connects(pt, a, w, owner, h), _connects(pt, b, w, owner, h)
    return (ca and cb) or (ca and _runs_out(pt, b, a, w)) or (cb and _runs_out(pt, a, b, w))


@njit(cache=True, _nrt=False, inline="always")
def _hopeless(pt, p, other, w, owner):
    """Whether the owner running out at ``p`` (the chain's other liberty ``other``) gains
    nothing: ``p`` touches one stone of the owner and has one empty neighbour, or two of
    which ``other`` is one."""
    mine, empty, touches = 0, 0, False
    for side in range(4):
        q = neighbour(p, w, side)
        if pt[COLOR, q] == owner:
            mine += 1
        elif pt[COLOR, q] == EMPTY:
            empty += 1
            touches = touches or q == other
    return mine == 1 and (empty == 1 or (empty == 2 and touches))


@njit(cache=True, _nrt=False, inline="always")
def _lumpy(pt, p, w, c):
    """Whether ``p`` is next to three or more of ``c``'s stones and the edge."""
    k = 0
    for side in range(4):
        cq = pt[COLOR, neighbour(p, w, side)]
        if cq == c or cq == BORDER:
            k += 1
    return k >= 3


@njit(cache=True, _nrt=False)
def _fit(g, p, other, c, owner):
    """Whether ``p`` (a liberty of ``owner``'s chain, ``other`` its other) is a candidate
    for ``c``."""
    pt = g.pt
    w = g.tab[ST, W]
    if c == owner and _hopeless(pt, p, other, w, owner):
        return False
    libs, _, _, captures = liberties_after(g, p, c)
    if libs != MANY and not captures:
        return False
    return not bad_self_atari(g, p, c)


@njit(cache=True, _nrt=False, inline="always")
def _draw(g, rng, p, c, k, chosen, verdict):
    """Reservoir sampling: the ``k``-th candidate ``p`` replaces ``chosen`` with chance 1/k
    when legal and no own eye; returns (k, chosen, verdict) updated."""
    if fills_own_eye(g, p, c):
        return k, chosen, verdict
    code = judge_counted(g, p, c)
    if code != OK and code != OK_CYCLE:
        return k, chosen, verdict
    k += 1
    if below(rng, k) == 0:
        chosen, verdict = p, code
    return k, chosen, verdict


@njit(cache=True, _nrt=False)
def _atari_candidates(g, rng, h, a, b, c, k, chosen, verdict):
    """The candidates of chain ``h`` (liberties ``a``, ``b``) for the mover ``c``, drawn."""
    pt = g.pt
    w = g.tab[ST, W]
    owner = pt[COLOR, h]
    fa, fb = _fit(g, a, b, c, owner), _fit(g, b, a, c, owner)
    if fa and fb:
        la, lb = _lumpy(pt, a, w, c), _lumpy(pt, b, w, c)
        if la and not lb:
            fa = False
        elif lb and not la:
            fb = False
    if fa:
        k, chosen, verdict = _draw(g, rng, a, c, k, chosen, verdict)
    if fb:
        k, chosen, verdict = _draw(g, rng, b, c, k, chosen, verdict)
    return k, chosen, verdict


@njit(cache=True, _nrt=False)
def _chain(g, rng, h, c, k, chosen, verdict):
    """Chain ``h``'s candidates for ``c`` when it has two liberties not in miai."""
    pt = g.pt
    w = g.tab[ST, W]
    a, b = two_liberties(pt, h, w)
    if a < 0 or miai(pt, h, a, b, w):
        return k, chosen, verdict
    k, chosen, verdict = _atari_candidates(g, rng, h, a, b, c, k, chosen, verdict)
    if pt[COLOR, h] != c:
        return k, chosen, verdict
    o = opponent(c)
    seen = -1  # the opponent chain looked at last (a chain often touches h at several stones)
    s = h
    while True:  # the defender's counter-attacks on the opponent chains next to it
        for side in range(4):
            q = neighbour(s, w, side)
            if pt[COLOR, q] != o or pt[HEAD, q] == seen:
                continue
            e = seen = pt[HEAD, q]
            if has_one_liberty(pt, e):
                k, chosen, verdict = _draw(
                    g, rng, pt[LIBSUM, e] // pt[PLIB, e], c, k, chosen, verdict
                )
            else:
                x, y = two_liberties(pt, e, w)
                if x >= 0:
                    k, chosen, verdict = _atari_candidates(g, rng, e, x, y, c, k, chosen, verdict)
        s = pt[NXT, s]
        if s == h:
            break
    return k, chosen, verdict


@njit(cache=True, _nrt=False)
def two_liberty_move(g, rng, last, c):
    """A two-liberty move for ``c`` around the opponent's last real move ``last`` and its
    ``judge`` verdict, or (PASS, OK) when there is none."""
    pt = g.pt
    w = g.tab[ST, W]
    k, chosen, verdict = 0, PASS, OK
    own = -1
    if pt[COLOR, last] == opponent(c):
        own = pt[HEAD, last]
        k, chosen, verdict = _chain(g, rng, own, c, k, chosen, verdict)
    h0 = h1 = h2 = -1
    for side in range(4):
        q = neighbour(last, w, side)
        if pt[COLOR, q] == EMPTY or pt[COLOR, q] == BORDER:
            continue
        h = pt[HEAD, q]
        if h == own or h == h0 or h == h1 or h == h2:
            continue
        h0, h1, h2 = h, h0, h1
        k, chosen, verdict = _chain(g, rng, h, c, k, chosen, verdict)
    return chosen, verdict
