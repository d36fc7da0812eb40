"""A small, obviously-correct pure-Python reference engine for the 计枰点 rules (docs/rules.md).

It exists only to check the fast engine (``sim.engine.game.Game``) against: clarity comes first,
speed second. Positions are stored exactly (tuples in lists and sets; no Zobrist keys), every
group and liberty is found by a fresh flood fill, and every rule is one short function that can
be read next to its section of docs/rules.md.

Reading path:
  * ``RefGame.play``      -- one action: pass (§4 pending pass / pause), virtual move, real move
                             (§3, §5), the pass conversion and the four-virtual and cap endings;
  * ``RefGame._judge``    -- the legality of a real move: occupied, suicide, repetition;
  * ``RefGame.outcome``   -- §6-§8: counters, the four scoring methods and the ruleset margins;
  * module functions      -- groups, JPD ownership, Tromp-Taylor regions, the Japanese seki test
                             and the equal-stones counting, each on a plain list of colours.

Colours: 0 empty, 1 Black, 2 White. Actions: ``PASS`` (-1), ``VIRTUAL`` (-2) or a point
``y * size + x`` (``sim.schema.coords``). The interface is the one of ``sim.engine.game.Game``.
"""

import functools

from sim.schema.coords import AGREE, MAX_SIZE, MIN_SIZE, PASS, RESIGN, RESUME, VIRTUAL
from sim.schema.tables import (
    DEFAULT_KOMI,
    NO_WINNER_ENDINGS,
    OUTCOME_FIELDS,
    REPETITIONS,
    RULESETS,
    SUICIDES,
)

EMPTY, BLACK, WHITE = 0, 1, 2
LETTER = {BLACK: "B", WHITE: "W"}


def other(colour):
    return 3 - colour


# ---------------------------------------------------------------------------------------------
# Board geometry and groups


@functools.cache
def neighbour_table(size):
    """For every point, the tuple of its orthogonal neighbours."""
    table = []
    for p in range(size * size):
        y, x = divmod(p, size)
        near = []
        if y > 0:
            near.append(p - size)
        if y < size - 1:
            near.append(p + size)
        if x > 0:
            near.append(p - 1)
        if x < size - 1:
            near.append(p + 1)
        table.append(tuple(near))
    return tuple(table)


def neighbours(size, p):
    """The orthogonal neighbours of point p."""
    return neighbour_table(size)[p]


def flood(size, start, same):
    """The set of points reachable from ``start`` through neighbours q with ``same(q)``."""
    table = neighbour_table(size)
    seen = {start}
    todo = [start]
    while todo:
        p = todo.pop()
        for q in table[p]:
            if q not in seen and same(q):
                seen.add(q)
                todo.append(q)
    return seen


def group_and_liberties(size, cells, p):
    """The stones of the group (maximal connected set of one colour) containing the stone at
    p, and the set of its liberties (adjacent empty points)."""
    table = neighbour_table(size)
    colour = cells[p]
    stones, libs, todo = {p}, set(), [p]
    while todo:
        q = todo.pop()
        for r in table[q]:
            if cells[r] == EMPTY:
                libs.add(r)
            elif cells[r] == colour and r not in stones:
                stones.add(r)
                todo.append(r)
    return stones, libs


def place(size, cells, p, colour):
    """A stone of ``colour`` put on the empty p: the board after it (the opponent's groups it
    leaves without a liberty removed, then its own group if that has none: a suicide), the
    stones captured and the stones of its own it removed."""
    new = list(cells)
    new[p] = colour
    captured = 0
    for q in neighbours(size, p):
        if new[q] == other(colour):
            g, libs = group_and_liberties(size, new, q)
            if not libs:
                for r in g:
                    new[r] = EMPTY
                captured += len(g)
    suicided = 0
    if captured == 0:
        own, libs = group_and_liberties(size, new, p)
        if not libs:
            for r in own:
                new[r] = EMPTY
            suicided = len(own)
    return new, captured, suicided


def groups(size, cells):
    """Every group on the board, as a list of (stones, liberties)."""
    seen, result = set(), []
    for p in range(size * size):
        if cells[p] != EMPTY and p not in seen:
            g, libs = group_and_liberties(size, cells, p)
            seen |= g
            result.append((g, libs))
    return result


