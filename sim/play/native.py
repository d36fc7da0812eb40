"""The simulator's own players of one game driver, as one object: the batch
(``sim.play.selfplay``), the GTP referee (``sim.play.referee``) and the GTP server
(``sim.gtp.server``) all choose moves, follow the game and name dead stones through
``NativePlayers``.

It holds each colour's kernel row (``sim.players.params``), the game's random stream
(``sim.players.stream``), a searching player's trees and simulations' state
(``sim.players.tree``; None when no player searches, so that the search is not compiled) and
the dead-stone work space, and says which kernel variant the players need (``variant``).
"""

from __future__ import annotations

import numpy as np

from sim.config.pairing import kernel_variant
from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.state import INTERIOR, PLAIN, ST, TO_MOVE, colour_row, new_state
from sim.players.choose import player_action
from sim.players.params import kernel_parameters
from sim.players.stream import start_stream
from sim.players.tree import advance, dead_list, drop_trees, new_tree
from sim.schema.tables import RAW_FIELDS


class NativePlayers:
    """``black`` and ``white`` (``sim.config.player.Player``s of the simulator's own kinds) under
    ``rules``; ``virtual_rate``: the playout players' share of voluntary virtual moves."""

    def __init__(self, rules: Rules, black: Player, white: Player, virtual_rate: float = 0.0):
        if not 0.0 <= virtual_rate <= 1.0:
            raise ValueError(f"virtual_rate must be in [0, 1], not {virtual_rate}")
        self.players = (black, white)
        self.virtual_rate = float(virtual_rate)
        self.set_rules(rules)
        visits = max(p.visits if p.searches else 0 for p in self.players)
        rave = any(p.searches and p.rave > 0 for p in self.players)
        priors = tuple(p.prior if p.searches else "hand" for p in self.players)
        self.tree = new_tree(rules, visits, len(RAW_FIELDS), rave, priors) if visits else None
        self.sim = new_state(rules, False) if visits else None
        self.rng = np.zeros(2, np.uint64)
        self.dead = np.zeros((2, rules.board_size**2), np.int64)

    @property
    def variant(self) -> str:
        """The batch kernel these players need (``sim.config.pairing.kernel_variant``)."""
        return kernel_variant(*self.players)

    def set_rules(self, rules: Rules) -> None:
        """Each colour's kernel row under ``rules`` (a change of komi: ``K_KOMI``; the board
        stays the same)."""
        self.params = np.array([kernel_parameters(p, rules) for p in self.players], np.float64)

    def start(self, seed: int, game_id: int) -> None:
        """A new game: its random stream ``(seed, game_id)``, the trees dropped."""
        start_stream(self.rng, np.uint64(seed), np.int64(game_id))
        self.drop_trees()

    def drop_trees(self) -> None:
        if self.tree is not None:
            drop_trees(self.tree)

    def choose(self, g) -> tuple[int, int]:
        """The action of the player to move in the engine state ``g`` (a plain point in
        ``sim.schema.coords``' encoding, or PASS, VIRTUAL, RESIGN) and its ``judge`` verdict; the
        caller plays it, then calls ``advance``."""
        row = self.params[colour_row(g.tab[ST, TO_MOVE])]
        action, code = player_action(g, self.sim, self.tree, self.rng, row, self.virtual_rate)
        return (int(action) if action < 0 else int(g.pt[PLAIN, action])), int(code)

    def advance(self, g, action: int) -> None:
        """After any action of the game (``sim.schema.coords`` encoding): the trees follow it."""
        if self.tree is not None:
            advance(self.tree, action if action < 0 else g.pt[INTERIOR, action])

    def dead_stones(self, g, colour: int) -> list[int]:
        """The stones (plain points, sorted) ``colour`` names dead at a pause: a searching
        player those its last search's playouts lost (``sim.players.tree.dead_list``), the
        others none."""
        if self.tree is None:
            return []
        t = colour_row(colour)
        k = dead_list(g, self.tree, t, self.players[t].searches, self.dead)
        return [int(g.pt[PLAIN, p]) for p in self.dead[t, :k]]
