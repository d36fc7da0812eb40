"""The rules layer: everything that depends on a game's history (RULES.md §2-§5, §9).

Passes and their conversion, virtual moves, the repetition rule of each mode, the four-virtual
count per board position, the move cap. The position after move ``m`` (real or virtual,
converted passes included) is logged as ``tab[LOG_KEY, m]``, its key in the sense of the
repetition rule:

- global_superko, no_result, basic_ko: the global key (board key xor the keys of both
  virtual-stone counts);
- board_superko: the board key;
- situational_superko: the board key xor the key of the side to move.

A move is compared with the logged positions from st[SEG_START] on: for global_superko and
no_result the segment starts at the last virtual move (virtual-stone counts only grow, so no
earlier global position can recur), for the superko modes at the game's start; basic_ko reads
only the position two moves back. A bit filter (``tab[REP_BITS]``, one bit per logged key of
the segment, about 1% of its bits set in a typical game) answers "not there" for almost every
move without touching the log; a set bit makes the segment's log be read. A key match is a
ban only after a full comparison in exact mode (``st[EXACT]``).
"""

import numpy as np
from numba import njit

from sim.engine.board import (
    board_after,
    board_into,
    clear,
    is_empty,
    key_after,
    play_stone,
    put_stone,
)
from sim.engine.state import (
    ACTIONS,
    BASIC_KO,
    BLACK,
    BOARD_SUPERKO,
    CAND,
    CONVERTED,
    CYCLE,
    EMPTIES,
    EMPTY,
    ENDING,
    EXACT,
    FIRST_PV,
    FOUR_VIRTUAL,
    FV_COUNT,
    FV_GEN,
    FV_KEY,
    FV_REF,
    FV_STAMP,
    GAME_FIELDS,
    GAME_OVER,
    GLOBAL_SUPERKO,
    HASH,
    HEAD,
    INTERIOR,
    KO,
    LAST_POINT,
    LAST_REAL,
    LOG_KEY,
    LOG_VIRT,
    LOST,
    MAX_ACTIONS,
    MOVE_LIMIT,
    MOVES,
    N_EMPTY,
    N_ST,
    NO_RESULT,
    OCCUPIED,
    OK,
    OK_CYCLE,
    PASSES,
    PAUSE,
    PENDING_PASS,
    PLIB,
    REAL,
    REP,
    REP_BITS,
    SEG_START,
    SETUP,
    SIDEKEY,
    SITUATIONAL_SUPERKO,
    ST,
    SUIC,
    SUICIDE,
    SUICIDE_MANY,
    SUICIDE_NONE,
    SUICIDE_ONE,
    SUICIDES_BY,
    SUPERKO,
    TO_MOVE,
    VIRT,
    VKEY,
    WHITE,
    N,
    opponent,
    slot,
)

PASS, VIRTUAL = -1, -2


# ---- position keys, the log and its filter ------------------------------------------------


@njit(cache=True, _nrt=False, inline="always")
def rule_key(g, board_key, m):
    """The key, in the sense of the repetition rule, of the position with the board key
    ``board_key`` and the current virtual stones as move ``m``."""
    st = g.tab[ST]
    rep = st[REP]
    if rep == SITUATIONAL_SUPERKO:  # Black moves after even move numbers
        return board_key ^ st[slot(SIDEKEY, BLACK if m & 1 == 0 else WHITE)]
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
def _forget(g, start, stop):
    """Clear the filter bits of the positions ``start`` to ``stop - 1`` of the log (the whole
    segment: a bit two keys share goes too)."""
    for m in range(start, stop):
        word, bit = filter_bit(g, g.tab[LOG_KEY, m])
        g.tab[REP_BITS, word] &= ~bit