def empty_regions(size, cells, connect=lambda q: True):
    """Maximal connected sets of empty points q with ``connect(q)``, each with the set of
    colours of the stones adjacent to it."""
    seen, result = set(), []
    for p in range(size * size):
        if cells[p] == EMPTY and p not in seen and connect(p):
            region = flood(size, p, lambda q: cells[q] == EMPTY and connect(q))
            seen |= region
            colours = {cells[q] for r in region for q in neighbours(size, r)} - {EMPTY}
            result.append((region, colours))
    return result


# ---------------------------------------------------------------------------------------------
# Scoring classifications (§7)


def jpd_ownership(size, cells):
    """§7 JPD ownership of the empty points: {point: BLACK, WHITE or "public"}.

    1. an empty point adjacent to stones of both colours is public (a shared liberty);
    2. the other empty points form components connected through non-public empty points; a
       component adjacent to exactly one colour belongs to it, otherwise it is public."""
    owner = {}
    for p in range(size * size):
        if cells[p] == EMPTY:
            adjacent = {cells[q] for q in neighbours(size, p)}
            if BLACK in adjacent and WHITE in adjacent:
                owner[p] = "public"
    for region, colours in empty_regions(size, cells, connect=lambda q: q not in owner):
        value = colours.pop() if len(colours) == 1 else "public"
        for p in region:
            owner[p] = value
    return owner


def region_ownership(size, cells):
    """§7 Tromp-Taylor region ownership of the empty points: {point: BLACK, WHITE or None}."""
    owner = {}
    for region, colours in empty_regions(size, cells):
        value = colours.pop() if len(colours) == 1 else None
        for p in region:
            owner[p] = value
    return owner


def japanese_territory(size, cells):
    """§7.4 territory (Black, White) with the KataGo-style seki test, every stone alive.

    a. a stone owns its point; an empty point owned by the region ownership, else dame;
    b. seeds: an owned point holding a stone of its owner whose group has exactly one
       liberty, or an owned point adjacent to a dame point;
    c. flood from the seeds through connected points of the same owner: all are in seki;
    d. territory = owned empty points not in seki."""
    region = region_ownership(size, cells)
    owner = [cells[p] if cells[p] != EMPTY else (region[p] or EMPTY) for p in range(size * size)]
    seeds = []
    for p in range(size * size):
        if owner[p] == EMPTY:
            continue
        in_atari = cells[p] == owner[p] and len(group_and_liberties(size, cells, p)[1]) == 1
        next_to_dame = any(owner[q] == EMPTY for q in neighbours(size, p))
        if in_atari or next_to_dame:
            seeds.append(p)
    seki = set()
    for s in seeds:
        if s not in seki:
            seki |= flood(size, s, lambda q, c=owner[s]: owner[q] == c)
    territory = {BLACK: 0, WHITE: 0}
    for p in range(size * size):
        if cells[p] == EMPTY and owner[p] != EMPTY and p not in seki:
            territory[owner[p]] += 1
    return territory[BLACK], territory[WHITE]


def equal_stones(
    territory_b, territory_w, public, s_b, s_w, refill_b, refill_w, setup_b, setup_w, a_version
):
    """§7 method 2 (等子比空) as bookkeeping on the counts of the final position.

    territory_x: x's JPD territory; public: the public points; s_x: x's real + virtual moves;
    refill_x: x's lost stones + x's virtual stones; a_version: White was first to pass or
    virtual. Returns (moku_b, moku_w, balanced_moves, total_b - total_w)."""
    assert s_b - s_w in (0, 1), (s_b, s_w)
    # a. balancing the move numbers (the parity of the move number rules)
    if a_version:
        # A-negative move: a Black boundary stone is taken off, its point becomes public;
        # it goes back to the bowl (S_B = S_W + 1) or is refilled into Black's territory.
        public += 1
        if s_b == s_w:
            refill_b += 1
    elif s_b - s_w == 1:
        # B-negative move: a Black stone inside Black's territory is taken off; the point
        # stays Black's.
        territory_b += 1
    k = s_w  # both sides now have k moves' worth of stones
    # b. refilling; an overflow shows as a negative count (the other side taking the same
    #    surplus of its own stones off the board gives the same difference)
    moku_b = territory_b - refill_b
    moku_w = territory_w - refill_w
    # c. both sides have k stones (+ setup stones) on the board
    total_b = moku_b + k + setup_b + public / 2
    total_w = moku_w + k + setup_w + public / 2
    return moku_b, moku_w, 2 * k, total_b - total_w


# ---------------------------------------------------------------------------------------------
# The game


