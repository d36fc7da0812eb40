"""A player as the kernels read it: one float64 row of parameters per colour (``K_*``), its
kind as a code (an index in ``sim.schema.tables.PLAYERS``), and ``kernel_parameters``, which writes
the row of a ``sim.config.player.Player`` under some ``sim.config.rules.Rules``."""

from sim.schema.tables import PLAYERS, PLAYOUTS, PRIORS, RULESETS

RANDOM, CAPTURE, PATTERN, MCTS, KOFIGHT = (
    PLAYERS.index(k) for k in ("random", "capture", "pattern", "mcts", "kofight")
)
PATTERN_PLAYOUT = PLAYOUTS.index("pattern")
HAND_PRIOR = PRIORS.index("hand")

#: The parameters of a row, in order; ``K_<NAME>`` is the index of each.
ROW = (
    "kind",
    "visits",
    "playout",
    "play_for",
    "komi",
    "resign",
    "explore",
    "threat",
    "rave",
    "stop_early",
    "prior",
    "score_utility",
    "prior_visits",
    "tactics",
    "doubt_passes",
    "avoid_suicides",
)
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
    K_PRIOR,
    K_SCORE_UTILITY,
    K_PRIOR_VISITS,
    K_TACTICS,
    K_DOUBT_PASSES,
    K_AVOID_SUICIDES,
) = range(len(ROW))
N_K = len(ROW)


def kernel_parameters(player, rules) -> list:
    """The ``K_*`` row of ``player`` (``sim.config.player.Player``) under ``rules``: ``K_KOMI`` is
    the komi of the ruleset it plays for."""
    values = {
        "kind": PLAYERS.index(player.kind),
        "visits": player.visits,
        "playout": PLAYOUTS.index(player.playout),
        "play_for": RULESETS.index(player.play_for),
        "komi": rules.komi[player.play_for],
        "resign": player.resign_below,
        "explore": player.explore,
        "threat": player.threat_rate,
        "rave": player.rave,
        "stop_early": player.stop_early,
        "prior": PRIORS.index(player.prior),
        "score_utility": player.score_utility,
        "prior_visits": player.prior_visits,
        "tactics": player.tactics,
        "doubt_passes": player.doubt_passes,
        "avoid_suicides": player.avoid_suicides,
    }
    return [float(values[name]) for name in ROW]
