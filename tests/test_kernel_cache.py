"""The kernels' cache folder: keyed by what decides numba's machine code, chosen without
writing anything, pruned by the compile step only."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim import kernel_cache


@pytest.fixture
def tree(tmp_path):
    """A copy of the package ``sim``."""
    root = tmp_path / "sim"
    shutil.copytree(Path(kernel_cache.__file__).parent, root)
    return root


def test_the_key_covers_the_kernel_sources_only(tree):
    key = kernel_cache.kernel_cache_dir(tree)
    (tree / "cli.py").write_text("# an edit outside the kernels\n", encoding="utf-8")
    assert kernel_cache.kernel_cache_dir(tree) == key
    for kernel in ("engine/board.py", "players/random.py", "play/batch.py", "schema/tables.py"):
        with open(tree / kernel, "a", encoding="utf-8") as f:
            f.write("# an edit\n")
        assert kernel_cache.kernel_cache_dir(tree) != key, kernel
        key = kernel_cache.kernel_cache_dir(tree)


def test_the_key_covers_what_numba_stamps_its_entries_with(tree, tmp_path, monkeypatch):
    """numba keys a cache entry by its source file's path and time, its own version, Python's
    and the CPU: each of them changes the folder."""
    key = kernel_cache.kernel_cache_dir(tree)
    moved = shutil.copytree(tree, tmp_path / "site-packages" / "sim")  # a non-editable install
    for path in moved.rglob("*.py"):  # the same times: only the path differs
        original = tree / path.relative_to(moved)
        os.utime(path, ns=(0, original.stat().st_mtime_ns))
    assert kernel_cache.kernel_cache_dir(moved) != key
    os.utime(tree / "play/batch.py", ns=(0, (tree / "play/batch.py").stat().st_mtime_ns + 10**9))
    assert kernel_cache.kernel_cache_dir(tree) != key
    key = kernel_cache.kernel_cache_dir(tree)
    monkeypatch.setenv("NUMBA_CPU_NAME", "generic")
    assert kernel_cache.kernel_cache_dir(tree) != key
    monkeypatch.delenv("NUMBA_CPU_NAME")
    monkeypatch.setattr(kernel_cache.importlib.metadata, "version", lambda name: "0.0.1")
    assert kernel_cache.kernel_cache_dir(tree) != key
    monkeypatch.undo()
    monkeypatch.setattr(kernel_cache.sys.implementation, "cache_tag", "cpython-399")
    assert kernel_cache.kernel_cache_dir(tree) != key


def _in_a_new_home(code: str, tmp_path) -> list[str]:
    """The words ``code`` prints in a fresh Python whose home (and so cache) folder is empty,
    and which must still be empty after it."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert list(home.rglob("*")) == []
    return out.stdout.split()


def test_importing_the_packages_writes_nothing_and_loads_no_numba(tmp_path):
    code = (
        "import sys, os, sim, analysis, sim.config.run, sim.cli; "
        "print('numba' in sys.modules, 'NUMBA_CACHE_DIR' in os.environ)"
    )
    assert _in_a_new_home(code, tmp_path) == ["False", "False"]


def test_the_engine_points_numba_at_the_folder_and_writes_nothing(tmp_path):
    code = (
        "import os, sim.engine; from numba.core import config; from sim import kernel_cache; "
        "print(config.CACHE_DIR == os.environ['NUMBA_CACHE_DIR'] == "
        "str(kernel_cache.kernel_cache_dir()))"
    )
    assert _in_a_new_home(code, tmp_path) == ["True"]


def test_old_cache_folders_are_removed_but_not_recently_used_ones(tmp_path):
    base = tmp_path / "jpdsim"
    folders = [base / f"numba-{i}" for i in range(6)]
    for i, folder in enumerate(folders):
        folder.mkdir(parents=True)
        os.utime(folder, (1000 + i, 1000 + i))  # numba-5 the most recently used
    for i in (1, 2, 3):  # other checkouts used these today, numba-1 the longest ago
        recent = time.time() - kernel_cache.STALE / (i + 1)
        os.utime(folders[i], (recent, recent))
    kernel_cache.mark_used(folders[0], folders[0])  # used now: with 2 and 3 the KEEP most recent
    assert sorted(p.name for p in base.iterdir()) == ["numba-0", "numba-1", "numba-2", "numba-3"]


def test_a_folder_named_by_the_user_is_used_and_its_neighbours_are_kept(tmp_path):
    mine = [tmp_path / "jpdsim" / f"numba-{i}" for i in range(5)]
    for folder in mine:
        folder.mkdir(parents=True)
        os.utime(folder, (1000, 1000))
    kernel_cache.mark_used(
        tmp_path / "jpdsim" / "numba-x", tmp_path / "jpdsim" / "numba-0"
    )  # as NUMBA_CACHE_DIR names it
    assert len(list((tmp_path / "jpdsim").iterdir())) == 6
