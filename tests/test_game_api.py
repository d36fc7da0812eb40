"""`sim.engine.game.Game` and `sim.play.selfplay.play_batch` refuse bad input with a ValueError
instead of handing it to kernels that do not check bounds; `sim.config.rules.Rules` is the one rules
validator, with named presets."""

import numpy as np
import pytest

from sim.config.rules import PRESETS, Rules
from sim.engine.game import Game
from sim.options import OptionError
from sim.play.selfplay import play_batch
from sim.schema.coords import parse_action
from sim.schema.tables import DEFAULT_KOMI


@pytest.mark.parametrize("action", [25, 100, -6])
def test_actions_off_the_board(action):
    with pytest.raises(ValueError, match="is not a point of a 5x5 board"):
        Game(Rules(5)).play(action)


@pytest.mark.parametrize("setup", [[0] * 24, [0] * 26, [3] + [0] * 24, [-1] + [0] * 24])
def test_bad_setups(setup):
    with pytest.raises(ValueError, match="a setup is 25 colours 0, 1 or 2"):
        Game(Rules(5), setup=setup)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(board_size=1), "board_size: must be in 2..25, got 1"),
        (dict(board_size=26), "board_size: must be in 2..25, got 26"),
        (dict(board_size=5.0), "board_size: must be an integer, got 5.0"),
        (dict(board_size=5, max_actions=0), "max_actions: must be in 1..1,000,000, got 0"),
        (dict(board_size=5, max_actions=10**7), "max_actions: must be in 1..1,000,000"),
        (dict(board_size=5, repetition="superko"), "repetition: must be one of .*; got 'superko'"),
        (dict(board_size=5, suicide="single"), "suicide: must be one of multi, none; got 'single'"),
        (dict(board_size=5, dead_stones="agree_later"), "dead_stones: must be one of all_alive"),
        (dict(board_size=5, komi={"jpd_a": float("inf")}), "komi.jpd_a: must be a finite number"),
        (dict(board_size=5, komi={"korean": 6.5}), "komi.korean: unknown ruleset"),
        (dict(board_size=5, komi=[6.5]), "komi: must be a table of ruleset = number"),
    ],
)
def test_bad_rules(options, message):
    with pytest.raises(OptionError, match=message) as err:
        Rules(**options)
    assert err.value.key == message.split(":")[0]


def test_presets_and_defaults():
    rules = Rules(9)
    assert (rules.repetition, rules.suicide, rules.max_actions, rules.dead_stones) == (
        "global_superko",
        "multi",
        8 * 81,
        "all_alive",
    )
    assert rules.komi == DEFAULT_KOMI
    assert Rules.preset("jpd", 9) == rules
    japanese = Rules.preset("japanese", 7, max_actions=50, komi={"jpd_b": 0.5})
    assert (japanese.repetition, japanese.suicide, japanese.max_actions) == ("basic_ko", "none", 50)
    assert japanese.komi == {**DEFAULT_KOMI, "jpd_b": 0.5}
    assert {name: Rules.preset(name, 5).repetition for name in PRESETS} == {
        name: preset["repetition"] for name, preset in PRESETS.items()
    }
    with pytest.raises(OptionError, match="rules: must be one of jpd, "):
        Rules.preset("korean", 9)
    assert Rules(**rules.to_dict()) == rules
    with pytest.raises(TypeError, match="takes a sim.config.rules.Rules"):
        Game(9)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(black="greedy"), "kind: must be one of random, capture, pattern, mcts"),
        (dict(virtual_rate=1.5), r"virtual_rate must be in \[0, 1\]"),
    ],
)
def test_bad_batches(options, message):
    args = dict(
        black="random",
        white="random",
        virtual_rate=0.0,
        seed=0,
        game_ids=np.arange(2),
        record_moves=False,
    )
    with pytest.raises(ValueError, match=message):
        play_batch(Rules(5), **{**args, **options})


def test_a_settled_pause_keeps_the_state_consistent():
    """dead_stones = "agree": a resumption, then an agreement whose dead stones are removed
    one by one; the engine's incremental state agrees with its board after each (exact mode
    and hash mode)."""
    for exact in (True, False):
        game = Game(Rules(5, dead_stones="agree"), exact=exact)
        for token in "C3 D4 B2 pass pass resume E5 pass pass agree D4 B2".split():
            assert game.play(parse_action(token, 5)) is None, token
            assert game.check() is None, token
        out = game.outcome()
        assert (out["dead_b"], out["dead_w"], out["resumptions"], out["ending"]) == (
            1,
            1,
            1,
            "pause",
        )
        assert game.play(parse_action("C2", 5)) == "no stone to remove"  # a dead stone, if any
        assert game.play(parse_action("pass", 5)) == "game over (pause)"
