"""The ``mcts`` player: Monte Carlo tree search over pattern priors with the random or pattern
playout. docs/rules.md §11.

Per move, ``visits`` simulations from the game as it stands, each on a copy of the game
(``history.copy_game``): descend the tree by the highest ``Q + explore * P * sqrt(N) / (1 +
n)`` (PUCT), ``Q`` counting the prior ``P`` as virtual simulations where ``prior_visits`` > 0
(Pachi's way; by default, with ``explore`` 0, the prior's only use; with ``doubt_passes`` a
turn given up, a pass that proposes a pause, a virtual move or (with ``avoid_suicides`` false)
a suicide, counts only the prior's even simulations, so that a search that finds every move
lost or won does not give its turn away on the prior's optimism), through real moves, pass and
the virtual move (all three are actions of the tree); a node gets its edges on its second visit
(``sim.players.expand``: every legal real move that does not fill the mover's own eye, nor with
``avoid_suicides`` leave its chain without a liberty, pass, virtual; priors ``hand_prior``, or
with ``prior = "learned"`` or ``"diamond"`` the gammas of ``sim.players.prior``); a new node
ends the descent; the playout policy plays the game to its end (with ``tactics`` the pattern
playout reads ladders and plays nakade: ``finish``); the value goes back up the path. The move
played is the root's most visited edge. With RAVE (``rave`` > 0) each node of the path also
backs up the value into the all-moves-as-first statistics of the edges its mover played first
later in the simulation (``_amaf``), which ``_select`` blends into the edge's value. With
``stop_early`` the search ends once the root's most visited edge leads the next by more than
the simulations left (``_decided``): the move is the one the full search would play, found
sooner; the tree it leaves for the next move holds fewer simulations.

Value (Black's; the mover of an edge stores its own): the win under the ruleset the player
plays for (``play_for``, its komi from the run), 1 / 0.5 / 0 for a win, draw, loss; endings
without a winner (cycle, move cap) 0.5; plus a small score term so that won or lost games
still end cleanly: ``(1 - SCORE_WEIGHT) * win + SCORE_WEIGHT * (1/2 + margin / (2 N²))``
(the margin clipped to ±N²). With ``score_utility`` u > 0 (KataGo's dynamic score utility)
that value ``v`` becomes ``(1 - u) v + u (1/2 + atan((margin - centre) / N) / π)``, the
centre the mean margin of the search's scored simulations before this one (0 for its first):
the search keeps preferring the larger margin around what it expects, won or lost.

The trees live in ``sim.players.tree``, a new node's edges and priors in
``sim.players.expand``. Longer than 300 lines on purpose: one search, its steps (selection,
playout, value, RAVE's backup, the early stop) read in the order they run.
"""

import numpy as np
from numba import njit

from sim.engine.history import (
    PASS,
    RESIGN,
    apply_action,
    copy_game,
    judge,
)
from sim.engine.outcome import outcome_row, row_margin
from sim.engine.pause import open_pause, resume
from sim.engine.state import (
    AGREE_MODE,
    BLACK,
    CYCLE,
    ENDING,
    MOVE_LIMIT,
    OK,
    PENDING_PASS,
    RESUMPTIONS,
    ST,
    TO_MOVE,
    N,
    colour_row,
    opponent,
)
from sim.players.expand import expand
from sim.players.params import (
    K_EXPLORE,
    K_KOMI,
    K_PLAY_FOR,
    K_PLAYOUT,
    K_PRIOR_VISITS,
    K_RAVE,
    K_RESIGN,
    K_SCORE_UTILITY,
    K_STOP_EARLY,
    K_TACTICS,
    K_VISITS,
    PATTERN_PLAYOUT,
)
from sim.players.pattern import pattern_move
from sim.players.random import random_move
from sim.players.tree import (
    ACT,
    CHILD,
    COUNT,
    FIRST,
    NUM,
    SCORED,
    SEQ_COLOUR,
    SEQ_NODE,
    SEQ_POINT,
    USED_NODES,
    count_owners,
    new_node,
    root_for,
)

SCORE_WEIGHT = 0.05
# priors as virtual experience (``prior_visits`` > 0): Pachi's (uct/prior.c) even prior of 14
# simulations valued 1/2 on 9x9 (``sim.players.expand`` gives the won ones)
EVEN_VISITS = 14.0


