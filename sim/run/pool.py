"""Local worker processes (``spawn``): each is fed one shard at a time over a private pipe,
plays it (``sim.run.shard.play_shard``) and sends back its result and its log records.

Messages from a worker: ``("log", record)``, ``("done", shard, games)``, ``("failed", shard,
reason, traceback)``, ``("stop", shard, reason)`` (a ``UserError``: a full disk, a GTP program
that cannot play; or a limit of the process, ``sim.errors.limit_error``: no shard after it
could do better), ``("fatal", traceback, reason)`` (it could not start; ``reason``: a limit
of the process, which stops the run, else None). To a worker: a shard index, or None (no
more: quit its GTP programs and exit). A worker stopped by SIGTERM kills its GTP programs
first. The workers read the test hooks described in ``sim.run``.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import multiprocessing
import multiprocessing.connection
import multiprocessing.resource_tracker
import os
import signal
import sys
import time
import traceback
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from sim.config.file import config_from_dict
from sim.config.run import RunConfig
from sim.errors import UserError, limit_error
from sim.interrupts import check, deferred, in_main_thread
from sim.play.program import close_all, kill_all
from sim.run.shard import play_shard

log = logging.getLogger("jpdsim.runner")
_GIVE_UP_AFTER = 3  # consecutive failed shards (no success in between) stop the run


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


def _killed(signum, frame) -> None:
    """SIGTERM in a worker: its GTP programs are killed, then it dies by the signal."""
    kill_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _worker_main(conn, run_dir: str, cfg_dict: dict, parent_pid: int) -> None:
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # drops a Ctrl-C that waited (_sigint_blocked)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGTERM, _killed)
    root = logging.getLogger()
    root.handlers[:] = [logging.handlers.QueueHandler(_PipeQueue(conn))]
    root.setLevel(logging.INFO)
    wlog = logging.getLogger("jpdsim.worker")
    t0 = time.perf_counter()
    try:
        cfg = config_from_dict(cfg_dict, "manifest", stored=True)
        import sim.play.selfplay  # noqa: F401 - load the engine now: a failure here stops the run
    except BaseException as err:  # noqa: BLE001 - reported to the parent, which stops the run
        limit = limit_error(err)
        conn.send(("fatal", traceback.format_exc(), limit and str(limit)))
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
            close_all()  # interpreter's teardown (about 0.3 s with numba and pyarrow loaded)
            conn.close()
            os._exit(0)
        t = time.perf_counter()
        if crash is not None and index == int(crash):
            os._exit(70)
        try:
            n = play_shard(cfg, Path(run_dir), index)
        except Exception as err:  # noqa: BLE001 - reported with its shard; the worker goes on
            stop = err if isinstance(err, UserError) else limit_error(err)
            if stop is not None:  # no later shard could do better
                conn.send(("stop", index, str(stop)))
                continue
            first = (str(err).strip().splitlines() or [""])[0]
            conn.send(("failed", index, f"{type(err).__name__}: {first}", traceback.format_exc()))
            continue
        secs = time.perf_counter() - t
        wlog.info(
            "shard %d: %d games in %.2f s (%.0f games/s)", index, n, secs, n / max(secs, 1e-9)
        )
        conn.send(("done", index, n))
        if delay:
            time.sleep(delay)


# -- the pool (in the runner) ------------------------------------------------------------


@contextlib.contextmanager
def _sigint_blocked():
    """Start processes with SIGINT blocked: the mask is inherited across fork and exec, so a
    Ctrl-C while a worker starts and imports waits there, and the worker, once it runs, ignores
    it (the parent decides what Ctrl-C does)."""
    if not in_main_thread():
        yield
        return
    multiprocessing.resource_tracker.ensure_running()  # first: starting it unblocks SIGINT
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


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


class Pool:
    """Worker processes fed one shard at a time over private pipes: ``on_done(shard, games)``
    for each shard written, ``failures[shard] = reason`` for each shard that failed,
    ``on_stop(shard, reason)`` for a shard that stops the run. ``start`` starts the workers,
    ``run`` waits for them, ``terminate`` stops them."""

    def __init__(
        self,
        cfg: RunConfig,
        run_dir: Path,
        workers: int,
        pending: list[int],
        on_done,
        failures: dict,
        on_stop,
    ):
        self.ctx = multiprocessing.get_context("spawn")
        self.cfg_dict, self.run_dir = cfg.to_dict(), str(run_dir)
        self.pending = deque(pending)
        self.on_done, self.failures, self.on_stop = on_done, failures, on_stop
        self.workers: list[_Worker] = []
        self.started = 0
        self.failed_in_a_row = 0
        self.stopping = False
        self.size = workers

    def start(self) -> None:
        for _ in range(min(self.size, len(self.pending))):
            self._start()

    def _start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.started += 1
        proc = self.ctx.Process(
            target=_worker_main,
            name=f"worker-{self.started}",
            daemon=True,
            args=(child, self.run_dir, self.cfg_dict, os.getpid()),
        )
        with deferred(), _sigint_blocked():  # no signal stops the start half-way
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
        elif kind == "stop":
            log.error("shard %d: %s; no more shards are started", msg[1], msg[2])
            self.on_stop(msg[1], msg[2])
            self.stopping = True
            self._feed(w)
        elif kind == "fatal":
            log.error("worker %s could not start:\n%s", w.proc.name, msg[1].rstrip())
            if w.shard is not None and msg[2]:  # a limit of the process: the run stops
                self.on_stop(w.shard, msg[2])
            elif w.shard is not None:
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
            check()  # a Ctrl-C that was lost on its way (sim.interrupts)
            ready = multiprocessing.connection.wait(
                [w.conn for w in self.workers] + [w.proc.sentinel for w in self.workers], 1.0
            )
            for w in list(self.workers):
                if w.conn in ready:
                    self._drain(w)
                if w.proc.sentinel in ready or not w.proc.is_alive():
                    self._drain(w)
                    w.proc.join()
                    w.conn.close()
                    self.workers.remove(w)
                    if w.shard is not None:
                        self._fail(
                            w.shard,
                            f"worker {w.proc.name} (pid {w.proc.pid}) "
                            f"{_exit_reason(w.proc.exitcode)} while playing it",
                        )
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
