"""The ``pattern`` player: a heavy playout policy in the Monte Carlo Go tradition (MoGo's
playouts, Gelly et al. 2006; Pachi's "moggy"; Fuego's playout policy). docs/rules.md §11.

In this order, the first step that finds a move plays it:

0. with probability ``virtual_rate`` a voluntary virtual move (the same draw as ``random``);
1. capture: the largest opponent chain in atari next to the last real moves (``capture``);
2. save: an own chain in atari next to the opponent's last real move, largest first: its
   liberty if that leaves it two or more liberties, else the largest capture of an opponent
   chain in atari next to it (at another point);
3. patterns: one of the empty points around the opponent's last real move whose 3x3
   neighbourhood matches a MoGo pattern (``sim.players.shapes``), uniformly at random;
4. (a filter of steps 3 and 5) no own eye filled, no self-atari of two or more stones except
   the nakade exception (``sim.players.tactics.bad_self_atari``);
5. else as ``random`` with that filter (``random.draw_safe``), else pass.
"""

from numba import njit

from sim.engine.board import has_one_liberty, in_atari_at, neighbour
from sim.engine.history import PASS, VIRTUAL
from sim.engine.state import (
    COLOR,
    CSIZE,
    EMPTY,
    HEAD,
    LAST_POINT,
    LIBSUM,
    NXT,
    OK,
    OK_CYCLE,
    PLIB,
    ST,
    TO_MOVE,
    W,
    opponent,
    slot,
)
from sim.players.capture import largest_capture
from sim.players.ladder import caught_running
from sim.players.nakade import vital_point
from sim.players.random import draw_safe, fills_own_eye
from sim.players.shapes import around, matches_at
from sim.players.stream import below, uniform
from sim.players.tactics import MANY, bad_self_atari, judge_counted, liberties_after

# The steps of docs/rules.md §11 (``pattern_choice`` says which one chose the action).
STEP_VIRTUAL, STEP_CAPTURE, STEP_SAVE, STEP_PATTERN, STEP_RANDOM = 0, 1, 2, 3, 5
STEP_NAKADE = 6  # the search's playouts only, between steps 2 and 3


@njit(cache=True, _nrt=False, inline="always")
def _save_chain(g, h, c, board, line, tactics):
    """Step 2 for the own chain ``h`` in atari: its liberty if that leaves two or more
    liberties (and, reading ladders: ``board`` not None and ``tactics``, the chain is not
    caught in a ladder anyway), else a capture of an adjacent opponent chain in atari (not at
    that liberty: there it is the same move), largest first (equal sizes: the lower head point
    first)."""
    pt = g.pt
    w = g.tab[ST, W]
    o = opponent(c)
    lib = pt[LIBSUM, h] // pt[PLIB, h]
    runs = liberties_after(g, lib, c)[0] == MANY
    if runs and board is not None and tactics:
        runs = not caught_running(board, g, h, line)
    if runs:
        code = judge_counted(g, lib, c)
        if code == OK or code == OK_CYCLE:
            return lib, code
    last_size, last_head = 1 << 62, -1  # the candidate judged last
    while True:
        size, head = 0, -1
        s = h
        while True:  # the next candidate in (size down, head up) order
            for side in range(4):
                q = neighbour(s, w, side)
                if pt[COLOR, q] != o:
                    continue
                e = pt[HEAD, q]
                z = pt[CSIZE, e]
                later = z < last_size or (z == last_size and e > last_head)
                better = z > size or (z == size and e < head)
                if later and better and has_one_liberty(pt, e) and not in_atari_at(pt, e, lib):
                    size, head = z, e
            s = pt[NXT, s]
            if s == h:
                break
        if head < 0:
            return PASS, OK
        p = pt[LIBSUM, head] // pt[PLIB, head]
        code = judge_counted(g, p, c)
        if code == OK or code == OK_CYCLE:
            return p, code
        last_size, last_head = size, head


