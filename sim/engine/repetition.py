"""Repetition: the position log, its filter, and the four-virtual table (docs/rules.md §4, §5).

The position after move ``m`` (real or virtual, converted passes included) is logged as
``tab[LOG_KEY, m]``, its key in the sense of the repetition rule (``rule_key``):

- global_superko, no_result, basic_ko: the global key (board key xor the keys of both
  virtual-stone counts);
- board_superko: the board key;
- situational_superko: the board key xor the key of the side to move.

A move is compared with the logged positions from st[SEG_START] on: for global_superko and
no_result the segment starts at the last virtual move (virtual-stone counts only grow, so no
earlier global position can recur), for the superko modes at the game's start; basic_ko reads
only the position two moves back (``sim.engine.history.judge``). A bit filter
(``tab[REP_BITS]``, one bit per logged key of the segment, about 1% of its bits set in a
typical game) answers "not there" for almost every move without touching the log; a set bit
makes the segment's log be read. A key match is a ban only after a full comparison in exact
mode (``st[EXACT]``). The four-virtual table counts the virtual moves made at each board
position (open addressing, cleared by a generation stamp).
"""

import numpy as np
from numba import njit

from sim.engine.board import board_into
from sim.engine.lookahead import board_after
from sim.engine.state import (
    BLACK,
    BOARD_SUPERKO,
    CAND,
    EXACT,
    FV_COUNT,
    FV_GEN,
    FV_KEY,
    FV_REF,
    FV_STAMP,
    GLOBAL_SUPERKO,
    HASH,
    LOG_KEY,
    LOG_VIRT,
    MOVES,
    NO_RESULT,
    REP,
    REP_BITS,
    SEG_START,
    SETUP_MOVE,
    SIDEKEY,
    SITUATIONAL_SUPERKO,
    ST,
    VIRT,
    VKEY,
    WHITE,
    slot,
)

# ---- position keys, the log and its filter ------------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def rule_key(g, board_key, m):
    """The key, in the sense of the repetition rule, of the position with the board key
    ``board_key`` and the current virtual stones as move ``m``."""
    st = g.tab[ST]
    rep = st[REP]
    if rep == SITUATIONAL_SUPERKO:  # Black moves after even move numbers (§1 parity)
        return board_key ^ st[slot(SIDEKEY, BLACK if (m + st[SETUP_MOVE]) & 1 == 0 else WHITE)]
    if rep == BOARD_SUPERKO:
        return board_key
    return (
        board_key
        ^ g.tab[slot(VKEY, BLACK), st[slot(VIRT, BLACK)]]  # the global key
        ^ g.tab[slot(VKEY, WHITE), st[slot(VIRT, WHITE)]]
    )


@njit(cache=True, _nrt=False, inline="always")
def filter_bit(g, key):
    """(word, bit) of ``key`` in the filter: its first cap/8 words, bits 1-6 pick the bit (bit 0
    of a key is the parity of the number of stone keys in it)."""
    return (key >> 7) & ((g.tab.shape[1] >> 3) - 1), np.int64(1) << ((key >> 1) & 63)


@njit(cache=True, _nrt=False)
def forget(g, start, stop):
    """Clear the filter bits of the positions ``start`` to ``stop - 1`` of the log (the whole
    segment: a bit two keys share goes too)."""
    for m in range(start, stop):
        word, bit = filter_bit(g, g.tab[LOG_KEY, m])
        g.tab[REP_BITS, word] &= ~bit


@njit(cache=True, _nrt=False, inline="always")
def record(g, virtual):
    """Log the position after move st[MOVES] (its key, and in exact mode its board and
    virtual stones) and enter it into the filter; a virtual move starts a new segment for
    global_superko and no_result."""
    st = g.tab[ST]
    m = st[MOVES]
    rep = st[REP]
    key = rule_key(g, st[HASH], m)
    if virtual and (rep == GLOBAL_SUPERKO or rep == NO_RESULT):
        forget(g, st[SEG_START], m)
        st[SEG_START] = m
    g.tab[LOG_KEY, m] = key
    word, bit = filter_bit(g, key)
    g.tab[REP_BITS, word] |= bit
    if st[EXACT]:
        board_into(g, g.log_board[m])
        for c in (BLACK, WHITE):
            g.tab[slot(LOG_VIRT, c), m] = st[slot(VIRT, c)]


@njit(cache=True, _nrt=False)
def relog(g):
    """Log the position after move st[MOVES] again, after a change that is not a move (stones
    removed as dead at the end)."""
    st = g.tab[ST]
    key = rule_key(g, st[HASH], st[MOVES])
    g.tab[LOG_KEY, st[MOVES]] = key
    word, bit = filter_bit(g, key)
    g.tab[REP_BITS, word] |= bit
    if st[EXACT]:
        board_into(g, g.log_board[st[MOVES]])


@njit(cache=True, _nrt=False)
def same_board(g, board, m):
    for i in range(g.log_board.shape[1]):
        if board[i] != g.log_board[m, i]:
            return False
    return True


@njit(cache=True, _nrt=False)
def same_position(g, move, m, m_next):
    """Exact mode, on a key match: whether the logged position ``m`` is the position that
    ``move`` (point, colour, effect from ``key_after``) creates as move ``m_next``, in the sense
    of the repetition rule. The candidate board is built here, only when a key matches."""
    board = g.pt[CAND]
    board_after(g, move[0], move[1], move[2], board)
    if not same_board(g, board, m):
        return False
    rep = g.tab[ST, REP]
    if rep == BOARD_SUPERKO:
        return True
    if rep == SITUATIONAL_SUPERKO:
        return (m & 1) == (m_next & 1)  # the same side to move
    for c in (BLACK, WHITE):
        if g.tab[slot(LOG_VIRT, c), m] != g.tab[ST, slot(VIRT, c)]:
            return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def repeats(g, key, move, m_next):
    """Whether a position of the segment has ``key`` (exact mode: is, compared in full)."""
    word, bit = filter_bit(g, key)
    if g.tab[REP_BITS, word] & bit == 0:
        return False
    for m in range(g.tab[ST, SEG_START], g.tab[ST, MOVES] + 1):
        if g.tab[LOG_KEY, m] == key and (not g.tab[ST, EXACT] or same_position(g, move, m, m_next)):
            return True
    return False


# ---- the four-virtual table: open addressing, cleared by a generation stamp ----------------


@njit(cache=True, _nrt=False)
def count_virtual(g):
    """Count one virtual move at the current board (just logged as move st[MOVES]);
    returns that board's count."""
    tab = g.tab
    key = g.tab[ST, HASH]
    mask = tab.shape[1] - 1
    i = key & mask
    gen = g.tab[ST, FV_GEN]
    m = g.tab[ST, MOVES]
    while tab[FV_STAMP, i] == gen:
        if tab[FV_KEY, i] == key and (
            not g.tab[ST, EXACT] or same_board(g, g.log_board[m], tab[FV_REF, i])
        ):
            tab[FV_COUNT, i] += 1
            return tab[FV_COUNT, i]
        i = (i + 1) & mask
    tab[FV_STAMP, i] = gen
    tab[FV_KEY, i] = key
    tab[FV_COUNT, i] = 1
    tab[FV_REF, i] = m
    return 1
