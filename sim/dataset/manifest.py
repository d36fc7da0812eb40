"""``manifest.json``: reading and writing it, and the provenance it records (versions of
jpdsim and its libraries, the git commit, times)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import sim
from sim.dataset.layout import GAMES, MANIFEST, newer_schema
from sim.errors import UserError
from sim.files import write_text_atomic
from sim.schema.tables import SCHEMA_VERSION


def now() -> str:
    """The current time, ISO 8601 in UTC."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _git_commit() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the git checkout this package runs from; (None, None) if none."""
    top = Path(sim.__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "-C", str(top), "rev-parse", "--show-toplevel", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        lines = out.stdout.split()
        if out.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != top:
            return None, None
        st = subprocess.run(
            ["git", "-C", str(top), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return lines[1], (bool(st.stdout.strip()) if st.returncode == 0 else None)
    except (OSError, subprocess.SubprocessError):
        return None, None


def environment() -> dict:
    """Versions of jpdsim, its git commit and its libraries (for the manifest)."""
    commit, dirty = _git_commit()
    versions = {"python": platform.python_version()}
    for lib in ("numpy", "numba", "pandas", "pyarrow"):
        try:
            versions[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            versions[lib] = None
    return {
        "jpdsim_version": sim.__version__,
        "git_commit": commit,
        "git_dirty": dirty,
        "versions": versions,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }


def write_manifest(run_dir: Path, manifest: dict) -> None:
    """Write manifest.json (atomically); UserError if it cannot be written (disk full)."""
    path = Path(run_dir) / MANIFEST
    try:
        write_text_atomic(path, json.dumps(manifest, indent=2) + "\n")
    except OSError as err:
        raise UserError(f"{path}: cannot write ({err.strerror or err})") from None


def read_manifest(run_dir: str | Path) -> dict:
    """The manifest of a run folder; UserError if the folder is not a readable run."""
    run_dir = Path(run_dir)
    path = run_dir / MANIFEST
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run folder")
    if not path.is_file():
        if (run_dir / GAMES).is_dir():
            raise UserError(
                f"{run_dir}: no {MANIFEST} (deleted?); `jpdsim run CONFIG --out {run_dir} "
                f"--games N --seed S --resume` with the run's config and its own games and seed "
                f"(a larger --games would grow it) writes it again, after checking every shard"
            )
        raise UserError(f"{run_dir}: not a jpdsim run folder (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UserError(f"{path}: unreadable manifest ({err})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("config"), dict):
        raise UserError(f"{path}: not a jpdsim manifest (no config table)")
    if newer_schema(manifest.get("schema_version")):
        raise UserError(
            f"{path}: written by a newer jpdsim (schema version {manifest['schema_version']}); "
            f"this jpdsim reads schema version {SCHEMA_VERSION}: upgrade jpdsim"
        )
    return manifest
