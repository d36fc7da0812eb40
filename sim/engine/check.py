"""The state check: everything the engine keeps incrementally, recomputed from the board.

``check_consistency`` walks the board colours and compares: every chain (its head, its
circular list, its size, its pseudo-liberty count, sum and sum of squares, its key), the
board key, the empty-point list, the counters (stones on the board = setup stones + real
moves - stones lost; move number = real + virtual moves; the side to move) and the key the
history logged for the current position. It returns a problem code and the point where it
was seen, never raises (a kernel); ``describe`` words the code. The engine-vs-reference
tests run it after every action; ``play_batch(check=True)`` runs it in batches.
"""

from numba import njit

from sim.engine.board import is_stone, neighbour
from sim.engine.repetition import filter_bit, rule_key
from sim.engine.state import (
    BLACK,
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
    LOG_KEY,
    LOST,
    MARK,
    MOVES,
    N_EMPTY,
    NXT,
    PENDING_PASS,
    PLAIN,
    PLIB,
    REAL,
    REP_BITS,
    SETUP,
    SETUP_MOVE,
    ST,
    STACK,
    TO_MOVE,
    VIRT,
    WHITE,
    ZOB,
    N,
    W,
    opponent,
    slot,
)
from sim.schema.coords import format_action

CONSISTENT = 0
PROBLEMS = (
    None,
    "a point is missing from the empty-point list, or listed twice",
    "a stone's chain head is not the head of its chain",
    "a chain's circular list does not hold exactly its stones",
    "a chain's size is wrong",
    "a chain's pseudo-liberties (count, sum or sum of squares) are wrong",
    "a chain's key is not the xor of its stone keys",
    "the board key is not the xor of the stone keys on the board",
    "the counters disagree: stones on the board != setup stones + real moves - stones lost, "
    "or the move number != real + virtual moves",
    "the side to move does not follow from the move number and a pending pass",
    "the logged key of the current position is not the recomputed one (or not in the filter)",
)
(
    _,
    BAD_EMPTIES,
    BAD_HEAD,
    BAD_LIST,
    BAD_SIZE,
    BAD_LIBERTIES,
    BAD_CHAIN_KEY,
    BAD_HASH,
    BAD_COUNTS,
    BAD_TO_MOVE,
    BAD_LOG_KEY,
) = range(len(PROBLEMS))


def describe(g, code: int, point: int) -> str:
    """The words of a problem that ``check_consistency`` found in the state ``g``."""
    if point < 0:
        return PROBLEMS[code]
    return f"{PROBLEMS[code]} (at {format_action(int(g.pt[PLAIN, point]), int(g.tab[ST, N]))})"


@njit(cache=True, _nrt=False)
def _check_chain(g, head):
    """Flood the chain of the stone ``head`` (marking its stones in pt[MARK]) and compare it
    with the chain's incremental fields; returns a problem code."""
    pt, w = g.pt, g.tab[ST, W]
    c = pt[COLOR, head]
    stack = pt[STACK]
    stack[0] = head
    pt[MARK, head] = 1
    k, top = 1, 0
    libs = libsum = libsq = key = 0
    while top < k:
        p = stack[top]
        top += 1
        if pt[HEAD, p] != head:
            return BAD_HEAD
        key ^= pt[slot(ZOB, c), p]
        for side in range(4):
            q = neighbour(p, w, side)
            if pt[COLOR, q] == EMPTY:
                libs += 1
                libsum += q
                libsq += q * q
            elif pt[COLOR, q] == c and pt[MARK, q] == 0:
                pt[MARK, q] = 1
                stack[k] = q
                k += 1
    if pt[CSIZE, head] != k:
        return BAD_SIZE
    s, n = head, 0
    while True:  # the circular list: k steps back to the head, through stones of the chain
        if pt[COLOR, s] != c or pt[MARK, s] != 1:
            return BAD_LIST
        pt[MARK, s] = 2
        n += 1
        s = pt[NXT, s]
        if s == head or n > k:
            break
    if s != head or n != k:
        return BAD_LIST
    if pt[PLIB, head] != libs or pt[LIBSUM, head] != libsum or pt[LIBSQ, head] != libsq:
        return BAD_LIBERTIES
    if pt[CHASH, head] != key:
        return BAD_CHAIN_KEY
    return CONSISTENT


@njit(cache=True, _nrt=False)
def check_consistency(g):
    """(problem code, point) of the first inconsistency found, or (CONSISTENT, -1)."""
    pt, st = g.pt, g.tab[ST]
    n = st[N]
    on_board_b = on_board_w = empties = 0
    board_key = 0
    for i in range(n * n):
        pt[MARK, pt[INTERIOR, i]] = 0
    for i in range(n * n):
        p = pt[INTERIOR, i]
        c = pt[COLOR, p]
        if c == EMPTY:
            empties += 1
            j = pt[EPOS, p]
            if j < 0 or j >= st[N_EMPTY] or pt[EMPTIES, j] != p:
                return BAD_EMPTIES, p
            continue
        if not is_stone(c):
            return BAD_HEAD, p
        board_key ^= pt[slot(ZOB, c), p]
        if c == BLACK:
            on_board_b += 1
        else:
            on_board_w += 1
        h = pt[HEAD, p]
        if pt[COLOR, h] != c or pt[HEAD, h] != h:
            return BAD_HEAD, p
        if pt[MARK, p] == 0:
            if pt[MARK, h] != 0:
                return BAD_HEAD, p  # its head was reached from another stone's chain
            code = _check_chain(g, h)
            if code != CONSISTENT:
                return code, h
            if pt[MARK, p] == 0:
                return BAD_HEAD, p  # not in the chain of its head
    if empties != st[N_EMPTY]:
        return BAD_EMPTIES, -1
    if board_key != st[HASH]:
        return BAD_HASH, -1
    moves = 0
    for c, on_board in ((BLACK, on_board_b), (WHITE, on_board_w)):
        if on_board != st[slot(SETUP, c)] + st[slot(REAL, c)] - st[slot(LOST, c)]:
            return BAD_COUNTS, -1
        moves += st[slot(REAL, c)] + st[slot(VIRT, c)]
    if moves != st[MOVES]:
        return BAD_COUNTS, -1
    by_parity = BLACK if (st[MOVES] + st[SETUP_MOVE]) % 2 == 0 else WHITE
    if st[TO_MOVE] != (opponent(by_parity) if st[PENDING_PASS] else by_parity):
        return BAD_TO_MOVE, -1
    key = rule_key(g, st[HASH], st[MOVES])
    word, bit = filter_bit(g, key)
    if g.tab[LOG_KEY, st[MOVES]] != key or g.tab[REP_BITS, word] & bit == 0:
        return BAD_LOG_KEY, -1
    return CONSISTENT, -1
