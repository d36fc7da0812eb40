"""The ``mcts`` player: Monte Carlo tree search (PUCT over pattern priors) with the random or
pattern playout. docs/rules.md §11.

Per move, ``visits`` simulations from the game as it stands, each on a copy of the game
(``history.copy_game``): descend the tree by PUCT, ``Q + explore * P * sqrt(N) / (1 + n)``,
through real moves, pass and the virtual move (all three are actions of the tree); a node
gets its edges on its second visit (``_expand``: every legal real move that does not fill
the mover's own eye, pass, virtual; priors ``_prior``); a new node ends the descent; the
playout policy plays the game to its end; the value goes back up the path. The move played is
the root's most visited edge.

Value (Black's; the mover of an edge stores its own): the win under the ruleset the player
plays for (``play_for``, its komi from the run), 1 / 0.5 / 0 for a win, draw, loss; endings
without a winner (cycle, move cap) 0.5; plus a small score term so that won or lost games
still end cleanly: ``(1 - SCORE_WEIGHT) * win + SCORE_WEIGHT * (1/2 + margin / (2 N²))``
(the margin clipped to ±N²).

The tree of each colour lives in preallocated arrays (``Tree``, row ``t`` = colour - 1) and
is reused between moves: ``advance`` follows every action of the game from the root; a
search starts on a fresh tree when the root is gone or the arrays might overflow.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from sim.engine.board import in_atari_at, is_stone, neighbour
from sim.engine.history import (
    PASS,
    RESIGN,
    VIRTUAL,
    apply_action,
    copy_game,
    judge,
    open_pause,
    resume,
)
from sim.engine.outcome import outcome_row, row_margin
from sim.engine.state import (
    AGREE,
    BLACK,
    COLOR,
    CYCLE,
    EMPTIES,
    ENDING,
    HEAD,
    INTERIOR,
    LAB,
    LAST_POINT,
    MOVE_LIMIT,
    N_EMPTY,
    OK,
    OK_CYCLE,
    PENDING_PASS,
    ST,
    TO_MOVE,
    WHITE,
    N,
    W,
    opponent,
    slot,
)
from sim.players.pattern import TABLE, around, neighbourhood, pattern_move
from sim.players.random import fills_own_eye, random_move
from sim.players.tactics import bad_self_atari
from sim.schema import PLAYERS, PLAYOUTS

PATTERN_PLAYOUT = PLAYOUTS.index("pattern")
MCTS_KIND = PLAYERS.index("mcts")
SCORE_WEIGHT = 0.05
DEAD_SHARE = 0.7  # a stone is dead if this share of the last search's playouts lost its point
# priors (before normalising): a real move 1; a capture +4, a 3x3 pattern next to the
# opponent's last move +2; a self-atari the pattern player refuses 0.1; pass and virtual
_P_CAPTURE, _P_PATTERN, _P_SELF_ATARI, _P_PASS, _P_VIRTUAL = 4.0, 2.0, 0.1, 0.5, 0.5

# a player's parameters: one float64 row per colour (``sim.selfplay``)
K_KIND, K_VISITS, K_PLAYOUT, K_PLAY_FOR, K_KOMI, K_RESIGN, K_EXPLORE = range(7)
N_K = 7

# tree rows: node[t, ROW, i], edge[t, ROW, e], meta[t, ROW]
FIRST, COUNT = 0, 1  # a node's first edge, its edge count (-1: not expanded)
ACT, CHILD, NUM = 0, 1, 2  # an edge's action, its child node (-1: none yet), its visits
USED_NODES, USED_EDGES, ROOT, SCORED = 0, 1, 2, 3  # SCORED: playouts counted in ``owned``

Tree = namedtuple(
    "Tree",
    [
        "node",  # int32[2, 2, nodes]
        "edge",  # int32[2, 3, edges]
        "wsum",  # float64[2, edges]: the sum of the values (the edge mover's) through an edge
        "prior",  # float32[2, edges]
        "meta",  # int64[2, 4]
        "path",  # int64[depth]: the edges of a descent
        "row",  # int64[len(RAW_FIELDS)]: a playout's raw outcome
        "owned",  # int32[2, 2, N*N]: the last search's playouts that ended with each point
        # Black's (row 0) or White's (row 1), stones or territory (JPD labels)
        "dead",  # int64[2, N*N]: work space, each colour's list of dead stones at a pause
    ],
)


def new_tree(rules, visits: int, raw_fields: int) -> Tree:
    """Arrays for a search of ``visits`` simulations a move under ``rules``, per colour:
    room for four searches' nodes, each with an edge per point plus pass and virtual."""
    nodes = 4 * (visits + 1)
    edges = nodes * (rules.board_size**2 + 2)
    return Tree(
        node=np.zeros((2, 2, nodes), np.int32),
        edge=np.zeros((2, 3, edges), np.int32),
        wsum=np.zeros((2, edges), np.float64),
        prior=np.zeros((2, edges), np.float32),
        meta=np.full((2, 4), -1, np.int64),
        path=np.zeros(rules.max_actions + 2, np.int64),
        row=np.zeros(raw_fields, np.int64),
        owned=np.zeros((2, 2, rules.board_size**2), np.int32),
        dead=np.zeros((2, rules.board_size**2), np.int64),
    )


