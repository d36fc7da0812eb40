"""jpdsim: a batched numba Go engine for the 计枰点 rules family (see docs/rules.md)."""

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def _kernel_cache_dir() -> str:
    """numba's on-disk cache notices edits to a kernel's own file only, not to the kernels
    it calls in other files; one cache folder per version of all kernel sources keeps the
    cached machine code consistent."""
    here = Path(__file__).parent
    digest = hashlib.sha1()
    for path in sorted(here.glob("*.py")):
        source = path.read_bytes()
        if b"@njit" in source:
            digest.update(source)
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return str(base / "jpdsim" / f"numba-{digest.hexdigest()[:16]}")


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = _kernel_cache_dir()
    if "numba" in sys.modules:  # imported first: its config has read the environment already
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
