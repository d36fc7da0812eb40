"""Scoring kernels (docs/rules.md §7): JPD point ownership and area, the literal equal-stones
count, Chinese area (Tromp-Taylor regions) and Japanese territory with the seki test.

Each method writes its counts into the scoring's counters (``counter``) or into the outcome
row; ``sim.engine.outcome.outcome_row`` calls them at the end of a game.
"""

from numba import njit

from sim.engine.board import has_one_liberty, is_stone, neighbour
from sim.engine.state import (
    BLACK,
    BORDER,
    COLOR,
    COPY,
    EMPTIES,
    EMPTY,
    FIRST_PV,
    HEAD,
    LOST,
    N_EMPTY,
    REAL,
    SEKI,
    SETUP,
    SETUP_MOVE,
    ST,
    STACK,
    STACK2,
    T_COPY_STONES,
    T_LEFT,
    T_MOKU,
    T_NET,
    T_REFILL,
    TALLY,
    TALLY_WIDTH,
    VIRT,
    WHITE,
    N,
    W,
    slot,
)

PUBLIC = 3  # label of a public / neutral empty point (BLACK and WHITE label owned points)


@njit(cache=True, _nrt=False, inline="always")
def counter(g, k):
    """The scoring's counter ``k`` (``sim.engine.state.T_*``): TALLY_WIDTH values, indexed by
    colour or owner (PUBLIC)."""
    return g.tab[TALLY, k * TALLY_WIDTH : (k + 1) * TALLY_WIDTH]


@njit(cache=True, _nrt=False)
def _flood(g, start, lab, stack):
    """Collect into ``stack`` the empty points connected to ``start`` through empty points
    labelled 0, labelling them -1; returns (count, colours bordered: bit 1 Black, bit 2 White)."""
    w = g.tab[ST, W]
    lab[start] = -1
    stack[0] = start
    k, top, seen = 1, 0, 0
    while top < k:
        p = stack[top]
        top += 1
        for side in range(4):
            q = neighbour(p, w, side)
            c = g.pt[COLOR, q]
            if c == EMPTY:
                if lab[q] == 0:
                    lab[q] = -1
                    stack[k] = q
                    k += 1
            elif c != BORDER:
                seen |= c
    return k, seen


@njit(cache=True, _nrt=False, inline="always")
def _count_stones(board, n, w):
    """(Black, White) stones on ``board`` (a bordered N x N board), row by row, no branch."""
    black = white = 0
    for y in range(1, n + 1):
        for p in range(y * w + 1, y * w + n + 1):
            black += board[p] == BLACK
            white += board[p] == WHITE
    return black, white


@njit(cache=True, _nrt=False)
def _owner(seen):
    return seen if seen == BLACK or seen == WHITE else PUBLIC


@njit(cache=True, _nrt=False)
def ownership(g, region, lab, stones, regions, labels):
    """Ownership of every empty point (BLACK, WHITE or PUBLIC) in two senses, with counts:
    ``stones[c]`` stones of colour c, ``regions[o]`` and ``labels[o]`` empty points of each
    owner o in each sense (zeroed here).

    ``region``: Tromp-Taylor regions (Chinese scoring) — a maximal empty region belongs to the
    one colour it borders, else it is neutral (PUBLIC).
    ``lab``: JPD ownership (A§6.1) — first every point touching both colours is public (a
    shared liberty); the other empty points form components, connected through non-public
    empty points, that belong to the one colour they touch, else are public. A region that
    borders one colour has no such point, so only regions bordering both are split again."""
    n, w = g.tab[ST, N], g.tab[ST, W]
    region[:] = 0
    regions[:] = 0
    labels[:] = 0
    stones[:] = 0
    stones[BLACK], stones[WHITE] = _count_stones(g.pt[COLOR], n, w)
    stack, inner = g.pt[STACK], g.pt[STACK2]
    for i in range(g.tab[ST, N_EMPTY]):  # the empty points: the regions and their labels
        p = g.pt[EMPTIES, i]
        if region[p] != 0:
            continue
        k, seen = _flood(g, p, region, stack)
        owner = _owner(seen)
        regions[owner] += k
        for j in range(k):
            region[stack[j]] = owner
            lab[stack[j]] = owner
        if seen != BLACK | WHITE:
            labels[owner] += k
            continue
        for j in range(k):
            q = stack[j]
            touch = 0
            for side in range(4):
                r = neighbour(q, w, side)
                if g.pt[COLOR, r] != BORDER:
                    touch |= g.pt[COLOR, r]
            lab[q] = PUBLIC if touch == BLACK | WHITE else 0
            labels[PUBLIC] += lab[q] == PUBLIC
        for j in range(k):
            q = stack[j]
            if lab[q] == 0:
                m, seen = _flood(g, q, lab, inner)
                owner = _owner(seen)
                labels[owner] += m
                for i2 in range(m):
                    lab[inner[i2]] = owner