@njit(cache=True, _nrt=False)
def _select(tree, t, nd, explore, rave, prior_visits):
    """The edge of ``nd`` with the highest score ``Q + explore * P * sqrt(N) / (1 + n)``.
    With ``prior_visits`` k > 0 (Pachi's priors as virtual experience) an edge's ``Q`` counts
    ``EVEN_VISITS`` virtual simulations valued 1/2 and its ``won`` ones (``expand``: sqrt(P)
    k where its prior P is at least ``MIN_PRIOR``) beside its own; else unvisited edges are
    valued at the mean of the visited ones (first-play urgency). With RAVE (``rave`` > 0, its
    equivalence visits) an edge's value is ``(1 - b) Q + b A``, ``A`` its all-moves-as-first
    value and ``b = ñ / (ñ + n + n ñ / rave)`` (ñ its all-moves-as-first visits, n its
    visits, virtual ones included)."""
    first, count = tree.node[t, FIRST, nd], tree.node[t, COUNT, nd]
    wsum, visits = 0.0, 0
    for e in range(first, first + count):
        wsum += tree.wsum[t, e]
        visits += tree.edge[t, NUM, e]
    fpu = wsum / visits if visits > 0 else 0.5
    scale = explore * np.sqrt(max(visits, 1))
    even = EVEN_VISITS if prior_visits > 0.0 else 0.0
    best, best_score = first, -1.0
    for e in range(first, first + count):
        won = tree.won[t, e]
        n = tree.edge[t, NUM, e] + (even + won)
        q = (tree.wsum[t, e] + (even / 2 + won)) / n if n > 0 else fpu
        if rave > 0.0:
            m = tree.amaf_n[t, e]
            if m > 0:
                b = m / (m + n + n * m / rave)
                q = (1.0 - b) * q + b * tree.amaf_w[t, e] / m
        score = q + scale * tree.prior[t, e] / (1 + tree.edge[t, NUM, e])
        if score > best_score:
            best, best_score = e, score
    return best


@njit(cache=True, _nrt=False)
def black_value(s, row, params, centre):
    """Black's value of the finished game ``s`` (the module docstring; ``centre``: the score
    utility's), Black's margin under ``play_for`` and whether it was scored (``row`` then
    holds its raw outcome and ``LAB`` its JPD labels; else the margin is 0)."""
    ending = s.tab[ST, ENDING]
    if ending == CYCLE or ending == MOVE_LIMIT:
        return 0.5, 0.0, False
    outcome_row(s, row, False)
    margin = row_margin(row, np.int64(params[K_PLAY_FOR]), params[K_KOMI])
    win = 1.0 if margin > 0 else (0.0 if margin < 0 else 0.5)
    n = s.tab[ST, N]
    term = 0.5 + 0.5 * min(max(margin / (n * n), -1.0), 1.0)
    value = (1.0 - SCORE_WEIGHT) * win + SCORE_WEIGHT * term
    u = params[K_SCORE_UTILITY]
    if u > 0.0:
        value = (1.0 - u) * value + u * (0.5 + np.arctan((margin - centre) / n) / np.pi)
    return value, margin, True


@njit(cache=True, _nrt=False)
def _take(s, action, code):
    """Take a legal action in the simulation ``s``. A pause whose dead stones are to be agreed
    is played on (``resume``): the search values a pause by the game played out, the stones
    its playouts capture being the dead ones."""
    apply_action(s, action, code)
    if s.tab[ST, ENDING] != 0 and open_pause(s):
        resume(s)


@njit(cache=True, _nrt=False)
def finish(s, rng, params, tree, k):
    """Play ``s`` to its end with the playout policy (no voluntary virtual moves; with
    ``tactics`` the pattern playout reads ladders and plays nakade, on the tree's scratch
    board), writing each real move's point and colour into ``tree.seq`` from step ``k`` on
    while it has room (none without RAVE); returns the steps written."""
    seq = tree.seq
    pattern = params[K_PLAYOUT] == PATTERN_PLAYOUT
    tactics = params[K_TACTICS] != 0.0
    while s.tab[ST, ENDING] == 0:
        if pattern:  # one compiled playout for both: the board given, read only with tactics
            action, code = pattern_move(s, rng, 0.0, tree.board, tree.line, tactics)
        else:
            action, code = random_move(s, rng, 0.0)
        if action >= 0 and k < seq.shape[1]:
            seq[SEQ_POINT, k], seq[SEQ_COLOUR, k], seq[SEQ_NODE, k] = action, s.tab[ST, TO_MOVE], -1
            k += 1
        _take(s, action, code)
    return k


