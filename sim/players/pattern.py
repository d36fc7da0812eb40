"""The ``pattern`` player: a heavy playout policy in the Monte Carlo Go tradition (MoGo's
playouts, Gelly et al. 2006; Pachi's "moggy"; Fuego's playout policy). docs/rules.md §11.

In this order, the first step that finds a move plays it:

0. with probability ``virtual_rate`` a voluntary virtual move (the same draw as ``random``);
1. capture: the largest opponent chain in atari next to the last real moves (``capture``);
2. save: an own chain in atari next to the opponent's last real move, largest first: its
   liberty if that leaves it two or more liberties, else the largest capture of an opponent
   chain in atari next to it (at another point);
3. patterns: one of the empty points around the opponent's last real move whose 3x3
   neighbourhood matches a MoGo pattern (``PATTERNS``), uniformly at random;
4. (a filter of steps 3 and 5) no own eye filled, no self-atari of two or more stones except
   the nakade exception (``sim.players.tactics.bad_self_atari``);
5. else as ``random`` with that filter (``random.draw_safe``), else pass.

The patterns are expanded once, at import, over rotations, reflections and (for the patterns
of both colours) the colour swap into ``TABLE``: one bit per 8-neighbourhood code, the
neighbours read in the order of ``AROUND``, each EMPTY 0, the mover's 1, the opponent's 2,
BORDER 3, code = sum of value * 4**i (65,536 codes, 8 KiB). numba compiles the table in as a
constant.
"""

import itertools

import numpy as np
from numba import njit

from sim.engine.board import has_one_liberty, in_atari_at, neighbour
from sim.engine.history import PASS, VIRTUAL
from sim.engine.state import (
    BLACK,
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
    WHITE,
    W,
    colour_row,
    opponent,
    slot,
)
from sim.players.capture import largest_capture
from sim.players.ladder import caught_running
from sim.players.nakade import vital_point
from sim.players.random import draw_safe, fills_own_eye
from sim.players.stream import below, uniform
from sim.players.tactics import MANY, bad_self_atari, judge_counted, liberties_after

# The steps of docs/rules.md §11 (``pattern_choice`` says which one chose the action).
STEP_VIRTUAL, STEP_CAPTURE, STEP_SAVE, STEP_PATTERN, STEP_RANDOM = 0, 1, 2, 3, 5
STEP_NAKADE = 6  # the search's playouts only, between steps 2 and 3

#: The 3x3 patterns (MoGo's, as Pachi's playout/moggy.c writes them), the point to play in the
#: middle: X the mover's stone, O the opponent's, ``.`` empty, ``#`` the edge, ``?`` anything,
#: ``x`` anything but X, ``o`` anything but O. (name, rows, both colours): a pattern of both
#: colours matches with X and O swapped too; the others (MoGo's marked stone) only as written.
PATTERNS = (
    ("hane: enclosing hane", ("XOX", "...", "???"), True),
    ("hane: non-cutting hane", ("XO.", "...", "?.?"), True),
    ("hane: magari", ("XO?", "X..", "x.?"), True),
    ("hane: thin hane", ("XOO", "...", "?.?"), False),
    ("hane: diagonal attachment (katatsuke)", (".O.", "X..", "..."), True),
    ("cut1: unprotected cut", ("XO?", "O.o", "?o?"), True),
    ("cut1: peeped cut", ("XO?", "O.X", "???"), True),
    ("cut2", ("?X?", "O.O", "ooo"), True),
    ("edge: chase", ("X.?", "O.?", "###"), True),
    ("edge: block side cut", ("OX?", "X.O", "###"), True),
    ("edge: block side connection", ("?X?", "x.O", "###"), True),
    ("edge: sagari", ("?XO", "x.?", "###"), False),
    ("edge: cut", ("?OX", "X.O", "###"), False),
)

#: The 8 neighbours of a point in code order: (row, column) offsets, row -1 above.
AROUND = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_VALUES = {  # what each letter of a pattern matches: EMPTY 0, the mover's 1, the other's 2, edge 3
    ".": (0,),
    "X": (1,),
    "O": (2,),
    "#": (3,),
    "?": (0, 1, 2, 3),
    "x": (0, 2, 3),
    "o": (0, 1, 3),
}


def _symmetries(rows):
    """The 8 rotations and reflections of a 3x3 pattern (a tuple of 3 strings)."""
    out = []
    grid = [list(r) for r in rows]
    for _ in range(4):
        grid = [[grid[2 - c][r] for c in range(3)] for r in range(3)]  # a quarter turn
        out.append(tuple("".join(r) for r in grid))
        out.append(tuple("".join(reversed(r)) for r in grid))  # its mirror image
    return out


def _swap(rows):
    """X and O (and x and o) exchanged."""
    return tuple(r.translate(str.maketrans("XOxo", "OXox")) for r in rows)


def codes(rows):
    """The 8-neighbourhood codes a pattern (rows, the middle ignored) matches as written."""
    cells = [_VALUES[rows[1 + dr][1 + dc]] for dr, dc in AROUND]
    return [sum(v << (2 * i) for i, v in enumerate(vs)) for vs in itertools.product(*cells)]


def build_table(patterns=PATTERNS):
    """The match bits of every 8-neighbourhood code, packed little-endian into 8,192 bytes."""
    match = np.zeros(4**8, bool)
    for _, rows, both in patterns:
        assert rows[1][1] == ".", "a pattern's middle is the empty point to play"
        for sym in _symmetries(rows):
            for variant in (sym, _swap(sym)) if both else (sym,):
                match[codes(variant)] = True
    return np.packbits(match, bitorder="little")


TABLE = build_table()


def colours_swapped(code, points: int = 8):
    """Codes of ``points`` neighbours (an int or an array; by default the 8-neighbourhood's)
    with Black's and White's stones exchanged: a code in board colours as White sees it (its
    own stones 1)."""
    out = 0
    for i in range(points):
        v = code >> (2 * i) & 3
        out |= np.where((v == BLACK) | (v == WHITE), BLACK + WHITE - v, v) << (2 * i)
    return out


def _by_colour(table):
    """The table read in the board's own colours (EMPTY 0, BLACK 1, WHITE 2, BORDER 3) for
    each mover: row BLACK - 1 is ``table`` itself, row WHITE - 1 the same with the colours
    swapped, so that the kernels look a neighbourhood up without recolouring it."""
    match = np.unpackbits(table, bitorder="little").astype(bool)
    swapped = colours_swapped(np.arange(4**8))
    return np.stack([table, np.packbits(match[swapped], bitorder="little")])


BY_COLOUR = _by_colour(TABLE)


def matches(code: int) -> bool:
    """Whether an 8-neighbourhood code matches a pattern (``TABLE``, from Python)."""
    return bool(TABLE[code >> 3] >> (code & 7) & 1)


@njit(cache=True, _nrt=False, inline="always")
def around(p, w, d):
    """The neighbour ``d`` (0-7, ``AROUND``'s order) of ``p`` on a board of width ``w``."""
    k = d if d < 4 else d + 1  # skip the middle of the 3x3 square
    return p + (k // 3 - 1) * w + (k % 3 - 1)


@njit(cache=True, _nrt=False, inline="always")
def matches_at(pt, p, w, c):
    """Whether the 3x3 neighbourhood of ``p``, seen by colour ``c``, matches a pattern."""
    code = 0
    for d in range(8):
        code |= pt[COLOR, around(p, w, d)] << (2 * d)
    return BY_COLOUR[colour_row(c), code >> 3] >> (code & 7) & 1 == 1


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
