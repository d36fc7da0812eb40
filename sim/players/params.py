"""A player as the kernels read it: one float64 row of parameters per colour (``K_*``), its
kind as a code (an index in ``sim.schema.PLAYERS``), and ``kernel_parameters``, which writes
the row of a ``sim.player.Player`` under some ``sim.rules.Rules``."""

from sim.schema import PLAYERS, PLAYOUTS, RULESETS

RANDOM, CAPTURE, PATTERN, MCTS, KOFIGHT = (
    PLAYERS.index(k) for k in ("random", "capture", "pattern", "mcts", "kofight")
)
PATTERN_PLAYOUT = PLAYOUTS.index("pattern")

(
    K_KIND,
    K_VISITS,
    K_PLAYOUT,
    K_PLAY_FOR,
    K_KOMI,
    K_RESIGN,
    K_EXPLORE,
    K_THREAT,
    K_RAVE,
    K_STOP_EARLY,
) = range(10)
N_K = 10


def kernel_parameters(player, rules) -> list:
    """The ``K_*`` row of ``player`` (``sim.player.Player``) under ``rules``: ``K_KOMI`` is the
    komi of the ruleset it plays for."""
    row = [0.0] * N_K
    row[K_KIND] = PLAYERS.index(player.kind)
    row[K_VISITS] = player.visits
    row[K_PLAYOUT] = PLAYOUTS.index(player.playout)
    row[K_PLAY_FOR] = RULESETS.index(player.play_for)
    row[K_KOMI] = rules.komi[player.play_for]
    row[K_RESIGN] = player.resign_below
    row[K_EXPLORE] = player.explore
    row[K_THREAT] = player.threat_rate
    row[K_RAVE] = player.rave
    row[K_STOP_EARLY] = player.stop_early
    return row