@njit(cache=True, _nrt=False, inline="always")
def _japanese_owner(g, region, p):
    """The owner of ``p`` in the seki test: its stone's colour, its region's owner if empty,
    else 0 (a dame or the border)."""
    c = g.pt[COLOR, p]
    if c == EMPTY:
        return region[p] if region[p] != PUBLIC else 0
    return c if c != BORDER else 0


@njit(cache=True, _nrt=False)
def japanese_territory(g, region, owned, terr):
    """Territory of each colour under the seki test of docs/rules.md §7.2 item 4 (KataGo's
    independent-life area with the seki tax), every stone alive; ``region`` and ``owned``
    (each colour's empty points by region) from ``ownership``. Writes terr[BLACK], terr[WHITE].

    A point is owned by its stone's colour, an empty point by its region (dame: owned by
    none). Seeds: owned stones in atari and owned points next to a dame (only stones can be:
    an empty point next to a dame is in its region); every owned point connected to a seed
    through points of the same owner is in seki and counts nothing."""
    w = g.tab[ST, W]
    seki = g.pt[SEKI]
    stack = g.pt[STACK]
    seki[:] = 0
    terr[BLACK] = owned[BLACK]
    terr[WHITE] = owned[WHITE]
    k = 0
    for i in range(g.tab[ST, N_EMPTY]):  # every chain in atari has its liberty among these
        e = g.pt[EMPTIES, i]
        dame = region[e] == PUBLIC
        for side in range(4):
            q = neighbour(e, w, side)
            c = g.pt[COLOR, q]
            if not is_stone(c):
                continue
            if dame:  # a stone next to a dame is a seed
                s = q
            elif has_one_liberty(g.pt, g.pt[HEAD, q]):
                s = g.pt[HEAD, q]  # a chain in atari: its head is a seed (the rest is connected)
            else:
                continue
            if not seki[s]:
                seki[s] = 1
                stack[k] = s
                k += 1
    while k > 0:
        k -= 1
        p = stack[k]
        o = _japanese_owner(g, region, p)
        for side in range(4):
            q = neighbour(p, w, side)
            if not seki[q] and _japanese_owner(g, region, q) == o:
                seki[q] = 1
                if g.pt[COLOR, q] == EMPTY:
                    terr[o] -= 1
                stack[k] = q
                k += 1


@njit(cache=True, _nrt=False)
def _take_black_stone(g, board, lab, want):
    """Take a Black stone off ``board`` (a copy): the first one in scan order next to a point
    whose colour (stones) or label (empty points) is ``want``, else the first; returns its
    point or -1."""
    n, w = g.tab[ST, N], g.tab[ST, W]
    fallback = -1
    for y in range(1, n + 1):
        for p in range(y * w + 1, y * w + n + 1):
            if board[p] != BLACK:
                continue
            if fallback < 0:
                fallback = p
            for side in range(4):
                q = neighbour(p, w, side)
                if board[q] == want or (board[q] == EMPTY and lab[q] == want):
                    board[p] = EMPTY
                    return p
    if fallback >= 0:
        board[fallback] = EMPTY
    return fallback


