"""Playing a run's shards as tasks of a Dask distributed cluster (``jpdsim run --scheduler``),
and ``connect``, the one way jpdsim reaches a scheduler (``run`` and ``report``)."""

from __future__ import annotations

import logging
from pathlib import Path

from sim.config.run import RunConfig
from sim.errors import UserError, one_line
from sim.play.program import task_programs
from sim.run.shard import play_shard

log = logging.getLogger("jpdsim.runner")
CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler


def connect(address: str):
    """A ``distributed.Client`` of the scheduler at ``address``; a UserError in one line when
    Dask's distributed is not installed, the address is not one, or no scheduler answers
    within CONNECT_TIMEOUT."""
    try:
        from distributed import Client
    except ImportError:
        raise UserError(
            "--scheduler needs Dask's distributed (pip install 'jpdsim[dask]')"
        ) from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as err:
        raise UserError(f"--scheduler {address}: cannot connect ({one_line(err)})") from None


def _play_shard(cfg: RunConfig, run_dir: Path, index: int) -> int:
    """``play_shard`` as a Dask task: the programs it starts are its own (a worker runs tasks
    in threads side by side) and are closed at its end, so that none outlives the run."""
    with task_programs():
        return play_shard(cfg, run_dir, index)


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
    a ``UserError`` stops the run). The run folder (sent as an absolute path) must be on a
    file system that every Dask worker sees; the workers' logs stay with Dask."""
    from distributed import as_completed

    run_dir = Path(run_dir).absolute()  # a worker may run in another folder
    with connect(address) as client:
        log.info("Dask scheduler %s: %d workers", address, len(client.scheduler_info()["workers"]))
        futures = {
            client.submit(
                _play_shard, cfg, run_dir, i, pure=False, key=f"jpdsim-{cfg.name}-shard-{i}"
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
