"""The players' seam: the games of the simulator's players, and of programs, played.

``selfplay`` (``play_batch``: the batch driver's front door, rules and players in, outcome
columns out) runs ``batch`` (the batch kernel, one compiled call for many games, a variant
per kind of run); ``native`` (``NativePlayers``: the simulator's players of one driver, the
batch's, the referee's and the GTP server's); ``referee`` (games in which a program plays,
judged move by move from Python: the shell of the drivers that referee, and GTP programs'
games); ``program`` (a program's process: its process group, deadlines, restart). Importing
the package imports none of them: a run loads (and numba compiles) only what it plays.
"""
