"""Board kernels: stones, chains, liberties, captures and Zobrist keys. No rule knobs here.

Chains are circular linked lists (``nxt``) with a head (``head``); each head keeps the chain's
size, its pseudo-liberty count and the sum and sum of squares of its pseudo-liberty points, so
"exactly one liberty, at point p" is exact and O(1) (libfuego / libego technique).
"""

import numpy as np
from numba import njit

from sim.state import BLACK, BORDER, EMPTY, N, N_EMPTY, W, WHITE


@njit(cache=True, _nrt=False)
def in_atari_at(g, h, p):
    """Whether chain ``h`` has exactly one liberty, the point ``p``."""
    n = g.plib[h]
    return n > 0 and g.libsum[h] == p * n and g.libsq[h] == p * p * n


@njit(cache=True, _nrt=False)
def has_one_liberty(g, h):
    """Whether chain ``h`` has exactly one liberty (all its pseudo-liberties are one point)."""
    n = g.plib[h]
    return n > 0 and n * g.libsq[h] == g.libsum[h] * g.libsum[h]


@njit(cache=True, _nrt=False)
def _add_lib(g, h, p):
    g.plib[h] += 1
    g.libsum[h] += p
    g.libsq[h] += p * p


@njit(cache=True, _nrt=False)
def _remove_lib(g, h, p):
    g.plib[h] -= 1
    g.libsum[h] -= p
    g.libsq[h] -= p * p


@njit(cache=True, _nrt=False)
def clear(g):
    """Empty the board."""
    n, w = g.st[N], g.st[W]
    g.color[:] = BORDER
    k = 0
    for y in range(n):
        for x in range(n):
            p = (y + 1) * w + x + 1
            g.color[p] = EMPTY
            g.empties[k] = p
            g.epos[p] = k
            k += 1
    g.st[N_EMPTY] = k
    g.hash[0] = 0


@njit(cache=True, _nrt=False)
def _merge(g, a, b):
    """Merge chain ``b`` into chain ``a`` (heads); the smaller list is relabelled."""
    if g.csize[a] < g.csize[b]:
        a, b = b, a
    s = b
    while True:
        g.head[s] = a
        s = g.nxt[s]
        if s == b:
            break
    g.nxt[a], g.nxt[b] = g.nxt[b], g.nxt[a]
    g.csize[a] += g.csize[b]
    g.plib[a] += g.plib[b]
    g.libsum[a] += g.libsum[b]
    g.libsq[a] += g.libsq[b]
    g.chash[a] ^= g.chash[b]
    return a


@njit(cache=True, _nrt=False)
def _remove_chain(g, h):
    """Take chain ``h`` off the board; returns the number of stones removed."""
    c = g.color[h]
    w = g.st[W]
    s = h
    while True:  # first empty every point, then give the liberties to the neighbours
        g.color[s] = EMPTY
        g.hash[0] ^= g.zob[c, s]
        k = g.st[N_EMPTY]
        g.empties[k] = s
        g.epos[s] = k
        g.st[N_EMPTY] = k + 1
        s = g.nxt[s]
        if s == h:
            break
    count = 0
    while True:
        count += 1
        for q in (s - w, s - 1, s + 1, s + w):
            if g.color[q] == BLACK or g.color[q] == WHITE:
                _add_lib(g, g.head[q], s)
        s = g.nxt[s]
        if s == h:
            break
    return count


