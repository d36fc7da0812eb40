"""A move foreseen on the board, not played: the board's Zobrist key after it and what it
does (``key_after``: places a stone, an ordinary move or a capture, or a suicide of one stone
or of more), and the board it leaves (``board_after``: the exact comparison of the repetition
rules). The rules ask before a move is played (``sim.engine.history``'s legality,
``sim.engine.repetition``'s exact check, the priors' suicides in ``sim.players.prior``).
"""

from numba import njit

from sim.engine.board import board_into, in_atari_at, neighbour
from sim.engine.state import (
    BORDER,
    CHASH,
    COLOR,
    EMPTY,
    HASH,
    HEAD,
    NXT,
    PLACES,
    PLAIN,
    ST,
    STACK,
    SUICIDE_MANY,
    SUICIDE_ONE,
    ZOB,
    W,
    opponent,
    slot,
)


@njit(cache=True, _nrt=False, inline="always")
def key_after(g, p, c):
    """Before playing ``c`` at the empty ``p``: (board key after the move, what the move does:
    PLACES a stone (an ordinary move or a capture), SUICIDE_ONE or SUICIDE_MANY)."""
    pt = g.pt
    color = pt[COLOR]
    w = g.tab[ST, W]
    board_key = g.tab[ST, HASH]
    captured = 0
    own = 0
    s0 = s1 = s2 = -1  # chains in atari already counted
    liberty = False
    friends = False
    for side in range(4):
        q = neighbour(p, w, side)
        cq = color[q]
        if cq == EMPTY:
            liberty = True
            continue
        if cq == BORDER:
            continue
        h = pt[HEAD, q]
        atari = in_atari_at(pt, h, p)
        if cq == c:
            friends = True
            if not atari:
                liberty = True
                continue
        elif not atari:
            continue
        else:
            liberty = True  # a capture
        if h == s0 or h == s1 or h == s2:
            continue  # a chain in atari at p next to it twice: count it once
        s0, s1, s2 = h, s0, s1
        if cq == c:
            own ^= pt[CHASH, h]
        else:
            captured ^= pt[CHASH, h]
    if liberty:
        return board_key ^ pt[slot(ZOB, c), p] ^ captured, PLACES
    if not friends:
        return board_key, SUICIDE_ONE
    return board_key ^ own, SUICIDE_MANY


@njit(cache=True, _nrt=False)
def board_after(g, p, c, effect, out):
    """Write into ``out`` (N*N colours) the board after ``c`` plays at ``p`` (``effect``
    from ``key_after``); exact comparisons only, so clarity before speed."""
    pt = g.pt
    color = pt[COLOR]
    w = g.tab[ST, W]
    board_into(g, out)
    heads = pt[STACK]
    k = 0
    for side in range(4):
        q = neighbour(p, w, side)
        cq = color[q]
        if (effect == PLACES and cq == opponent(c)) or (effect == SUICIDE_MANY and cq == c):
            if in_atari_at(pt, pt[HEAD, q], p):
                heads[k] = pt[HEAD, q]
                k += 1
    for i in range(k):
        s = heads[i]
        while True:
            out[pt[PLAIN, s]] = EMPTY
            s = pt[NXT, s]
            if s == heads[i]:
                break
    if effect == PLACES:
        out[pt[PLAIN, p]] = c
