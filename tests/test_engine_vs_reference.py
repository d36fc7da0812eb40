"""The numba engine against the pure-Python reference, move by move, on 3,440 games: every
board size 2..9 x every repetition mode x eleven styles of play (plain, with voluntary virtual
moves, without suicide, the capture player, the pattern player, four small tree searches
that pick real moves, passes and virtual moves themselves, resign, three of them agree on dead
stones at a pause or resume play and one has the learned priors and the score utility, and
two kofight players).
The games are the batched kernel's own (``play_batch`` with recorded moves); each is re-played
action by action in ``sim.engine.game.Game`` (exact mode) and in ``tests.reference.RefGame``,
comparing the legal-move sets and boards after every action and every outcome field at the
end, and checking the outcome invariants. The engine's state check (``sim.engine.check``) runs
after every action, in the batch and in ``Game``."""

import numpy as np
import pytest

from sim.config.player import Player
from sim.config.rules import Rules
from sim.play.selfplay import play_batch
from sim.schema.tables import OUTCOME_FIELDS, REPETITIONS
from tests.conftest import replay_with_reference

STYLES = [  # (suicide, virtual_rate, player of both colours, games, dead_stones)
    ("multi", 0.0, "random", 13, "all_alive"),
    ("multi", 0.15, "random", 13, "all_alive"),
    ("none", 0.05, "random", 12, "all_alive"),
    ("multi", 0.05, "capture", 12, "all_alive"),
    ("multi", 0.05, "pattern", 10, "all_alive"),
    ("multi", 0.0, Player("mcts", visits=12, playout="random", resign_below=0.15), 3, "all_alive"),
    ("none", 0.0, Player("mcts", visits=12, play_for="japanese"), 3, "agree"),
    ("multi", 0.0, Player("mcts", visits=24, playout="random", play_for="jpd_b"), 3, "agree"),
    (
        "none",
        0.0,
        Player("mcts", visits=16, prior="learned", play_for="jpd_tangsong", score_utility=0.3),
        3,
        "agree",
    ),
    ("multi", 0.0, Player("kofight", threat_rate=0.5), 8, "all_alive"),
    ("none", 0.05, Player("kofight", threat_rate=0.9, playout="random"), 6, "all_alive"),
]


def batch(rules, virtual_rate, policy, games, seed):
    return play_batch(
        rules,
        black=policy,
        white=policy,
        virtual_rate=virtual_rate,
        seed=seed,
        game_ids=np.arange(games),
        record_moves=True,
        check=True,
    )


def none_for_nan(value):
    """A column's value as the reference writes it: a null margin (NaN here) is None."""
    return None if isinstance(value, float) and np.isnan(value) else value


@pytest.mark.parametrize("repetition", REPETITIONS)
@pytest.mark.parametrize(
    "size", [*range(2, 7), *(pytest.param(n, marks=pytest.mark.slow) for n in range(7, 10))]
)
def test_random_games_match_reference(size, repetition):
    for style, (suicide, virtual_rate, policy, games, dead) in enumerate(STYLES):
        rules = Rules(size, repetition, suicide, dead_stones=dead)
        columns, moves = batch(rules, virtual_rate, policy, games, 1000 * size + style)
        for j, actions in enumerate(moves):
            where = f"{size}x{size} {repetition} {suicide} game {j}"
            expected = replay_with_reference(rules, actions.tolist(), where)
            assert {name: none_for_nan(columns[name][j]) for name in OUTCOME_FIELDS} == expected
