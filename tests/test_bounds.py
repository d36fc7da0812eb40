"""The kernels index without numba's negative-index wraparound (``sim.engine.indexing``):
only this package's functions lose it, and under numba's bounds check the kernels of every
player and repetition rule stay inside their arrays."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit
from numba.np import arrayobj

from sim.engine.indexing import install  # importing sim.engine installs it


def _indexer(module):
    def at(a, i):
        return a[i]

    at.__module__ = module  # numba names the compiled function after its module
    return njit(boundscheck=True)(at)


def test_only_this_packages_kernels_lose_the_wraparound():
    a = np.arange(3)
    assert _indexer("tests.probe")(a, -1) == 2
    with pytest.raises(IndexError):
        _indexer("sim.probe")(a, -1)
    assert _indexer("sim.probe")(a, 2) == 2


def test_a_changed_numba_internal_is_left_alone(monkeypatch):
    def fix_integer_index(context, builder, idxty, idx, size, wrap):  # a new parameter
        raise AssertionError("never called here")

    monkeypatch.setattr(arrayobj, "fix_integer_index", fix_integer_index)
    said = install()
    assert arrayobj.fix_integer_index is fix_integer_index
    assert "index fix is not the one verified" in said and "\n" not in said
    monkeypatch.delattr(arrayobj, "fix_integer_index")
    assert install() == said
    assert not hasattr(arrayobj, "fix_integer_index")


def test_installed_on_the_verified_numba():
    import sim.engine

    assert arrayobj.fix_integer_index.jpdsim
    assert install() is None
    assert sim.engine.PATCHES_OFF == ()


PLAY = """
import numpy as np
from sim.config.player import Player
from sim.config.rules import Rules
from sim.play.selfplay import play_batch

# one kernel variant, the search's, holds every player; each game has a searching player
search = Player("mcts", visits=24)
mixes = [(search, "random"), ("pattern", search), (search, "kofight"), ("capture", search)]
for i, repetition in enumerate(("global_superko", "no_result", "basic_ko", "board_superko",
                                "situational_superko")):
    for j, suicide in enumerate(("multi", "none")):
        rules = Rules(5 + 2 * (i % 2), repetition=repetition, suicide=suicide,
                      dead_stones=("all_alive", "agree")[j])
        play_batch(rules, seed=i, game_ids=np.arange(6), black=mixes[(i + j) % 4][0],
                   white=mixes[(i + j) % 4][1], virtual_rate=0.05, record_moves=True,
                   exact=bool(j))
print("in bounds")
"""


@pytest.mark.slow
def test_every_player_and_rule_stays_in_bounds(tmp_path):
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PLAY)], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "in bounds"
