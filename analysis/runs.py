"""Which runs a study names: run folders, or ``jpdsim stress`` folders standing for their runs
(``run_folders``), each run once whatever it is called (``run_identity``, ``unique_runs``), and
a short label for each (``run_labels``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sim.dataset.layout import GAMES, MANIFEST
from sim.dataset.manifest import read_manifest


def run_identity(path: str | Path):
    """What a run folder is, whatever it is called (``R``, ``R/``, ``R/../R``, a link to R):
    its device and inode, or its resolved path where it cannot be looked up."""
    try:
        st = Path(path).stat()
    except OSError:
        return str(Path(path).resolve())
    return st.st_dev, st.st_ino


def unique_runs(paths: Sequence[str | Path]) -> list[Path]:
    """``paths`` without the runs named again (``run_identity``), in the order first named."""
    seen: dict = {}
    for p in map(Path, paths):
        seen.setdefault(run_identity(p), p)
    return list(seen.values())


def run_folders(paths: Sequence[str | Path]) -> list[Path]:
    """The run folders named by ``paths``: a run folder itself, or a ``jpdsim stress`` folder
    (no manifest, runs in its subfolders), which stands for its runs in name order; a run
    named twice (under two names, or as a run of a stress folder also named) is there once."""
    out = []
    for p in map(Path, paths):
        subs = (
            sorted(d for d in p.iterdir() if (d / MANIFEST).is_file())
            if p.is_dir() and not (p / MANIFEST).exists() and not (p / GAMES).exists()
            else []
        )
        out.extend(subs or [p])
    return unique_runs(out)


def run_labels(run_dirs: Sequence[str | Path]) -> list[str]:
    """One short label per run: the run name, or the folder name where names clash."""
    names = []
    for d in run_dirs:
        m = read_manifest(d)
        names.append(str(m.get("name") or m["config"].get("name") or Path(d).resolve().name))
    if len(set(names)) == len(names):
        return names
    folders = [Path(d).resolve().name for d in run_dirs]
    if len(set(folders)) == len(folders):
        return folders
    paths = [str(Path(d).resolve()) for d in run_dirs]
    if len(set(paths)) == len(paths):
        return paths
    return [f"{p} #{i + 1}" for i, p in enumerate(paths)]  # the same run given twice
