"""The ``random`` player: the standard light-playout policy.

With probability ``virtual_rate`` a voluntary virtual move; else uniform over the legal real
moves that do not fill the mover's own eye, else pass.
"""

from numba import njit

from sim.engine.board import diagonal, neighbour
from sim.engine.history import PASS, VIRTUAL, judge_inline
from sim.engine.state import (
    BORDER,
    COLOR,
    EMPTIES,
    EPOS,
    KO,
    N_EMPTY,
    OK,
    OK_CYCLE,
    PENDING_PASS,
    REP_BANS,
    ST,
    SUPERKO,
    TO_MOVE,
    W,
    opponent,
)
from sim.players.stream import below, uniform
from sim.players.tactics import bad_self_atari


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
        if g.pt[COLOR, q] == opponent(c):
            enemies += 1
    return enemies < (1 if edge else 2)


def _random_move(g, rng, virtual_rate):
    """The light-playout action of the player to move (bordered point, PASS or VIRTUAL) and
    its ``judge`` verdict."""
    if virtual_rate > 0.0 and uniform(rng) < virtual_rate:
        return VIRTUAL, OK
    return _draw(g, rng, False)


# One compiled copy for the players, and an inlined one for the light playout's loop
# (``sim.play.batch``), where a call costs about an eighth of the speed.
random_move = njit(cache=True, _nrt=False)(_random_move)
random_inline = njit(cache=True, _nrt=False, inline="always")(_random_move)


@njit(cache=True, _nrt=False)
def draw_safe(g, rng):
    """A real move as ``random`` draws it, but never a self-atari ``tactics.bad_self_atari``
    refuses (the pattern player's last step), and its ``judge`` verdict; else PASS."""
    return _draw(g, rng, True)


@njit(cache=True, _nrt=False, inline="always")
def _draw(g, rng, avoid_self_atari):
    """A real move of the player to move, uniform over the legal ones that do not fill its own
    eye (and, with ``avoid_self_atari``, are not a self-atari ``tactics.bad_self_atari``
    refuses), and its ``judge`` verdict; else PASS. Draws candidates from the empty points
    without replacement until one is acceptable; counts the candidates banned by the
    repetition rule in st[REP_BANS]."""
    st = g.tab[ST]
    c = st[TO_MOVE]
    pending = st[PENDING_PASS]
    k = st[N_EMPTY]
    while k > 0:
        i = below(rng, k)
        p = g.pt[EMPTIES, i]
        if not fills_own_eye(g, p, c) and not (avoid_self_atari and bad_self_atari(g, p, c)):
            code = judge_inline(g, p, c, pending)
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
