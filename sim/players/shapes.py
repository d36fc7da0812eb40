"""The 3x3 shapes that the ``pattern`` player and the search's priors read: MoGo's patterns
(``PATTERNS``) as a table of 8-neighbourhood codes (docs/rules.md §11).

The patterns are expanded once, at import, over rotations, reflections and (for the patterns
of both colours) the colour swap into ``TABLE``: one bit per 8-neighbourhood code, the
neighbours read in the order of ``AROUND``, each EMPTY 0, the mover's 1, the opponent's 2,
BORDER 3, code = sum of value * 4**i (65,536 codes, 8 KiB). numba compiles the table in as a
constant.

The kernels read a neighbourhood with ``around`` and ``matches_at``; Python with ``codes`` and
``matches``; ``colours_swapped`` exchanges Black's and White's stones in codes (the tables of
``sim.players.prior`` for White).
"""

import itertools

import numpy as np
from numba import njit

from sim.engine.state import BLACK, COLOR, WHITE, colour_row

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