@njit(cache=True, _nrt=False)
def drop_trees(tree):
    """Forget both trees (a new game)."""
    tree.meta[:, ROOT] = -1


@njit(cache=True, _nrt=False)
def advance(tree, action):
    """Follow the game's ``action`` (bordered point, PASS or VIRTUAL) from each tree's root: its
    child becomes the root, or the tree is dropped."""
    for t in range(2):
        root = tree.meta[t, ROOT]
        if root < 0:
            continue
        nxt = -1
        first = tree.node[t, FIRST, root]
        for e in range(first, first + tree.node[t, COUNT, root]):
            if tree.edge[t, ACT, e] == action:
                nxt = tree.edge[t, CHILD, e]
                break
        tree.meta[t, ROOT] = nxt


@njit(cache=True, _nrt=False)
def _new_node(tree, t):
    i = tree.meta[t, USED_NODES]
    tree.meta[t, USED_NODES] = i + 1
    tree.node[t, FIRST, i] = 0
    tree.node[t, COUNT, i] = -1
    return i


@njit(cache=True, _nrt=False)
def _prior(s, p, c):
    """The unnormalised prior of colour ``c``'s real move at ``p`` (see the module's weights)."""
    if bad_self_atari(s, p, c):
        return _P_SELF_ATARI
    pt = s.pt
    w = s.tab[ST, W]
    prior = 1.0
    o = opponent(c)
    for side in range(4):
        q = neighbour(p, w, side)
        if pt[COLOR, q] == o and in_atari_at(pt, pt[HEAD, q], p):
            prior += _P_CAPTURE
            break
    last = s.tab[ST, slot(LAST_POINT, o)]
    if last > 0:
        for d in range(8):
            if around(last, w, d) == p:
                code = neighbourhood(pt, p, w, c)
                if TABLE[code >> 3] >> (code & 7) & 1:
                    prior += _P_PATTERN
                break
    return prior


@njit(cache=True, _nrt=False)
def _expand(tree, t, s, nd):
    """Give node ``nd`` (the position of ``s``) its edges; False if the arrays are full."""
    n_edges = tree.edge.shape[2]
    first = tree.meta[t, USED_EDGES]
    if first + s.tab[ST, N_EMPTY] + 2 > n_edges:
        return False
    c = s.tab[ST, TO_MOVE]
    pending = s.tab[ST, PENDING_PASS]
    e = first
    total = 0.0
    for i in range(s.tab[ST, N_EMPTY]):
        p = s.pt[EMPTIES, i]
        if fills_own_eye(s, p, c):
            continue
        code = judge(s, p, c, pending)
        if code == OK or code == OK_CYCLE:
            tree.edge[t, ACT, e] = p
            tree.prior[t, e] = _prior(s, p, c)
            e += 1
    # under dead_stones = "agree", answering a pass with a pass (a pause, its dead stones to
    # agree) weighs as much as every real move together
    agree = pending and s.tab[ST, AGREE] == 1
    pass_prior = max(_P_PASS, e - first) if agree else _P_PASS
    for action, prior in ((PASS, pass_prior), (VIRTUAL, _P_VIRTUAL)):
        tree.edge[t, ACT, e] = action
        tree.prior[t, e] = prior
        e += 1
    for i in range(first, e):
        total += tree.prior[t, i]
        tree.edge[t, CHILD, i] = -1
        tree.edge[t, NUM, i] = 0
        tree.wsum[t, i] = 0.0
    for i in range(first, e):
        tree.prior[t, i] /= total
    tree.node[t, FIRST, nd] = first
    tree.node[t, COUNT, nd] = e - first
    tree.meta[t, USED_EDGES] = e
    return True


