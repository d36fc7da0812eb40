"""`jpdsim run CONFIG`: play a configured run of games into a run folder (see ``sim.records``).

How a run goes:

1. The config (``sim.config``) fixes everything that decides a game; a game depends only on
   (seed, game id), so the game ids ``0 .. games-1`` are cut into shards of ``shard_size`` and
   the shards are played in any order by any number of worker processes (``spawn`` context),
   each calling ``sim.selfplay.play_batch`` on a shard and writing it (temp name, then rename).
2. The parent hands out shards one at a time over a private pipe per worker; the workers' log
   records come back through the same pipes and, with the parent's own, go to
   ``<run>/run.log`` through multiprocessing-logging's ``MultiProcessingHandler``: one thread
   of the parent writes the file, in the order the records arrive. A tqdm bar shows games/s
   and the ETA. (The workers do not put records on that handler's queue themselves: it is
   made in the "fork" context, which Python refuses to share with "spawn" workers, and its
   shared write lock would be left held by a worker killed mid-record, silencing the others;
   a private pipe per worker has no such lock.)
3. Ctrl-C (or SIGTERM) terminates the workers, removes their temporary files, marks the
   manifest "interrupted" and says how to resume. A worker that dies or fails is reported with
   its shard; the run then ends with the list of missing shards and exit status 1.
4. ``--resume`` checks that the folder's manifest holds the same config, verifies every stored
   file (``sim.records.check_run(verify=True)``), and plays only the missing shards: the result
   is the same rows an uninterrupted run writes.
5. At the end: the manifest is completed (times, games written, throughput) and a summary
   (endings, Black's win rate per ruleset, winner disagreement between rulesets) is printed.

Test hooks (environment variables, read by the workers): ``JPDSIM_TEST_CRASH_SHARD=i`` makes a
worker die (``os._exit(70)``) when it starts shard ``i``; ``JPDSIM_TEST_SHARD_DELAY=s`` makes it
sleep ``s`` seconds after each shard.
"""

from __future__ import annotations

import logging
import logging.handlers
import multiprocessing
import multiprocessing.connection
import os
import shlex
import signal
import sys
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from multiprocessing_logging import MultiProcessingHandler

from sim import records
from sim.config import RunConfig, config_from_dict, load_config
from sim.errors import UserError
from sim.schema import ENDINGS, RULESETS, SCHEMA_VERSION

log = logging.getLogger("jpdsim.runner")
_LOG_FORMAT = "%(asctime)s %(processName)s[%(process)d] %(levelname)s %(message)s"
_GIVE_UP_AFTER = 3  # consecutive failed shards (no success in between) stop the run
_LOCK = ".lock"


# -- playing one shard (in a worker, or in-process for replays) --------------------------

def play_table(cfg: RunConfig, game_ids: np.ndarray, record_moves: bool):
    """Play ``game_ids`` under ``cfg``: (GAME_SCHEMA table, moves or None)."""
    from sim.selfplay import play_batch  # the engine (numba) only where games are played

    ids = np.asarray(game_ids, dtype=np.int64)
    columns, moves = play_batch(game_ids=ids, record_moves=record_moves, arrow=True,
                                **cfg.play_kwargs())
    return records.games_table(cfg, ids, columns), moves


def play_shard(cfg: RunConfig, run_dir: Path, index: int) -> int:
    """Play shard ``index`` and write it (moves first, then games); returns its game count."""
    r = cfg.shard_range(index)
    ids = np.arange(r.start, r.stop, dtype=np.int64)
    record = cfg.record_moves != "none"
    games, moves = play_table(cfg, ids, record)
    moves_tbl = None
    if record:
        mask = records.moves_selection(cfg.record_moves, games)
        moves_tbl = records.moves_table(ids, moves, mask)
    records.write_shard(run_dir, index, games, moves_tbl)
    return len(ids)


# -- the worker process ------------------------------------------------------------------

class _PipeQueue:
    """The queue a worker's QueueHandler puts log records on: the worker's pipe."""

    def __init__(self, conn):
        self.conn = conn

    def put_nowait(self, record):
        self.conn.send(("log", record))


