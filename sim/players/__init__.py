"""The players: numba kernels that choose the action of the player to move.

Each player is a kernel ``move(g, rng, virtual_rate) -> (action, judge verdict)`` over the
engine state ``g`` and the game's random stream ``rng`` (``sim.players.stream``). A player
only reads the state and asks ``sim.engine.history.judge`` about candidates; the caller takes
the action (``history.apply_action``). Player kinds are named in ``sim.schema.tables.PLAYERS``:

- ``random`` (``sim.players.random``): light playouts;
- ``capture`` (``sim.players.capture``): the capture heuristic of MoGo-style playouts;
- ``pattern`` (``sim.players.pattern``): a heavy playout policy (capture, save, MoGo's 3x3
  patterns, ``sim.players.shapes``; no self-atari: ``sim.players.tactics`` counts the
  liberties a move would leave);
- ``mcts`` (``sim.players.mcts``): tree search with the random or pattern playout; it also
  takes the simulations' state and the trees (``mcts_move(g, s, tree, rng, params)``); with
  ``tactics`` it reads ladders (``sim.players.ladder``) and plays nakade
  (``sim.players.nakade``).
"""

import sim.engine  # noqa: F401  (its indexing and inlining hold for these kernels too)
