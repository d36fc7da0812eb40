"""The drivers' protocol (``sim.run.drivers``): one registration per driver that
``sim.pairing.driver`` names, and the run layer checks, compiles and plays through it alone."""

import dataclasses
import io
import subprocess
import sys

import numpy as np
import pytest

from sim import pairing
from sim.config import RunConfig
from sim.errors import UserError
from sim.player import Player
from sim.referee import Referee
from sim.rules import Rules
from sim.run import folder, runner
from sim.run.drivers import DRIVERS
from sim.run.shard import play_table
from sim.selfplay import play_batch
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


def test_every_driver_is_registered_once_by_its_name():
    assert list(DRIVERS) == list(pairing.DRIVERS)
    assert all(d.name == name for name, d in DRIVERS.items())


def test_the_registry_imports_no_engine():
    """Importing the registry (and the runner) loads neither numba nor a driver's module."""
    code = (
        "import sys, sim.run.runner, sim.run.drivers; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m in "
        "('sim.referee', 'sim.selfplay', 'sim.katago.driver', 'sim.gtp.engine')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", pairing.DRIVERS)
def test_a_run_is_checked_and_compiled_by_its_drivers_registration(name, tmp_path, monkeypatch):
    """The runner takes the registration ``sim.pairing.driver`` names and calls its check, then
    its compile step (the game of its ``compiles``), before the run folder is made."""
    cfg = runs(tmp_path)[name]
    checked = []

    def elsewhere(*args):
        raise AssertionError("another driver's registration")

    def compiles():
        raise Called("compile")

    for other in DRIVERS:
        monkeypatch.setitem(
            DRIVERS, other, dataclasses.replace(DRIVERS[other], check=elsewhere, compiles=elsewhere)
        )
    mine = dataclasses.replace(DRIVERS[name], check=checked.append, compiles=compiles)
    monkeypatch.setitem(DRIVERS, name, mine)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # no marker: it compiles
    with pytest.raises(Called, match="compile"):
        runner.run(cfg, tmp_path / "run")
    assert checked == [cfg] and not (tmp_path / "run").exists()


@pytest.mark.parametrize("name", pairing.DRIVERS)
def test_the_games_are_played_by_the_drivers_registration(name, tmp_path, monkeypatch):
    cfg = runs(tmp_path)[name]

    def games():
        def play(**kwargs):
            raise Called(sorted(kwargs))

        return play

    monkeypatch.setitem(DRIVERS, name, dataclasses.replace(DRIVERS[name], games=games))
    with pytest.raises(Called) as called:
        play_table(cfg, np.arange(2), False)
    keywords = ["arrow", "black", "game_ids", "record_moves", "rules", "seed", "setups"]
    assert called.value.args[0] == [*keywords, "virtual_rate", "white"]


@pytest.mark.parametrize("name", pairing.DRIVERS)
def test_the_manifest_says_what_the_drivers_games_do_not_control(name, tmp_path, monkeypatch):
    cfg = runs(tmp_path)[name]
    assert ("reproducibility" in folder.new_manifest(cfg, None, {})) == (name != "batch")
    note = dataclasses.replace(DRIVERS[name], reproducibility="its own note")
    monkeypatch.setitem(DRIVERS, name, note)
    assert folder.new_manifest(cfg, None, {})["reproducibility"] == "its own note"


def test_the_checks_are_the_drivers_own(tmp_path):
    """Each registration checks what its games need: a GTP program that refuses the board, a
    KataGo network that is not there; what they need there, passes."""
    cfg = runs(tmp_path)
    DRIVERS["batch"].check(cfg["batch"])
    refuses = Player("gtp", command=[sys.executable, str(FAKE), "pass", "--refuse", "boardsize"])
    with pytest.raises(UserError, match=r"players\.white\.command: .*'boardsize 5' refused"):
        DRIVERS["referee"].check(dataclasses.replace(cfg["referee"], white=refuses))
    DRIVERS["referee"].check(cfg["referee"])
    with pytest.raises(UserError, match=r"players\.black\.model: no such file: .*net"):
        DRIVERS["katago"].check(cfg["katago"])
    (tmp_path / "net").write_bytes(b"a network")
    DRIVERS["katago"].check(cfg["katago"])


@pytest.mark.parametrize("name", pairing.DRIVERS)
def test_each_driver_compiles_its_games_once_under_its_own_name(name, tmp_path, monkeypatch):
    """The compile step plays one game of stand-ins, starts no program (KataGo's network is
    not even there), says so the first time, and leaves the marker of its driver and variant."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the markers; numba keeps its cache
    kwargs = runs(tmp_path)[name].play_kwargs()
    first, again = io.StringIO(), io.StringIO()
    DRIVERS[name].compile(kwargs, first)
    DRIVERS[name].compile(kwargs, again)
    lines = first.getvalue().splitlines()
    assert lines[0] == "compiling the kernels for light playouts (first time only)..."
    assert lines[1].startswith("compiled in ") and again.getvalue() == ""
    assert [p.name for p in tmp_path.iterdir()] == [f"compiled-{name}-light"]


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
