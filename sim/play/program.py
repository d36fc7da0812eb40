"""A program that plays (a GTP program, KataGo's analysis engine): a child process in a process
group of its own, written to on stdin and read from stdout with deadlines, its stderr read
meanwhile (an unread pipe would block it) and the last of it kept for error messages.

A fault — the program died, did not answer in time, answered what its protocol does not
allow — is an ``EngineError``; the protocol modules (``sim.gtp.engine``, ``sim.katago.engine``)
raise it, and ``restart`` starts a fresh process. ``kill`` sends SIGKILL to the whole group (a
wrapper script's children go with it); ``close_all`` ends every program of this process, also
at exit, and ``kill_all`` kills them from a signal handler. ``shared`` keeps a program per key
for the process (a local worker's, which ends with its run), or, within ``task_programs``, for
one task alone (a Dask task: nothing outlives it, nothing is shared with another thread's).
``shown`` puts what a program said into a message, cut to a bounded length.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time

from sim.errors import UserError, one_line

#: Where Debian installs GNU Go and other games, searched after PATH.
EXTRA_PATH = "/usr/games"
_STDERR_KEPT = 2000  # bytes of a program's stderr kept for its error messages
SHOWN = 200  # characters of a program's answer that a message shows


def shown(text: str, quote: bool = False, limit: int = SHOWN) -> str:
    """``text`` (what a program said) for a message: its first ``limit`` characters (``quote``:
    as a Python literal), and how many bytes were cut after them."""
    head = repr(text[:limit]) if quote else text[:limit]
    if len(text) <= limit:
        return head
    return f"{head}... ({len(text[limit:].encode('utf-8', 'replace')):,} more bytes cut)"


class EngineError(RuntimeError):
    """The engine crashed, hung past its timeout or answered garbage."""


class EngineUnusable(UserError):
    """A program whose games end ``engine_error`` one after another: it cannot play under the
    run's rules, and the run stops."""


def named_command(option: str, text: str) -> tuple[str, str]:
    """(NAME, COMMAND) of an option's value ``NAME=COMMAND`` (``--engine``); a UserError naming
    ``option`` otherwise."""
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or not command.strip():
        raise UserError(f"{option} {text}: expected NAME=COMMAND")
    return name.strip(), command


def resolve(command) -> list[str]:
    """The argument list of ``command`` (a string, split as a shell would, or a list) with
    its program found on PATH or in EXTRA_PATH; EngineError if it is not there or cannot be
    run."""
    args = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not args:
        raise EngineError("empty command")
    path = os.environ.get("PATH", os.defpath) + os.pathsep + EXTRA_PATH
    program = shutil.which(args[0], path=path)
    if program is None:
        given = args[0] if os.sep in args[0] else shutil.which(args[0], os.F_OK, path)
        if given and os.path.isdir(given):
            raise EngineError(f"program {args[0]!r} is a folder, not a program")
        if given and os.path.exists(given):
            raise EngineError(f"program {args[0]!r} is not executable ({given})")
        raise EngineError(f"program {args[0]!r} not found (on PATH or in {EXTRA_PATH})")
    return [program, *args[1:]]


