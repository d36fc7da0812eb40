"""Scoring kernels (RULES.md §7): JPD point ownership and area, the literal equal-stones
count, Chinese area (Tromp-Taylor regions) and Japanese territory with the seki test.

``outcome_row`` writes one game's raw outcome (integers) into a row of ``RAW_FIELDS``;
``sim.outcome`` turns rows into named columns, margins and winners.
"""

from numba import njit

from sim.board import has_one_liberty
from sim.state import (
    ACTIONS, BLACK, COLOR, CONVERTED, COPY, COPY_LAB, EMPTY, ENDING, FIRST_PV, HEAD, INTERIOR, LAB,
    LAST_REAL, LOST, MOVES, N, OWNER, PASSES, REAL, REGION, REP_BANS, SEKI, SETUP, ST, STACK,
    SUICIDES_, TALLY, VIRT, W, WHITE,
)

PUBLIC = 3  # label of a public / neutral empty point (BLACK and WHITE label owned points)

RAW_FIELDS = (
    "ending", "actions", "moves", "real_moves_b", "real_moves_w", "virtual_moves_b",
    "virtual_moves_w", "passes", "converted_passes", "stones_lost_b", "stones_lost_w",
    "suicides_b", "suicides_w", "first_pass_or_virtual_by", "last_real_move_by", "stones_b",
    "stones_w", "public_points", "territory_b_jpd", "territory_w_jpd", "area2_b_jpd",
    "area2_w_jpd", "moku_b", "moku_w", "balanced_moves", "equal_stones_diff2",
    "area_diff_chinese", "territory_diff_japanese", "prisoners_b", "prisoners_w",
    "repetition_bans",
)
(R_ENDING, R_ACTIONS, R_MOVES, R_REAL, _R_REAL_W, R_VIRT, _R_VIRT_W, R_PASSES, R_CONVERTED,
 R_LOST, _R_LOST_W, R_SUICIDES, _R_SUICIDES_W, R_FIRST_PV, R_LAST_REAL, R_STONES, _R_STONES_W,
 R_PUBLIC, R_TERR, _R_TERR_W, R_AREA2, _R_AREA2_W, R_MOKU, _R_MOKU_W, R_BALANCED, R_ES_DIFF2,
 R_CHINESE, R_JAPANESE, R_PRISONERS, _R_PRISONERS_W, R_REP_BANS) = range(len(RAW_FIELDS))


@njit(cache=True, _nrt=False)
def _flood(g, start, lab, stack, through):
    """Collect into ``stack`` the empty points connected to ``start`` through empty points whose
    label is ``through``; returns (count, colours bordered: bit 1 Black, bit 2 White)."""
    w = g.tab[ST, W]
    lab[start] = -1
    stack[0] = start
    k, top, seen = 1, 0, 0
    while top < k:
        p = stack[top]
        top += 1
        for q in (p - w, p - 1, p + 1, p + w):
            c = g.pt[COLOR, q]
            if c == EMPTY:
                if lab[q] == through:
                    lab[q] = -1
                    stack[k] = q
                    k += 1
            elif c == BLACK or c == WHITE:
                seen |= c
    return k, seen


@njit(cache=True, _nrt=False)
def ownership(g, lab, jpd):
    """Ownership of every empty point into ``lab`` (BLACK, WHITE or PUBLIC).

    ``jpd=False``: Tromp-Taylor regions (Chinese scoring) — a maximal empty region belongs
    to the one colour it borders, else it is neutral (PUBLIC).
    ``jpd=True``: JPD ownership (A§6.1) — first every point touching both colours is public
    (a shared liberty); the other empty points form components, connected through non-public
    empty points, that belong to the one colour they touch, else are public."""
    n, w = g.tab[ST, N], g.tab[ST, W]
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        seen = 0
        if jpd and g.pt[COLOR, p] == EMPTY:
            for q in (p - w, p - 1, p + 1, p + w):
                if g.pt[COLOR, q] == BLACK or g.pt[COLOR, q] == WHITE:
                    seen |= g.pt[COLOR, q]
        lab[p] = PUBLIC if seen == 3 else 0
    stack = g.pt[STACK]
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        if g.pt[COLOR, p] == EMPTY and lab[p] == 0:
            k, seen = _flood(g, p, lab, stack, 0)
            owner = seen if seen == BLACK or seen == WHITE else PUBLIC
            for i in range(k):
                lab[stack[i]] = owner


