"""The trees of the ``mcts`` player (``sim.players.mcts``): one per colour in preallocated
arrays (``Tree``, row ``t`` = colour - 1), reused between moves.

A node's edges are consecutive (``FIRST``, ``COUNT``); an edge holds its action, its child
node and its visits (``edge``), the sum of its values, its prior and the won virtual
simulations that prior stands for (``won``, with ``prior_visits``). After every action of the
game ``advance`` makes the child of that action each tree's root (or drops the tree); a
search starts on a fresh tree when the root is gone or the arrays might not hold it
(``root_for``). ``owned`` counts who owned each point at the end of the last search's
playouts: the dead stones a searching player names at a pause (``dead_list``). With RAVE
(``rave`` > 0) an edge also holds its all-moves-as-first visits and value sum (``amaf_n``,
``amaf_w``), from the moves of each simulation (``seq``) and who played each point first in
it (``first``).
"""

import functools
from collections import namedtuple

import numpy as np
from numba import njit

from sim.config.player import Player
from sim.engine.board import is_stone
from sim.engine.state import BLACK, COLOR, INTERIOR, LAB, ST, WHITE, N, new_state, opponent
from sim.players import prior
from sim.players.ladder import new_line

DEAD_SHARE = 0.7  # a stone is dead if this share of the last search's playouts lost its point

TREES = 2  # one per colour: row t = colour - 1
# The rows of the arrays, each named once: node[t, ROW, i], edge[t, ROW, e], meta[t, ROW],
# seq[ROW, k]; an array has as many rows as its names.
NODE_ROWS = ("first", "count")  # a node's first edge, its edge count (-1: not expanded)
FIRST, COUNT = range(len(NODE_ROWS))
EDGE_ROWS = ("action", "child", "visits")  # an edge's action, child node (-1: none yet), visits
ACT, CHILD, NUM = range(len(EDGE_ROWS))
META_ROWS = ("used_nodes", "used_edges", "root", "scored")  # scored: playouts in ``owned``
USED_NODES, USED_EDGES, ROOT, SCORED = range(len(META_ROWS))
# a simulation's step: its point (-1: none), colour, and the node it was chosen at (-1: in the
# playout)
SEQ_ROWS = ("point", "colour", "node")
SEQ_POINT, SEQ_COLOUR, SEQ_NODE = range(len(SEQ_ROWS))

Tree = namedtuple(
    "Tree",
    [
        "node",  # int32[TREES, NODE_ROWS, nodes]
        "edge",  # int32[TREES, EDGE_ROWS, edges]
        "wsum",  # float64[TREES, edges]: the sum of the values (the edge mover's) through an edge
        "prior",  # float32[TREES, edges]
        "won",  # float64[TREES, edges]: the prior's won virtual simulations (``prior_visits``)
        "meta",  # int64[TREES, META_ROWS]
        "path",  # int64[depth]: the edges of a descent
        "row",  # int64[len(RAW_FIELDS)]: a playout's raw outcome
        "owned",  # int32[TREES, 2, N*N]: the last search's playouts (dead_stones = "agree"
        # only) that ended with each point Black's (row 0) or White's (row 1), stones or
        # territory (JPD labels)
        "amaf_n",  # int32[TREES, edges] with RAVE (else [TREES, 0]): the simulations through
        # the edge's node in which its mover played its action first, later in the simulation
        "amaf_w",  # float64[TREES, edges] with RAVE (else [TREES, 0]): their values (the mover's)
        "seq",  # int64[SEQ_ROWS, depth] with RAVE (else [SEQ_ROWS, 0]): a simulation's steps
        "first",  # int64[(N+2)**2] with RAVE (else [0]): the colour that played each point
        # first (from a step on)
        "pattern",  # float64[TREES, 2, 4**8]: the tree's player's learned priors, the weight
        # of each 8-neighbourhood code for each mover (``sim.players.prior``; read only)
        "features",  # float64[TREES, len(prior.FEATURES)]: their tactical features' weights
        "keys",  # int64[TREES, 2, slots]: their diamonds' hash table (``prior.diamond_table``;
        # one slot: none)
        "values",  # float64[TREES, 2, slots]: the diamonds' weights
        "board",  # a scratch state: the ladders the priors read (``sim.players.ladder``)
        "line",  # the work space of a ladder read (``sim.players.ladder.new_line``)
    ],
)


