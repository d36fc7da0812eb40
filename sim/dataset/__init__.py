"""The dataset layer: the files of a run, and reading them back safely.

A run folder::

    <run>/manifest.json              resolved config, versions, times, games written
    <run>/run.log                    log of the runner and all its workers
    <run>/.lock                      held by the runner writing into the folder
    <run>/games/part-NNNNN.parquet   one row per game (``sim.schema.tables.GAME_SCHEMA``), zstd
    <run>/moves/part-NNNNN.parquet   (record_moves != "none") ``MOVES_SCHEMA``: game_id, actions

Shard ``i`` holds game ids ``i*shard_size .. min((i+1)*shard_size, games) - 1`` in order. A shard
file is written as ``.part-NNNNN.parquet.tmp`` and renamed when whole; the moves file of a shard
is renamed before its games file, so a shard is complete when its games file exists (and its
moves file, when moves are recorded).

Everything that reads a run goes through ``check.check_run``: a file in ``games/`` or ``moves/``
that is corrupt, half-written, of a foreign schema, from another run (other seed or rules) or
simply unexpected raises ``UserError`` naming its path, the reason and what to do; nothing is
silently mixed in. Then every read (``check.read_part``) checks each page against its CRC
(the files are written with page checksums), dictionary indices and row counts, so a damaged
byte is an error naming its file, never a value. Temporary files (``.part-*.tmp``) of a
running or killed run are listed, never read.

Modules: ``layout`` (the names of the files, the moves schema, the values a run fixes),
``write`` (a shard's tables and atomic writes), ``manifest`` (manifest.json and the
provenance it records), ``check`` (what a folder holds: ``check_run``), ``part`` (one part file,
its schema and pages checked), ``advice`` (what to run, or to wait for a run that writes),
``read`` (games and single games of a checked run). The layer knows the run config
(``sim.config.run``) and the engine's vocabulary (``sim.schema.tables``); it does not play games.
"""
