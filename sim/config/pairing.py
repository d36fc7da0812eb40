"""What a pair of players needs to play: its driver (``driver``: which code plays its games,
``sim.run.drivers``) and, for the simulator's own players, its batch kernel
(``kernel_variant``: which variant of ``sim.play.batch`` is compiled)."""

from __future__ import annotations

from sim.config.player import Player

#: The variants of the batch kernel (``sim.play.batch``), by what the players need, as a user reads
#: them.
VARIANTS = {"light": "light playouts", "playout": "playout players", "search": "tree search"}


def driver(black: Player, white: Player) -> str:
    """The driver of ``black`` against ``white`` (a key of ``sim.run.drivers.DRIVERS``);
    ValueError for a gtp player against a katago player (no driver plays both)."""
    kinds = {black.kind, white.kind}
    if kinds == {"gtp", "katago"}:
        raise ValueError("a gtp player cannot play a katago player (play katago through gtp)")
    if "katago" in kinds:
        return "katago"
    return "referee" if "gtp" in kinds else "batch"


def kernel_variant(black: Player, white: Player) -> str:
    """The batch kernel ``black`` and ``white`` need: ``search`` if one searches, ``light`` if
    both are ``random``, else ``playout``."""
    if black.searches or white.searches:
        return "search"
    return "light" if black.kind == white.kind == "random" else "playout"
