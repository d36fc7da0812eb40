"""Board kernels: stones, chains, liberties, captures and Zobrist keys. No rule knobs here.

Chains are circular linked lists (``NXT``) with a head (``HEAD``); each head keeps the chain's
size, its pseudo-liberty count and the sum and sum of squares of its pseudo-liberty points, so
"exactly one liberty, at point p" is exact and O(1) (libfuego / libego technique). A move
foreseen without playing it (its key, its effect, the board it leaves) is ``lookahead``'s.
"""

from numba import njit

from sim.engine.state import (
    BLACK,
    BORDER,
    CHASH,
    COLOR,
    CSIZE,
    EMPTIES,
    EMPTY,
    EPOS,
    HASH,
    HEAD,
    INTERIOR,
    LIBSQ,
    LIBSUM,
    N_EMPTY,
    N_ST,
    NXT,
    PLIB,
    ST,
    WHITE,
    ZOB,
    N,
    W,
    opponent,
    slot,
)


@njit(cache=True, _nrt=False, inline="always")
def neighbour(p, w, side):
    """The orthogonal neighbour ``side`` (0-3: above, left, right, below) of ``p`` on a board of
    width ``w``. A loop ``for side in range(4)`` with a small body unrolls into straight code
    (a large one stays a loop: ``put_stone`` writes its sides out); a loop over a tuple of the
    four points picks each one through a jump table."""
    step = w if side == 0 or side == 3 else 1
    return p + step if side >= 2 else p - step


@njit(cache=True, _nrt=False, inline="always")
def diagonal(p, w, side):
    """The diagonal neighbour ``side`` (0-3: above left, above right, below left, below right)."""
    return p + (w if side >= 2 else -w) + (1 if side & 1 else -1)


@njit(cache=True, _nrt=False, inline="always")
def is_empty(pt, p):
    """Whether the point ``p`` holds no stone (and is not the border)."""
    return pt[COLOR, p] == EMPTY


@njit(cache=True, _nrt=False, inline="always")
def is_stone(colour):
    """Whether a colour of the board is BLACK or WHITE (not EMPTY, not BORDER)."""
    return colour == BLACK or colour == WHITE


@njit(cache=True, _nrt=False, inline="always")
def in_atari_at(pt, h, p):
    """Whether chain ``h`` has exactly one liberty, the point ``p``."""
    n = pt[PLIB, h]
    return n > 0 and pt[LIBSUM, h] == p * n and pt[LIBSQ, h] == p * p * n


@njit(cache=True, _nrt=False)
def has_one_liberty(pt, h):
    """Whether chain ``h`` has exactly one liberty (all its pseudo-liberties are one point)."""
    n = pt[PLIB, h]
    return n > 0 and n * pt[LIBSQ, h] == pt[LIBSUM, h] * pt[LIBSUM, h]


@njit(cache=True, _nrt=False, inline="always")
def _add_lib(pt, h, p, d):
    """Add (d = 1) or remove (d = -1) the pseudo-liberty ``p`` of chain ``h``."""
    pt[PLIB, h] += d
    pt[LIBSUM, h] += d * p
    pt[LIBSQ, h] += d * p * p


@njit(cache=True, _nrt=False, inline="always")
def copy_board(dst, src):
    """Make the board of ``dst`` (a state of the same size) that of ``src``: chains, empty
    points, keys and the scalars; not the position log (``history.copy_game`` adds it)."""
    for row in range(EPOS + 1):
        for p in range(src.pt.shape[1]):
            dst.pt[row, p] = src.pt[row, p]
    for i in range(N_ST):
        dst.tab[ST, i] = src.tab[ST, i]


@njit(cache=True, _nrt=False)
def clear(g):
    """Empty the board."""
    n = g.tab[ST, N]
    g.pt[COLOR, :] = BORDER
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        g.pt[COLOR, p] = EMPTY
        g.pt[EMPTIES, i] = p
        g.pt[EPOS, p] = i
    g.tab[ST, N_EMPTY] = n * n
    g.tab[ST, HASH] = 0


@njit(cache=True, _nrt=False, inline="always")
def _merge(pt, a, b):
    """Merge chain ``b`` into chain ``a`` (heads); the smaller list is relabelled."""
    if pt[CSIZE, a] < pt[CSIZE, b]:
        a, b = b, a
    s = b
    while True:
        pt[HEAD, s] = a
        s = pt[NXT, s]
        if s == b:
            break
    pt[NXT, a], pt[NXT, b] = pt[NXT, b], pt[NXT, a]
    pt[CSIZE, a] += pt[CSIZE, b]
    pt[PLIB, a] += pt[PLIB, b]
    pt[LIBSUM, a] += pt[LIBSUM, b]
    pt[LIBSQ, a] += pt[LIBSQ, b]
    pt[CHASH, a] ^= pt[CHASH, b]


