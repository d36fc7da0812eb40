"""The ``mcts`` player's learned move priors (``prior = "learned"``): Coulom's generalised
Bradley-Terry model ("Computing Elo ratings of move patterns", 2007), each candidate's prior
the product of the strengths (gammas) of the features it has, learned from KataGo's moves by
``tools/learn_prior.py`` and shipped in ``prior_weights.npz`` beside this file.

A real move's features (``move_features``): its 3x3 neighbourhood (the 8-neighbourhood code of
``sim.players.shapes``, one weight per code, equal over rotations and reflections, read in
the mover's colours) and at most one of each tactical group of ``FEATURES``: the stones it
captures, an own chain in atari it saves, an opponent chain it puts in atari, a self-atari the
pattern player refuses (reading ladders, also a save that a ladder catches anyway), its
distance to the opponent's and to the mover's last real moves (Coulom's ``dx + dy + max(dx,
dy)``), its line from the edge. A pass has one weight, another when it answers a pass. The
weights are the logarithms of the gammas.

With ``prior = "diamond"`` a real move has one more feature: its diamond, the 8-neighbourhood
and the four points two away in line (``DIAMOND``), one weight per class of the rotations and
reflections that the teacher's games showed often enough (``tools/learn_prior.py
--diamond``), looked up in a hash table (``diamond_table``); the 3x3 and tactical weights are
learned with it, in their own file.
"""

import functools
from pathlib import Path

import numpy as np
from numba import njit

from sim.engine.board import in_atari_at, neighbour
from sim.engine.history import judge
from sim.engine.lookahead import key_after
from sim.engine.state import (
    BORDER,
    COLOR,
    CSIZE,
    HEAD,
    LAST_POINT,
    OK,
    OK_CYCLE,
    PLACES,
    ST,
    W,
    colour_row,
    opponent,
    slot,
)
from sim.players.ladder import caught_running
from sim.players.random import fills_own_eye
from sim.players.shapes import AROUND, around, colours_swapped
from sim.players.tactics import MANY, bad_self_atari, liberties_after, other_liberty

#: The tactical features, each a weight; a move has at most one of each group (the names'
#: prefixes before the last ``_``), "far" for a distance of 8 or more.
FEATURES = (
    "capture_1",
    "capture_many",
    "save_1",  # saves an own chain in atari of one stone, leaving it two or more liberties
    "save_many",
    "atari_1",  # puts an opponent chain of one stone in atari
    "atari_many",
    "self_atari",
    *(f"last_{d}" for d in range(2, 8)),
    "last_far",
    *(f"own_{d}" for d in range(2, 8)),
    "own_far",
    *(f"line_{n}" for n in range(1, 5)),
    "pass_first",
    "pass_answer",  # a pass after the opponent's pass
)
F = {name: i for i, name in enumerate(FEATURES)}
GROUPS = 7  # move_features's tactical groups
_CAPTURE, _SAVE, _ATARI, _SELF_ATARI, _LAST, _OWN, _LINE = (
    F[n] for n in ("capture_1", "save_1", "atari_1", "self_atari", "last_2", "own_2", "line_1")
)
CODES = 4**8  # 8-neighbourhood codes
#: The points two away in line from a move; its diamond is ``AROUND`` and these, a diamond
#: code the 8-neighbourhood's code plus ``CODES`` times the code of these four.
FAR = ((-2, 0), (0, -2), (0, 2), (2, 0))
DIAMOND = (*AROUND, *FAR)
_FAR_DY, _FAR_DX = tuple(d[0] for d in FAR), tuple(d[1] for d in FAR)
#: Each learned prior's weights file, beside this module.
WEIGHTS = {
    "learned": Path(__file__).with_name("prior_weights.npz"),
    "diamond": Path(__file__).with_name("prior_weights_diamond.npz"),
}


def variants(codes, points=AROUND) -> np.ndarray:
    """The codes of each code (an array) of the neighbours ``points`` under the 8 rotations and
    reflections of the square (int64[8, len(codes)])."""
    codes = np.asarray(codes, np.int64)
    index = {d: i for i, d in enumerate(points)}
    out = np.zeros((8, len(codes)), np.int64)
    for k, (rot, mirror) in enumerate((r, m) for r in range(4) for m in (False, True)):
        for i, (r, c) in enumerate(points):
            for _ in range(rot):
                r, c = c, -r
            out[k] |= (codes >> (2 * i) & 3) << (2 * index[(r, -c if mirror else c)])
    return out


