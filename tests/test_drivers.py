"""The drivers' protocol (``sim.run.drivers``): one registration per driver that
``sim.config.pairing.driver`` names, and the run layer checks, compiles and plays through it
alone."""

import io
import subprocess
import sys

import numpy as np
import pytest

from sim import kernel_cache
from sim.config.player import Player
from sim.config.rules import Rules
from sim.config.run import RunConfig
from sim.play.referee import Referee
from sim.play.selfplay import play_batch
from sim.run.drivers import DRIVERS
from tests.test_katago import fake_command, same
from tests.test_referee import FAKE


class Called(Exception):
    """What a stand-in of a registration's part raises: the run layer called it."""


def runs(tmp_path) -> dict[str, RunConfig]:
    """A small run of each driver: the simulator's players, a GTP program, KataGo (its
    network ``tmp_path/net``)."""
    gtp = Player("gtp", command=[sys.executable, str(FAKE), "pass"])
    katago = Player("katago", command=fake_command("play"), model=str(tmp_path / "net"))
    return {
        name: RunConfig(name=name, games=2, shard_size=2, rules=Rules(5), black=black)
        for name, black in (("batch", Player("random")), ("referee", gtp), ("katago", katago))
    }


def test_every_driver_a_pairing_names_is_registered_by_its_name(tmp_path):
    assert {name: cfg.driver for name, cfg in runs(tmp_path).items()} == {n: n for n in DRIVERS}
    assert all(d.name == name for name, d in DRIVERS.items())


def test_the_registry_imports_no_engine():
    """Importing the registry (and the runner) loads neither numba nor a driver's module."""
    code = (
        "import sys, sim.run.runner, sim.run.drivers; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m in "
        "('sim.play.referee', 'sim.play.selfplay', 'sim.katago.driver', 'sim.gtp.engine')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", DRIVERS)
def test_each_driver_compiles_its_kernels_once(name, tmp_path, monkeypatch):
    """The compile step plays one game of stand-ins, starts no program (KataGo's network is
    not even there), says so the first time, and leaves one marker named by the kernels it
    compiled, their variant and what decides their code; a driver of the same kernels then
    compiles nothing."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the markers; numba keeps its cache
    cfg = runs(tmp_path)
    first, again = io.StringIO(), io.StringIO()
    DRIVERS[name].compile(cfg[name].play_kwargs(), first)
    same = [d for d in DRIVERS if d != name and DRIVERS[d].compiles is DRIVERS[name].compiles]
    for other in [name, *same]:
        DRIVERS[other].compile(cfg[other].play_kwargs(), again)
    lines = first.getvalue().splitlines()
    assert lines[0] == "compiling the kernels for light playouts (first time only)..."
    assert lines[1].startswith("compiled in ") and again.getvalue() == ""
    kernels = "batch" if name == "batch" else "refereed"
    key = kernel_cache.kernel_cache_dir().name
    assert [p.name for p in tmp_path.iterdir()] == [f"compiled-{kernels}-light-{key}"]


def test_the_drivers_that_referee_compile_the_simulators_players_as_they_move_them():
    """``Referee`` alone, whose game the referee's and KataGo's compile steps play, moves the
    simulator's players as those drivers do, which is as the batch plays them: the same
    games."""
    assert DRIVERS["referee"].compiles() == DRIVERS["katago"].compiles() == Referee.play
    rules = Rules(5, dead_stones="agree")
    kwargs = dict(
        seed=3,
        game_ids=np.arange(3),
        black=Player("mcts", visits=8),
        white=Player("pattern"),
        virtual_rate=0.1,
        record_moves=True,
    )
    assert same(play_batch(rules, **kwargs), Referee.play(rules, **kwargs))