class RefGame:
    """One game under the rules of docs/rules.md; same interface as ``sim.engine.game.Game``."""

    def __init__(
        self,
        size,
        repetition="global_superko",
        suicide="multi",
        max_actions=None,
        setup=None,
        exact=True,
        dead_stones="all_alive",
        to_move=BLACK,
    ):
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size {size} is not in {MIN_SIZE}..{MAX_SIZE}")
        if repetition not in REPETITIONS:
            raise ValueError(f"unknown repetition {repetition!r}")
        if suicide not in SUICIDES:
            raise ValueError(f"unknown suicide {suicide!r}")
        if max_actions is None:
            max_actions = 8 * size * size
        if max_actions < 1:
            raise ValueError("max_actions must be at least 1")
        self.size, self.repetition, self.suicide, self.max_actions = (
            size,
            repetition,
            suicide,
            max_actions,
        )
        # "agree": lists of dead stones at a pause (docs/rules.md §4)
        self.dead_stones = dead_stones
        self.resumptions = 0
        self.agreed = False
        self.dead = {BLACK: 0, WHITE: 0}
        n = size * size
        cells = [EMPTY] * n if setup is None else [int(c) for c in setup]
        if len(cells) != n or any(c not in (EMPTY, BLACK, WHITE) for c in cells):
            raise ValueError(f"setup must be {n} colours 0, 1 or 2")
        for _, libs in groups(size, cells):
            if not libs:
                raise ValueError("a setup group has no liberty")
        self.cells = cells
        self.setup = {BLACK: cells.count(BLACK), WHITE: cells.count(WHITE)}
        self.to_move = to_move
        # White first from a setup: the setup counts as Black's move for the parity (§1)
        self.setup_move = int(to_move == WHITE)
        self.ending = None
        self.pending_pass = None  # the colour whose pass awaits the opponent's answer
        self.virtual = {BLACK: 0, WHITE: 0}  # virtual stones off the board (converted incl.)
        # history of global positions (board, Black virtual stones, White virtual stones)
        self.history = [(tuple(cells), 0, 0)]
        self.seen = set(self.history)
        self.boards_seen = {tuple(cells)}
        self.situations = {(tuple(cells), to_move)}  # (board, side to move next)
        self.virtuals_at = {}  # board -> virtual moves made while it stood (four-virtual)
        # counters
        self.actions = 0
        self.real_moves = {BLACK: 0, WHITE: 0}
        self.passes = 0
        self.converted_passes = 0
        self.lost = {BLACK: 0, WHITE: 0}
        self.suicides = {BLACK: 0, WHITE: 0}
        self.first_pass_or_virtual = None
        self.last_real_move = None
        self.resigned_by = None

    # -- public interface -------------------------------------------------------------------

    def board(self):
        return list(self.cells)

    def play(self, action):
        """Apply one action; None if legal and applied, else the reason (state unchanged)."""
        if action in (AGREE, RESUME) or self.agreed:
            return self._settle(action)
        if self.ending is not None:
            return f"game over ({self.ending})"
        if action == RESIGN:  # the game ends at once; a pending pass is not converted
            self.actions += 1
            self.ending = "resign"
            self.resigned_by = self.to_move
            return None
        if action == PASS:
            self.actions += 1
            self.passes += 1
            if self.pending_pass is not None:  # two passes: the game pauses, all stones alive
                self.pending_pass = None
                self.ending = "pause"
                return None
            self.first_pass_or_virtual = self.first_pass_or_virtual or self.to_move
            self.pending_pass = self.to_move
            self.to_move = other(self.to_move)
            self._check_cap()  # a pass at the cap stays unconverted
            return None
        if action != VIRTUAL and not 0 <= action < self.size * self.size:
            raise ValueError(f"action {action} is not on a {self.size}x{self.size} board")
        # A pending pass declined by this action becomes a virtual move of the passer first;
        # the action is judged on a trial copy and the copy is kept only if it is legal.
        game = self
        if self.pending_pass is not None:
            game = self._copy()
            game._virtual_move(game.pending_pass)
            game.converted_passes += 1
            game.pending_pass = None
        if action == VIRTUAL:
            reason, result = None, None
        else:
            reason, result = game._judge(action)
        if reason is not None:
            return reason
        if game is not self:
            self.__dict__ = game.__dict__
        self.actions += 1
        if self.ending == "four_virtual":  # the conversion ended the game: not played
            return None
        if action == VIRTUAL:
            self.first_pass_or_virtual = self.first_pass_or_virtual or self.to_move
            self._virtual_move(self.to_move)
        else:
            self._real_move(action, *result)
        self.to_move = other(self.to_move)
        self._check_cap()
        return None

    def _settle(self, action):
        """At a pause under dead_stones = "agree" (docs/rules.md §4): AGREE (equal lists; the
        points that follow are the dead stones, each removed and lost by its owner), or RESUME
        (the lists differ: the two passes become virtual moves, first passer's first, and the
        first passer moves); after 3 resumptions a pause is final."""
        if self.ending is None:
            return "not at a pause"
        if self.agreed:
            if action < 0:
                return f"game over ({self.ending})"
            colour = self.cells[action]
            if colour == EMPTY:
                return "no stone to remove"
            self.cells[action] = EMPTY
            self.lost[colour] += 1
            self.dead[colour] += 1
            return None
        if self.ending != "pause" or self.dead_stones != "agree" or self.resumptions >= 3:
            return f"game over ({self.ending})"
        if action == AGREE:
            self.agreed = True
            return None
        first = other(self.to_move)  # the pausing pass left the move with the second passer
        self.ending = None
        self.resumptions += 1
        for colour in (first, other(first)):
            self.converted_passes += 1
            self._virtual_move(colour)
            self.to_move = other(colour)
            if self.ending is not None:
                return None
        return None

    def legal_moves(self):
        """Sorted points where the player to move may play a real move now (a pending pass
        counted as converted); [] once the game has ended."""
        if self.ending is not None:
            return []
        game = self
        if self.pending_pass is not None:
            game = self._copy()
            game._virtual_move(game.pending_pass)
        return [p for p in range(self.size * self.size) if game._judge(p)[0] is None]

    # -- the rules ----------------------------------------------------------------------------

    def _judge(self, p):
        """The legality of a real move of ``to_move`` at p (§3, §5).

        Returns (reason, None) if illegal, else (None, (new board, captured, suicided, cycle))."""
        size, cells, me = self.size, self.cells, self.to_move
        if cells[p] != EMPTY:
            return "occupied", None
        new, captured, suicided = place(size, cells, p, me)
        if suicided == 1 or (suicided and self.suicide == "none"):
            return "suicide", None
        board = tuple(new)
        position = (board, self.virtual[BLACK], self.virtual[WHITE])
        cycle = False
        if self.repetition == "global_superko":
            if position in self.seen:
                return "superko", None
        elif self.repetition == "board_superko":
            if board in self.boards_seen:
                return "superko", None
        elif self.repetition == "situational_superko":
            if (board, other(me)) in self.situations:
                return "superko", None
        else:  # no_result, basic_ko: the two-move rule
            if len(self.history) >= 2 and position == self.history[-2]:
                return "ko", None
            if self.repetition == "no_result" and position in self.seen:
                cycle = True
        return None, (new, captured, suicided, cycle)

    def _real_move(self, p, new, captured, suicided, cycle):
        me = self.to_move
        self.cells = new
        self.real_moves[me] += 1
        self.last_real_move = me
        self.lost[other(me)] += captured
        self.lost[me] += suicided
        if suicided:
            self.suicides[me] += 1
        self._record()
        if cycle:
            self.ending = "cycle"

    def _virtual_move(self, colour):
        """A virtual move of ``colour`` (an explicit one or a converted pass)."""
        self.virtual[colour] += 1
        board = tuple(self.cells)
        self.virtuals_at[board] = self.virtuals_at.get(board, 0) + 1
        self._record(next_to_move=other(colour))
        if self.virtuals_at[board] >= 4:
            self.ending = "four_virtual"

    def _record(self, next_to_move=None):
        """Append the global position after a move to the history."""
        if next_to_move is None:
            next_to_move = other(self.to_move)
        board = tuple(self.cells)
        position = (board, self.virtual[BLACK], self.virtual[WHITE])
        self.history.append(position)
        self.seen.add(position)
        self.boards_seen.add(board)
        self.situations.add((board, next_to_move))

    def _check_cap(self):
        if self.ending is None and self.actions >= self.max_actions:
            self.ending = "move_limit"

    def _copy(self):
        """A copy whose containers can be changed without touching this game."""
        game = object.__new__(RefGame)
        game.__dict__ = {
            k: (v.copy() if isinstance(v, (list, set, dict)) else v)
            for k, v in self.__dict__.items()
        }
        return game

    # -- the outcome ----------------------------------------------------------------------------

    def outcome(self, komi=None):
        """Every field of ``sim.schema.tables.OUTCOME_FIELDS`` for the game so far (§6-§8)."""
        size, cells = self.size, self.cells
        komi = {**DEFAULT_KOMI, **(komi or {})}
        stones = {BLACK: cells.count(BLACK), WHITE: cells.count(WHITE)}
        virtual_moves = self.virtual
        moves_of = {c: self.real_moves[c] + virtual_moves[c] for c in (BLACK, WHITE)}

        jpd = jpd_ownership(size, cells)
        public = sum(1 for v in jpd.values() if v == "public")
        territory = {c: sum(1 for v in jpd.values() if v == c) for c in (BLACK, WHITE)}
        area = {c: stones[c] + territory[c] + public / 2 for c in (BLACK, WHITE)}

        first = LETTER.get(self.first_pass_or_virtual)
        last = LETTER.get(self.last_real_move)
        moku_b, moku_w, balanced, es_diff = equal_stones(
            territory[BLACK],
            territory[WHITE],
            public,
            moves_of[BLACK] + self.setup_move,
            moves_of[WHITE],
            self.lost[BLACK] + virtual_moves[BLACK],
            self.lost[WHITE] + virtual_moves[WHITE],
            self.setup[BLACK] - self.setup_move,  # the setup move's stone is Black's k-th
            self.setup[WHITE],
            a_version=(first == "W"),
        )

        region = region_ownership(size, cells)
        chinese = {c: stones[c] + sum(1 for v in region.values() if v == c) for c in (BLACK, WHITE)}
        jp_b, jp_w = japanese_territory(size, cells)
        prisoners = {BLACK: self.lost[WHITE], WHITE: self.lost[BLACK]}

        out = {
            "board_size": size,
            "repetition": self.repetition,
            "suicide": self.suicide,
            "ending": self.ending,
            "actions": self.actions,
            "moves": moves_of[BLACK] + moves_of[WHITE],
            "real_moves_b": self.real_moves[BLACK],
            "real_moves_w": self.real_moves[WHITE],
            "virtual_moves_b": virtual_moves[BLACK],
            "virtual_moves_w": virtual_moves[WHITE],
            "passes": self.passes,
            "converted_passes": self.converted_passes,
            "stones_lost_b": self.lost[BLACK],
            "stones_lost_w": self.lost[WHITE],
            "suicides_b": self.suicides[BLACK],
            "suicides_w": self.suicides[WHITE],
            "first_pass_or_virtual_by": first,
            "last_real_move_by": last,
            "stones_b": stones[BLACK],
            "stones_w": stones[WHITE],
            "public_points": public,
            "territory_b_jpd": territory[BLACK],
            "territory_w_jpd": territory[WHITE],
            "area_b_jpd": float(area[BLACK]),
            "area_w_jpd": float(area[WHITE]),
            "area_diff_jpd": float(area[BLACK] - area[WHITE]),
            "moku_b": moku_b,
            "moku_w": moku_w,
            "balanced_moves": balanced,
            "equal_stones_diff": float(es_diff),
            "area_diff_chinese": chinese[BLACK] - chinese[WHITE],
            "territory_diff_japanese": (jp_b + prisoners[BLACK]) - (jp_w + prisoners[WHITE]),
            "prisoners_b": prisoners[BLACK],
            "prisoners_w": prisoners[WHITE],
            "dead_b": self.dead[BLACK],
            "dead_w": self.dead[WHITE],
            "resumptions": self.resumptions,
        }
        raw = {
            "jpd_a": out["area_diff_jpd"] - (1 if first == "W" else 0),
            "jpd_b": out["area_diff_jpd"],
            "jpd_tangsong": out["area_diff_jpd"] - (1 if last == "B" else 0),
            "chinese": out["area_diff_chinese"],
            "japanese": out["territory_diff_japanese"],
        }
        for r in RULESETS:
            margin = float(raw[r] - komi[r])
            out[f"margin_{r}"] = margin
            if self.ending == "resign":  # no score; the other player wins
                out[f"margin_{r}"] = None
                out[f"winner_{r}"] = LETTER[other(self.resigned_by)]
            elif self.ending in NO_WINNER_ENDINGS:
                out[f"winner_{r}"] = None
            else:
                out[f"winner_{r}"] = "B" if margin > 0 else "W" if margin < 0 else "draw"
        assert tuple(out) == OUTCOME_FIELDS
        return out
