"""The batch kernel: one compiled call plays many games (``play_games``), and the settlement
of a pause whose dead stones are to be agreed by the players (``name_dead``, then
``sim.engine.pause.settle_pause``).

``play_games`` is compiled once per variant, chosen by the types of its optional arguments
(numba prunes a branch on ``x is None`` for an argument that is None): ``players`` None plays
the light playout alone (both players ``random``), ``tree`` None leaves the search out,
``fault`` None the state check (``sim.config.pairing.kernel_variant``).
"""

from numba import njit

from sim.engine.check import CONSISTENT, check_consistency
from sim.engine.history import apply_action, apply_inline, reset
from sim.engine.outcome import outcome_row
from sim.engine.pause import open_pause, settle_pause
from sim.engine.state import ACTIONS, ENDING, PLAIN, ST, TO_MOVE, colour_row
from sim.players.choose import player_action
from sim.players.params import K_KIND, MCTS
from sim.players.random import random_inline
from sim.players.stream import start_stream
from sim.players.tree import advance, dead_list, drop_trees


@njit(cache=True, _nrt=False)
def play_games(
    g,
    seed,
    game_ids,
    players,
    virtual_rate,
    out,
    moves,
    offsets,
    setups,
    first,
    rng,
    fault,
    s,
    tree,
    dead,
):
    """Play ``game_ids``, game i from the setup ``setups[i % k]`` (k rows of N*N colours; a
    row of zeros is the empty board) with colour ``first[i % k]`` to move, colour c with the
    player ``players[c - 1]`` (a row of ``sim.players.params``; None: both ``random``), a
    searching player on the simulations' state ``s`` and the trees ``tree`` (None: no player
    searches); raw outcomes into ``out``. If ``moves`` is not empty, every action goes there
    (sim.schema.coords encoding), game j at ``moves[offsets[j]:offsets[j+1]]``; the call stops
    early, returning the number of games played, when ``moves`` might not hold the next game. If
    ``fault`` (three words) is not None, the state is checked after every action
    (``check_consistency``); the first problem stops the call with (code, point, action
    number) in ``fault``. ``rng`` (two words) and ``dead`` (2 x N*N) are work arrays: the
    kernel allocates nothing, so no reference counting runs in its loop."""
    record = moves.size > 0
    cap = g.tab.shape[1]  # > the longest game
    pos = offsets[0]
    for j in range(game_ids.size):
        if record and pos + cap > moves.size:
            return j
        k = game_ids[j] % setups.shape[0]
        reset(g, setups[k], first[k])
        start_stream(rng, seed, game_ids[j])
        if tree is not None:
            drop_trees(tree)
        while g.tab[ST, ENDING] == 0:
            if players is None:  # the light playout, inlined: the hot loop
                action, code = random_inline(g, rng, virtual_rate)
                apply_inline(g, action, code)
            else:
                action, code = player_action(
                    g, s, tree, rng, players[colour_row(g.tab[ST, TO_MOVE])], virtual_rate
                )
                apply_action(g, action, code)
            if tree is not None:
                advance(tree, action)
            if record:
                moves[pos] = action if action < 0 else g.pt[PLAIN, action]
                pos += 1
            if g.tab[ST, ENDING] != 0 and open_pause(g):
                k0, k1 = name_dead(g, tree, players, dead)
                pos = settle_pause(g, dead, k0, k1, moves, pos)
            if fault is not None:
                problem, point = check_consistency(g)
                if problem != CONSISTENT:
                    fault[0], fault[1], fault[2] = problem, point, g.tab[ST, ACTIONS]
                    return j
        outcome_row(g, out[j], True)
        offsets[j + 1] = pos
    return game_ids.size


@njit(cache=True, _nrt=False)
def name_dead(g, tree, players, dead):
    """Both players' dead stones at a pause into ``dead`` (``sim.players.tree.dead_list``: a
    searching player names those its last search's playouts lost; the others name none);
    returns the two counts."""
    if tree is None:
        return 0, 0
    k0 = dead_list(g, tree, 0, players[0, K_KIND] == MCTS, dead)
    return k0, dead_list(g, tree, 1, players[1, K_KIND] == MCTS, dead)
