"""The run folder as the runner sees it: checked before a run (empty, or the same run to
resume), locked while it runs, its manifest started (or re-opened) and completed, its
temporary shard files removed."""

from __future__ import annotations

from pathlib import Path

from sim.dataset.check import RunState, check_run
from sim.dataset.layout import GAMES, LOCK, MOVES, format_ranges
from sim.dataset.manifest import now, read_manifest, write_manifest
from sim.errors import UserError
from sim.run.config import RunConfig, config_from_dict
from sim.schema import SCHEMA_VERSION


def _config_differences(stored: dict, cfg: RunConfig) -> list[str]:
    """The keys where the stored config (resolved, so that keys added since it was written
    take their defaults) differs from ``cfg``."""
    stored = config_from_dict(stored, "manifest.json (config)").to_dict()
    want = cfg.to_dict()
    keys = list(dict.fromkeys([*want, *stored]))
    return [
        f"{k}: run has {stored.get(k)!r}, requested {want.get(k)!r}"
        for k in keys
        if stored.get(k) != want.get(k)
    ]


def check_folder(run_dir: Path, resume: bool) -> bool:
    """Whether ``run_dir`` holds a run already (UserError if that is not wanted)."""
    if run_dir.exists() and not run_dir.is_dir():
        raise UserError(f"{run_dir}: exists and is not a folder")
    nonempty = run_dir.is_dir() and any(p.name != LOCK for p in run_dir.iterdir())
    if nonempty and not resume:
        raise UserError(
            f"{run_dir}: run folder is not empty; use --resume to complete the run "
            f"there, or choose another --out"
        )
    return nonempty


def lock(run_dir: Path):
    """Hold an exclusive lock on ``run_dir`` (POSIX), so that two runners never write into one
    folder; returns the open lock file (the lock goes with it)."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        f = open(run_dir / LOCK, "a+")
    except OSError as err:
        raise UserError(f"--out {run_dir}: {err.strerror}") from None
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return f
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise UserError(f"{run_dir}: another jpdsim run is writing into this folder") from None
    return f


def prepare(cfg: RunConfig, run_dir: Path, resume: bool, config_file: str | None, env: dict):
    """Check or create the run folder; returns (manifest, state or None)."""
    if check_folder(run_dir, resume):
        manifest = read_manifest(run_dir)
        diffs = _config_differences(manifest["config"], cfg)
        if diffs:
            raise UserError(
                f"{run_dir}: cannot resume, the run there has another config "
                f"({'; '.join(diffs)}); give the same config file and "
                f"--games/--seed options as the first run"
            )
        for tmp in run_dir.glob(".*.tmp"):
            tmp.unlink()
        try:
            state = check_run(run_dir, verify=True)
        except UserError as err:
            raise UserError(
                f"{err}; move that file away and --resume plays its shard again"
            ) from None
        for tmp in state.leftovers:
            tmp.unlink()
        state.leftovers.clear()
        manifest["status"] = "running"
        write_manifest(run_dir, manifest)
        return manifest, state
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "name": cfg.name,
        "config": cfg.to_dict(),
        "config_file": config_file,
        **env,
        "schema_version": SCHEMA_VERSION,
        "status": "running",
        "started": now(),
        "ended": None,
        "games": cfg.games,
        "games_written": 0,
        "seconds": 0.0,
        "throughput_games_per_s": None,
        "shards": {
            "count": cfg.n_shards,
            "size": cfg.shard_size,
            "written": 0,
            "missing": format_ranges(range(cfg.n_shards)),
        },
        "sessions": [],
    }
    write_manifest(run_dir, manifest)
    return manifest, None


def remove_temporary_shards(run_dir: Path) -> None:
    """Remove the half-written shard files that stopped workers left behind."""
    for sub in (GAMES, MOVES):
        for tmp in (run_dir / sub).glob(".part-*.parquet.tmp"):
            tmp.unlink(missing_ok=True)


def finish_manifest(
    run_dir: Path, manifest: dict, state: RunState, status: str, session: dict
) -> None:
    """Record the session that ends and what the folder now holds."""
    manifest["sessions"].append(session)
    secs = sum(s["seconds"] for s in manifest["sessions"])
    played = sum(s["games_played"] for s in manifest["sessions"])
    manifest.update(
        {
            "status": status,
            "ended": session["ended"],
            "games_written": state.games_written,
            "seconds": round(secs, 3),
            "throughput_games_per_s": round(played / secs, 1) if secs > 0 else None,
            "shards": {
                "count": state.config.n_shards,
                "size": state.config.shard_size,
                "written": len(state.done),
                "missing": format_ranges(state.missing),
            },
        }
    )
    write_manifest(run_dir, manifest)