@njit(cache=True, _nrt=False)
def japanese_territory(g, region, terr):
    """Territory of each colour under the seki test of RULES.md §7.4 (KataGo's
    independent-life area with the seki tax), every stone alive; ``region`` from
    ``ownership(g, region, False)``. Writes terr[1], terr[2]."""
    n, w = g.tab[ST, N], g.tab[ST, W]
    owner = g.pt[OWNER]
    seki = g.pt[SEKI]
    owner[:] = 0
    seki[:] = 0
    stack = g.pt[STACK]
    k = 0
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        c = g.pt[COLOR, p]
        owner[p] = c if c != EMPTY else (region[p] if region[p] != PUBLIC else 0)
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        o = owner[p]
        if o == 0:
            continue
        seed = g.pt[COLOR, p] == o and has_one_liberty(g.pt, g.pt[HEAD, p])
        for q in (p - w, p - 1, p + 1, p + w):
            if g.pt[COLOR, q] == EMPTY and owner[q] == 0:
                seed = True
        if seed and not seki[p]:
            seki[p] = 1
            stack[k] = p
            k += 1
    while k > 0:
        k -= 1
        p = stack[k]
        for q in (p - w, p - 1, p + 1, p + w):
            if owner[q] == owner[p] and g.pt[COLOR, q] != 3 and not seki[q]:
                seki[q] = 1
                stack[k] = q
                k += 1
    terr[1] = 0
    terr[2] = 0
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        if g.pt[COLOR, p] == EMPTY and owner[p] != 0 and not seki[p]:
            terr[owner[p]] += 1


@njit(cache=True, _nrt=False)
def _take_black_stone(g, board, lab, want):
    """Take a Black stone off ``board`` (a copy): the first one next to a point whose colour
    (stones) or label (empty points) is ``want``, else any; returns its point or -1."""
    n, w = g.tab[ST, N], g.tab[ST, W]
    fallback = -1
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        if board[p] != BLACK:
            continue
        if fallback < 0:
            fallback = p
        for q in (p - w, p - 1, p + 1, p + w):
            if board[q] == want or (board[q] == EMPTY and lab[q] == want):
                board[p] = EMPTY
                return p
    if fallback >= 0:
        board[fallback] = EMPTY
    return fallback


