"""``run``: play (or complete) a run into its folder with local workers or on a Dask cluster,
logging to ``run.log``, stopping cleanly on Ctrl-C or SIGTERM (how a run goes: ``sim.run``):
a run's whole life (its driver's checks and compile step, lock, manifest, workers or Dask,
stopping, the final check) in one place, so that every way a run ends goes through one
``finally``."""

from __future__ import annotations

import logging
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from multiprocessing_logging import MultiProcessingHandler

from sim import interrupts
from sim.config.run import RunConfig
from sim.dataset.check import RunState, check_run
from sim.dataset.layout import LOG
from sim.dataset.manifest import environment, now
from sim.errors import UserError, limit_error
from sim.run import folder
from sim.run.dask_backend import run_on_dask
from sim.run.drivers import DRIVERS
from sim.run.pool import Pool
from sim.run.search import log_round, next_config

log = logging.getLogger("jpdsim.runner")
_LOG_FORMAT = "%(asctime)s %(processName)s[%(process)d] %(levelname)s %(message)s"


@dataclass
class RunResult:
    """What ``run`` did: the final state of the folder and the shards that failed."""

    state: RunState
    failures: dict = field(default_factory=dict)  # shard -> one-line reason
    interrupted: int = 0  # the signal that stopped the run (SIGINT, SIGTERM), 0 if none
    stopped: str | None = None  # why the run stopped early (a worker's UserError), or None
    games_played: int = 0
    seconds: float = 0.0


class _RunLog(MultiProcessingHandler):
    """The run log's handler; a record that cannot be queued (no thread can start under a
    memory limit) is dropped, not printed to stderr with a traceback (the runner's error
    says what went wrong)."""

    def handleError(self, record):
        pass


class _LogFile(logging.FileHandler):
    """run.log; a record that cannot be written (disk full) is dropped, not printed to stderr
    with a traceback (the runner's error says what went wrong)."""

    def handleError(self, record):
        pass

    def close(self):
        try:
            super().close()
        except OSError:
            pass


def run(
    cfg: RunConfig,
    run_dir: str | Path,
    workers: int = 1,
    resume: bool = False,
    progress: bool = False,
    config_file: str | None = None,
    scheduler: str | None = None,
) -> RunResult:
    """Play (or, with ``resume``, complete) the run ``cfg`` into ``run_dir``: with local worker
    processes, or with ``scheduler`` (an address) on a Dask distributed cluster. SIGTERM is
    handled as Ctrl-C meanwhile (``Terminated``)."""
    run_dir = Path(run_dir)
    if workers < 1:
        raise UserError(f"option --workers: must be >= 1, got {workers}")
    with interrupts.handled(signal.SIGTERM):
        driver = DRIVERS[cfg.driver]
        driver.check(cfg)  # before the run folder is made
        patches_off = driver.compile(cfg.play_kwargs())  # here, not in each worker at once
        new = not folder.check_folder(run_dir, resume)  # before the lock goes into it
        made = next((p for p in [*run_dir.parents][::-1] + [run_dir] if not p.exists()), None)
        lock = folder.lock(run_dir)
        try:
            return _run_locked(
                cfg, run_dir, workers, resume, progress, config_file, scheduler, patches_off
            )
        except Exception as err:  # a limit of the process
            if (limit := limit_error(err)) is None:
                raise
            if new:
                folder.remove_unstarted(run_dir, made)
            raise limit from None
        finally:
            lock.close()


