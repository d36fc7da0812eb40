"""The record schema: the vocabulary that the engine, the records and the analysis share.

``tables`` (one table each for the rulesets, the player kinds and the columns of a game row
with the kernel's raw fields, the lists derived from them, the names of the engine's integer
codes) and ``coords`` (actions and GTP vertices). Neither imports numba nor pandas; the kernels
compile their constants in (``sim.kernel_cache`` keys the kernels' cache by this package).
"""