@njit(cache=True, _nrt=False)
def _amaf(tree, t, c, depth, steps, value):
    """Back up the all-moves-as-first value of a simulation of ``steps`` steps in ``tree.seq``
    whose first ``depth`` were the tree's: at each tree step, every edge of its node whose
    action the step's mover played first from that step on gets the simulation's value."""
    seq, first = tree.seq, tree.first
    k = steps - 1
    for i in range(depth - 1, -1, -1):
        while k >= i:
            if seq[SEQ_POINT, k] >= 0:
                first[seq[SEQ_POINT, k]] = seq[SEQ_COLOUR, k]
            k -= 1
        mover = c if i % 2 == 0 else opponent(c)
        mine = value if mover == BLACK else 1.0 - value
        nd = seq[SEQ_NODE, i]
        start = tree.node[t, FIRST, nd]
        for e in range(start, start + tree.node[t, COUNT, nd]):
            a = tree.edge[t, ACT, e]
            if a >= 0 and first[a] == mover:
                tree.amaf_n[t, e] += 1
                tree.amaf_w[t, e] += mine
    for k in range(steps):
        if seq[SEQ_POINT, k] >= 0:
            first[seq[SEQ_POINT, k]] = 0


@njit(cache=True, _nrt=False)
def _apply(s, action):
    """Take a tree action in ``s`` (legal there: the edge was made in that position)."""
    code = OK
    if action >= 0:
        code = judge(s, action, s.tab[ST, TO_MOVE], s.tab[ST, PENDING_PASS])
    _take(s, action, code)


@njit(cache=True, _nrt=False)
def _decided(tree, t, nd, left):
    """Whether ``left`` more simulations cannot change which edge of ``nd`` is the most
    visited (its lead over the second is larger)."""
    first, count = tree.node[t, FIRST, nd], tree.node[t, COUNT, nd]
    top, second = 0, 0
    for e in range(first, first + max(count, 0)):
        n = tree.edge[t, NUM, e]
        if n > top:
            top, second = n, top
        elif n > second:
            second = n
    return top - second > left


@njit(cache=True, _nrt=False)
def search(g, s, tree, rng, params):
    """Run the search of the player to move in ``g`` (``params``: its row of
    ``sim.players.params``); ``s`` is the simulations' state. Returns the root node."""
    c = g.tab[ST, TO_MOVE]
    t = colour_row(c)
    visits = np.int64(params[K_VISITS])
    explore, prior_visits = params[K_EXPLORE], params[K_PRIOR_VISITS]
    root = root_for(tree, t, g, visits)
    rave = params[K_RAVE] if tree.amaf_n.shape[1] > 0 else 0.0
    path, seq = tree.path, tree.seq
    tree.owned[t] = 0
    tree.meta[t, SCORED] = 0
    stop_early = params[K_STOP_EARLY] != 0.0
    margins, scored_runs = 0.0, 0  # the score utility's centre: their mean so far
    for i in range(visits):
        if stop_early and _decided(tree, t, root, visits - i):
            break
        copy_game(s, g)
        nd = root
        depth = 0
        while s.tab[ST, ENDING] == 0:
            if tree.node[t, COUNT, nd] < 0 and not expand(tree, t, s, nd, params):
                break  # no room: the playout starts here
            e = _select(tree, t, nd, explore, rave, prior_visits)
            path[depth] = e
            action = np.int64(tree.edge[t, ACT, e])
            if rave > 0.0:
                seq[SEQ_POINT, depth], seq[SEQ_COLOUR, depth], seq[SEQ_NODE, depth] = (
                    action,
                    s.tab[ST, TO_MOVE],
                    nd,
                )
            depth += 1
            resumptions = s.tab[ST, RESUMPTIONS]
            _apply(s, action)
            if s.tab[ST, RESUMPTIONS] != resumptions:
                break  # a pause played on: the playout settles its dead stones
            child = tree.edge[t, CHILD, e]
            if child < 0:
                if tree.meta[t, USED_NODES] < tree.node.shape[2]:
                    tree.edge[t, CHILD, e] = new_node(tree, t)
                break  # a new node: the playout starts here
            nd = child
        steps = finish(s, rng, params, tree, depth)
        centre = margins / scored_runs if scored_runs > 0 else 0.0
        value, margin, scored = black_value(s, tree.row, params, centre)
        if scored:
            margins += margin
            scored_runs += 1
            if s.tab[ST, AGREE_MODE]:  # owners only matter for the dead stones
                count_owners(tree, t, s)
        for i in range(depth):
            e = path[i]
            tree.edge[t, NUM, e] += 1
            mover = c if i % 2 == 0 else opponent(c)
            tree.wsum[t, e] += value if mover == BLACK else 1.0 - value
        if rave > 0.0:
            _amaf(tree, t, c, depth, steps, value)
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
    t = colour_row(g.tab[ST, TO_MOVE])
    e = best_edge(tree, t, root)
    if e >= 0 and tree.wsum[t, e] < params[K_RESIGN] * tree.edge[t, NUM, e]:
        return RESIGN, OK
    action = np.int64(tree.edge[t, ACT, e]) if e >= 0 else PASS
    if action < 0:
        return action, OK
    return action, judge(g, action, g.tab[ST, TO_MOVE], g.tab[ST, PENDING_PASS])
