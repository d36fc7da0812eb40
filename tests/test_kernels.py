"""A run compiles what it plays: the kernel variant each set of players needs, the compile
step that says so the first time, the cache folder keyed by the kernels' sources alone, and
the one pause settlement the drivers share."""

import io
import subprocess
import sys

import numpy as np
import pytest

from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.game import Game
from sim.play.native import NativePlayers
from sim.run.drivers import DRIVERS
from sim.schema.coords import AGREE, RESUME, parse_action


@pytest.mark.parametrize(
    "black, white, variant",
    [
        ("random", "random", "light"),
        ("random", "pattern", "playout"),
        ("capture", "kofight", "playout"),
        (Player("mcts", visits=4), "random", "search"),
        ("random", Player("gtp", command="gnugo"), "playout"),
    ],
)
def test_the_players_choose_the_kernel_variant(black, white, variant):
    players = [p if isinstance(p, Player) else Player(p) for p in (black, white)]
    native = NativePlayers(Rules(5), *players)
    assert native.variant == variant
    assert (native.tree is None) == (variant != "search")


def test_a_light_run_compiles_no_other_player():
    """In a fresh process, random self-play loads the light kernel and nothing of the
    pattern player or the search (numba lists what a dispatcher compiled or loaded)."""
    code = (
        "import numpy as np; from sim.play.selfplay import play_batch; "
        "from sim.config.rules import Rules; "
        "import sim.players.mcts as m, sim.players.pattern as p, sim.players.choose as c; "
        "play_batch(Rules(5), seed=1, game_ids=np.arange(3)); "
        "print(len(m.search.signatures), len(p.pattern_move.signatures), "
        "len(c.player_action.signatures))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0", "0"]


def test_compile_step_says_what_it_compiles_the_first_time(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the markers; numba keeps its cache
    kwargs = dict(rules=Rules(5), black=Player("mcts", visits=500), white=Player("random"))
    first, again = io.StringIO(), io.StringIO()
    DRIVERS["batch"].compile({**kwargs, "seed": 3}, first)
    DRIVERS["batch"].compile({**kwargs, "seed": 3}, again)
    lines = first.getvalue().splitlines()
    assert lines[0] == "compiling the kernels for tree search (first time only)..."
    assert lines[1].startswith("compiled in ") and lines[1].endswith(" s")
    assert again.getvalue() == ""
    light = io.StringIO()
    DRIVERS["batch"].compile({**kwargs, "black": Player("random"), "seed": 3}, light)
    assert "light playouts" in light.getvalue()


def _pause(size=5, moves=("C3", "D3", "pass", "pass")):
    game = Game(Rules(size, dead_stones="agree"), exact=False)
    for m in moves:
        assert game.play(parse_action(m, size)) is None
    return game


def test_settle_pause_agreed_lists_remove_the_stones():
    game = _pause()
    d3 = parse_action("D3", 5)
    assert game.settle_pause([d3], [d3, d3]) == [AGREE, d3]
    assert game.board()[d3] == 0 and game.outcome()["dead_w"] == 1


def test_settle_pause_different_lists_resume_play():
    game = _pause()
    assert game.settle_pause([parse_action("D3", 5)], []) == [RESUME]
    assert game.ending is None and game.outcome()["resumptions"] == 1


def test_settle_pause_refuses_an_agreed_point_without_a_stone():
    game = _pause()
    before = game.outcome()
    empty = parse_action("A1", 5)
    with pytest.raises(ValueError, match="no stone to remove at A1"):
        game.settle_pause([empty], [empty])
    assert game.outcome() == before and game.ending == "pause"
    with pytest.raises(ValueError, match="off the 5x5 board"):
        game.settle_pause([25], [25])
    assert np.array_equal(game.board(), _pause().board())


def test_the_compile_step_says_the_patches_left_off_every_time(tmp_path, monkeypatch):
    """A numba the patches were not verified on: the compile step says so in one line, the
    first time and every time after (the marker keeps the lines), and returns the lines."""
    import sim.engine

    off = ("numba 9.9's index fix is not the one verified (numba 0.68): slower",)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the markers; numba keeps its cache
    monkeypatch.setattr(sim.engine, "PATCHES_OFF", off)
    kwargs = dict(rules=Rules(5), black=Player("random"), white=Player("random"), seed=3)
    first, again = io.StringIO(), io.StringIO()
    assert DRIVERS["batch"].compile(kwargs, first) == off
    assert first.getvalue().splitlines()[-1] == f"warning: {off[0]}"
    monkeypatch.setattr(sim.engine, "PATCHES_OFF", ())
    assert DRIVERS["batch"].compile(kwargs, again) == off
    assert again.getvalue() == f"warning: {off[0]}\n"


def test_a_run_logs_the_patches_left_off(tmp_path, monkeypatch, capsys):
    from sim.config.file import config_from_dict
    from sim.run import runner
    from sim.run.drivers import Driver

    line = "numba 9.9's inliner is not the one verified (numba 0.68): slower to compile"
    monkeypatch.setattr(Driver, "compile", lambda self, kwargs, log=None: (line,))
    cfg = config_from_dict({"name": "p", "board_size": 5, "games": 4}, "test")
    runner.run(cfg, tmp_path / "p", workers=1)
    assert f"WARNING {line}" in (tmp_path / "p" / "run.log").read_text(encoding="utf-8")
