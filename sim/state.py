"""The state of one game as plain arrays (a namedtuple that numba kernels take as one argument).

Points live on a flat board with a one-point border: the point ``y*N + x`` of ``sim.coords``
is ``(y+1)*(N+2) + x+1`` here. Scalars sit in the int64 array ``st`` at the indices below;
per-colour counters are pairs (``REAL + colour - 1``). One state is reused for every game
of a batch: ``reset`` (in ``sim.history``) clears what a game needs.
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
SUICIDE_MULTI, SUICIDE_NONE = range(2)
assert SUICIDES[SUICIDE_NONE] == "none"
# endings: 0 while the game goes on, else 1 + the index in ENDINGS
PAUSE, FOUR_VIRTUAL, CYCLE, MOVE_LIMIT = 1, 2, 3, 4
assert ENDINGS[CYCLE - 1] == "cycle"

# indices into st
# (the fields from TO_MOVE on are zeroed at the start of every game)
(N, W, REP, SUIC, MAX_ACTIONS, EXACT, GEN, FV_GEN, N_EMPTY, SETUP, _SETUP_W,
 TO_MOVE, PENDING_PASS, VIRT, _VIRT_W, ACTIONS, MOVES, REAL, _REAL_W, PASSES, CONVERTED,
 LOST, _LOST_W, SUICIDES_, _SUICIDES_W, FIRST_PV, LAST_REAL, ENDING, REP_BANS, N_ST) = range(30)

State = namedtuple("State", [
    "st",        # int64[N_ST] scalars
    "color",     # int8[W*W] EMPTY/BLACK/WHITE/BORDER
    "nxt",       # int32[W*W] next stone of the chain (circular list)
    "head",      # int32[W*W] chain head of a stone
    "csize",     # int32[W*W] chain size (at the head)
    "plib",      # int32[W*W] pseudo-liberties: (stone, empty neighbour) pairs (at the head)
    "libsum",    # int64[W*W] sum of the pseudo-liberty points (at the head)
    "libsq",     # int64[W*W] sum of their squares (at the head)
    "chash",     # uint64[W*W] xor of the chain's stone keys (at the head)
    "empties",   # int32[N*N] the empty points, in no order
    "epos",      # int32[W*W] index of an empty point in empties
    "hash",      # uint64[1] Zobrist key of the board
    "zob",       # uint64[3, W*W] key of (colour, point); row 0 unused
    "vkey",      # uint64[3, max_actions+2] key of (colour, number of its virtual stones)
    "sidekey",   # uint64[3] key of the side to move (situational superko)
    "rep_key",   # uint64[cap] repetition table: open addressing, stamped by st[GEN]
    "rep_stamp", # int64[cap]
    "rep_ref",   # int32[cap] move number of the position (for exact comparison)
    "fv_key",    # uint64[cap] four-virtual table: board key -> virtual moves made at it
    "fv_stamp",  # int64[cap]
    "fv_count",  # int32[cap]
    "fv_ref",    # int32[cap]
    "log_hash",  # uint64[max_actions+2] global key of the position after each move
    "log_board", # int8[max_actions+2 or 1, N*N] board after each move (exact mode only)
    "log_virt",  # int32[max_actions+2 or 1, 2] virtual stones after each move (exact mode only)
    "scratch",   # int32[W*W] work space for kernels (flood fills, stacks)
    "scratch2",  # int8[W*W] work space for kernels (labels)
    "marks",     # int8[5, W*W] work space for scoring (labels, board copy)
    "counts",    # int64[11, 4] work space for scoring (tallies)
])

KEY_SEED = 20101010  # the Zobrist keys are the same in every process and run


def _table_size(max_actions: int) -> int:
    return 1 << int(2 * (max_actions + 2)).bit_length()


def _keys(rng, *shape):
    return rng.integers(1, 2**64 - 1, size=shape, dtype=np.uint64, endpoint=True)


def new_state(size: int, repetition: int, suicide: int, max_actions: int, exact: bool) -> State:
    """Allocate the arrays of a game on an N x N board; ``history.reset`` starts a game."""
    w = size + 2
    area = w * w
    rng = np.random.default_rng(KEY_SEED)
    cap = _table_size(max_actions)
    logs = max_actions + 2 if exact else 1
    st = np.zeros(N_ST, np.int64)
    st[N], st[W], st[REP], st[SUIC], st[MAX_ACTIONS], st[EXACT] = size, w, repetition, suicide, max_actions, exact
    vkey = _keys(rng, 3, max_actions + 2)
    vkey[:, 0] = 0  # no virtual stones: the global key is the board key
    color = np.full(area, BORDER, np.int8)
    return State(
        st=st, color=color,
        nxt=np.zeros(area, np.int32), head=np.zeros(area, np.int32), csize=np.zeros(area, np.int32),
        plib=np.zeros(area, np.int32), libsum=np.zeros(area, np.int64), libsq=np.zeros(area, np.int64),
        chash=np.zeros(area, np.uint64),
        empties=np.zeros(size * size, np.int32), epos=np.zeros(area, np.int32),
        hash=np.zeros(1, np.uint64), zob=_keys(rng, 3, area), vkey=vkey, sidekey=_keys(rng, 3),
        rep_key=np.zeros(cap, np.uint64), rep_stamp=np.zeros(cap, np.int64), rep_ref=np.zeros(cap, np.int32),
        fv_key=np.zeros(cap, np.uint64), fv_stamp=np.zeros(cap, np.int64), fv_count=np.zeros(cap, np.int32),
        fv_ref=np.zeros(cap, np.int32),
        log_hash=np.zeros(max_actions + 2, np.uint64),
        log_board=np.zeros((logs, size * size), np.int8), log_virt=np.zeros((logs, 2), np.int32),
        scratch=np.zeros(area, np.int32), scratch2=np.zeros(area, np.int8),
        marks=np.zeros((5, area), np.int8), counts=np.zeros((11, 4), np.int64),
    )
