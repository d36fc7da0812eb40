"""numba inlines this package's helpers without copying their IR (``sim.engine.inlining``):
the compiled code is the same as with numba's own inliner, and other packages keep numba's."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit
from numba.core.inline_closurecall import InlineWorker

from sim.engine.inlining import VERIFIED, install  # importing sim.engine installs it

# ``reset`` and ``apply_action`` inline ``put_stone``, ``play_stone`` and their nested helpers
# (``_join``, ``_merge``, ``_remove_chain``...); a first argument "numba" keeps numba's inliner
COMPILE = """
import sys
import numpy as np
from numba.core.inline_closurecall import InlineWorker
if sys.argv[1] == "numba":
    InlineWorker.inline_function.jpdsim = True  # install() then leaves numba's own in place
from sim.engine.history import apply_action, reset
from sim.engine.state import INTERIOR, OK, new_state
from sim.config.rules import Rules
g = new_state(Rules(5), False)
reset(g, np.zeros(25, np.int8), 1)
apply_action(g, g.pt[INTERIOR, 12], OK)
print(InlineWorker.inline_function.__module__)
print("".join(reset.inspect_llvm().values()) + "".join(apply_action.inspect_llvm().values()))
"""


def _llvm(inliner, cache):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    code = textwrap.dedent(COMPILE)
    out = subprocess.run(
        [sys.executable, "-c", code, inliner], env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    module, llvm = out.stdout.split("\n", 1)
    return module, llvm


@pytest.mark.slow
def test_the_kernels_compile_to_the_same_code_as_with_numbas_inliner(tmp_path):
    ours, ours_llvm = _llvm("ours", tmp_path / "ours")
    numbas, numbas_llvm = _llvm("numba", tmp_path / "numba")
    assert (ours, numbas) == ("sim.engine.inlining", "numba.core.inline_closurecall")
    assert "put_stone" in ours_llvm and "_merge" in ours_llvm  # inlined helpers' names
    assert ours_llvm == numbas_llvm


def _twice(module):
    def helper(a, i):
        total = 0
        for k in range(i):  # several blocks
            total += a[k]
        return total

    def kernel(a):
        return helper(a, 2) * 10 + helper(a, 3)

    helper.__module__ = kernel.__module__ = module  # the inliner sees the helper's module
    helper = njit(inline="always")(helper)
    return njit(kernel)


def test_only_this_packages_helpers_skip_the_copies(monkeypatch):
    numba_inline_ir, ours = InlineWorker.inline_ir, InlineWorker.inline_function
    during, after = [], []

    def inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs):
        during.extend(type(b).__name__ for b in callee_ir.blocks.values())
        return numba_inline_ir(self, caller_ir, block, i, callee_ir, *args, **kwargs)

    def inline_function(self, *args, **kwargs):
        result = ours(self, *args, **kwargs)
        after.extend(type(b).__name__ for _, b in result[3])  # the blocks now in the caller
        return result

    monkeypatch.setattr(InlineWorker, "inline_ir", inline_ir)
    monkeypatch.setattr(InlineWorker, "inline_function", inline_function)
    a = np.array([1, 2, 4, 8])
    assert _twice("sim.probe")(a) == 3 * 10 + 7
    assert during and set(during) == {"_Fresh"}
    assert after and set(after) == {"Block"}  # none left behind
    during.clear()
    assert _twice("tests.probe")(a) == 3 * 10 + 7
    assert during and set(during) == {"Block"}


def _worker(**changed):
    """A stand-in for numba's InlineWorker with its verified methods, but ``changed``."""
    methods = {
        "inline_function": InlineWorker.inline_function.numba,
        "inline_ir": InlineWorker.inline_ir,
        "run_untyped_passes": InlineWorker.run_untyped_passes,
    }
    return type("Worker", (), {**methods, **changed})


def test_installed_once_on_the_verified_methods():
    worker = _worker()
    assert install(worker) is None
    assert worker.inline_function.jpdsim
    assert worker.inline_function.numba is InlineWorker.inline_function.numba
    installed = worker.inline_function
    install(worker)
    assert worker.inline_function is installed


@pytest.mark.parametrize("name", sorted(VERIFIED))
def test_a_changed_numba_method_is_left_alone(name):
    def changed(self, *args, **kwargs):
        raise AssertionError("never called here")

    worker = _worker(**{name: changed})
    numbas = worker.inline_function
    said = install(worker)
    assert worker.inline_function is numbas
    assert "inliner is not the one verified" in said and "\n" not in said