def canonical(codes, points=AROUND) -> np.ndarray:
    """Each code's class: the least of its ``variants``."""
    return variants(codes, points).min(axis=0)


@functools.cache
def load(kind: str = "learned") -> tuple:
    """(pattern, features, diamonds, diamond weights) of the learned prior ``kind`` (a key of
    ``WEIGHTS``): the weight of each 8-neighbourhood code for a Black and a White mover
    (float64[2, CODES], in board colours), of ``FEATURES``, and of each diamond class (least
    codes in the mover's colours, empty without diamonds). Read once; read the arrays only."""
    path = WEIGHTS[kind]
    with np.load(path) as data:
        names = tuple(str(n) for n in data["feature_names"])
        if names != FEATURES:
            raise ValueError(f"{path}: its features {names} are not this version's {FEATURES}")
        mover = data["pattern"].astype(np.float64)  # by the code in the mover's colours
        features = data["features"].astype(np.float64)
        diamonds = data["diamonds"] if "diamonds" in data else np.zeros(0, np.int64)
        diamond_weights = data["diamond_weights"] if "diamonds" in data else np.zeros(0)
    white = mover[colours_swapped(np.arange(CODES))]
    return np.stack([mover, white]), features, diamonds.astype(np.int64), diamond_weights


def table_size(n_classes: int) -> int:
    """The slots of a hash table of ``n_classes`` diamond classes: a power of two, at least
    twice their codes' 8 variants (so that a look-up probes few slots)."""
    return 1 << int(16 * n_classes).bit_length()


