"""The state of one game as three plain arrays (a namedtuple that numba kernels take as one
argument), and the name of every field in them.

Few arrays on purpose: numba passes a namedtuple by value, every array as a struct of 7-9
words, so a state of many arrays makes every kernel call that LLVM does not inline copy many
words (measured: 29 arrays cost about 30 ns a call, 5 arrays about 8). For the same reason the
kernels called once or more per action are inlined by numba (``inline="always"``): that made
the 9x9 playout 1.4x faster, at the price of a longer first compile.

- ``pt[ROW, p]``: one row per per-point array (the board's colours too). Points live on a flat
  board with a one-point border: the point ``y*N + x`` of ``sim.schema.coords`` is
  ``(y+1)*(N+2) + x+1`` here (rows INTERIOR and PLAIN translate).
- ``tab[ST, FIELD]``: the scalars of the game; ``tab[ROW, i]``: the repetition filter, the
  four-virtual table, the per-move logs and the scoring's counters.
- Fields of one value per colour are pairs: ``slot(FIELD, c)`` is colour ``c``'s entry.

Keys are int64 bit patterns. One state serves every game of a batch: ``history.reset``
zeroes the per-game scalars (from GAME_FIELDS on) and what a game needs.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from sim.schema.tables import REPETITIONS, SUICIDES, ending_code

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3


@njit(cache=True, _nrt=False, inline="always")
def opponent(c):
    """The other colour of BLACK or WHITE."""
    return BLACK + WHITE - c


@njit(cache=True, _nrt=False, inline="always")
def colour_row(c):
    """The row of colour ``c`` in arrays with one row per colour (Black's first)."""
    return c - BLACK


@njit(cache=True, _nrt=False, inline="always")
def slot(field, c):
    """Colour ``c``'s entry of a per-colour field (its Black entry comes first)."""
    return field + c - BLACK


class Fields:
    """Consecutive indices for named fields: ``one()`` takes one, ``pair()`` a per-colour
    pair (Black, White); ``count`` is the number taken."""

    def __init__(self):
        self.count = 0

    def one(self) -> int:
        self.count += 1
        return self.count - 1

    def pair(self) -> int:
        self.count += 2
        return self.count - 2


# result codes of an action (no exceptions inside kernels)
OK, OCCUPIED, SUICIDE, KO, SUPERKO, GAME_OVER, OK_CYCLE, NO_STONE, NO_PAUSE = range(9)
REASONS = {
    OCCUPIED: "occupied",
    SUICIDE: "suicide",
    KO: "ko",
    SUPERKO: "superko",
    NO_STONE: "no stone to remove",
    NO_PAUSE: "not at a pause",
}

# what a real move would do (``lookahead.key_after``): an ordinary move or a capture, a suicide
# of the single stone played, a suicide of a chain of two or more stones
PLACES, SUICIDE_ONE, SUICIDE_MANY = 0, 1, 2

# rule codes: the index in the schema's tuples
GLOBAL_SUPERKO = REPETITIONS.index("global_superko")
NO_RESULT = REPETITIONS.index("no_result")
BOARD_SUPERKO = REPETITIONS.index("board_superko")
SITUATIONAL_SUPERKO = REPETITIONS.index("situational_superko")
BASIC_KO = REPETITIONS.index("basic_ko")
SUICIDE_NONE = SUICIDES.index("none")
# endings: 0 while the game goes on, else ``sim.schema.tables.ending_code``
PAUSE, FOUR_VIRTUAL, CYCLE, MOVE_LIMIT, RESIGNED = (
    ending_code(e) for e in ("pause", "four_virtual", "cycle", "move_limit", "resign")
)

# fmt: off  (the field tables keep their comments aligned)
# tab[ST, ...]: the scalars. First those of the rules and the board, kept between games:
_st = Fields()
N = _st.one()  # board size
W = _st.one()  # width of the bordered board, N + 2
REP = _st.one()  # repetition rule (GLOBAL_SUPERKO ...)
SUIC = _st.one()  # suicide option (SUICIDE_NONE or not)
MAX_ACTIONS = _st.one()  # move cap
EXACT = _st.one()  # 1: compare whole positions on a key match
AGREE_MODE = _st.one()  # 1: dead stones are agreed at a pause (dead_stones = "agree")
SIDEKEY = _st.pair()  # key of the side to move (situational superko), by colour
HASH = _st.one()  # board key: xor of the stone keys on the board
FV_GEN = _st.one()  # generation stamp of the four-virtual table (one per game)
N_EMPTY = _st.one()  # number of empty points (the first entries of pt[EMPTIES])
SETUP = _st.pair()  # setup stones, by colour
SETUP_MOVE = _st.one()  # 1: White moves first from the setup (it counts as Black's move, §1 parity)
# ... then those of the game, zeroed by history.reset:
GAME_FIELDS = _st.count
TO_MOVE = _st.one()  # BLACK or WHITE
PENDING_PASS = _st.one()  # 1: the last action was a pass (it proposes a pause)
VIRT = _st.pair()  # virtual moves (voluntary and converted passes), by colour
ACTIONS = _st.one()  # actions taken (passes included)
MOVES = _st.one()  # move number: real and virtual moves
REAL = _st.pair()  # real moves, by colour
PASSES = _st.one()  # passes
CONVERTED = _st.one()  # passes converted to virtual moves
LOST = _st.pair()  # stones lost (captured or suicided), by owner
SUICIDES_BY = _st.pair()  # suicides, by colour
FIRST_PV = _st.one()  # colour of the first pass or virtual move (0: none yet)
LAST_REAL = _st.one()  # colour of the last real move (0: none yet)
LAST_POINT = _st.pair()  # point of the last real move, by colour (0: none yet)
ENDING = _st.one()  # 0 while the game goes on, else PAUSE ...
RESIGNED_BY = _st.one()  # the colour that resigned (0: none)
RESUMPTIONS = _st.one()  # pauses that resumed play (lists differed)
DEAD = _st.pair()  # stones removed as dead, by owner
AGREED = _st.one()  # 1: the players agreed at the last pause (the dead stones follow)
REP_BANS = _st.one()  # candidates the players drew that the repetition rule banned
SEG_START = _st.one()  # first move of the log segment the repetition rule compares with
N_ST = _st.count

# pt[ROW, p]: one value per point of the bordered board
_pt = Fields()
COLOR = _pt.one()  # EMPTY/BLACK/WHITE/BORDER
NXT = _pt.one()  # next stone of the chain (circular list)
HEAD = _pt.one()  # chain head of a stone
CSIZE = _pt.one()  # chain size (at the head)
PLIB = _pt.one()  # pseudo-liberties: (stone, empty neighbour) pairs (at the head)
LIBSUM = _pt.one()  # sum of the pseudo-liberty points (at the head)
LIBSQ = _pt.one()  # sum of their squares (at the head)
CHASH = _pt.one()  # xor of the chain's stone keys (at the head)
EMPTIES = _pt.one()  # the empty points, in no order (first st[N_EMPTY] entries)
EPOS = _pt.one()  # index of an empty point in EMPTIES
ZOB = _pt.pair()  # key of (colour, point), by colour
STACK = _pt.one()  # work space: flood fills, lists of chains
STACK2 = _pt.one()  # work space: a second flood fill
MARK = _pt.one()  # work space: points seen by a flood fill of the state check
CAND = _pt.one()  # work space: a candidate board (N*N, exact comparisons)
LAB = _pt.one()  # work space of the scoring: JPD ownership labels
REGION = _pt.one()  # work space of the scoring: Tromp-Taylor region owners
SEKI = _pt.one()  # work space of the scoring: points in seki
COPY = _pt.one()  # work space of the scoring: a copy of the board
INTERIOR = _pt.one()  # the bordered point of each point y*N + x of sim.schema.coords (first N*N)
PLAIN = _pt.one()  # the point y*N + x of each bordered point (-1 on the border)
N_PT = _pt.count

# tab[ROW, i]: one value per table slot / move number / virtual-stone count
_tab = Fields()
ST = _tab.one()  # the scalars above
REP_BITS = _tab.one()  # repetition filter: one bit per logged key (first cap/8 words)
FV_KEY = _tab.one()  # four-virtual table (open addressing): board key of the slot
FV_STAMP = _tab.one()  # ... generation stamp (the slot is used in this game)
FV_COUNT = _tab.one()  # ... virtual moves made at that board
FV_REF = _tab.one()  # ... a move whose logged board is that board (exact mode)
VKEY = _tab.pair()  # key of (colour, number of its virtual stones), by colour
LOG_KEY = _tab.one()  # key of the position after each move, in the repetition rule's sense
LOG_VIRT = _tab.pair()  # virtual stones of each colour after each move (exact mode)
TALLY = _tab.one()  # counters of the scoring (sim.engine.scoring), TALLY_WIDTH a counter
N_TAB = _tab.count
# tab[TALLY, ...]: the counters of the scoring, each TALLY_WIDTH values by colour or owner
# (index 0 unused, PUBLIC = 3); ``sim.engine.scoring.counter`` gives one as an array
TALLY_WIDTH = 4
_tally = Fields()
T_STONES = _tally.one()  # stones on the board
T_REGIONS = _tally.one()  # empty points by region owner (Chinese)
T_LABELS = _tally.one()  # empty points by JPD owner
T_JAPANESE = _tally.one()  # territory after the seki test (Japanese)
T_REFILL = _tally.one()  # equal stones: stones each side refills
T_LEFT = _tally.one()  # ... still to refill
T_MOKU = _tally.one()  # ... empty points (目) left in each side's territory
T_COPY_STONES = _tally.one()  # ... stones on the refilled copy
T_NET = _tally.one()  # ... stones each side has played, net
N_TALLY = _tally.count

# fmt: on

State = namedtuple(
    "State",
    [
        "pt",  # int64[N_PT, W*W]
        "tab",  # int64[N_TAB, cap], cap a power of two > 2 * (max_actions + 2), N_ST and 64
        "log_board",  # int8[max_actions+2 or 1, N*N] board after each move (exact mode only)
    ],
)

KEY_SEED = 20101010  # the Zobrist keys are the same in every process and run


def new_state(rules, exact: bool) -> State:
    """Allocate the arrays of a game under ``rules`` (``sim.config.rules.Rules``); ``history.reset``
    starts a game. ``exact``: compare whole positions on a key match."""
    size, max_actions = rules.board_size, rules.max_actions
    w = size + 2
    area = w * w
    cap = 1 << int(max(2 * (max_actions + 2), N_ST, N_TALLY * TALLY_WIDTH, 64)).bit_length()
    rng = np.random.default_rng(KEY_SEED)

    def keys(n):  # odd, so never 0: a zero key would make a stone invisible to the hash
        return rng.integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64, endpoint=True) | 1

    pt = np.zeros((N_PT, area), np.int64)
    pt[COLOR] = BORDER
    pt[COPY] = BORDER
    y, x = np.divmod(np.arange(size * size), size)
    pt[INTERIOR, : size * size] = (y + 1) * w + x + 1
    pt[PLAIN] = -1
    pt[PLAIN, pt[INTERIOR, : size * size]] = np.arange(size * size)
    pt[ZOB : ZOB + 2] = keys(2 * area).reshape(2, area)
    tab = np.zeros((N_TAB, cap), np.int64)
    tab[VKEY : VKEY + 2] = keys(2 * cap).reshape(2, cap)
    tab[VKEY : VKEY + 2, 0] = 0  # no virtual stones: the global key is the board key
    st = tab[ST]
    st[[N, W, REP, SUIC, MAX_ACTIONS, EXACT, AGREE_MODE]] = (
        size,
        w,
        rules.repetition_code,
        rules.suicide_code,
        max_actions,
        exact,
        rules.dead_stones == "agree",
    )
    st[SIDEKEY : SIDEKEY + 2] = keys(2)
    return State(
        pt=pt, tab=tab, log_board=np.zeros((max_actions + 2 if exact else 1, size * size), np.int8)
    )
