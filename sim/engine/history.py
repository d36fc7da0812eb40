"""The rules layer: everything that depends on a game's history (docs/rules.md §2-§5, §9).

Passes and their conversion, virtual moves, the repetition rule of each mode (judged here on
the position log of ``sim.engine.repetition``), the four-virtual ending, the move cap, and the
start of a game.
"""

from numba import njit

from sim.engine.board import (
    clear,
    copy_board,
    is_empty,
    play_stone,
    put_stone,
)
from sim.engine.lookahead import key_after
from sim.engine.repetition import (
    count_virtual,
    record,
    repeats,
    rule_key,
    same_position,
)
from sim.engine.state import (
    ACTIONS,
    BASIC_KO,
    BLACK,
    BOARD_SUPERKO,
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
    HEAD,
    INTERIOR,
    KO,
    LAST_POINT,
    LAST_REAL,
    LOG_KEY,
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
    RESIGNED,
    RESIGNED_BY,
    SEG_START,
    SETUP,
    SETUP_MOVE,
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
    WHITE,
    N,
    opponent,
    slot,
)
from sim.schema.coords import PASS, RESIGN, VIRTUAL

# ---- a game ----------------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def copy_game(dst, src):
    """Make ``dst`` (a state of the same rules, not exact) the game ``src`` as it stands, for
    a search to play on: the board's chains and empty points, the scalars, the position log's
    segment and filter, and this game's four-virtual counts (under a new generation stamp).
    ``dst`` stays not exact, whether ``src`` is or not: it logs no boards."""
    gen = dst.tab[ST, FV_GEN] + 1
    copy_board(dst, src)
    dst.tab[ST, FV_GEN] = gen
    dst.tab[ST, EXACT] = 0
    for i in range(src.tab.shape[1] >> 3):
        dst.tab[REP_BITS, i] = src.tab[REP_BITS, i]
    for m in range(src.tab[ST, SEG_START], src.tab[ST, MOVES] + 1):
        dst.tab[LOG_KEY, m] = src.tab[LOG_KEY, m]
    if src.tab[ST, slot(VIRT, BLACK)] + src.tab[ST, slot(VIRT, WHITE)] > 0:
        stamp = src.tab[ST, FV_GEN]
        for i in range(src.tab.shape[1]):
            if src.tab[FV_STAMP, i] == stamp:
                dst.tab[FV_STAMP, i] = gen
                dst.tab[FV_KEY, i] = src.tab[FV_KEY, i]
                dst.tab[FV_COUNT, i] = src.tab[FV_COUNT, i]
                dst.tab[FV_REF, i] = src.tab[FV_REF, i]


@njit(cache=True, _nrt=False)
def reset(g, setup, first):
    """Start a game: the setup position (N*N colours; all zero for an empty board), colour
    ``first`` to move (WHITE: the setup counts as Black's move for the move number's parity,
    docs/rules.md §9). Returns the point index (y*N+x) of a setup stone whose chain has no
    liberty, or -1."""
    st = g.tab[ST]
    n = st[N]
    g.tab[REP_BITS, : g.tab.shape[1] >> 3] = 0  # the last game's positions, filter and all
    clear(g)
    st[slot(SETUP, BLACK)] = 0
    st[slot(SETUP, WHITE)] = 0
    for i in range(n * n):
        c = setup[i]
        if c != EMPTY:
            put_stone(g, g.pt[INTERIOR, i], c)
            st[slot(SETUP, c)] += 1
    for i in range(n * n if st[slot(SETUP, BLACK)] + st[slot(SETUP, WHITE)] else 0):
        p = g.pt[INTERIOR, i]
        if setup[i] != EMPTY and g.pt[PLIB, g.pt[HEAD, p]] == 0:
            return i
    st[GAME_FIELDS:N_ST] = 0
    st[TO_MOVE] = first
    st[SETUP_MOVE] = first == WHITE
    st[FV_GEN] += 1
    record(g, False)
    return -1


def _judge(g, p, c, converted):
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
            and (not g.tab[ST, EXACT] or same_position(g, move, m - 1, m_next))
        ):
            return KO
        if rep == BASIC_KO:
            return OK
        return OK_CYCLE if repeats(g, key, move, m_next) else OK
    if repeats(g, key, move, m_next):
        return SUPERKO
    return OK


@njit(cache=True, _nrt=False)
def virtual_move(g, c):
    """A virtual move of colour ``c`` (voluntary or a converted pass); the move passes to the
    opponent, as after any move."""
    g.tab[ST, TO_MOVE] = opponent(c)
    g.tab[ST, MOVES] += 1
    g.tab[ST, slot(VIRT, c)] += 1
    if g.tab[ST, FIRST_PV] == 0:
        g.tab[ST, FIRST_PV] = c
    record(g, True)
    if count_virtual(g) >= 4:
        g.tab[ST, ENDING] = FOUR_VIRTUAL


@njit(cache=True, _nrt=False)
def step(g, action):
    """Take the action of the player to move: a point index of the bordered board, PASS,
    VIRTUAL or RESIGN (a pause's settlement is ``sim.engine.pause.settle``). Returns OK or the
    reason code of an illegal action (the state is then unchanged)."""
    if g.tab[ST, ENDING] != 0:
        return GAME_OVER
    code = OK
    if action >= 0:
        code = judge(g, action, g.tab[ST, TO_MOVE], g.tab[ST, PENDING_PASS])
        if code != OK and code != OK_CYCLE:
            return code
    apply_action(g, action, code)
    return OK


def _apply_action(g, action, code):
    """Take a legal action of the player to move; ``code`` is its ``judge`` verdict (OK or
    OK_CYCLE) for a real move."""
    st = g.tab[ST]
    c = st[TO_MOVE]
    st[ACTIONS] += 1
    if action == RESIGN:  # the game ends; a pending pass stays unconverted (docs/rules.md §4)
        st[ENDING] = RESIGNED
        st[RESIGNED_BY] = c
        return
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
            virtual_move(g, opponent(c))
            if st[ENDING] != 0:
                return  # the declining action ended the game without being played
        if action == VIRTUAL:
            virtual_move(g, c)
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
            record(g, False)
            if code == OK_CYCLE:
                st[ENDING] = CYCLE
        st[TO_MOVE] = opponent(c)
    if st[ENDING] == 0 and st[ACTIONS] >= st[MAX_ACTIONS]:
        st[ENDING] = MOVE_LIMIT


# One compiled copy each for the callers, and an inlined one for the light playout's loop
# (``sim.players.random``, ``sim.play.batch``), where a call costs about an eighth of the speed.
judge = njit(cache=True, _nrt=False)(_judge)
judge_inline = njit(cache=True, _nrt=False, inline="always")(_judge)
apply_action = njit(cache=True, _nrt=False)(_apply_action)
apply_inline = njit(cache=True, _nrt=False, inline="always")(_apply_action)


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
