"""numba's inliner without its needless copies, for this package's ``inline="always"`` helpers.

For every call site of an ``inline="always"`` function, numba builds the callee's IR anew
(``InlineWorker.run_untyped_passes``) and then, inside ``InlineWorker.inline_ir``, deep-copies
it twice, block by block (numba issue #8989). Each block's copy copies the whole variable
scope again, so the copies grow with blocks x variables of the callee and its own inlined
helpers: a third of the tree search variant's compile time and two fifths of the light
playouts' here (docs/performance.md, 2026-12-02). The IR being copied is built for that one
call site; the second copy, returned as the callee's "unmutated" IR, is dropped by numba's
only caller of ``inline_function`` (``InlineInlinables``).

``install`` (run when ``sim.engine`` is imported, before any kernel compiles) wraps
``InlineWorker.inline_function`` so that, for functions of this package, the fresh IR's blocks
pass through those copies as themselves; they become plain blocks again before the call
returns (the returned "unmutated" IR then shares the inlined blocks). The generated code is
the same: the LLVM IR of the batch kernel's light and search variants is byte-identical with
and without it (docs/performance.md), and tests/test_inlining.py compares that of ``reset`` and
``apply_action``. Functions of other packages are inlined as before. The three numba methods
involved are checked against the source this was verified on (numba 0.68): should numba
change any of them, nothing is replaced and the kernels compile as slowly as before, never
differently.
"""

import hashlib
import inspect

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


def install(worker=InlineWorker) -> None:
    """Inline this package's helpers without copying their fresh IR (once per process);
    ``worker``: the class patched, numba's ``InlineWorker``."""
    numba_inline = getattr(worker, "inline_function", None)
    if numba_inline is None or getattr(numba_inline, "jpdsim", False):
        return
    if any(_digest(getattr(worker, name, None)) != digest for name, digest in VERIFIED.items()):
        return

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