@njit(cache=True, _nrt=False)
def _select(tree, t, nd, explore):
    """The edge of ``nd`` with the highest PUCT score; unvisited edges are valued at the mean
    of the visited ones (first-play urgency)."""
    first, count = tree.node[t, FIRST, nd], tree.node[t, COUNT, nd]
    wsum, visits = 0.0, 0
    for e in range(first, first + count):
        wsum += tree.wsum[t, e]
        visits += tree.edge[t, NUM, e]
    fpu = wsum / visits if visits > 0 else 0.5
    scale = explore * np.sqrt(max(visits, 1))
    best, best_score = first, -1.0
    for e in range(first, first + count):
        n = tree.edge[t, NUM, e]
        q = tree.wsum[t, e] / n if n > 0 else fpu
        score = q + scale * tree.prior[t, e] / (1 + n)
        if score > best_score:
            best, best_score = e, score
    return best


@njit(cache=True, _nrt=False)
def black_value(s, row, params):
    """Black's value of the finished game ``s`` (the module docstring), and whether it was
    scored (``row`` then holds its raw outcome and ``LAB`` its JPD labels)."""
    ending = s.tab[ST, ENDING]
    if ending == CYCLE or ending == MOVE_LIMIT:
        return 0.5, False
    outcome_row(s, row)
    margin = row_margin(row, np.int64(params[K_PLAY_FOR]), params[K_KOMI])
    win = 1.0 if margin > 0 else (0.0 if margin < 0 else 0.5)
    area = s.tab[ST, N] * s.tab[ST, N]
    term = 0.5 + 0.5 * min(max(margin / area, -1.0), 1.0)
    return (1.0 - SCORE_WEIGHT) * win + SCORE_WEIGHT * term, True


@njit(cache=True, _nrt=False)
def _count_owners(tree, t, s):
    """Add the scored end of a simulation to ``owned``."""
    n2 = s.tab[ST, N] * s.tab[ST, N]
    for i in range(n2):
        p = s.pt[INTERIOR, i]
        owner = s.pt[COLOR, p] if is_stone(s.pt[COLOR, p]) else s.pt[LAB, p]
        if owner == BLACK or owner == WHITE:
            tree.owned[t, owner - BLACK, i] += 1
    tree.meta[t, SCORED] += 1


@njit(cache=True, _nrt=False)
def dead_list(g, tree, params, t):
    """The dead stones colour ``t + 1`` names at a pause into ``tree.dead[t]`` (bordered
    points, in point order); returns how many. A searching player names the stones whose
    point its last search's playouts gave to the opponent in at least DEAD_SHARE of them; the
    others name none (every stone alive)."""
    scored = tree.meta[t, SCORED]
    if params[K_KIND] != MCTS_KIND or scored <= 0:
        return 0
    k = 0
    for i in range(g.tab[ST, N] * g.tab[ST, N]):
        p = g.pt[INTERIOR, i]
        c = g.pt[COLOR, p]
        if is_stone(c) and tree.owned[t, opponent(c) - BLACK, i] >= DEAD_SHARE * scored:
            tree.dead[t, k] = p
            k += 1
    return k


@njit(cache=True, _nrt=False, inline="always")
def finish(s, rng, params):
    """Play ``s`` to its end with the playout policy (no voluntary virtual moves)."""
    pattern = params[K_PLAYOUT] == PATTERN_PLAYOUT
    while s.tab[ST, ENDING] == 0:
        if pattern:
            action, code = pattern_move(s, rng, 0.0)
        else:
            action, code = random_move(s, rng, 0.0)
        apply_action(s, action, code)
        if open_pause(s):
            resume(s)


