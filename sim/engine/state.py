"""The state of one game as three plain arrays (a namedtuple that numba kernels take as one
argument). Few arrays on purpose: numba passes a namedtuple by value, every array as a struct
of 7-9 words, so a state of many arrays makes every kernel call that LLVM does not inline
copy many words (measured: 29 arrays cost about 30 ns a call, 5 arrays about 8). For the same
reason the kernels called once or more per action are inlined by numba (``inline="always"``):
that made the 9x9 playout 1.4x faster, at the price of a longer first compile.

Points live on a flat board with a one-point border: the point ``y*N + x`` of ``sim.coords``
is ``(y+1)*(N+2) + x+1`` here (rows INTERIOR and PLAIN of ``pt`` translate). ``pt`` holds one
row per per-point array (the board's colours too), ``tab`` the scalars (row ST), the
repetition filter, the four-virtual table and the per-move logs, at the indices below; per-colour entries are pairs
(``REAL + colour - 1``). Keys are int64 bit patterns. One state serves every game of a batch:
``history.reset`` clears what a game needs.
"""

from collections import namedtuple

import numpy as np

from sim.schema import ENDINGS, REPETITIONS, SUICIDES

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3

# result codes of an action (no exceptions inside kernels)
OK, OCCUPIED, SUICIDE, KO, SUPERKO, GAME_OVER, OK_CYCLE = 0, 1, 2, 3, 4, 5, 6
REASONS = {OCCUPIED: "occupied", SUICIDE: "suicide", KO: "ko", SUPERKO: "superko"}

# rule codes: the index in the schema's tuples
GLOBAL_SUPERKO, NO_RESULT, BOARD_SUPERKO, SITUATIONAL_SUPERKO, BASIC_KO = range(5)
assert REPETITIONS[NO_RESULT] == "no_result" and REPETITIONS[BASIC_KO] == "basic_ko"
SUICIDE_NONE = SUICIDES.index("none")
# endings: 0 while the game goes on, else 1 + the index in ENDINGS
PAUSE, FOUR_VIRTUAL, CYCLE, MOVE_LIMIT = 1, 2, 3, 4
assert ENDINGS[CYCLE - 1] == "cycle"

# tab[ST]: scalars (the fields from TO_MOVE on are zeroed at the start of every game)
(N, W, REP, SUIC, MAX_ACTIONS, EXACT, SIDEKEY, _SIDEKEY_W, HASH, FV_GEN, N_EMPTY, SETUP,
 _SETUP_W, TO_MOVE, PENDING_PASS, VIRT, _VIRT_W, ACTIONS, MOVES, REAL, _REAL_W, PASSES,
 CONVERTED, LOST, _LOST_W, SUICIDES_, _SUICIDES_W, FIRST_PV, LAST_REAL, LAST_POINT,
 _LAST_POINT_W, ENDING, REP_BANS, SEG_START, N_ST) = range(35)

# pt rows, one value per point of the bordered board
(COLOR,    # EMPTY/BLACK/WHITE/BORDER
 NXT,      # next stone of the chain (circular list)
 HEAD,     # chain head of a stone
 CSIZE,    # chain size (at the head)
 PLIB,     # pseudo-liberties: (stone, empty neighbour) pairs (at the head)
 LIBSUM,   # sum of the pseudo-liberty points (at the head)
 LIBSQ,    # sum of their squares (at the head)
 CHASH,    # xor of the chain's stone keys (at the head)
 EMPTIES,  # the empty points, in no order (first st[N_EMPTY] entries)
 EPOS,     # index of an empty point in EMPTIES
 ZOB, _ZOB_W,  # key of (colour, point)
 STACK, STACK2,  # work space: flood fills, lists of chains
 CAND,     # work space: a candidate board (N*N, exact comparisons)
 LAB, REGION, SEKI, COPY,  # work space of the scoring (COPY: a copy of the board)
 INTERIOR,  # the bordered point of each point y*N + x of sim.coords (first N*N entries)
 PLAIN,     # the point y*N + x of each bordered point (-1 on the border)
 N_PT) = range(22)

# tab rows, one value per table slot / move number / virtual-stone count
(ST,  # the scalars above
 REP_BITS,  # repetition filter: one bit per key of the positions compared with (first cap/8 words)
 FV_KEY, FV_STAMP, FV_COUNT, FV_REF,  # four-virtual table: board key -> virtual moves at it
 VKEY, _VKEY_W,  # key of (colour, number of its virtual stones)
 LOG_KEY,  # key of the position after each move, in the repetition rule's sense
 LOG_VB, LOG_VW,  # virtual stones after each move (exact mode)
 TALLY,  # work space of the scoring: small counters, 4 to a tally (tab[TALLY].reshape(-1, 4))
 N_TAB) = range(13)

State = namedtuple("State", [
    "pt",         # int64[N_PT, W*W]
    "tab",        # int64[N_TAB, cap], cap a power of two > 2 * (max_actions + 2), N_ST and 64
    "log_board",  # int8[max_actions+2 or 1, N*N] board after each move (exact mode only)
])

KEY_SEED = 20101010  # the Zobrist keys are the same in every process and run


def new_state(rules, exact: bool) -> State:
    """Allocate the arrays of a game under ``rules`` (``sim.rules.Rules``); ``history.reset``
    starts a game. ``exact``: compare whole positions on a key match."""
    size, max_actions = rules.board_size, rules.max_actions
    repetition, suicide = rules.repetition_code, rules.suicide_code
    w = size + 2
    area = w * w
    cap = 1 << int(max(2 * (max_actions + 2), N_ST, 64)).bit_length()
    rng = np.random.default_rng(KEY_SEED)

    def keys(n):  # odd, so never 0: a zero key would make a stone invisible to the hash
        return rng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64, endpoint=True) | 1

    pt = np.zeros((N_PT, area), np.int64)
    pt[COLOR] = BORDER
    pt[COPY] = BORDER
    y, x = np.divmod(np.arange(size * size), size)
    pt[INTERIOR, :size * size] = (y + 1) * w + x + 1
    pt[PLAIN] = -1
    pt[PLAIN, pt[INTERIOR, :size * size]] = np.arange(size * size)
    pt[ZOB:ZOB + 2] = keys(2 * area).reshape(2, area)
    tab = np.zeros((N_TAB, cap), np.int64)
    tab[VKEY:VKEY + 2] = keys(2 * cap).reshape(2, cap)
    tab[VKEY:VKEY + 2, 0] = 0  # no virtual stones: the global key is the board key
    st = tab[ST]
    st[[N, W, REP, SUIC, MAX_ACTIONS, EXACT]] = size, w, repetition, suicide, max_actions, exact
    st[SIDEKEY:SIDEKEY + 2] = keys(2)
    return State(pt=pt, tab=tab,
                 log_board=np.zeros((max_actions + 2 if exact else 1, size * size), np.int8))