def _run_locked(
    cfg, run_dir, workers, resume, progress, config_file, scheduler, patches_off
) -> RunResult:
    env = environment()
    manifest, state = folder.prepare(cfg, run_dir, resume, config_file, env)
    if state is not None and cfg.komi_search is not None:
        cfg = state.config  # the rounds its search decided
    done = set(state.done) if state else set()
    pending = [i for i in range(cfg.n_shards) if i not in done]

    with interrupts.deferred():  # its thread started, or no handler at all
        handler = _RunLog("jpdsim-run-log", sub_handler=_LogFile(run_dir / LOG, encoding="utf-8"))
    handler.setFormatter(logging.Formatter(_LOG_FORMAT))
    top = logging.getLogger("jpdsim")
    old_level = top.level
    top.addHandler(handler)
    top.setLevel(logging.INFO)
    result = RunResult(state=state)
    session = {
        "started": now(),
        "workers": workers,
        "jpdsim_version": env["jpdsim_version"],
        "git_commit": env["git_commit"],
    }
    for line in patches_off:  # said on stderr by the compile step
        log.warning("%s", line)
    if state is not None and (manifest.get("jpdsim_version"), manifest.get("git_commit")) != (
        env["jpdsim_version"],
        env["git_commit"],
    ):
        log.warning(
            "resuming with jpdsim %s (commit %s); the run was started with %s (%s)",
            env["jpdsim_version"],
            env["git_commit"],
            manifest.get("jpdsim_version"),
            manifest.get("git_commit"),
        )
    from tqdm import tqdm

    bar = tqdm(
        total=cfg.games,
        initial=sum(len(cfg.shard_range(i)) for i in done),
        unit="game",
        unit_scale=True,
        disable=True if not progress else None,
        dynamic_ncols=True,
        smoothing=0.1,
        desc=cfg.name,
    )
    t0 = time.perf_counter()
    pool = None
    next_record = 0.0  # when the manifest is next brought up to date

    def on_done(index, n):
        nonlocal next_record
        if not result.games_played:
            bar.set_postfix_str("")
        result.games_played += n
        bar.update(n)
        done.add(index)
        if time.monotonic() >= next_record:  # so that a killed run's manifest is not far behind
            t = time.monotonic()
            try:
                folder.record(run_dir, manifest, cfg, done, "running")
            except UserError as err:
                log.warning("%s", err)
            # at most once a second, and at most 5% of the time (a run of very many shards)
            next_record = time.monotonic() + max(1.0, 20 * (time.monotonic() - t))

    def on_stop(index, reason):
        result.failures[index] = reason
        result.stopped = result.stopped or reason

    try:
        log.info(
            "%s run %s: %d games, %d shards of %d, %d to play, %d workers, seed %d",
            "resuming" if state else "starting",
            cfg.name,
            cfg.games,
            cfg.n_shards,
            cfg.shard_size,
            len(pending),
            workers,
            cfg.seed,
        )
        while True:
            if pending and scheduler:
                run_on_dask(cfg, run_dir, pending, scheduler, on_done, result.failures, on_stop)
            elif pending:
                bar.set_postfix_str("starting workers")
                pool = Pool(cfg, run_dir, workers, pending, on_done, result.failures, on_stop)
                pool.start()
                # pyarrow's Parquet reader loads pandas for the final check: load it while the
                # workers start, not after they end
                interrupts.load("pandas")
                pool.run()
            if cfg.engines and not result.stopped:
                failed = folder.discard_engine_errors(run_dir, [i for i in pending if i in done])
                if failed:
                    result.stopped = (
                        f"every game played ({failed}) ended engine_error: the programs cannot "
                        f"play this run (their shards are not kept)"
                    )
            search = cfg.komi_search
            if search is None or search.ended or result.failures or result.stopped:
                break
            if len(done) < cfg.n_shards:
                break
            with interrupts.deferred():  # the round and the manifest that says it, together
                cfg = next_config(cfg, run_dir)  # every round so far written: decide the next
                manifest.update(config=cfg.to_dict(), games=cfg.games)
                folder.record(run_dir, manifest, cfg, done, "running")
            log_round(cfg.komi_search)
            bar.total = cfg.games
            bar.refresh()
            pending = [i for i in range(cfg.n_shards) if i not in done]
    except KeyboardInterrupt as err:
        interrupts.forget()
        terminated = isinstance(err, interrupts.Terminated)
        result.interrupted = signal.SIGTERM if terminated else signal.SIGINT
        log.warning("%s: stopping the workers", "terminated" if terminated else "interrupted")
    finally:
        if pool is not None:
            pool.terminate()
        bar.close()
        folder.remove_temporary_shards(run_dir)
        try:
            result.seconds = time.perf_counter() - t0
            result.state = check_run(run_dir)
            status = (
                "complete"
                if result.state.complete
                else "interrupted"
                if result.interrupted
                else "stopped"
                if result.stopped
                else "incomplete"
            )
            manifest.pop("stopped_because", None)
            if status == "stopped":
                manifest["stopped_because"] = result.stopped
            session.update(
                ended=now(), games_played=result.games_played, seconds=round(result.seconds, 3)
            )
            try:
                folder.finish_manifest(run_dir, manifest, result.state, status, session)
            except UserError as err:
                log.error("%s", err)
                raise UserError(
                    f"{result.stopped + ', then ' if result.stopped else ''}{err}; "
                    f"{len(result.state.done)} of {cfg.n_shards} shards are written and "
                    f"whole: once there is room, --resume records them"
                ) from None
            log.info(
                "%s: %d games played in %.2f s (%.0f games/s); %d of %d shards written",
                status,
                result.games_played,
                result.seconds,
                result.games_played / max(result.seconds, 1e-9),
                len(result.state.done),
                cfg.n_shards,
            )
        finally:
            top.removeHandler(handler)
            top.setLevel(old_level)
            handler.close()
    result.failures = {i: r for i, r in result.failures.items() if i in result.state.missing}
    return result