def _die_with_parent(parent_pid: int) -> None:
    """Linux: have the kernel kill this worker if the runner dies (even by SIGKILL), so that
    no orphan keeps writing into the run folder."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(1)


def _worker_main(conn, run_dir: str, cfg_dict: dict, parent_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C does
    _die_with_parent(parent_pid)
    root = logging.getLogger()
    root.handlers[:] = [logging.handlers.QueueHandler(_PipeQueue(conn))]
    root.setLevel(logging.INFO)
    wlog = logging.getLogger("jpdsim.worker")
    t0 = time.perf_counter()
    try:
        cfg = config_from_dict(cfg_dict, "manifest")
        import sim.selfplay  # noqa: F401 - load the engine now: a failure here stops the run
    except BaseException:  # noqa: BLE001 - reported to the parent, which stops the run
        conn.send(("fatal", traceback.format_exc()))
        return
    wlog.info("engine imported in %.2f s", time.perf_counter() - t0)
    crash = os.environ.get("JPDSIM_TEST_CRASH_SHARD")
    delay = float(os.environ.get("JPDSIM_TEST_SHARD_DELAY") or 0)
    while True:
        try:
            index = conn.recv()
        except (EOFError, OSError):
            return
        if index is None:  # every shard is written and every log line sent: skip the
            conn.close()   # interpreter's teardown (about 0.3 s with numba and pyarrow loaded)
            os._exit(0)
        t = time.perf_counter()
        if crash is not None and index == int(crash):
            os._exit(70)
        try:
            n = play_shard(cfg, Path(run_dir), index)
        except Exception as err:  # noqa: BLE001 - reported with its shard; the worker goes on
            first = (str(err).strip().splitlines() or [""])[0]
            conn.send(("failed", index, f"{type(err).__name__}: {first}", traceback.format_exc()))
            continue
        secs = time.perf_counter() - t
        wlog.info("shard %d: %d games in %.2f s (%.0f games/s)", index, n, secs, n / max(secs, 1e-9))
        conn.send(("done", index, n))
        if delay:
            time.sleep(delay)


@dataclass
class _Worker:
    proc: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    shard: int | None = None


def _exit_reason(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


@dataclass
class RunResult:
    """What ``run`` did: the final state of the folder and the shards that failed."""

    state: records.RunState
    failures: dict = field(default_factory=dict)  # shard -> one-line reason
    interrupted: bool = False
    games_played: int = 0
    seconds: float = 0.0


class _Pool:
    """Worker processes fed one shard at a time over private pipes."""

    def __init__(self, cfg: RunConfig, run_dir: Path, workers: int, pending: list[int],
                 on_done, failures: dict):
        self.ctx = multiprocessing.get_context("spawn")
        self.cfg_dict, self.run_dir = cfg.to_dict(), str(run_dir)
        self.pending = deque(pending)
        self.on_done, self.failures = on_done, failures
        self.workers: list[_Worker] = []
        self.started = 0
        self.failed_in_a_row = 0
        self.stopping = False
        for _ in range(min(workers, len(pending))):
            self._start()

    def _start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.started += 1
        proc = self.ctx.Process(target=_worker_main, name=f"worker-{self.started}", daemon=True,
                                args=(child, self.run_dir, self.cfg_dict, os.getpid()))
        proc.start()
        child.close()
        w = _Worker(proc, parent)
        self.workers.append(w)
        self._feed(w)

    def _feed(self, w: _Worker) -> None:
        w.shard = self.pending.popleft() if self.pending and not self.stopping else None
        try:
            w.conn.send(w.shard)
        except OSError:
            pass  # it died; its sentinel tells

    def _fail(self, shard: int, reason: str) -> None:
        self.failures[shard] = reason
        log.error("shard %d failed: %s", shard, reason)
        self.failed_in_a_row += 1
        if self.failed_in_a_row >= _GIVE_UP_AFTER and not self.stopping:
            log.error("%d shards failed in a row: no more shards are started", self.failed_in_a_row)
            self.stopping = True

    def _handle(self, w: _Worker, msg) -> None:
        kind = msg[0]
        if kind == "log":
            logging.getLogger(msg[1].name).handle(msg[1])
        elif kind == "done":
            self.failed_in_a_row = 0
            self.on_done(msg[1], msg[2])
            self._feed(w)
        elif kind == "failed":
            log.error("worker %s failed on shard %d:\n%s", w.proc.name, msg[1], msg[3].rstrip())
            self._fail(msg[1], msg[2])
            self._feed(w)
        elif kind == "fatal":
            log.error("worker %s could not start:\n%s", w.proc.name, msg[1].rstrip())
            if w.shard is not None:
                self._fail(w.shard, "worker could not start: " + msg[1].strip().splitlines()[-1])
                w.shard = None
            self.stopping = True

    def _drain(self, w: _Worker) -> None:
        """Handle every message waiting on ``w``'s pipe (until it is closed)."""
        try:
            while w.conn.poll():
                self._handle(w, w.conn.recv())
        except (EOFError, OSError):
            pass

    def run(self) -> None:
        while self.workers:
            ready = multiprocessing.connection.wait(
                [w.conn for w in self.workers] + [w.proc.sentinel for w in self.workers], 1.0)
            for w in list(self.workers):
                if w.conn in ready:
                    self._drain(w)
                if w.proc.sentinel in ready or not w.proc.is_alive():
                    self._drain(w)
                    w.proc.join()
                    w.conn.close()
                    self.workers.remove(w)
                    if w.shard is not None:
                        self._fail(w.shard, f"worker {w.proc.name} (pid {w.proc.pid}) "
                                            f"{_exit_reason(w.proc.exitcode)} while playing it")
                        if self.pending and not self.stopping:
                            self._start()

    def terminate(self) -> None:
        for w in self.workers:
            if w.proc.is_alive():
                w.proc.terminate()
        for w in self.workers:
            w.proc.join(5)
            if w.proc.is_alive():
                w.proc.kill()
                w.proc.join()
            w.conn.close()
        self.workers.clear()