@njit(cache=True, _nrt=False, inline="always")
def _record(g, virtual):
    """Log the position after move st[MOVES] (its key, and in exact mode its board and
    virtual stones) and enter it into the filter; a virtual move starts a new segment for
    global_superko and no_result."""
    st = g.tab[ST]
    m = st[MOVES]
    rep = st[REP]
    key = rule_key(g, st[HASH], m)
    if virtual and (rep == GLOBAL_SUPERKO or rep == NO_RESULT):
        _forget(g, st[SEG_START], m)
        st[SEG_START] = m
    g.tab[LOG_KEY, m] = key
    word, bit = filter_bit(g, key)
    g.tab[REP_BITS, word] |= bit
    if st[EXACT]:
        board_into(g, g.log_board[m])
        for c in (BLACK, WHITE):
            g.tab[slot(LOG_VIRT, c), m] = st[slot(VIRT, c)]


@njit(cache=True, _nrt=False)
def _same_board(g, board, m):
    for i in range(g.log_board.shape[1]):
        if board[i] != g.log_board[m, i]:
            return False
    return True


@njit(cache=True, _nrt=False)
def _same_position(g, move, m, m_next):
    """Exact mode, on a key match: whether the logged position ``m`` is the position that
    ``move`` (point, colour, effect from ``key_after``) creates as move ``m_next``, in the sense
    of the repetition rule. The candidate board is built here, only when a key matches."""
    board = g.pt[CAND]
    board_after(g, move[0], move[1], move[2], board)
    if not _same_board(g, board, m):
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
def _repeats(g, key, move, m_next):
    """Whether a position of the segment has ``key`` (exact mode: is, compared in full)."""
    word, bit = filter_bit(g, key)
    if g.tab[REP_BITS, word] & bit == 0:
        return False
    for m in range(g.tab[ST, SEG_START], g.tab[ST, MOVES] + 1):
        if g.tab[LOG_KEY, m] == key and (
            not g.tab[ST, EXACT] or _same_position(g, move, m, m_next)
        ):
            return True
    return False


# ---- the four-virtual table: open addressing, cleared by a generation stamp ----------------


@njit(cache=True, _nrt=False)
def _count_virtual(g):
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
            not g.tab[ST, EXACT] or _same_board(g, g.log_board[m], tab[FV_REF, i])
        ):
            tab[FV_COUNT, i] += 1
            return tab[FV_COUNT, i]
        i = (i + 1) & mask
    tab[FV_STAMP, i] = gen
    tab[FV_KEY, i] = key
    tab[FV_COUNT, i] = 1
    tab[FV_REF, i] = m
    return 1


# ---- a game ----------------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def reset(g, setup):
    """Start a game: the setup position (N*N colours; all zero for an empty board), Black to
    move. Returns the point index (y*N+x) of a setup stone whose chain has no liberty, or -1."""
    st = g.tab[ST]
    n = st[N]
    _forget(g, st[SEG_START], st[MOVES] + 1)  # the last game's positions
    clear(g)
    st[slot(SETUP, BLACK)] = 0
    st[slot(SETUP, WHITE)] = 0
    for i in range(n * n):
        c = setup[i]
        if c != EMPTY:
            put_stone(g, g.pt[INTERIOR, i], c)
            st[slot(SETUP, c)] += 1
    for i in range(n * n):
        p = g.pt[INTERIOR, i]
        if setup[i] != EMPTY and g.pt[PLIB, g.pt[HEAD, p]] == 0:
            return i
    st[GAME_FIELDS:N_ST] = 0
    st[TO_MOVE] = BLACK
    st[FV_GEN] += 1
    _record(g, False)
    return -1


@njit(cache=True, _nrt=False, inline="always")
def judge(g, p, c, converted):
    """Whether colour ``c`` may play at ``p`` now: OK, OK_CYCLE (no_result: legal, but it
    recreates an earlier global position), OCCUPIED, SUICIDE, KO or SUPERKO. ``converted``:
    judge as if a pending pass of the opponent had become a virtual move first."""
    if not is_empty(g.pt, p):
        return OCCUPIED
    key, effect = key_after(g, p, c)
    if effect == SUICIDE_ONE or (effect == SUICIDE_MANY and g.tab[ST, SUIC] == SUICIDE_NONE):
        return SUICIDE
    rep = g.tab[ST, REP]
    if converted and rep != BOARD_SUPERKO and rep != SITUATIONAL_SUPERKO:
        return OK  # right after a virtual move no earlier global position can recur
    m = g.tab[ST, MOVES]
    m_next = m + converted + 1  # the move number of the position this move creates
    key = rule_key(g, key, m_next)
    move = (p, c, effect)
    if rep == NO_RESULT or rep == BASIC_KO:
        if (
            m >= 1
            and g.tab[LOG_KEY, m - 1] == key
            and (not g.tab[ST, EXACT] or _same_position(g, move, m - 1, m_next))
        ):
            return KO
        if rep == BASIC_KO:
            return OK
        return OK_CYCLE if _repeats(g, key, move, m_next) else OK
    if _repeats(g, key, move, m_next):
        return SUPERKO
    return OK


