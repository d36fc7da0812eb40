"""The edges of a new node of the ``mcts`` player's tree and their priors
(``sim.players.mcts``; docs/rules.md §11).

A node gets its edges on its second visit (``expand``): every legal real move that does not
fill the mover's own eye, nor with ``avoid_suicides`` leave its chain without a liberty, pass
and the virtual move. Their priors, normalised, are the hand-set ones (``hand_prior``), or
with ``prior = "learned"`` or ``"diamond"`` the gammas of ``sim.players.prior``; with
``prior_visits`` > 0 each edge also counts won virtual simulations (Pachi's priors as virtual
experience), none below ``MIN_PRIOR`` nor, with ``doubt_passes``, for a turn given up.
"""

import numpy as np
from numba import njit

from sim.engine.board import in_atari_at, neighbour
from sim.engine.history import PASS, VIRTUAL
from sim.engine.state import (
    AGREE_MODE,
    COLOR,
    EMPTIES,
    HEAD,
    LAST_POINT,
    N_EMPTY,
    PENDING_PASS,
    ST,
    SUIC,
    SUICIDE_NONE,
    TO_MOVE,
    W,
    opponent,
    slot,
)
from sim.players.params import (
    HAND_PRIOR,
    K_AVOID_SUICIDES,
    K_DOUBT_PASSES,
    K_PRIOR,
    K_PRIOR_VISITS,
    K_TACTICS,
)
from sim.players.prior import F, is_candidate, is_suicide, move_weight
from sim.players.shapes import around, matches_at
from sim.players.tactics import bad_self_atari
from sim.players.tree import ACT, CHILD, COUNT, FIRST, NUM, USED_EDGES

# priors as virtual experience (``prior_visits`` > 0): no won simulations for a prior below
# 0.001 (``sim.players.mcts.EVEN_VISITS`` are the even ones)
MIN_PRIOR = 0.001
_PASS_FIRST, _PASS_ANSWER = F["pass_first"], F["pass_answer"]
# hand-set priors (before normalising): a real move 1; a capture +4, a 3x3 pattern next to
# the opponent's last move +2; a self-atari the pattern player refuses 0.1; pass and virtual
_P_CAPTURE, _P_PATTERN, _P_SELF_ATARI, HAND_PASS, _P_VIRTUAL = 4.0, 2.0, 0.1, 0.5, 0.5


@njit(cache=True, _nrt=False)
def hand_prior(s, p, c):
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
                if matches_at(pt, p, w, c):
                    prior += _P_PATTERN
                break
    return prior


@njit(cache=True, _nrt=False)
def expand(tree, t, s, nd, params):
    """Give node ``nd`` (the position of ``s``) its edges (with ``avoid_suicides`` none for a
    suicide); False if the arrays are full. With a learned ``prior`` the priors of
    ``sim.players.prior`` (reading ladders with ``tactics``; pass and virtual both a first
    pass's, or an answer's), else the hand-set ones; each edge's won virtual simulations
    ``sqrt(P) prior_visits`` (none where P is below ``MIN_PRIOR``, nor with ``doubt_passes``
    for a turn given up: a pass that proposes a pause, a virtual move, a suicide searched)."""
    learned = params[K_PRIOR] != HAND_PRIOR
    ladders = params[K_TACTICS] != 0.0
    # suicides are legal only where the rules allow them (else ``judge`` refuses them)
    suicides = s.tab[ST, SUIC] != SUICIDE_NONE
    searched = not (suicides and params[K_AVOID_SUICIDES] != 0.0)  # suicides among the edges
    prior_visits = params[K_PRIOR_VISITS]
    n_edges = tree.edge.shape[2]
    first = tree.meta[t, USED_EDGES]
    if first + s.tab[ST, N_EMPTY] + 2 > n_edges:
        return False
    c = s.tab[ST, TO_MOVE]
    pending = s.tab[ST, PENDING_PASS]
    pattern, features = tree.pattern[t], tree.features[t]
    keys, values = tree.keys[t], tree.values[t]
    e = first
    total = 0.0
    for i in range(s.tab[ST, N_EMPTY]):
        p = s.pt[EMPTIES, i]
        if is_candidate(s, p, c, pending, searched):
            tree.edge[t, ACT, e] = p
            if learned:
                weight = move_weight(
                    s, p, c, pattern, features, keys, values, tree.board, tree.line, ladders
                )
                tree.prior[t, e] = np.exp(weight)
            else:
                tree.prior[t, e] = hand_prior(s, p, c)
            e += 1
    pass_prior, virtual_prior = HAND_PASS, _P_VIRTUAL
    if learned:
        pass_prior = np.exp(features[_PASS_ANSWER if pending else _PASS_FIRST])
        virtual_prior = pass_prior
    # under dead_stones = "agree", answering a pass with a pass (a pause, its dead stones to
    # agree) weighs as much as every real move together (the hand-set prior of a plain move
    # is 1)
    if pending and s.tab[ST, AGREE_MODE] == 1:
        real = float(e - first)
        if learned:
            real = 0.0
            for i in range(first, e):
                real += tree.prior[t, i]
        pass_prior = max(pass_prior, real)
    for action, prior in ((PASS, pass_prior), (VIRTUAL, virtual_prior)):
        tree.edge[t, ACT, e] = action
        tree.prior[t, e] = prior
        e += 1
    for i in range(first, e):
        total += tree.prior[t, i]
        tree.edge[t, CHILD, i] = -1
        tree.edge[t, NUM, i] = 0
        tree.wsum[t, i] = 0.0
    if tree.amaf_n.shape[1] > 0:
        for i in range(first, e):
            tree.amaf_n[t, i] = 0
            tree.amaf_w[t, i] = 0.0
    for i in range(first, e):
        tree.prior[t, i] /= total
        p = tree.prior[t, i]
        tree.won[t, i] = np.sqrt(p) * prior_visits if p >= MIN_PRIOR else 0.0
    if params[K_DOUBT_PASSES] != 0.0:
        # turns given up: the suicides searched; pass and virtual, the last two edges, unless
        # they answer a pass
        if suicides and searched:
            for i in range(first, e - 2):
                if is_suicide(s, tree.edge[t, ACT, i], c):
                    tree.won[t, i] = 0.0
        if not pending:
            tree.won[t, e - 2] = tree.won[t, e - 1] = 0.0
    tree.node[t, FIRST, nd] = first
    tree.node[t, COUNT, nd] = e - first
    tree.meta[t, USED_EDGES] = e
    return True