def _run_on_dask(cfg: RunConfig, run_dir: Path, pending: list[int], address: str, on_done,
                 failures: dict) -> None:
    """Play the shards as tasks of a Dask distributed cluster at ``address``: the same
    ``play_shard`` as a local worker, so the same rows. The run folder must be on a file system
    that every Dask worker sees; the workers' logs stay with Dask."""
    from distributed import Client, as_completed

    with Client(address) as client:
        log.info("Dask scheduler %s: %d workers", address, len(client.scheduler_info()["workers"]))
        futures = {client.submit(play_shard, cfg, run_dir, i, pure=False,
                                 key=f"jpdsim-{cfg.name}-shard-{i}"): i for i in pending}
        try:
            for future in as_completed(futures):
                index = futures[future]
                if future.status == "finished":
                    on_done(index, future.result())
                    continue
                err = future.exception()
                first = (str(err).strip().splitlines() or [""])[0]
                failures[index] = f"{type(err).__name__}: {first}"
                log.error("shard %d failed on Dask: %s", index, failures[index])
        finally:
            client.cancel(list(futures))


# -- the run -----------------------------------------------------------------------------

def _config_differences(stored: dict, cfg: RunConfig) -> list[str]:
    """The keys where the stored config (resolved, so that keys added since it was written
    take their defaults) differs from ``cfg``."""
    stored = config_from_dict(stored, "manifest.json (config)").to_dict()
    want = cfg.to_dict()
    keys = list(dict.fromkeys([*want, *stored]))
    return [f"{k}: run has {stored.get(k)!r}, requested {want.get(k)!r}"
            for k in keys if stored.get(k) != want.get(k)]


