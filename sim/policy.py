"""Players and their random numbers.

Random numbers: SplitMix64. A game's stream starts at ``mix(mix(seed) + game_id)`` (``mix``
is SplitMix64's finaliser; ``start_stream``), so a game depends on the run seed and its id
alone, whichever worker or shard plays it.

Players (``sim.schema.POLICIES``), each with a voluntary virtual move with probability
``virtual_rate`` before it chooses:

- ``random`` (``random_move``): the standard light-playout policy: uniform over the legal real
  moves that do not fill the mover's own eye, else pass.
- ``capture`` (``capture_move``): the capture heuristic of MoGo-style playouts: if an opponent
  chain at or next to either player's last real move is in atari and taking it is legal, take
  the largest such chain (the first found among equals); else as ``random``.
"""

import numpy as np
from numba import njit

from sim.board import diagonal, has_one_liberty, neighbour
from sim.history import PASS, VIRTUAL, judge
from sim.state import (
    BORDER, COLOR, CSIZE, EMPTIES, EPOS, HEAD, KO, LAST_POINT, LIBSUM, N_EMPTY, OK, OK_CYCLE,
    PENDING_PASS, PLIB, REP_BANS, ST, SUPERKO,
    TO_MOVE, W,
)

_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, _nrt=False)
def mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, _nrt=False)
def start_stream(rng, seed, game_id):
    """Start a game's random stream in ``rng`` (two words: the SplitMix64 state, and the next
    output, drawn one step ahead so that mixing it is off the path of the move being chosen)."""
    rng[0] = mix(mix(np.uint64(seed)) + np.uint64(game_id)) + _GAMMA
    rng[1] = mix(rng[0])


@njit(cache=True, _nrt=False)
def _next(rng):
    out = rng[1]
    rng[0] += _GAMMA
    rng[1] = mix(rng[0])
    return out


@njit(cache=True, _nrt=False)
def below(rng, k):
    """A random integer in [0, k)."""
    return np.int64(((_next(rng) >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@njit(cache=True, _nrt=False)
def uniform(rng):
    """A random float in [0, 1)."""
    return (_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, _nrt=False, inline="always")
def fills_own_eye(g, p, c):
    """Whether ``p`` is an eye of ``c``: every orthogonal neighbour is ``c`` or the edge, and
    fewer than two opponent stones on its diagonals (none if ``p`` is on the edge)."""
    w = g.tab[ST, W]
    edge = False
    for side in range(4):
        q = neighbour(p, w, side)
        cq = g.pt[COLOR, q]
        if cq == BORDER:
            edge = True
        elif cq != c:
            return False
    enemies = 0
    for side in range(4):
        q = diagonal(p, w, side)
        if g.pt[COLOR, q] == 3 - c:
            enemies += 1
    return enemies < (1 if edge else 2)


@njit(cache=True, _nrt=False, inline="always")
def _capture_near(g, p, c, best, size, verdict):
    """The largest capture so far, (point, chain size, judge verdict), updated with the
    opponent chains in atari at or next to ``p`` that ``c`` may take now."""
    pt = g.pt
    w = g.tab[ST, W]
    for side in range(5):  # p itself, then its neighbours
        q = p if side == 0 else neighbour(p, w, side - 1)
        if pt[COLOR, q] != 3 - c:
            continue
        h = pt[HEAD, q]
        if pt[CSIZE, h] > size and has_one_liberty(pt, h):
            liberty = pt[LIBSUM, h] // pt[PLIB, h]
            code = judge(g, liberty, c, g.tab[ST, PENDING_PASS])
            if code == OK or code == OK_CYCLE:
                best, size, verdict = liberty, pt[CSIZE, h], code
            elif code == KO or code == SUPERKO:
                g.tab[ST, REP_BANS] += 1
    return best, size, verdict


@njit(cache=True, _nrt=False, inline="always")
def capture_move(g, rng, virtual_rate):
    """The capture heuristic's action and its ``judge`` verdict (see the module docstring)."""
    if virtual_rate > 0.0 and uniform(rng) < virtual_rate:
        return VIRTUAL, OK
    st = g.tab[ST]
    c = st[TO_MOVE]
    best, size, verdict = PASS, 0, OK
    for colour in (1, 2):
        last = st[LAST_POINT + colour - 1]
        if last > 0:
            best, size, verdict = _capture_near(g, last, c, best, size, verdict)
    if size > 0:
        return best, verdict
    return random_move(g, rng, 0.0)


@njit(cache=True, _nrt=False, inline="always")
def random_move(g, rng, virtual_rate):
    """The light-playout action of the player to move (bordered point, PASS or VIRTUAL) and
    its ``judge`` verdict. Draws candidates from the empty points without replacement until one
    is legal and not an own eye; counts the candidates banned by the repetition rule in
    st[REP_BANS]."""
    if virtual_rate > 0.0 and uniform(rng) < virtual_rate:
        return VIRTUAL, OK
    st = g.tab[ST]
    c = st[TO_MOVE]
    pending = st[PENDING_PASS]
    k = st[N_EMPTY]
    while k > 0:
        i = below(rng, k)
        p = g.pt[EMPTIES, i]
        if not fills_own_eye(g, p, c):
            code = judge(g, p, c, pending)
            if code == OK or code == OK_CYCLE:
                return p, code
            if code == KO or code == SUPERKO:
                st[REP_BANS] += 1
        k -= 1  # move the rejected candidate behind the ones still to draw
        q = g.pt[EMPTIES, k]
        g.pt[EMPTIES, k] = p
        g.pt[EMPTIES, i] = q
        g.pt[EPOS, p] = k
        g.pt[EPOS, q] = i
    return PASS, OK


