"""docs/findings/root_value.py: the search's own value of the empty board, and where it crosses
one half; and of the positions of recorded games, beside its playouts'."""

import importlib.util
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.config.file import load_config
from sim.config.player import Player
from sim.config.rules import Rules
from sim.dataset.read import load_game
from sim.engine.game import Game
from sim.run import runner
from sim.run.positions import positions
from sim.schema.coords import format_action
from tests.test_katago import FAKE
from tools.teacher_labels import PAD

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "findings" / "root_value.py"
spec = importlib.util.spec_from_file_location("findings_root_value", SCRIPT)
root_value = importlib.util.module_from_spec(spec)
spec.loader.exec_module(root_value)


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


RECORDED = """\
board_size = 5
games = 4
shard_size = 4
seed = 3
record_moves = "all"
komi_sweep = { ruleset = "chinese", values = [2.5, 3.5] }
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A run of four 5x5 random games at two komis, every game's moves stored."""
    root = tmp_path_factory.mktemp("recorded")
    (root / "run.toml").write_text(RECORDED)
    runner.run(load_config(root / "run.toml"), root / "run", workers=1)
    return root / "run"


def test_positions_are_the_games_after_so_many_moves(recorded):
    found = list(positions(recorded, [6, 2]))
    assert {p.moves for p in found} == {2, 6} and {p.komi for p in found} == {2.5, 3.5}
    first = found[0]
    _, row, actions = load_game(recorded, 0)
    assert (first.game_id, first.komi, first.moves) == (0, row["komi_chinese"], 2)
    assert first.rules.komi["chinese"] == first.komi and first.actions == tuple(actions[:2])
    assert first.score == {"B": 1.0, "draw": 0.5, "W": 0.0}[row["winner_chinese"]]
    game = Game(first.rules, exact=False)
    for a, (colour, vertex) in zip(actions[:2], first.told):
        assert colour == game.to_move and vertex == (format_action(a, 5) if a >= 0 else "pass")
        game.play(a)
    assert (first.state.pt == game.state.pt).all()


def test_a_search_values_a_position_for_black_whoever_moves():
    """On 5x5 at komi -10 Black wins nearly every game: so says the search with White to move
    (after Black's first stone) as with Black to move."""
    rules = Rules(5, komi={"chinese": -10.0})
    player = Player("mcts", visits=300, play_for="chinese")
    game = Game(rules, exact=False)
    for point in (12, 6):
        game.play(point)
        assert root_value.searched(game.state, root_value._started(rules, player, 1)) > 0.8


def test_labelled_positions_carry_a_search_and_playouts_each(recorded):
    deep = Player("mcts", visits=60, play_for="chinese")
    flat = Player("mcts", visits=1, play_for="chinese")
    rows = root_value.labelled(recorded, [4], deep, flat, 20)
    assert len(rows) == 4 and all(0.0 <= r[2] <= 1.0 and 0.0 <= r[3] <= 1.0 for r in rows)
    assert root_value.labelled(recorded, [4], deep, flat, 20) == rows  # the same streams


SETUP = "\\n".join(["X...."] + ["....."] * 4)  # a 5x5 diagram, its rows joined as TOML writes


@pytest.mark.parametrize(
    "change, message",
    [
        (('"all"', '"none"'), "game 0 has no recorded moves"),
        (("seed = 3", f'seed = 3\nsetup = [{{ name = "a", diagram = "{SETUP}" }}]'), "setups"),
    ],
)
def test_a_run_it_cannot_read_is_one_line(tmp_path, monkeypatch, change, message):
    (tmp_path / "run.toml").write_text(RECORDED.replace(*change))
    runner.run(load_config(tmp_path / "run.toml"), tmp_path / "run", workers=1)
    monkeypatch.setattr("sys.argv", ["root_value.py", "--from", str(tmp_path / "run")])
    with pytest.raises(SystemExit, match=message):
        root_value.main()


def test_teacher_labels_are_katagos_root_at_each_position(recorded, model, tmp_path):
    """tools/teacher_labels.py against the fake KataGo, whose root believes Black worth 2.5
    points by area on 5x5 whatever the moves (its winrate 0.5 + lead / 10), and whose best
    move is the first empty point it may play: every position told as played (a stone told
    on an occupied point is its error), labelled at its game's komi, and set beside the
    search and its playouts by root_value.py --labels."""
    out = tmp_path / "labels.npz"
    command = shlex.join([sys.executable, str(FAKE), "play"])
    tool = ROOT / "tools" / "teacher_labels.py"
    args = [str(recorded), "--katago", command, "--model", str(model), "--out", str(out)]
    done = subprocess.run(
        [sys.executable, str(tool), *args, "--moves", "2", "4"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    found = list(positions(recorded, [2, 4]))
    with np.load(out) as f:
        assert list(zip(f["game_id"], f["moves"])) == [(p.game_id, p.moves) for p in found]
        assert np.allclose(f["winrate"], [0.5 + (2.5 - p.komi) / 10 for p in found])
        for p, actions, move in zip(found, f["actions"], f["move"]):
            assert tuple(actions[: p.moves]) == p.actions and (actions[p.moves :] == PAD).all()
            assert move == next(q for q in range(25) if q not in p.actions)  # the top-left empty
        assert f["command"].item().startswith("python tools/teacher_labels.py")
    assert "| 3.5 | 4 |" in done.stdout
    taught = root_value.teacher(out)
    deep = Player("mcts", visits=30, play_for="chinese")
    flat = Player("mcts", visits=1, play_for="chinese")
    rows = root_value.labelled(recorded, [4], deep, flat, 10, taught)
    assert [r[5] for r in rows] == [0.5 + (2.5 - r[0]) / 10 for r in rows]
