"""The one place the kernels choose among the player kinds: ``player_action`` asks the kernel
of the player to move (its row of ``sim.players.params``) for its action.

Which kernels a caller compiles follows from the types of what it passes: with ``tree`` None
(no player of the driver searches) numba prunes the search away, and the batch loop
(``sim.play.batch``) calls ``random_move`` alone when both players are ``random``. A run compiles
what it plays (``sim.config.pairing.kernel_variant``).
"""

from numba import njit

from sim.players.capture import capture_move
from sim.players.kofight import kofight_move
from sim.players.mcts import mcts_move
from sim.players.params import CAPTURE, K_KIND, KOFIGHT, MCTS, PATTERN
from sim.players.pattern import pattern_move
from sim.players.random import random_move


@njit(cache=True, _nrt=False)
def player_action(g, s, tree, rng, params, virtual_rate):
    """The action (bordered point, PASS, VIRTUAL or RESIGN) and ``judge`` verdict of the
    player to move in ``g``, whose row of ``sim.players.params`` is ``params``; a searching
    player searches on the simulations' state ``s`` and the trees ``tree`` (None when no
    player searches: the search is then not compiled). Play it with ``apply_action``, then
    ``advance(tree, action)`` when a player searches."""
    if tree is not None:
        if params[K_KIND] == MCTS:
            return mcts_move(g, s, tree, rng, params)
    return _playout_action(g, rng, params, virtual_rate)


@njit(cache=True, _nrt=False)
def _playout_action(g, rng, params, virtual_rate):
    """``player_action`` of the players that do not search."""
    kind = params[K_KIND]
    if kind == CAPTURE:
        return capture_move(g, rng, virtual_rate)
    if kind == PATTERN:
        return pattern_move(g, rng, virtual_rate)
    if kind == KOFIGHT:
        return kofight_move(g, rng, virtual_rate, params)
    return random_move(g, rng, virtual_rate)