@njit(cache=True, _nrt=False, inline="always")
def _refill(board, p, label, left, moku):
    """The empty point ``p`` of the copy, owned by ``label``: a stone of its owner goes there
    while that side has stones left to refill, else it is one of its owner's 目; returns 1 for
    a public point (left empty), else 0."""
    if label == PUBLIC:
        return 1
    if left[label] > 0:
        board[p] = label
        left[label] -= 1
    else:
        moku[label] += 1
    return 0


@njit(cache=True, _nrt=False)
def equal_stones(g, lab):
    """The literal equal-stones count (A§7.1, A'§7.1, docs/rules.md §7.2 item 2) on a copy of
    the board, with JPD labels ``lab``: balance the move numbers (A- or B-negative move),
    refill lost and virtual stones into own territory, then count the copy. Leaves each
    side's moku in the counter T_MOKU; returns (balanced move number, 2 * (Black's total -
    White's total))."""
    n, w = g.tab[ST, N], g.tab[ST, W]
    st = g.tab[ST]
    board = g.pt[COPY]  # its border stays BORDER (new_state)
    color = g.pt[COLOR]
    for y in range(1, n + 1):
        for p in range(y * w + 1, y * w + n + 1):
            board[p] = color[p]
    refill, left, moku = counter(g, T_REFILL), counter(g, T_LEFT), counter(g, T_MOKU)
    stones, net = counter(g, T_COPY_STONES), counter(g, T_NET)
    moku[:] = 0
    s_b = st[slot(REAL, BLACK)] + st[slot(VIRT, BLACK)] + st[SETUP_MOVE]  # §1 parity
    s_w = st[slot(REAL, WHITE)] + st[slot(VIRT, WHITE)]
    for c in (BLACK, WHITE):
        refill[c] = st[slot(LOST, c)] + st[slot(VIRT, c)]
    missing_b = 0  # a negative move with no Black stone on the board: bookkeeping only
    public_extra = 0
    black_extra = 0
    taken, taken_label = -1, 0  # the point a negative move empties, and its label then
    if st[FIRST_PV] == WHITE:  # A-negative move: Black pays one point into the public
        taken, taken_label = _take_black_stone(g, board, lab, WHITE), PUBLIC
        if taken < 0:
            missing_b, public_extra = 1, 1
        if s_b == s_w:
            refill[BLACK] += 1  # the stone is refilled into Black's territory
    elif s_b - s_w == 1:  # B-negative move: a Black stone inside Black's territory is taken off
        taken, taken_label = _take_black_stone(g, board, lab, BLACK), BLACK
        if taken < 0:
            missing_b, black_extra = 1, 1
    left[BLACK], left[WHITE] = refill[BLACK], refill[WHITE]
    public = public_extra
    for i in range(st[N_EMPTY]):  # refill the board's empty points, then the taken stone's
        p = g.pt[EMPTIES, i]
        public += _refill(board, p, lab[p], left, moku)
    if taken >= 0:
        public += _refill(board, taken, taken_label, left, moku)
    stones[BLACK], stones[WHITE] = _count_stones(board, n, w)  # count the refilled copy
    moku[BLACK] += black_extra
    stones[BLACK] -= missing_b
    diff2 = 0
    for c in (BLACK, WHITE):  # overflow (left[c] > 0): the territory is too small (A§7.1 (3))
        moku[c] -= left[c]
        net[c] = stones[c] + left[c] - st[slot(SETUP, c)]  # stones each side has played, net
        total2 = 2 * (moku[c] + net[c] + st[slot(SETUP, c)]) + public
        diff2 += total2 if c == BLACK else -total2
    return net[BLACK] + net[WHITE] + st[SETUP_MOVE], diff2
