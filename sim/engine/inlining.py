"""numba's inliner without its needless copies, for this package's ``inline="always"`` helpers.

For every call site of an ``inline="always"`` function, numba builds the callee's IR anew
(``InlineWorker.run_untyped_passes``) and then, inside ``InlineWorker.inline_ir``, deep-copies
it twice, block by block (numba issue #8989). Each block's copy copies the whole variable
scope again, so the copies grow with blocks x variables of the callee and its own inlined
helpers: a third of the tree search variant's compile time and two fifths of the light
playouts' here (docs/performance.md, 2026-12-02).
The IR being copied is fresh and used by nothing else.

``install`` (run when ``sim.engine`` is imported, before any kernel compiles) wraps
``InlineWorker.inline_function`` so that, for functions of this package, the fresh IR's blocks
pass through those copies as themselves; they become plain blocks again before the call
returns. The generated code is the same: the LLVM IR of the batch kernel's variants is
byte-identical with and without it (tests/test_inlining.py). Functions of other packages are
inlined as before; should numba change these internals' parameters, nothing is replaced.
"""

import inspect

from numba.core import ir
from numba.core.inline_closurecall import InlineWorker

_PARAMETERS = {
    "inline_function": ["self", "caller_ir", "block", "i", "function", "arg_typs"],
    "inline_ir": ["self", "caller_ir", "block", "i", "callee_ir", "callee_freevars", "arg_typs"],
    "run_untyped_passes": ["self", "func", "enable_ssa"],
}


class _Fresh(ir.Block):
    """A block of IR built for one call site: its deep copy is itself."""

    def __deepcopy__(self, memo):
        return self


def install() -> None:
    """Inline this package's helpers without copying their fresh IR (once per process)."""
    numba_inline = getattr(InlineWorker, "inline_function", None)
    if numba_inline is None or getattr(numba_inline, "jpdsim", False):
        return
    for name, parameters in _PARAMETERS.items():
        method = getattr(InlineWorker, name, None)
        if method is None or list(inspect.signature(method).parameters) != parameters:
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
    InlineWorker.inline_function = inline_function
