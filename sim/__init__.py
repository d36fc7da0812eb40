"""jpdsim: a batched numba Go engine for the 计枰点 rules family (see docs/rules.md)."""

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def _kernel_cache_dir() -> str:
    """numba's on-disk cache notices edits to a kernel's own file only, not to the kernels
    it calls in other files nor to the constants it compiled in (``sim.engine.state``'s indices,
    ``sim.schema``'s vocabulary); one cache folder per version of the package's sources keeps
    the cached machine code consistent."""
    digest = hashlib.sha1()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return str(base / "jpdsim" / f"numba-{digest.hexdigest()[:16]}")


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = _kernel_cache_dir()
    if "numba" in sys.modules:  # imported first: its config has read the environment already
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