@njit(cache=True, _nrt=False)
def _virtual(g, c):
    """A virtual move of colour ``c`` (voluntary or a converted pass)."""
    g.tab[ST, MOVES] += 1
    g.tab[ST, slot(VIRT, c)] += 1
    if g.tab[ST, FIRST_PV] == 0:
        g.tab[ST, FIRST_PV] = c
    _record(g, True)
    if _count_virtual(g) >= 4:
        g.tab[ST, ENDING] = FOUR_VIRTUAL


@njit(cache=True, _nrt=False)
def step(g, action):
    """Take the action of the player to move: a point index of the bordered board, PASS or
    VIRTUAL. Returns OK or the reason code of an illegal action (the state is then unchanged)."""
    if g.tab[ST, ENDING] != 0:
        return GAME_OVER
    code = OK
    if action >= 0:
        code = judge(g, action, g.tab[ST, TO_MOVE], g.tab[ST, PENDING_PASS])
        if code != OK and code != OK_CYCLE:
            return code
    apply_action(g, action, code)
    return OK


@njit(cache=True, _nrt=False, inline="always")
def apply_action(g, action, code):
    """Take a legal action of the player to move; ``code`` is its ``judge`` verdict (OK or
    OK_CYCLE) for a real move."""
    st = g.tab[ST]
    c = st[TO_MOVE]
    st[ACTIONS] += 1
    if action == PASS:
        st[PASSES] += 1
        if st[FIRST_PV] == 0:
            st[FIRST_PV] = c
        if st[PENDING_PASS]:
            st[ENDING] = PAUSE
        else:
            st[PENDING_PASS] = 1
            st[TO_MOVE] = opponent(c)
    else:
        if st[PENDING_PASS]:  # the opponent's pass was declined: it becomes a virtual move first
            st[PENDING_PASS] = 0
            st[CONVERTED] += 1
            _virtual(g, opponent(c))
            if st[ENDING] != 0:
                return  # the declining action ended the game without being played
        if action == VIRTUAL:
            _virtual(g, c)
        else:
            captured, suicided = play_stone(g, action, c)
            st[MOVES] += 1
            st[slot(REAL, c)] += 1
            st[slot(LOST, opponent(c))] += captured
            st[slot(LOST, c)] += suicided
            if suicided:
                st[slot(SUICIDES_BY, c)] += 1
            st[LAST_REAL] = c
            st[slot(LAST_POINT, c)] = action
            _record(g, False)
            if code == OK_CYCLE:
                st[ENDING] = CYCLE
        st[TO_MOVE] = opponent(c)
    if st[ENDING] == 0 and st[ACTIONS] >= st[MAX_ACTIONS]:
        st[ENDING] = MOVE_LIMIT


@njit(cache=True, _nrt=False)
def legal_points(g, out):
    """Fill ``out`` with the points (bordered indices) where the player to move may make a
    real move now, a pending pass counted as converted; returns how many."""
    if g.tab[ST, ENDING] != 0:
        return 0
    c = g.tab[ST, TO_MOVE]
    k = 0
    for i in range(g.tab[ST, N_EMPTY]):
        p = g.pt[EMPTIES, i]
        code = judge(g, p, c, g.tab[ST, PENDING_PASS])
        if code == OK or code == OK_CYCLE:
            out[k] = p
            k += 1
    return k
