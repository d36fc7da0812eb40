"""The run config: what a run plays, each value checked on creation, read from TOML.

``run`` (``RunConfig``: the run's own keys, its rules, players and setups, its komi sweep or
search), ``file`` (a TOML file or the table a run stored, into a ``RunConfig``; the reference
of every key), ``rules`` (``Rules``: the rules of play and their presets; ``KomiSweep``),
``setups`` (start positions, the corpus of ``sim/corpus``), ``player`` (``Player``: a kind and
its parameters, its canonical name) and ``pairing`` (what two players need: their driver,
their batch kernel). Each value checks itself with ``sim.options``' checkers; the engine and
the players' kernels read ``Rules`` and ``Player``, nothing here imports numba.
"""
