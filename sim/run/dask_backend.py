"""Playing a run's shards as tasks of a Dask distributed cluster (``jpdsim run --scheduler``)."""

from __future__ import annotations

import logging
from pathlib import Path

from sim.config import RunConfig
from sim.errors import UserError
from sim.run.shard import play_shard

log = logging.getLogger("jpdsim.runner")


def run_on_dask(
    cfg: RunConfig,
    run_dir: Path,
    pending: list[int],
    address: str,
    on_done,
    failures: dict,
    on_stop,
) -> None:
    """Play the shards as tasks of a Dask distributed cluster at ``address``: the same
    ``play_shard`` as a local worker, so the same rows (callbacks as ``sim.run.pool.Pool``'s;
    a ``UserError`` stops the run). The run folder must be on a file system that every Dask
    worker sees; the workers' logs stay with Dask."""
    from distributed import Client, as_completed

    with Client(address) as client:
        log.info("Dask scheduler %s: %d workers", address, len(client.scheduler_info()["workers"]))
        futures = {
            client.submit(
                play_shard, cfg, run_dir, i, pure=False, key=f"jpdsim-{cfg.name}-shard-{i}"
            ): i
            for i in pending
        }
        try:
            for future in as_completed(futures):
                index = futures[future]
                if future.status == "finished":
                    on_done(index, future.result())
                    continue
                err = future.exception()
                if isinstance(err, UserError):
                    on_stop(index, str(err))
                    break
                first = (str(err).strip().splitlines() or [""])[0]
                failures[index] = f"{type(err).__name__}: {first}"
                log.error("shard %d failed on Dask: %s", index, failures[index])
        finally:
            client.cancel(list(futures))