@njit(cache=True, _nrt=False)
def put_stone(g, p, c):
    """Place a stone of colour ``c`` on the empty point ``p`` and merge it with its friends;
    no captures (setup positions use this directly)."""
    w = g.st[W]
    g.color[p] = c
    g.hash[0] ^= g.zob[c, p]
    k = g.st[N_EMPTY] - 1
    last = g.empties[k]
    g.empties[g.epos[p]] = last
    g.epos[last] = g.epos[p]
    g.st[N_EMPTY] = k
    g.head[p] = p
    g.nxt[p] = p
    g.csize[p] = 1
    g.plib[p] = 0
    g.libsum[p] = 0
    g.libsq[p] = 0
    g.chash[p] = g.zob[c, p]
    for q in (p - w, p - 1, p + 1, p + w):
        cq = g.color[q]
        if cq == EMPTY:
            _add_lib(g, g.head[p], q)
        elif cq == BLACK or cq == WHITE:
            _remove_lib(g, g.head[q], p)
            if cq == c and g.head[q] != g.head[p]:
                _merge(g, g.head[q], g.head[p])


@njit(cache=True, _nrt=False)
def play_stone(g, p, c):
    """Play colour ``c`` at the empty point ``p``: capture opponent chains without liberty,
    else remove the own chain if it has none (suicide). Returns (captured, suicided) stones."""
    w = g.st[W]
    put_stone(g, p, c)
    captured = 0
    for q in (p - w, p - 1, p + 1, p + w):
        if g.color[q] == 3 - c and g.plib[g.head[q]] == 0:
            captured += _remove_chain(g, g.head[q])
    suicided = 0
    if captured == 0 and g.plib[g.head[p]] == 0:
        suicided = _remove_chain(g, g.head[p])
    return captured, suicided


@njit(cache=True, _nrt=False)
def chain_has_no_liberty(g, p):
    """Whether the chain of the stone at ``p`` has no liberty (setup validation)."""
    return g.plib[g.head[p]] == 0


@njit(cache=True, _nrt=False)
def key_after(g, p, c):
    """Before playing ``c`` at the empty ``p``: (board key after the move, kind) with kind 0 for
    an ordinary move or capture, 1 for a single-stone suicide, 2 for a multi-stone suicide."""
    w = g.st[W]
    key = g.hash[0] ^ g.zob[c, p]
    captured = np.uint64(0)
    own = np.uint64(0)
    h0 = h1 = h2 = h3 = -1  # chains already seen among the (at most 4) neighbours
    liberty = False
    friends = False
    for i, q in enumerate((p - w, p - 1, p + 1, p + w)):
        cq = g.color[q]
        if cq == EMPTY:
            liberty = True
            continue
        if cq == BORDER:
            continue
        h = g.head[q]
        if h == h0 or h == h1 or h == h2 or h == h3:
            continue
        if i == 0:
            h0 = h
        elif i == 1:
            h1 = h
        elif i == 2:
            h2 = h
        else:
            h3 = h
        if cq == c:
            friends = True
            if in_atari_at(g, h, p):
                own ^= g.chash[h]
            else:
                liberty = True
        elif in_atari_at(g, h, p):
            captured ^= g.chash[h]
            liberty = True
    if liberty:
        return key ^ captured, 0
    if not friends:
        return g.hash[0], 1
    return g.hash[0] ^ own, 2


@njit(cache=True, _nrt=False)
def board_after(g, p, c, kind, out):
    """Write into ``out`` (N*N colours) the board after ``c`` plays at ``p`` (kind from
    ``key_after``); exact comparisons only, so clarity before speed."""
    n, w = g.st[N], g.st[W]
    for y in range(n):
        for x in range(n):
            out[y * n + x] = g.color[(y + 1) * w + x + 1]
    heads = g.scratch
    k = 0
    for q in (p - w, p - 1, p + 1, p + w):
        cq = g.color[q]
        if cq == BLACK or cq == WHITE:
            if (kind == 0 and cq == 3 - c) or (kind == 2 and cq == c):
                if in_atari_at(g, g.head[q], p):
                    heads[k] = g.head[q]
                    k += 1
    for i in range(k):
        s = heads[i]
        while True:
            out[(s // w - 1) * n + s % w - 1] = EMPTY
            s = g.nxt[s]
            if s == heads[i]:
                break
    if kind == 0:
        out[(p // w - 1) * n + p % w - 1] = c
