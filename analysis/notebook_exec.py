"""One analysis notebook executed in a fresh kernel of this interpreter (``execute_notebook``):
the runs and their statistics injected after the cell tagged ``parameters`` (as papermill
does), a failing cell raised as a ``ReportError`` naming the notebook and the cell, and a
Ctrl-C or SIGTERM kept the caller's (nbclient would take both), the kernel shut down."""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import ensure_event_loop
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from sim import interrupts
from sim.errors import one_line


class ReportError(RuntimeError):
    """A notebook failed while the report was built."""


class _CurrentPythonKernel(AsyncKernelManager):
    """A kernel manager whose kernel is ipykernel in the interpreter running this code."""

    @property
    def kernel_spec(self) -> KernelSpec:
        if self._kernel_spec is None:
            self._kernel_spec = KernelSpec(
                argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                display_name=f"Python {sys.version_info[0]} ({sys.executable})",
                language="python",
                resource_dir="",
                metadata={"supported_encryption": ["curve"]},
            )
        return self._kernel_spec


class _Client(NotebookClient):
    """nbclient's client, but a Ctrl-C or SIGTERM stays the report's: nbclient sets asyncio
    handlers of its own for both, which shut the kernel down and swallow the signal (the cell
    then fails with DeadKernelError, and its second clean-up with an AssertionError). They are
    taken away again as soon as they are set, before the kernel starts, and the handlers the
    report had put back (``sim.interrupts``: the signal raises KeyboardInterrupt)."""

    handlers: dict = {}  # signal -> the handler to keep (set per client by execute_notebook)

    async def async_start_new_kernel(self, **kwargs):
        if interrupts.in_main_thread():
            loop = asyncio.get_running_loop()
            for signum, handler in self.handlers.items():
                loop.remove_signal_handler(signum)  # nbclient's
                signal.signal(signum, handler)
        return await super().async_start_new_kernel(**kwargs)


def _shut_down(client: NotebookClient) -> None:
    """Stop the kernel of a client whose execution a signal stopped (a second signal meanwhile
    waits: ``interrupts.deferred``); the kernel would also exit when this process does."""
    with interrupts.deferred():
        atexit.unregister(client._cleanup_kernel)  # nbclient's, for a kernel left running
        try:
            # the execution the signal left pending is cancelled (its clean-up stops the
            # kernel), and its end collected: no "Task exception was never retrieved" at exit
            loop = ensure_event_loop()
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            if client.km is not None:
                client._cleanup_kernel()
        except Exception:  # noqa: BLE001 - the signal is what is reported
            pass


def _encryption() -> dict:
    """Ask for CurveZMQ-encrypted kernel sockets where jupyter_client and libzmq offer them
    (otherwise ipykernel warns about plain TCP on every start)."""
    try:
        import zmq

        if "transport_encryption" in AsyncKernelManager.class_trait_names() and zmq.has("curve"):
            return {"transport_encryption": "auto"}
    except ImportError:
        pass
    return {}


def inject_parameters(
    nb: nbformat.NotebookNode, run_dirs: Sequence[str | Path], statistics: str | Path | None
) -> None:
    """Insert ``RUN_DIRS = [...]`` and ``STATISTICS = ...`` after the cell tagged
    ``parameters`` (or first)."""
    stats_file = None if statistics is None else str(statistics)
    source = f"RUN_DIRS = {[str(d) for d in run_dirs]!r}\nSTATISTICS = {stats_file!r}"
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
    where = next(
        (
            i + 1
            for i, c in enumerate(nb.cells)
            if "parameters" in c.get("metadata", {}).get("tags", [])
        ),
        0,
    )
    nb.cells.insert(where, cell)


def execute_notebook(
    path: str | Path,
    run_dirs: Sequence[str | Path] | None,
    timeout: int | None = None,
    statistics: str | Path | None = None,
) -> nbformat.NotebookNode:
    """Run one notebook on ``run_dirs`` (None: as shipped, on the runs it finds itself) and
    ``statistics`` (a file of ``analysis.counts.Statistics``; None: the notebook computes
    them) in a fresh kernel and return it with its outputs; raise ReportError naming the
    notebook and the failing cell's error."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    if run_dirs is not None:
        inject_parameters(nb, run_dirs, statistics)
    root = str(Path(__file__).resolve().parent.parent)
    env = {
        **os.environ,
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p),
    }
    client = _Client(
        nb,
        timeout=timeout,
        kernel_manager_class=_CurrentPythonKernel,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.handlers = (
        {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
        if interrupts.in_main_thread()
        else {}
    )
    try:
        try:
            _execute(client, path, nb, env)
        finally:
            for signum, handler in client.handlers.items():  # as they were, whatever happened
                if signal.getsignal(signum) is not handler:
                    signal.signal(signum, handler)
        interrupts.check()  # a signal that the kernel's client dropped
    except KeyboardInterrupt:
        _shut_down(client)
        raise
    except Exception:
        interrupts.check()  # a signal that became another error: the signal, not the error
        raise
    return nb


def _execute(client: NotebookClient, path: Path, nb: nbformat.NotebookNode, env: dict) -> None:
    """``client.execute``, its failures as ReportError."""
    try:
        # the kernel's stderr is not the report's: libzmq may abort a kernel being shut down
        # after a failed cell with an assertion line there (the failure itself comes through
        # the client as CellExecutionError)
        client.execute(env=env, stderr=subprocess.DEVNULL, **_encryption())
    except CellExecutionError as err:
        ename = getattr(err, "ename", None)
        detail = f"{ename}: {err.evalue}" if ename else str(err)
        raise ReportError(f"{path}: {_failed_cell(nb)}failed: {one_line(detail)}") from err
    except CellTimeoutError as err:
        raise ReportError(f"{path}: {_failed_cell(nb)}timed out ({one_line(err)})") from err
    except DeadKernelError as err:
        raise ReportError(f"{path}: the kernel died (out of memory?) ({one_line(err)})") from err


def _failed_cell(nb: nbformat.NotebookNode) -> str:
    """ "cell K " (K counts the notebook's own cells from 1) of the cell that failed, or ""."""
    k = 0
    for c in nb.cells:
        if "injected-parameters" in c.get("metadata", {}).get("tags", []):
            continue
        k += 1
        if any(o.get("output_type") == "error" for o in c.get("outputs", ())):
            return f"cell {k} "
    return ""
