"""docs/findings/root_value.py: the search's own value of the empty board, and where it crosses
one half."""

import importlib.util
from pathlib import Path

import pytest

from sim.player import Player
from sim.rules import Rules

SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "findings" / "root_value.py"
spec = importlib.util.spec_from_file_location("findings_root_value", SCRIPT)
root_value = importlib.util.module_from_spec(spec)
spec.loader.exec_module(root_value)


def test_the_crossing_is_read_as_a_fair_komi_is():
    assert root_value.crossing([1.0, 2.0, 3.0], [0.8, 0.6, 0.4]) == 2.5
    assert root_value.crossing([1.0, 2.0], [0.75, 0.25]) == 1.5
    # a value that rises with komi is pooled with its neighbour (0.45, 0.55 -> 1/2 at both)
    assert root_value.crossing([1.0, 2.0, 3.0, 4.0], [0.6, 0.45, 0.55, 0.4]) == 2.5
    assert root_value.crossing([1.0, 2.0], [0.7, 0.6]) == float("inf")  # past the komis
    assert root_value.crossing([1.0, 2.0], [0.4, 0.3]) == float("-inf")


def test_the_root_value_follows_the_komi():
    """On 5x5 (solved: Black wins by 25 by area) a komi far below gives Black nearly every
    simulation, one far above nearly none."""
    player = Player("mcts", visits=300, play_for="chinese")
    low = root_value.root_value(Rules(5, komi={"chinese": -10.0}), player, 1)
    high = root_value.root_value(Rules(5, komi={"chinese": 40.0}), player, 1)
    assert low > 0.8 and high < 0.2
    assert root_value.root_value(Rules(5, komi={"chinese": -10.0}), player, 1) == low


def test_bare_playouts_end_on_the_board_and_repeat():
    """Each playout's lead is an area difference on the board's 25 points, the same again from
    the same stream."""
    rules, player = Rules(5, komi={"chinese": 0.0}), Player("mcts", visits=1, play_for="chinese")
    leads = root_value.bare_playouts(rules, player, 40)
    assert leads.shape == (40,) and (abs(leads) <= 25).all() and len(set(leads)) > 1
    assert (root_value.bare_playouts(rules, player, 40) == leads).all()


def test_options_read_as_toml_else_as_strings():
    values = root_value._values(["rave=0", "playout=random", 'prior="hand"', "tactics=false"])
    assert values == {"rave": 0, "playout": "random", "prior": "hand", "tactics": False}
    with pytest.raises(ValueError, match="expected KEY=VALUE"):
        root_value._values(["rave"])
