"""Array indexing in this package's kernels without numba's negative-index wraparound.

numba gives a signed index Python's meaning (``a[-1]`` is the last element), so every access
whose index it cannot prove non-negative pays a compare and a select. The kernels index only
with point numbers, rows, move numbers and counters, never from the end, and the light
playout makes tens of accesses a move: without the wraparound it plays about 17% more games
a second (docs/performance.md, 2026-12-02).

``install`` (run when ``sim.engine`` is imported, before any kernel compiles or loads) wraps
numba's index fix, ``numba.np.arrayobj.fix_integer_index`` (an internal of numba's array
lowering), so that the index is taken as it is in functions of this package, whose LLVM
names start ``_ZN3sim``, and wrapped as before everywhere else. Should numba rename that
internal or change its parameters, nothing is replaced and the kernels keep the wraparound:
slower, never wrong. A negative index in a kernel is a bug either way; under numba's bounds
check (``NUMBA_BOUNDSCHECK=1``, tests/test_bounds.py) it raises IndexError instead of
reading from the end.
"""

import inspect

from numba.core import types
from numba.np import arrayobj

_OWN = "_ZN3sim"  # the mangled names of functions in the package ``sim``
_PARAMETERS = ["context", "builder", "idxty", "idx", "size"]  # numba's fix, since 2015


def install() -> None:
    """Index without wraparound in this package's kernels (once per process)."""
    numba_fix = getattr(arrayobj, "fix_integer_index", None)
    if numba_fix is None or getattr(numba_fix, "jpdsim", False):
        return
    if list(inspect.signature(numba_fix).parameters) != _PARAMETERS:
        return

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.startswith(_OWN):
            return context.cast(builder, idx, idxty, types.intp)
        return numba_fix(context, builder, idxty, idx, size)

    fix_integer_index.jpdsim = True
    arrayobj.fix_integer_index = fix_integer_index
