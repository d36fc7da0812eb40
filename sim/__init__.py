"""jpdsim: a batched numba Go engine for the 计枰点 rules family (see docs/rules.md)."""

import contextlib
import hashlib
import os
import shutil
import sys
from pathlib import Path

__version__ = "0.1.0"


#: The sources of the numba kernels and of the constants they compile in (relative to this
#: folder): the cache folder is keyed by their contents alone.
KERNEL_SOURCES = ("engine", "players", "batch.py", "schema.py", "coords.py")
_KEEP_CACHES = 3  # cache folders kept: this one and the most recently used others


def kernel_cache_dir(root: Path = Path(__file__).parent) -> Path:
    """numba's on-disk cache notices edits to a kernel's own file only, not to the kernels
    it calls in other files nor to the constants it compiled in (``sim.engine.state``'s indices,
    ``sim.schema``'s vocabulary); one cache folder per version of the kernels' sources keeps
    the cached machine code consistent, and an edit elsewhere (the CLI, the dataset) keeps it."""
    digest = hashlib.sha1()
    for name in KERNEL_SOURCES:
        path = root / name
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(str(source.relative_to(root)).encode() + b"\0" + source.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "jpdsim" / f"numba-{digest.hexdigest()[:16]}"


def prune_caches(current: Path) -> None:
    """Mark ``current`` used now and remove all but the most recently used cache folders."""
    with contextlib.suppress(OSError):
        current.mkdir(parents=True, exist_ok=True)
        os.utime(current)
        folders = sorted(current.parent.glob("numba-*"), key=lambda p: p.stat().st_mtime)
        for old in folders[:-_KEEP_CACHES]:
            shutil.rmtree(old, ignore_errors=True)


if "NUMBA_CACHE_DIR" not in os.environ:
    _cache = kernel_cache_dir()
    prune_caches(_cache)
    os.environ["NUMBA_CACHE_DIR"] = str(_cache)
    if "numba" in sys.modules:  # imported first: its config has read the environment already
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
