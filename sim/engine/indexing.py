"""Array indexing in this package's kernels without numba's negative-index wraparound.

numba gives a signed index Python's meaning (``a[-1]`` is the last element), so every access
whose index it cannot prove non-negative pays a compare and a select. The kernels index only
with point numbers, rows, move numbers and counters, never from the end.

``install`` (run when ``sim.engine`` is imported, before any kernel compiles or loads) wraps
numba's index fix, ``numba.np.arrayobj.fix_integer_index`` (an internal of numba's array
lowering), so that the index is taken as it is in functions of this package, whose LLVM
names start ``_ZN3sim``, and wrapped as before everywhere else. Should numba rename that
internal or change its parameters, nothing is replaced, ``install`` says so in one line
(``sim.engine.PATCHES_OFF``) and the kernels keep the wraparound: slower, never wrong. A
negative index in a kernel is a bug either way; under numba's bounds check
(``NUMBA_BOUNDSCHECK=1``, tests/test_bounds.py) it raises IndexError instead of reading from
the end.

Why a patch: no design without one matches it (docs/performance.md, 2026-12-03; five rounds
taking turns on one core, the median time against this one). Without it, random self-play on
9x9 takes 1.14x as long, pattern self-play 1.18x and the tree search 1.21x. Casting the index
to unsigned at every variable two-dimensional access of the kernels (215 of them, as OpenSpiel
indexes with unsigned points: numba wraps signed indices only) takes 1.07x, 1.10x and 1.18x
(the one-dimensional accesses and the indices computed in place keep the wraparound), and
every cast is a place where a later edit can forget one.
"""

import inspect

import numba
from numba.core import types
from numba.np import arrayobj

_OWN = "_ZN3sim"  # the mangled names of functions in the package ``sim``
_PARAMETERS = ["context", "builder", "idxty", "idx", "size"]  # numba's fix, since 2015


def install() -> str | None:
    """Index without wraparound in this package's kernels (once per process); returns why not
    (one line) when numba's index fix is not the one verified."""
    numba_fix = getattr(arrayobj, "fix_integer_index", None)
    if getattr(numba_fix, "jpdsim", False):
        return None
    if numba_fix is None or list(inspect.signature(numba_fix).parameters) != _PARAMETERS:
        return (
            f"numba {numba.__version__}'s index fix is not the one verified (numba 0.68): the "
            "kernels index with its negative-index wraparound, 15-25% slower"
        )

    def fix_integer_index(context, builder, idxty, idx, size):
        if idxty.signed and builder.function.name.startswith(_OWN):
            return context.cast(builder, idx, idxty, types.intp)
        return numba_fix(context, builder, idxty, idx, size)

    fix_integer_index.jpdsim = True
    arrayobj.fix_integer_index = fix_integer_index
    return None
