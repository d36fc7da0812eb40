"""What the readers of a run folder advise: the command that completes a run, with its own
``--games`` and ``--seed`` (``resume_command``), or, while a run writes into the folder
(``writing``: it holds the folder's lock), to wait (``busy``)."""

from __future__ import annotations

import os
from pathlib import Path

from sim.config.run import RunConfig
from sim.dataset.layout import LOCK


def writing(run_dir: str | Path) -> bool:
    """Whether a jpdsim run holds the lock of ``run_dir`` now (it is writing into the folder:
    ``sim.run.folder.lock`` holds an exclusive ``flock`` on its ``.lock`` file while it runs).
    Probed with a shared lock taken and let go at once; False where there is no lock file, no
    ``flock`` (not POSIX), or where this process has the lock file open (the runner itself,
    or a worker it started: its own run)."""
    try:
        f = open(Path(run_dir) / LOCK, "rb")
    except OSError:
        return False
    with f:
        if _open_here(os.fstat(f.fileno()), f.fileno()):
            return False
        try:
            import fcntl
        except ImportError:
            return False
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def _open_here(st: os.stat_result, but: int) -> bool:
    """Whether a file descriptor of this process other than ``but`` is the file ``st``
    (Linux: ``/proc/self/fd``; False elsewhere)."""
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return False
    for fd in fds:
        if fd == but:
            continue
        try:
            other = os.fstat(fd)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return True
    return False


def resume_command(run_dir: str | Path, config: RunConfig | dict | None) -> str:
    """The command that completes the run in ``run_dir``, with the run's own ``--games`` and
    ``--seed`` (from its config, ``config``: a ``RunConfig`` or the manifest's table): a config
    file may say more games, and ``--resume`` with more games grows a run (README, Resume);
    a komi search decides its games, so only ``--seed`` for one."""
    if isinstance(config, RunConfig):
        config = config.to_dict()
    games, seed = (config or {}).get("games"), (config or {}).get("seed")
    if "komi_search" in (config or {}):
        games = None
    options = "".join(
        f" --{key} {value}"
        for key, value in (("games", games), ("seed", seed))
        if isinstance(value, int) and not isinstance(value, bool)
    )
    return f"`jpdsim run CONFIG --out {run_dir}{options} --resume`"


def busy(run_dir: str | Path) -> str:
    """What to say instead of a command that would write into ``run_dir`` while another run
    writes there (``writing``)."""
    return f"a jpdsim run is writing into {run_dir} now: wait for it to end, then look again"