def diamond_table(diamonds, weights, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys int64[2, size], values float64[2, size]): for a Black and a White mover, every
    rotation and reflection of each diamond class (``diamonds``, in the mover's colours) in
    board colours and its weight, in an open-addressing hash table (``diamond_weight``); key
    -1 an empty slot."""
    keys = np.full((2, size), -1, np.int64)
    values = np.zeros((2, size))
    codes = variants(diamonds, DIAMOND)
    for row, board in enumerate((codes, colours_swapped(codes, len(DIAMOND)))):
        _insert(keys[row], values[row], board.ravel(), np.tile(weights, 8))
    return keys, values


@njit(cache=True, _nrt=False, inline="always")
def _slot(code, mask):
    """The first slot of ``code`` (below 4**12) in a table of ``mask`` + 1 slots."""
    return (code * 2654435761) >> 16 & mask


@njit(cache=True, _nrt=False)
def _insert(keys, values, codes, weights):
    """Put each code with its weight into the table (a code already there: kept)."""
    mask = len(keys) - 1
    for i in range(len(codes)):
        h = _slot(codes[i], mask)
        while keys[h] >= 0 and keys[h] != codes[i]:
            h = (h + 1) & mask
        keys[h] = codes[i]
        values[h] = weights[i]


@njit(cache=True, _nrt=False, inline="always")
def diamond_weight(keys, values, code):
    """The weight of the diamond ``code`` in the table (``diamond_table``'s row), 0 where it
    is not there."""
    mask = len(keys) - 1
    h = _slot(code, mask)
    while keys[h] >= 0:
        if keys[h] == code:
            return values[h]
        h = (h + 1) & mask
    return 0.0


@njit(cache=True, _nrt=False, inline="always")
def far_code(pt, p, w):
    """The code of the points ``FAR`` from ``p`` (BORDER beyond the board)."""
    code = 0
    y, x = p // w, p % w
    for i in range(4):
        yy, xx = y + _FAR_DY[i], x + _FAR_DX[i]
        v = pt[COLOR, yy * w + xx] if 0 <= yy < w and 0 <= xx < w else BORDER
        code |= v << (2 * i)
    return code


@njit(cache=True, _nrt=False, inline="always")
def _distance(p, q, w):
    """Coulom's distance between points ``p`` and ``q``: dx + dy + max(dx, dy)."""
    dy = abs(p // w - q // w)
    dx = abs(p % w - q % w)
    return dx + dy + max(dx, dy)


@njit(cache=True, _nrt=False, inline="always")
def _near(p, q, w, first):
    """The feature of the distance from ``p`` to the last move ``q`` (0: none): ``first`` + 0
    for 2 (or less: a point whose stone was captured), ... + 5 for 7, + 6 for 8 and more; -1
    without a last move."""
    if q <= 0:
        return -1
    return first + min(max(_distance(p, q, w), 2), 8) - 2


@njit(cache=True, _nrt=False)
def move_features(s, p, c, b, line, ladders):
    """The features of colour ``c``'s real move at the empty ``p``: (its 8-neighbourhood code
    in board colours, then the index in ``FEATURES`` of each group it has, -1 where none:
    capture, save, atari, self-atari, last move's distance, own last move's distance, line).
    Reading ``ladders``, a save whose chain is caught in a ladder anyway
    (``sim.players.ladder``; ``b``, ``line``: its scratch board and line) is a self-atari, not
    a save."""
    pt = s.pt
    w = s.tab[ST, W]
    o = opponent(c)
    code = 0
    for d in range(8):
        code |= pt[COLOR, around(p, w, d)] << (2 * d)
    captured, saved, atari, runner = 0, 0, 0, -1
    for side in range(4):
        q = neighbour(p, w, side)
        cq = pt[COLOR, q]
        if cq == o:
            h = pt[HEAD, q]
            if in_atari_at(pt, h, p):
                captured = max(captured, pt[CSIZE, h])
            elif other_liberty(pt, h, p, w) > 0:  # two liberties (q next to p: p one)
                atari = max(atari, pt[CSIZE, h])
        elif cq == c and in_atari_at(pt, pt[HEAD, q], p):
            saved = max(saved, pt[CSIZE, pt[HEAD, q]])
            runner = q
    capture = -1 if captured == 0 else _CAPTURE + min(captured, 2) - 1
    save = -1
    self_atari = _SELF_ATARI if bad_self_atari(s, p, c) else -1
    if saved > 0 and liberties_after(s, p, c)[0] == MANY:
        if ladders and caught_running(b, s, runner, line):
            self_atari = _SELF_ATARI
        else:
            save = _SAVE + min(saved, 2) - 1
    put = -1 if atari == 0 else _ATARI + min(atari, 2) - 1
    last = _near(p, s.tab[ST, slot(LAST_POINT, o)], w, _LAST)
    own = _near(p, s.tab[ST, slot(LAST_POINT, c)], w, _OWN)
    size = w - 2
    line = min(p // w, p % w, size + 1 - p // w, size + 1 - p % w)
    edge = _LINE + line - 1 if line <= 4 else -1
    return (code, capture, save, put, self_atari, last, own, edge)


@njit(cache=True, _nrt=False)
def move_weight(s, p, c, pattern, features, keys, values, b, line, ladders):
    """The logarithm of the gamma of ``c``'s real move at ``p`` (``move_features``; its
    diamond's weight from the table ``keys``, ``values`` of ``diamond_table``, where it has
    slots)."""
    f = move_features(s, p, c, b, line, ladders)
    row = colour_row(c)
    total = pattern[row, f[0]]
    for i in range(1, GROUPS + 1):
        if f[i] >= 0:
            total += features[f[i]]
    if keys.shape[1] > 1:
        code = f[0] + CODES * far_code(s.pt, p, s.tab[ST, W])
        total += diamond_weight(keys[row], values[row], code)
    return total


@njit(cache=True, _nrt=False, inline="always")
def is_suicide(s, p, c):
    """Whether ``c``'s move at the empty ``p`` leaves its own chain without a liberty (the
    engine's own reading, ``lookahead.key_after``; legal only as a multi-stone suicide under
    ``suicide = "multi"``)."""
    return key_after(s, p, c)[1] != PLACES


@njit(cache=True, _nrt=False, inline="always")
def is_candidate(s, p, c, pending, suicides):
    """Whether ``c``'s real move at the empty ``p`` is one a search considers: legal, not
    filling its own eye and, unless ``suicides``, not a suicide."""
    if fills_own_eye(s, p, c) or (not suicides and is_suicide(s, p, c)):
        return False
    code = judge(s, p, c, pending)
    return code == OK or code == OK_CYCLE
