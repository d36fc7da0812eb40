"""The engine: numba kernels over one game state, knowing the rules and nothing else.

``state`` (the arrays of a game and the names of their fields) -> ``board`` (stones, chains,
liberties, captures, Zobrist keys; no rule knobs) -> ``lookahead`` (a move's key, effect and
board before it is played) -> ``repetition`` (the position log, the superko filter, the
four-virtual table) -> ``history`` (passes, virtual moves, legality, endings: everything that
depends on the game's history) -> ``scoring`` (every counting method of docs/rules.md §7) ->
``outcome`` (the raw outcome row of a game, and raw rows to named columns, margins, winners).
``check`` recomputes the incremental state from the board (a debug and test aid); ``game``
plays one game action by action from Python. Players live in ``sim.players``, batches in
``sim.play.selfplay``. Importing the package points numba at the kernels' cache folder
(``sim.kernel_cache``) and installs ``indexing`` (the kernels index without numba's negative-index
wraparound) and ``inlining`` (numba inlines the kernels' helpers without needless copies of
their IR) before any kernel is defined, compiled or loaded.
"""

from sim import kernel_cache

kernel_cache.configure()

from sim.engine import indexing, inlining  # noqa: E402  (numba reads its cache folder first)

#: One line for each of numba's internals left unpatched because numba changed under it (the
#: compile step says them on stderr and in the run log); empty on the numba pinned.
PATCHES_OFF = tuple(reason for reason in (indexing.install(), inlining.install()) if reason)
