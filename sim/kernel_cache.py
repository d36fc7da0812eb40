"""The folder of numba's on-disk cache of the kernels, keyed by what decides their machine code.

numba's cache notices edits to a kernel's own file only, not to the kernels it calls in other
files nor to the constants it compiled in (``sim.engine.state``'s indices, ``sim.schema.tables``'s
vocabulary). One folder per version of everything the cached code depends on keeps it
consistent, and lets the compile step (``sim.run``) trust a marker in the folder: the kernel
sources' contents and paths and times (numba stamps each cache entry with its file's path and
time), numba's and Python's versions, and the CPU numba compiles for (its name and features,
``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES`` where set). A non-editable install, a numba upgrade
or another machine sharing a home folder thus gets its own folder, and the compile step says
that it compiles.

``folder`` chooses it (``NUMBA_CACHE_DIR`` where set) without importing numba and hands it
on to the processes started after; ``configure`` (run when ``sim.engine`` is imported, before
any kernel is defined) points numba at it; neither writes anything. ``mark_used`` (the compile
step) creates it and prunes the folders unused for a day beyond the ``KEEP`` most recent.
"""

import contextlib
import hashlib
import importlib.metadata
import os
import shutil
import sys
import time
from pathlib import Path

#: The sources of the numba kernels and of the constants they compile in (relative to the
#: package ``sim``).
KERNEL_SOURCES = ("engine", "players", "play/batch.py", "schema")
KEEP = 3  # cache folders kept: this one and the most recently used others
STALE = 86_400  # seconds unused after which a folder beyond KEEP is removed
ROOT = Path(__file__).resolve().parent  # the package ``sim``


def _target() -> str:
    """numba's version, Python's cache tag and the CPU the kernels are compiled for."""
    from llvmlite import binding

    name = os.environ.get("NUMBA_CPU_NAME") or binding.get_host_cpu_name()
    try:
        features = binding.get_host_cpu_features().flatten()
    except RuntimeError:  # llvmlite cannot read them here; numba then compiles without them
        features = ""
    features = os.environ.get("NUMBA_CPU_FEATURES") or features
    numba = importlib.metadata.version("numba")
    return f"numba {numba}\0{sys.implementation.cache_tag}\0{name}\0{features}"


def kernel_cache_dir(root: Path = ROOT) -> Path:
    """The cache folder of the kernels under ``root`` (the package ``sim``) on this machine."""
    digest = hashlib.sha1(_target().encode() + b"\0" + str(root.resolve()).encode())
    for name in KERNEL_SOURCES:
        path = root / name
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            stamp = f"{source.relative_to(root)}\0{source.stat().st_mtime_ns}\0"
            digest.update(stamp.encode() + source.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "jpdsim" / f"numba-{digest.hexdigest()[:16]}"


def folder(own: Path | None = None) -> Path:
    """The kernels' cache folder: ``NUMBA_CACHE_DIR`` if set, else ``own`` (default
    ``kernel_cache_dir()``, which hashes the sources), which is then put in
    ``NUMBA_CACHE_DIR`` for numba and the processes started later."""
    if not os.environ.get("NUMBA_CACHE_DIR"):  # empty: unset, as numba reads it
        os.environ["NUMBA_CACHE_DIR"] = str(own or kernel_cache_dir())
    return Path(os.environ["NUMBA_CACHE_DIR"])


def configure() -> None:
    """Point numba at ``folder()`` (numba reads the environment when first imported)."""
    cache = folder()
    from numba.core import config

    config.CACHE_DIR = str(cache)


def mark_used(current: Path, own: Path) -> None:
    """Create ``current``, mark it used now and, where it is ``own``, the folder
    ``kernel_cache_dir`` chose (not one named by ``NUMBA_CACHE_DIR``), remove the cache
    folders beside it that are
    neither among the ``KEEP`` most recently used nor used within ``STALE`` seconds (another
    checkout or install on this machine may be using them)."""
    with contextlib.suppress(OSError):
        current.mkdir(parents=True, exist_ok=True)
        os.utime(current)
        if current != own:
            return
        folders = sorted(current.parent.glob("numba-*"), key=lambda p: p.stat().st_mtime)
        for old in folders[:-KEEP]:
            if time.time() - old.stat().st_mtime > STALE:
                shutil.rmtree(old, ignore_errors=True)
