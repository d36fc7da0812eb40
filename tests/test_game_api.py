"""`sim.engine.game.Game` and `sim.selfplay.play_batch` refuse bad input with a ValueError instead of
handing it to kernels that do not check bounds."""

import numpy as np
import pytest

from sim.engine.game import Game
from sim.selfplay import play_batch


@pytest.mark.parametrize("action", [25, 100, -3])
def test_actions_off_the_board(action):
    with pytest.raises(ValueError, match="is not a point of a 5x5 board"):
        Game(5).play(action)


@pytest.mark.parametrize("setup", [[0] * 24, [0] * 26, [3] + [0] * 24, [-1] + [0] * 24])
def test_bad_setups(setup):
    with pytest.raises(ValueError, match="a setup is 25 colours 0, 1 or 2"):
        Game(5, setup=setup)


@pytest.mark.parametrize("options, message", [
    (dict(size=1), "board size 1 is out of range 2..25"),
    (dict(size=26), "board size 26 is out of range 2..25"),
    (dict(size=5, max_actions=0), "max_actions must be in 1..1,000,000, not 0"),
    (dict(size=5, max_actions=10**7), "max_actions must be in 1..1,000,000"),
    (dict(size=5, repetition="superko"), "unknown repetition 'superko'"),
    (dict(size=5, suicide="single"), "unknown suicide 'single'"),
])
def test_bad_rules(options, message):
    with pytest.raises(ValueError, match=message):
        Game(**options)


@pytest.mark.parametrize("options, message", [
    (dict(policy_b="greedy"), "unknown policy_b 'greedy'"),
    (dict(virtual_rate=1.5), r"virtual_rate must be in \[0, 1\]"),
    (dict(komi={"jpd_a": float("inf")}), "komi of jpd_a must be a finite number"),
    (dict(komi={"korean": 6.5}), "unknown ruleset 'korean'"),
])
def test_bad_batches(options, message):
    args = dict(size=5, repetition="global_superko", suicide="multi", max_actions=None,
                policy_b="random", policy_w="random", virtual_rate=0.0, komi=None, seed=0,
                game_ids=np.arange(2), record_moves=False)
    with pytest.raises(ValueError, match=message):
        play_batch(**{**args, **options})
