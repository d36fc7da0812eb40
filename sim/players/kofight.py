"""The ``kofight`` player: it keeps kos and cycles going, to stress the repetition rules
(docs/rules.md §11).

A *cycle capture* is a legal capture after which the capturing chain has a single liberty,
so that the opponent can capture back: a ko, a snapback, sending two returning one. In order:

1. the recapture: the cycle capture of the chain of the opponent's last real move;
2. else a cycle capture anywhere, the first found from a random empty point on;
3. else, if step 1 or 2 found cycle captures that the repetition rule bans, a virtual move
   with probability ``threat_rate``: under these rules the virtual move is the ko threat (it
   changes the global position, and under ``global_superko`` it lifts the ban, A§4.2);
4. else the player of ``playout`` (pattern or random), with its own ``virtual_rate`` draw.
"""

from numba import njit

from sim.engine.board import has_one_liberty, in_atari_at, neighbour
from sim.engine.history import VIRTUAL
from sim.engine.state import (
    COLOR,
    EMPTIES,
    HEAD,
    KO,
    LAST_POINT,
    LIBSUM,
    N_EMPTY,
    OK,
    OK_CYCLE,
    PLIB,
    ST,
    SUPERKO,
    TO_MOVE,
    W,
    opponent,
    slot,
)
from sim.players.params import K_PLAYOUT, K_THREAT, PATTERN_PLAYOUT
from sim.players.pattern import pattern_move
from sim.players.random import random_move
from sim.players.stream import below, uniform
from sim.players.tactics import judge_counted, liberties_after

NONE, LEGAL, BANNED = 0, 1, 2  # what a point offers as a cycle capture


@njit(cache=True, _nrt=False, inline="always")
def _cycle_capture(g, p, c):
    """Whether ``c`` at the empty ``p`` is a cycle capture: NONE, LEGAL or BANNED (by the
    repetition rule), and its ``judge`` verdict."""
    pt, w = g.pt, g.tab[ST, W]
    takes = False
    for side in range(4):
        q = neighbour(p, w, side)
        takes = takes or (pt[COLOR, q] == opponent(c) and in_atari_at(pt, pt[HEAD, q], p))
    if not takes:
        return NONE, OK
    libs, _, _, _ = liberties_after(g, p, c)
    if libs != 1:
        return NONE, OK
    code = judge_counted(g, p, c)
    if code == OK or code == OK_CYCLE:
        return LEGAL, code
    return (BANNED if code == KO or code == SUPERKO else NONE), code


@njit(cache=True, _nrt=False)
def kofight_move(g, rng, virtual_rate, params):
    """The kofight player's action and its ``judge`` verdict (see the module docstring)."""
    pt = g.pt
    c = g.tab[ST, TO_MOVE]
    banned = False
    retake = -1  # the point of the recapture, judged once
    last = g.tab[ST, slot(LAST_POINT, opponent(c))]
    if last > 0 and pt[COLOR, last] == opponent(c) and has_one_liberty(pt, pt[HEAD, last]):
        h = pt[HEAD, last]
        retake = pt[LIBSUM, h] // pt[PLIB, h]
        found, code = _cycle_capture(g, retake, c)
        if found == LEGAL:
            return retake, code
        banned = found == BANNED
    n = g.tab[ST, N_EMPTY]
    start = below(rng, n) if n > 0 else 0
    for i in range(n):
        p = pt[EMPTIES, (start + i) % n]
        if p == retake:
            continue
        found, code = _cycle_capture(g, p, c)
        if found == LEGAL:
            return p, code
        banned = banned or found == BANNED
    if banned and uniform(rng) < params[K_THREAT]:
        return VIRTUAL, OK
    if params[K_PLAYOUT] == PATTERN_PLAYOUT:
        return pattern_move(g, rng, virtual_rate)
    return random_move(g, rng, virtual_rate)