@njit(cache=True, _nrt=False, inline="always")
def _apply(s, action):
    """Take a tree action in ``s`` (legal there: the edge was made in that position). A pause
    whose dead stones are to be agreed is played on (``resume``): the search values a pause by
    the game played out, the stones its playouts capture being the dead ones."""
    code = OK
    if action >= 0:
        code = judge(s, action, s.tab[ST, TO_MOVE], s.tab[ST, PENDING_PASS])
    apply_action(s, action, code)
    if open_pause(s):
        resume(s)


@njit(cache=True, _nrt=False)
def _root(tree, t, g, visits):
    """The root for this search: the reused one, or a fresh tree's when the root is gone or a
    search might not fit in what is left of the arrays."""
    nodes, edges = tree.node.shape[2], tree.edge.shape[2]
    room = (visits + 1) * (g.tab[ST, N] * g.tab[ST, N] + 2)
    root = tree.meta[t, ROOT]
    if (
        root < 0
        or tree.meta[t, USED_NODES] + visits + 1 > nodes
        or tree.meta[t, USED_EDGES] + room > edges
    ):
        tree.meta[t, USED_NODES] = 0
        tree.meta[t, USED_EDGES] = 0
        root = _new_node(tree, t)
        tree.meta[t, ROOT] = root
    return root


@njit(cache=True, _nrt=False)
def search(g, s, tree, rng, params):
    """Run the search of the player to move in ``g`` (``params``: its K_* row); ``s`` is the
    simulations' state. Returns the root node."""
    c = g.tab[ST, TO_MOVE]
    t = c - 1
    visits = np.int64(params[K_VISITS])
    explore = params[K_EXPLORE]
    root = _root(tree, t, g, visits)
    path = tree.path
    tree.owned[t] = 0
    tree.meta[t, SCORED] = 0
    for _ in range(visits):
        copy_game(s, g)
        nd = root
        depth = 0
        while s.tab[ST, ENDING] == 0:
            if tree.node[t, COUNT, nd] < 0 and not _expand(tree, t, s, nd):
                break  # no room: the playout starts here
            e = _select(tree, t, nd, explore)
            path[depth] = e
            depth += 1
            _apply(s, tree.edge[t, ACT, e])
            child = tree.edge[t, CHILD, e]
            if child < 0:
                if tree.meta[t, USED_NODES] < tree.node.shape[2]:
                    tree.edge[t, CHILD, e] = _new_node(tree, t)
                break  # a new node: the playout starts here
            nd = child
        finish(s, rng, params)
        value, scored = black_value(s, tree.row, params)
        if scored:
            _count_owners(tree, t, s)
        for i in range(depth):
            e = path[i]
            tree.edge[t, NUM, e] += 1
            mover = c if i % 2 == 0 else opponent(c)
            tree.wsum[t, e] += value if mover == BLACK else 1.0 - value
    return root


@njit(cache=True, _nrt=False)
def best_edge(tree, t, root):
    """The root's most visited edge (ties: the higher mean value), or -1 if it has none."""
    first, count = tree.node[t, FIRST, root], tree.node[t, COUNT, root]
    best, most, best_q = -1, -1, -1.0
    for e in range(first, first + max(count, 0)):
        n = tree.edge[t, NUM, e]
        q = tree.wsum[t, e] / n if n > 0 else 0.0
        if n > most or (n == most and q > best_q):
            best, most, best_q = e, n, q
    return best


@njit(cache=True, _nrt=False)
def mcts_move(g, s, tree, rng, params):
    """The mcts player's action and its ``judge`` verdict (the module docstring); RESIGN when
    the best edge's mean value is below ``resign_below``."""
    root = search(g, s, tree, rng, params)
    t = g.tab[ST, TO_MOVE] - 1
    e = best_edge(tree, t, root)
    if e >= 0 and tree.wsum[t, e] < params[K_RESIGN] * tree.edge[t, NUM, e]:
        return RESIGN, OK
    action = tree.edge[t, ACT, e] if e >= 0 else PASS
    if action < 0:
        return action, OK
    return action, judge(g, action, g.tab[ST, TO_MOVE], g.tab[ST, PENDING_PASS])