class Program:
    """A running program, started by ``spawn``. ``args``: its argument list (``resolve``d);
    ``name``: what messages call it. ``faults_in_a_row``: games in a row that ended by its
    fault (kept by ``sim.play.referee``)."""

    def __init__(self, args: list[str], name: str):
        self.args, self.name = args, name
        self.proc = None
        self.faults_in_a_row = 0

    def spawn(self) -> None:
        """Start the process in a process group of its own."""
        try:
            self.proc = subprocess.Popen(
                self.args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:
            raise EngineError(f"cannot start {shlex.join(self.args)}: {e.strerror}") from None
        _LIVE.add(self)
        self.pending, self._stderr, self._stderr_open = b"", b"", True

    def start(self) -> None:
        """Spawn the process and check that it speaks its protocol (``handshake``); a process
        that fails is killed, and the error shows the last of its stderr."""
        self.spawn()
        try:
            self.handshake()
        except BaseException as e:
            self.kill()
            if isinstance(e, EngineError) and self._stderr.strip():
                said = one_line(self._stderr.decode("utf-8", "replace"), 200)
                raise EngineError(f"{e}; its stderr: {said}") from None
            raise

    def handshake(self) -> None:
        """The protocol's first exchange (a subclass's)."""

    def goodbye(self) -> None:
        """Ask the program to exit (a subclass's: GTP's ``quit``)."""

    def restart(self) -> None:
        """A fresh process in place of this one (after a fault)."""
        self.kill()
        self.start()

    def write(self, data: bytes, what: str) -> None:
        """Send ``data``; EngineError if the process has exited or closed its input."""
        if self.proc.poll() is not None:
            raise EngineError(f"engine exited (status {self.proc.returncode})")
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except OSError:
            raise EngineError(f"engine closed its input at {what}") from None

    def fds(self) -> list[int]:
        """The pipes to wait on: stdout, and stderr while it is open."""
        out, err = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        return [out, err] if self._stderr_open else [out]

    def pump(self, ready, what: str) -> None:
        """Read the pipes among ``ready`` (from ``select``): stdout into ``pending``, stderr
        into the kept tail; EngineError at the end of stdout (the program exited)."""
        out, err = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        if err in ready:
            said = os.read(err, 65536)
            self._stderr = (self._stderr + said)[-_STDERR_KEPT:]
            self._stderr_open = bool(said)
        if out in ready:
            chunk = os.read(out, 65536)
            if not chunk:
                raise EngineError(f"engine exited while answering {what}")
            self.pending += chunk

    def read_more(self, deadline: float, what: str) -> None:
        """Wait until stdout has more (stderr read meanwhile) and add it to ``pending``;
        EngineError if nothing comes before ``deadline`` (``time.monotonic``)."""
        size = len(self.pending)
        while len(self.pending) == size:
            left = deadline - time.monotonic()
            ready = select.select(self.fds(), [], [], left)[0] if left > 0 else []
            if not ready:
                raise EngineError(f"no answer to {what} within the timeout")
            self.pump(ready, what)

    def kill(self) -> None:
        """SIGKILL to the process group (a wrapper's children too), then reap the process."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                pipe.close()
        _LIVE.discard(self)

    def close(self) -> None:
        """``goodbye`` (2 s to answer and exit), then ``kill``."""
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(EngineError):
                self.goodbye()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(2.0)
        self.kill()


_LIVE: set = set()  # the programs of this process that are running
_SHARED: dict = {}  # key -> its program, for ``shared``
_TASK = threading.local()  # ``programs``: the programs of this thread's task (task_programs)


def shared(key, make) -> Program:
    """This process's program for ``key`` (this task's, within ``task_programs``): ``make()``
    started once, reused while it runs."""
    programs = getattr(_TASK, "programs", None)
    programs = _SHARED if programs is None else programs
    if key not in programs or programs[key] not in _LIVE:
        programs[key] = make()
    return programs[key]


@contextlib.contextmanager
def task_programs():
    """Within: ``shared`` starts the programs of this thread's task for it alone; they are
    closed when it ends, however it ends."""
    _TASK.programs = {}
    try:
        yield
    finally:
        programs, _TASK.programs = _TASK.programs, None
        for program in programs.values():
            program.close()


def close_all() -> None:
    """``close`` every program this process started (at exit too)."""
    _SHARED.clear()
    while _LIVE:
        _LIVE.pop().close()


atexit.register(close_all)


def kill_all() -> None:
    """SIGKILL every running program's process group, nothing more (for a signal handler:
    the process is about to exit)."""
    for engine in list(_LIVE):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(engine.proc.pid, signal.SIGKILL)