@njit(cache=True, _nrt=False, inline="always")
def _remove_chain(g, h):
    """Take chain ``h`` off the board; returns the number of stones removed."""
    pt = g.pt
    color = pt[COLOR]
    w = g.tab[ST, W]
    g.tab[ST, HASH] ^= pt[CHASH, h]
    s = h
    while True:  # first empty every point, then give the liberties to the neighbours
        color[s] = EMPTY
        k = g.tab[ST, N_EMPTY]
        pt[EMPTIES, k] = s
        pt[EPOS, s] = k
        g.tab[ST, N_EMPTY] = k + 1
        s = pt[NXT, s]
        if s == h:
            break
    count = 0
    while True:
        count += 1
        for side in range(4):
            q = neighbour(s, w, side)
            if is_stone(color[q]):
                _add_lib(pt, pt[HEAD, q], s, 1)
        s = pt[NXT, s]
        if s == h:
            break
    return count


@njit(cache=True, _nrt=False, inline="always")
def put_stone(g, p, c):
    """Place a stone of colour ``c`` on the empty point ``p`` and merge it with its friends;
    no captures (setup positions use this directly). Returns whether an opponent chain has
    lost its last liberty."""
    pt = g.pt
    color = pt[COLOR]
    w = g.tab[ST, W]
    color[p] = c
    key = pt[slot(ZOB, c), p]
    g.tab[ST, HASH] ^= key
    k = g.tab[ST, N_EMPTY] - 1
    last = pt[EMPTIES, k]
    pt[EMPTIES, pt[EPOS, p]] = last
    pt[EPOS, last] = pt[EPOS, p]
    g.tab[ST, N_EMPTY] = k
    pt[HEAD, p] = p
    pt[NXT, p] = p
    pt[CSIZE, p] = 1
    pt[PLIB, p] = 0
    pt[LIBSUM, p] = 0
    pt[LIBSQ, p] = 0
    pt[CHASH, p] = key
    # the sides written out: as a loop (too large to unroll) each side's offset costs branches;
    # written out, the light playout runs about 6% faster (docs/performance.md)
    dead = _join(pt, color, p, c, neighbour(p, w, 0))
    dead |= _join(pt, color, p, c, neighbour(p, w, 1))
    dead |= _join(pt, color, p, c, neighbour(p, w, 2))
    return _join(pt, color, p, c, neighbour(p, w, 3)) | dead


@njit(cache=True, _nrt=False, inline="always")
def _join(pt, color, p, c, q):
    """The new stone ``c`` at ``p`` meets its neighbour ``q``: a liberty, a friend chain to merge
    with, or an opponent chain losing a liberty; returns whether that chain has none left."""
    cq = color[q]
    if cq == EMPTY:
        _add_lib(pt, pt[HEAD, p], q, 1)
    elif is_stone(cq):
        h = pt[HEAD, q]
        _add_lib(pt, h, p, -1)
        if cq == c:
            if h != pt[HEAD, p]:
                _merge(pt, h, pt[HEAD, p])
        elif pt[PLIB, h] == 0:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def play_stone(g, p, c):
    """Play colour ``c`` at the empty point ``p``: capture opponent chains without liberty,
    else remove the own chain if it has none (suicide). Returns (captured, suicided) stones."""
    w = g.tab[ST, W]
    captured = 0
    if put_stone(g, p, c):  # a capture: the chains without liberty go, in side order
        for side in range(4):
            q = neighbour(p, w, side)
            if g.pt[COLOR, q] == opponent(c) and g.pt[PLIB, g.pt[HEAD, q]] == 0:
                captured += _remove_chain(g, g.pt[HEAD, q])
    suicided = 0
    if captured == 0 and g.pt[PLIB, g.pt[HEAD, p]] == 0:
        suicided = _remove_chain(g, g.pt[HEAD, p])
    return captured, suicided


@njit(cache=True, _nrt=False)
def board_into(g, out):
    """The N*N colours of the board into ``out``."""
    n = g.tab[ST, N]
    for i in range(n * n):
        out[i] = g.pt[COLOR, g.pt[INTERIOR, i]]