def new_tree(rules, visits: int, raw_fields: int, rave: bool = False, priors=None) -> Tree:
    """Arrays for a search of ``visits`` simulations a move under ``rules``, per colour:
    room for four searches' nodes, each with an edge per point plus pass and virtual; the
    RAVE statistics only if a player uses them (``rave``); the weights of each colour's
    learned prior (``priors``: each player's ``prior``; by default the default player's)."""
    pattern, features, keys, values = _weights(tuple(priors or (Player().prior,) * 2))
    nodes = 4 * (visits + 1)
    edges = nodes * (rules.board_size**2 + 2)
    amaf = edges if rave else 0
    return Tree(
        node=np.zeros((TREES, len(NODE_ROWS), nodes), np.int32),
        edge=np.zeros((TREES, len(EDGE_ROWS), edges), np.int32),
        wsum=np.zeros((TREES, edges), np.float64),
        prior=np.zeros((TREES, edges), np.float32),
        won=np.zeros((TREES, edges), np.float64),
        meta=np.full((TREES, len(META_ROWS)), -1, np.int64),
        path=np.zeros(rules.max_actions + 2, np.int64),
        row=np.zeros(raw_fields, np.int64),
        owned=np.zeros((TREES, 2, rules.board_size**2), np.int32),
        amaf_n=np.zeros((TREES, amaf), np.int32),
        amaf_w=np.zeros((TREES, amaf), np.float64),
        seq=np.zeros((len(SEQ_ROWS), (rules.max_actions + 2) if rave else 0), np.int64),
        first=np.zeros((rules.board_size + 2) ** 2 if rave else 0, np.int64),
        pattern=pattern,
        features=features,
        keys=keys,
        values=values,
        board=new_state(rules, False),
        line=new_line(),
    )


@functools.cache
def _weights(priors: tuple) -> tuple:
    """The ``Tree``'s arrays of the learned priors ``priors`` (one per colour; for
    ``"hand"`` the learned ones, never read), their hash tables of one size. Made once; read
    them only."""
    loaded = [prior.load(p if p in prior.WEIGHTS else "learned") for p in priors]
    size = prior.table_size(max(len(w[2]) for w in loaded))
    tables = [prior.diamond_table(w[2], w[3], size) for w in loaded]
    return (
        np.stack([w[0] for w in loaded]),
        np.stack([w[1] for w in loaded]),
        np.stack([k for k, _ in tables]),
        np.stack([v for _, v in tables]),
    )


@njit(cache=True, _nrt=False)
def drop_trees(tree):
    """Forget both trees (a new game)."""
    tree.meta[:, ROOT] = -1


@njit(cache=True, _nrt=False)
def advance(tree, action):
    """Follow the game's ``action`` (bordered point, PASS or VIRTUAL) from each tree's root: its
    child becomes the root, or the tree is dropped."""
    for t in range(TREES):
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
def new_node(tree, t):
    i = tree.meta[t, USED_NODES]
    tree.meta[t, USED_NODES] = i + 1
    tree.node[t, FIRST, i] = 0
    tree.node[t, COUNT, i] = -1
    return i


@njit(cache=True, _nrt=False)
def root_for(tree, t, g, visits):
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
        root = new_node(tree, t)
        tree.meta[t, ROOT] = root
    return root


@njit(cache=True, _nrt=False)
def count_owners(tree, t, s):
    """Add the scored end of a simulation to ``owned``."""
    n2 = s.tab[ST, N] * s.tab[ST, N]
    for i in range(n2):
        p = s.pt[INTERIOR, i]
        owner = s.pt[COLOR, p] if is_stone(s.pt[COLOR, p]) else s.pt[LAB, p]
        if owner == BLACK or owner == WHITE:
            tree.owned[t, owner - BLACK, i] += 1
    tree.meta[t, SCORED] += 1


@njit(cache=True, _nrt=False)
def dead_list(g, tree, t, judges, dead):
    """The dead stones colour ``t + 1`` names at a pause into ``dead[t]`` (bordered
    points, in point order); returns how many. A player that ``judges`` (a searching one)
    names the stones whose point its last search's playouts gave to the opponent in at least
    DEAD_SHARE of them; the others name none (every stone alive)."""
    scored = tree.meta[t, SCORED]
    if not judges or scored <= 0:
        return 0
    k = 0
    for i in range(g.tab[ST, N] * g.tab[ST, N]):
        p = g.pt[INTERIOR, i]
        c = g.pt[COLOR, p]
        if is_stone(c) and tree.owned[t, opponent(c) - BLACK, i] >= DEAD_SHARE * scored:
            dead[t, k] = p
            k += 1
    return k