def _check_folder(run_dir: Path, resume: bool) -> bool:
    """Whether ``run_dir`` holds a run already (UserError if that is not wanted)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise UserError(f"{run_dir}: exists and is not a folder")
    nonempty = run_dir.is_dir() and any(p.name != _LOCK for p in run_dir.iterdir())
    if nonempty and not resume:
        raise UserError(f"{run_dir}: run folder is not empty; use --resume to complete the run "
                        f"there, or choose another --out")
    return nonempty


def _prepare(cfg: RunConfig, run_dir: Path, resume: bool, config_file: str | None, env: dict):
    """Check or create the run folder; returns (manifest, state or None)."""
    if _check_folder(run_dir, resume):
        manifest = records.read_manifest(run_dir)
        diffs = _config_differences(manifest["config"], cfg)
        if diffs:
            raise UserError(f"{run_dir}: cannot resume, the run there has another config "
                            f"({'; '.join(diffs)}); give the same config file and "
                            f"--games/--seed options as the first run")
        for tmp in run_dir.glob(".*.tmp"):
            tmp.unlink()
        try:
            state = records.check_run(run_dir, verify=True)
        except UserError as err:
            raise UserError(f"{err}; move that file away and --resume plays its shard again") from None
        for tmp in state.leftovers:
            tmp.unlink()
        state.leftovers.clear()
        manifest["status"] = "running"
        records.write_manifest(run_dir, manifest)
        return manifest, state
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "name": cfg.name,
        "config": cfg.to_dict(),
        "config_file": config_file,
        **env,
        "schema_version": SCHEMA_VERSION,
        "status": "running",
        "started": records.now(),
        "ended": None,
        "games": cfg.games,
        "games_written": 0,
        "seconds": 0.0,
        "throughput_games_per_s": None,
        "shards": {"count": cfg.n_shards, "size": cfg.shard_size, "written": 0,
                   "missing": records.format_ranges(range(cfg.n_shards))},
        "sessions": [],
    }
    records.write_manifest(run_dir, manifest)
    return manifest, None


def _lock(run_dir: Path):
    """Hold an exclusive lock on ``run_dir`` (POSIX), so that two runners never write into one
    folder; returns the open lock file (the lock goes with it)."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        f = open(run_dir / _LOCK, "a+")
    except OSError as err:
        raise UserError(f"--out {run_dir}: {err.strerror}") from None
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return f
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise UserError(f"{run_dir}: another jpdsim run is writing into this folder") from None
    return f