@njit(cache=True, _nrt=False)
def equal_stones(g, lab, res):
    """The literal equal-stones count (A§7.1, A'§7.1, RULES.md §7.2) on a copy of the board,
    with JPD labels ``lab``: balance the move numbers (A- or B-negative move), refill lost and
    virtual stones into own territory, then count. Writes res[0..1] = moku of Black and
    White, res[2] = balanced move number, res[3] = 2 * (Black's total - White's total)."""
    n = g.tab[ST, N]
    st = g.tab[ST]
    board, labels = g.pt[COPY], g.pt[COPY_LAB]
    for p in range(board.size):
        board[p] = g.pt[COLOR, p]
        labels[p] = lab[p]
    lab = labels
    tally = g.tab[TALLY].reshape(-1, 4)
    tally[:6] = 0
    refill, unplaced, moku, stones, total2, k = tally[0], tally[1], tally[2], tally[3], tally[4], tally[5]
    s_b = st[REAL] + st[VIRT]
    s_w = st[REAL + 1] + st[VIRT + 1]
    refill[BLACK] = st[LOST] + st[VIRT]
    refill[WHITE] = st[LOST + 1] + st[VIRT + 1]
    missing_b = 0     # a negative move with no Black stone on the board: bookkeeping only
    public_extra = 0
    black_extra = 0
    if st[FIRST_PV] == WHITE:  # A-negative move: Black pays one point into the public
        p = _take_black_stone(g, board, lab, WHITE)
        if p >= 0:
            lab[p] = PUBLIC
        else:
            missing_b, public_extra = 1, 1
        if s_b == s_w:
            refill[BLACK] += 1  # the stone is refilled into Black's territory
    elif s_b - s_w == 1:  # B-negative move: a Black stone inside Black's territory is taken off
        p = _take_black_stone(g, board, lab, BLACK)
        if p >= 0:
            lab[p] = BLACK
        else:
            missing_b, black_extra = 1, 1
    for c in (BLACK, WHITE):
        left = refill[c]
        for i in range(n * n):
            p = g.pt[INTERIOR, i]
            if left > 0 and board[p] == EMPTY and lab[p] == c:
                board[p] = c
                left -= 1
        unplaced[c] = left  # overflow: the territory is too small (A§7.1 (3))
    public = public_extra
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        if board[p] == EMPTY:
            if lab[p] == PUBLIC:
                public += 1
            else:
                moku[lab[p]] += 1
        else:
            stones[board[p]] += 1
    moku[BLACK] += black_extra
    stones[BLACK] -= missing_b
    for c in (BLACK, WHITE):
        moku[c] -= unplaced[c]
        k[c] = stones[c] + unplaced[c] - st[SETUP + c - 1]  # stones each side has played, net
        total2[c] = 2 * (moku[c] + k[c] + st[SETUP + c - 1]) + public
    res[0] = moku[BLACK]
    res[1] = moku[WHITE]
    res[2] = k[BLACK] + k[WHITE]
    res[3] = total2[BLACK] - total2[WHITE]


@njit(cache=True, _nrt=False)
def outcome_row(g, row):
    """The raw outcome of the game as it stands (every stone alive) into ``row``."""
    st = g.tab[ST]
    n = st[N]
    row[R_ENDING] = st[ENDING]
    row[R_ACTIONS] = st[ACTIONS]
    row[R_MOVES] = st[MOVES]
    row[R_PASSES] = st[PASSES]
    row[R_CONVERTED] = st[CONVERTED]
    row[R_FIRST_PV] = st[FIRST_PV]
    row[R_LAST_REAL] = st[LAST_REAL]
    row[R_REP_BANS] = st[REP_BANS]
    for i in range(2):
        row[R_REAL + i] = st[REAL + i]
        row[R_VIRT + i] = st[VIRT + i]
        row[R_LOST + i] = st[LOST + i]
        row[R_SUICIDES + i] = st[SUICIDES_ + i]
        row[R_PRISONERS + i] = st[LOST + 1 - i]
    lab, region = g.pt[LAB], g.pt[REGION]
    ownership(g, lab, True)
    ownership(g, region, False)
    tally = g.tab[TALLY].reshape(-1, 4)
    tally[6:11] = 0
    stones, terr, chinese = tally[6], tally[7], tally[8]  # terr, chinese: [PUBLIC] too
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        c = g.pt[COLOR, p]
        if c != EMPTY:
            stones[c] += 1
            chinese[c] += 1
        else:
            terr[lab[p]] += 1
            chinese[region[p]] += 1
    row[R_PUBLIC] = terr[PUBLIC]
    for i in range(2):
        row[R_STONES + i] = stones[1 + i]
        row[R_TERR + i] = terr[1 + i]
        row[R_AREA2 + i] = 2 * (stones[1 + i] + terr[1 + i]) + terr[PUBLIC]
    row[R_CHINESE] = chinese[BLACK] - chinese[WHITE]
    jap = tally[9]
    japanese_territory(g, region, jap)
    row[R_JAPANESE] = jap[BLACK] + st[LOST + 1] - jap[WHITE] - st[LOST]
    res = tally[10]
    equal_stones(g, lab, res)
    row[R_MOKU] = res[0]
    row[R_MOKU + 1] = res[1]
    row[R_BALANCED] = res[2]
    row[R_ES_DIFF2] = res[3]