@njit(cache=True, _nrt=False)
def _save(g, last, c, board, line, tactics):
    """Step 2: the own chains in atari next to ``last``, largest first (equal sizes: in the
    order above, left, right, below)."""
    pt = g.pt
    w = g.tab[ST, W]
    tried = 0  # sides of `last` whose chain has been tried
    while True:
        best, size = -1, 0
        for side in range(4):
            q = neighbour(last, w, side)
            if tried >> side & 1 or pt[COLOR, q] != c:
                continue
            h = pt[HEAD, q]
            if pt[CSIZE, h] > size and has_one_liberty(pt, h):
                best, size = side, pt[CSIZE, h]
        if best < 0:
            return PASS, OK
        h = pt[HEAD, neighbour(last, w, best)]
        for side in range(4):
            q = neighbour(last, w, side)
            if pt[COLOR, q] == c and pt[HEAD, q] == h:
                tried |= 1 << side
        p, code = _save_chain(g, h, c, board, line, tactics)
        if p != PASS:
            return p, code


@njit(cache=True, _nrt=False)
def _pattern(g, rng, last, c):
    """Step 3: the empty points around ``last`` whose neighbourhood matches, drawn uniformly
    without replacement until one is legal and passes step 4's filter."""
    pt = g.pt
    w = g.tab[ST, W]
    found = 0  # a bit per matching point, in AROUND's order
    k = 0
    for d in range(8):
        q = around(last, w, d)
        if pt[COLOR, q] == EMPTY:
            if matches_at(pt, q, w, c):
                found |= 1 << d
                k += 1
    while k > 0:
        i = below(rng, k)
        d = 0
        while True:  # the i-th matching point
            if found >> d & 1:
                if i == 0:
                    break
                i -= 1
            d += 1
        found &= ~(1 << d)
        k -= 1
        q = around(last, w, d)
        if not fills_own_eye(g, q, c) and not bad_self_atari(g, q, c):
            code = judge_counted(g, q, c)
            if code == OK or code == OK_CYCLE:
                return q, code
    return PASS, OK


@njit(cache=True, _nrt=False, inline="always")
def pattern_choice(g, rng, virtual_rate, board=None, line=None, tactics=False):
    """The pattern player's action, its ``judge`` verdict and the step that chose it
    (STEP_*; see the module docstring). With a scratch ``board`` and ``line``
    (``sim.players.ladder``; the search's playouts) and ``tactics`` step 2 reads ladders and
    a nakade step follows it (``sim.players.nakade``, ``line``'s first row its work space);
    without a board none of it is compiled."""
    if virtual_rate > 0.0 and uniform(rng) < virtual_rate:
        return VIRTUAL, OK, STEP_VIRTUAL
    c = g.tab[ST, TO_MOVE]
    best, size, verdict = largest_capture(g, c)
    if size > 0:
        return best, verdict, STEP_CAPTURE
    last = g.tab[ST, slot(LAST_POINT, opponent(c))]
    if last > 0:
        p, verdict = _save(g, last, c, board, line, tactics)
        if p != PASS:
            return p, verdict, STEP_SAVE
        if board is not None and tactics:
            p = vital_point(g, last, c, line[0])
            if p >= 0:
                verdict = judge_counted(g, p, c)
                if verdict == OK or verdict == OK_CYCLE:
                    return p, verdict, STEP_NAKADE
        p, verdict = _pattern(g, rng, last, c)
        if p != PASS:
            return p, verdict, STEP_PATTERN
    p, verdict = draw_safe(g, rng)
    return p, verdict, STEP_RANDOM


@njit(cache=True, _nrt=False)
def pattern_move(g, rng, virtual_rate, board=None, line=None, tactics=False):
    """The pattern player's action and its ``judge`` verdict (docs/rules.md §11; ``board``,
    ``line``, ``tactics``: ``pattern_choice``'s)."""
    action, verdict, _ = pattern_choice(g, rng, virtual_rate, board, line, tactics)
    return action, verdict