def _finish_manifest(run_dir: Path, manifest: dict, state: records.RunState, status: str,
                     session: dict) -> None:
    manifest["sessions"].append(session)
    secs = sum(s["seconds"] for s in manifest["sessions"])
    played = sum(s["games_played"] for s in manifest["sessions"])
    manifest.update({
        "status": status,
        "ended": session["ended"],
        "games_written": state.games_written,
        "seconds": round(secs, 3),
        "throughput_games_per_s": round(played / secs, 1) if secs > 0 else None,
        "shards": {"count": state.config.n_shards, "size": state.config.shard_size,
                   "written": len(state.done), "missing": records.format_ranges(state.missing)},
    })
    records.write_manifest(run_dir, manifest)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C."""


def _raise_terminated(signum, frame):
    raise _Terminated()


def run(cfg: RunConfig, run_dir: str | Path, workers: int = 1, resume: bool = False,
        progress: bool = False, config_file: str | None = None,
        scheduler: str | None = None) -> RunResult:
    """Play (or, with ``resume``, complete) the run ``cfg`` into ``run_dir``: with local worker
    processes, or with ``scheduler`` (an address) on a Dask distributed cluster."""
    run_dir = Path(run_dir)
    if workers < 1:
        raise UserError(f"option --workers: must be >= 1, got {workers}")
    _check_folder(run_dir, resume)  # before the lock file goes into a folder that is not ours
    lock = _lock(run_dir)
    try:
        return _run_locked(cfg, run_dir, workers, resume, progress, config_file, scheduler)
    finally:
        lock.close()


def _run_locked(cfg, run_dir, workers, resume, progress, config_file, scheduler) -> RunResult:
    env = records.environment()
    manifest, state = _prepare(cfg, run_dir, resume, config_file, env)
    done = set(state.done) if state else set()
    pending = [i for i in range(cfg.n_shards) if i not in done]

    handler = MultiProcessingHandler(
        "jpdsim-run-log", sub_handler=logging.FileHandler(run_dir / records.LOG, encoding="utf-8"))
    handler.setFormatter(logging.Formatter(_LOG_FORMAT))
    top = logging.getLogger("jpdsim")
    old_level = top.level
    top.addHandler(handler)
    top.setLevel(logging.INFO)
    old_term = signal.signal(signal.SIGTERM, _raise_terminated) \
        if hasattr(signal, "SIGTERM") and _in_main_thread() else None
    result = RunResult(state=state)
    session = {"started": records.now(), "workers": workers,
               "jpdsim_version": env["jpdsim_version"], "git_commit": env["git_commit"]}
    if state is not None and (manifest.get("jpdsim_version"), manifest.get("git_commit")) != \
            (env["jpdsim_version"], env["git_commit"]):
        log.warning("resuming with jpdsim %s (commit %s); the run was started with %s (%s)",
                    env["jpdsim_version"], env["git_commit"], manifest.get("jpdsim_version"),
                    manifest.get("git_commit"))
    from tqdm import tqdm

    done_games = sum(len(cfg.shard_range(i)) for i in done)
    bar = tqdm(total=cfg.games, initial=done_games, unit="game", unit_scale=True,
               disable=True if not progress else None, dynamic_ncols=True, smoothing=0.1,
               desc=cfg.name)
    t0 = time.perf_counter()
    pool = None

    def on_done(index, n):
        if not result.games_played:
            bar.set_postfix_str("")
        result.games_played += n
        bar.update(n)

    try:
        log.info("%s run %s: %d games, %d shards of %d, %d to play, %d workers, seed %d",
                 "resuming" if state else "starting", cfg.name, cfg.games, cfg.n_shards,
                 cfg.shard_size, len(pending), workers, cfg.seed)
        if pending and scheduler:
            _run_on_dask(cfg, run_dir, pending, scheduler, on_done, result.failures)
        elif pending:
            bar.set_postfix_str("starting workers (a first run compiles the engine)")
            pool = _Pool(cfg, run_dir, workers, pending, on_done, result.failures)
            import pandas  # noqa: F401 - pyarrow's Parquet reader loads it for the final check
            pool.run()     # (0.2 s): here it loads while the workers start, not after they end
    except KeyboardInterrupt as err:
        result.interrupted = True
        log.warning("%s: stopping the workers", "terminated" if isinstance(err, _Terminated)
                    else "interrupted")
    finally:
        if pool is not None:
            pool.terminate()
        bar.close()
        for sub in (records.GAMES, records.MOVES):
            for tmp in (run_dir / sub).glob(".part-*.parquet.tmp"):
                tmp.unlink(missing_ok=True)
        try:
            result.seconds = time.perf_counter() - t0
            result.state = records.check_run(run_dir)
            status = ("complete" if result.state.complete
                      else "interrupted" if result.interrupted else "incomplete")
            session.update(ended=records.now(), games_played=result.games_played,
                           seconds=round(result.seconds, 3))
            _finish_manifest(run_dir, manifest, result.state, status, session)
            log.info("%s: %d games played in %.2f s (%.0f games/s); %d of %d shards written",
                     status, result.games_played, result.seconds,
                     result.games_played / max(result.seconds, 1e-9), len(result.state.done),
                     cfg.n_shards)
        finally:
            if old_term is not None:
                signal.signal(signal.SIGTERM, old_term)
            top.removeHandler(handler)
            top.setLevel(old_level)
            handler.close()
    result.failures = {i: r for i, r in result.failures.items() if i in result.state.missing}
    return result


def _in_main_thread() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


# -- the summary -------------------------------------------------------------------------

def summary(table: pa.Table) -> str:
    """A short text table: endings, results per ruleset, winner disagreement between rulesets."""
    n = table.num_rows
    lines = [f"games: {n:,}", "", f"{'ending':<14}{'games':>12}{'share':>9}"]
    counts = {d["values"]: d["counts"] for d in pc.value_counts(table["ending"]).to_pylist()}
    for ending in [*ENDINGS, *sorted(set(counts) - set(ENDINGS), key=str)]:
        c = counts.get(ending, 0)
        if c or ending in ENDINGS:
            lines.append(f"{str(ending):<14}{c:>12,}{c / max(n, 1):>9.2%}")
    lines += ["", f"{'ruleset':<14}{'B wins':>12}{'W wins':>12}{'draws':>10}{'no result':>11}"
                  f"{'B win rate':>12}"]
    for r in RULESETS:
        w = table[f"winner_{r}"]
        b, wh, d = (pc.sum(pc.equal(w, v)).as_py() or 0 for v in ("B", "W", "draw"))
        decided = b + wh + d
        rate = f"{b / decided:.2%}" if decided else "-"
        lines.append(f"{r:<14}{b:>12,}{wh:>12,}{d:>10,}{n - decided:>11,}{rate:>12}")
    lines += ["(B win rate: Black's wins / games with a result, draws included)",
              "", "winner disagreement (share of games where both rulesets have a result):",
              " " * 14 + "".join(f"{r:>14}" for r in RULESETS[1:])]
    for i, a in enumerate(RULESETS[:-1]):
        cells = []
        for j, b in enumerate(RULESETS[1:], 1):
            if j <= i:
                cells.append(" " * 14)
                continue
            differ = pc.not_equal(table[f"winner_{a}"], table[f"winner_{b}"])
            both = differ.length() - differ.null_count
            share = (pc.sum(differ).as_py() or 0) / both if both else float("nan")
            cells.append(f"{share:>14.2%}" if both else f"{'-':>14}")
        lines.append(f"{a:<14}" + "".join(cells))
    return "\n".join(lines)


# -- the command -------------------------------------------------------------------------

def _resume_command(args, run_dir: Path) -> str:
    parts = ["jpdsim", "run", str(args.config), "--out", str(run_dir), "--resume"]
    if args.games is not None:
        parts += ["--games", str(args.games)]
    if args.seed is not None:
        parts += ["--seed", str(args.seed)]
    if args.scheduler is not None:
        parts += ["--scheduler", args.scheduler]
    return " ".join(shlex.quote(p) for p in parts)


def main(args) -> int:
    cfg = load_config(args.config, games=args.games, seed=args.seed)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    run_dir = Path(args.out) if args.out else Path("results") / cfg.name
    again = _resume_command(args, run_dir)
    try:
        result = run(cfg, run_dir, workers=workers, resume=args.resume,
                     progress=not args.no_progress, config_file=str(args.config),
                     scheduler=args.scheduler)
    except KeyboardInterrupt:  # before or after the workers ran
        print(f"jpdsim run: interrupted. To finish the run: {again}", file=sys.stderr)
        return 130
    state = result.state
    if result.interrupted:
        print(f"jpdsim run: interrupted; {len(state.done)} of {cfg.n_shards} shards are written "
              f"in {run_dir}. To finish the run: {again}", file=sys.stderr)
        return 130
    if not state.complete:
        for shard, reason in sorted(result.failures.items()):
            print(f"jpdsim run: shard {shard} failed: {reason}", file=sys.stderr)
        print(f"jpdsim run: run incomplete: shards {records.format_ranges(state.missing)} missing "
              f"({len(state.missing)} of {cfg.n_shards}; see {run_dir / records.LOG}). "
              f"To retry them: {again}", file=sys.stderr)
        return 1
    speed = result.games_played / result.seconds if result.seconds > 0 else 0.0
    print(f"run {cfg.name} in {run_dir}: {result.games_played:,} games played in "
          f"{result.seconds:.1f} s ({speed:,.0f} games/s, {workers} worker{'s' if workers != 1 else ''})")
    cols = ["ending", *(f"winner_{r}" for r in RULESETS)]
    text = summary(records.read_games(run_dir, columns=cols, state=state))  # checked by run
    print(text)
    with open(run_dir / records.LOG, "a", encoding="utf-8") as f:
        f.write(text + "\n")
    return 0
