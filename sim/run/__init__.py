"""The run layer: play a configured run of games into a run folder (see ``sim.dataset``).

How a run goes:

1. The config (``sim.config.run``) fixes everything that decides a game; a game depends only on
   (seed, game id), so the game ids ``0 .. games-1`` are cut into shards of ``shard_size`` and
   the shards are played in any order by any number of worker processes (``spawn`` context),
   each playing a shard through the run's driver (``sim.run.drivers``: the batch kernel, or
   the referee of a program's games) and writing it (temp name, then rename;
   ``sim.run.shard``). Before any worker starts, the driver checks the run (its programs,
   its setups) and compiles the kernels of its games.
2. The parent hands out shards one at a time over a private pipe per worker
   (``sim.run.pool``); the workers' log records come back through the same pipes and, with the
   parent's own, go to ``<run>/run.log`` through multiprocessing-logging's
   ``MultiProcessingHandler``: one thread of the parent writes the file, in the order the
   records arrive. A tqdm bar shows games/s and the ETA. (The workers do not put records on
   that handler's queue themselves: it is made in the "fork" context, which Python refuses to
   share with "spawn" workers, and its shared write lock would be left held by a worker killed
   mid-record, silencing the others; a private pipe per worker has no such lock.) With a Dask
   scheduler the shards are tasks of its cluster instead (``sim.run.dask_backend``).
3. The manifest is brought up to date as shards are written (at most about once a second), so
   a killed run's manifest is not far behind. Ctrl-C (or SIGTERM) terminates the workers
   (which start with SIGINT blocked, then ignore it: the runner decides), removes their
   temporary files, marks the manifest "interrupted" and says how to resume; a Ctrl-C that a
   library swallowed while loading is raised again (``sim.interrupts``). A worker that dies or
   fails is reported with its shard; the run then ends with the list of missing shards and exit
   status 1. A manifest that cannot be written (disk full) is a one-line ``UserError``; so is a
   worker's ``UserError`` (a full disk, a GTP program whose games keep ending
   ``engine_error``), which stops the run: no more shards, the manifest "stopped" with the
   reason in ``stopped_because``.
4. ``--resume`` checks that the folder's manifest holds the same config (or writes a deleted
   manifest again from the config), verifies every stored file
   (``sim.dataset.check.check_run(verify=True)``), removes the temporary files of a killed run,
   and plays only the missing shards: the result is the same rows an uninterrupted run writes
   (``sim.run.folder``).
5. At the end the manifest is completed (times, games written, throughput); ``jpdsim run``
   (``sim.commands.run``) then prints a summary (``analysis.summary``).

``sim.run.runner.run`` does all this; ``sim.run.stored`` re-plays a stored game to check it;
``sim.run.positions`` gives the positions of a run's recorded games (a teacher labels them).

Test hooks (environment variables, read by the workers): ``JPDSIM_TEST_CRASH_SHARD=i`` makes a
worker die (``os._exit(70)``) when it starts shard ``i``; ``JPDSIM_TEST_SHARD_DELAY=s`` makes it
sleep ``s`` seconds after each shard.
"""
