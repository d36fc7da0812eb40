"""numba's inliner without its needless copies, for this package's ``inline="always"`` helpers.

For every call site of an ``inline="always"`` function, numba builds the callee's IR anew
(``InlineWorker.run_untyped_passes``) and then, inside ``InlineWorker.inline_ir``, deep-copies
it twice, block by block (numba issue #8989). Each block's copy copies the whole variable
scope again, so the copies grow with blocks x variables of the callee and its own inlined
helpers. The IR being copied is built for that one call site; the second copy, returned as
the callee's "unmutated" IR, is dropped by numba's only caller of ``inline_function``
(``InlineInlinables``).

``install`` (run when ``sim.engine`` is imported, before any kernel compiles) wraps
``InlineWorker.inline_function`` so that, for functions of this package, the fresh IR's blocks
pass through those copies as themselves; they become plain blocks again before the call
returns (the returned "unmutated" IR then shares the inlined blocks). The generated code is
the same: the LLVM IR of the batch kernel's light and search variants is byte-identical with
and without it (docs/performance.md), and tests/test_inlining.py compares that of ``reset`` and
``apply_action``. Functions of other packages are inlined as before. The three numba methods
involved are checked against the source this was verified on (numba 0.68, the release line
pyproject.toml pins): should numba change any of them, nothing is replaced, ``install`` says
so in one line (``sim.engine.PATCHES_OFF``) and the kernels compile as slowly as before,
never differently.

Why a patch (docs/performance.md, 2026-12-03): the helpers are inlined where a measurement
shows that it pays, and no fewer inlined helpers give the speed. Called instead of inlined,
the eight largest (``key_after``, ``_remove_chain``, ``record``, ``_refill`` and four of the
players') made random self-play on 9x9 take 1.18x as long, pattern self-play 1.13x and the
tree search 1.15x; nineteen, 1.76x, 1.34x and 1.26x. Without the patch the tree search
variant compiles in 1.27x the time (103 s against 81 s in one sitting).
"""

import hashlib
import inspect

import numba
from numba.core import ir
from numba.core.inline_closurecall import InlineWorker

#: The first 16 hex digits of the SHA-256 of each method's source, as verified (numba 0.68).
VERIFIED = {
    "inline_function": "1b53f183258e659d",
    "inline_ir": "26fd2b7600c9d929",
    "run_untyped_passes": "b6ca82e78918c615",
}


def _digest(method) -> str:
    try:
        source = inspect.getsource(method)
    except (OSError, TypeError):
        return ""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


class _Fresh(ir.Block):
    """A block of IR built for one call site: its deep copy is itself."""

    def __deepcopy__(self, memo):
        return self


def install(worker=InlineWorker) -> str | None:
    """Inline this package's helpers without copying their fresh IR (once per process);
    ``worker``: the class patched, numba's ``InlineWorker``. Returns why not (one line) when
    numba's methods are not the ones verified."""
    numba_inline = getattr(worker, "inline_function", None)
    if getattr(numba_inline, "jpdsim", False):
        return None
    if any(_digest(getattr(worker, name, None)) != digest for name, digest in VERIFIED.items()):
        return (
            f"numba {numba.__version__}'s inliner is not the one verified (numba 0.68): the "
            "kernels compile with its copies of their helpers' IR, about 1.3x as long"
        )

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        if not (getattr(function, "__module__", None) or "").startswith("sim."):
            return numba_inline(self, caller_ir, block, i, function, arg_typs)
        callee_ir = self.run_untyped_passes(function)
        fresh = list(callee_ir.blocks.values())
        for b in fresh:
            b.__class__ = _Fresh
        try:
            freevars = function.__code__.co_freevars
            return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
        finally:
            for b in fresh:
                b.__class__ = ir.Block

    inline_function.jpdsim = True
    inline_function.numba = numba_inline
    worker.inline_function = inline_function
    return None
