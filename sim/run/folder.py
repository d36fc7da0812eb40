"""The run folder as the runner sees it: checked before a run (empty, or the same run to
resume), locked while it runs, its manifest started (or re-opened, or written again when it
was deleted), kept up to date while shards are written and completed at the end, the
temporary files of a killed runner removed."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sim.config.run import RunConfig
from sim.dataset.check import RunState, check_run, read_part
from sim.dataset.layout import (
    GAMES,
    LOCK,
    LOG,
    MANIFEST,
    MANIFEST_TMP,
    MOVES,
    format_ranges,
    part_name,
)
from sim.dataset.manifest import now, read_manifest, write_manifest
from sim.errors import UserError
from sim.run import identity
from sim.run.drivers import DRIVERS
from sim.schema.tables import SCHEMA_VERSION

LOCK_TRIES, LOCK_WAIT = 20, 0.05  # a busy folder's lock is tried for about a second


def _run_above(run_dir: Path) -> Path | None:
    """The run folder that ``run_dir`` is inside (a folder above it with a run's manifest), or
    None."""
    for above in Path(os.path.realpath(run_dir)).parents:
        if os.path.isfile(above / MANIFEST):
            try:
                read_manifest(above)
            except UserError:
                continue
            return above
    return None


def check_folder(run_dir: Path, resume: bool) -> bool:
    """Whether ``run_dir`` holds a run already (UserError if that is not wanted, if it holds
    something else, or if it is inside another run's folder, whose readers it would break).
    The lock file and the manifest's temporary files do not count."""
    above = _run_above(run_dir)
    if above is not None:
        raise UserError(
            f"--out {run_dir}: inside the run folder {above}, which holds its own run only; "
            f"choose a folder outside it"
        )
    if run_dir.exists() and not run_dir.is_dir():
        raise UserError(f"{run_dir}: exists and is not a folder")
    if not run_dir.is_dir():
        return False
    try:
        names = sorted(
            p.name
            for p in run_dir.iterdir()
            if p.name != LOCK and not MANIFEST_TMP.fullmatch(p.name)
        )
    except OSError as err:
        raise UserError(f"--out {run_dir}: {err.strerror}") from None
    if not names:
        return False
    if not resume:
        raise UserError(
            f"{run_dir}: run folder is not empty; use --resume to complete the run "
            f"there, or choose another --out"
        )
    if MANIFEST not in names and not set(names) <= {GAMES, MOVES, LOG}:
        other = next(n for n in names if n not in (GAMES, MOVES, LOG))
        raise UserError(
            f"{run_dir}: not a jpdsim run folder (no {MANIFEST}, and it holds {other!r}); "
            f"choose another --out"
        )
    return True


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
    for _ in range(LOCK_TRIES):  # a reader's brief shared probe (advice.writing) yields
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return f
        except BlockingIOError:  # held: by another run, or by a reader for an instant
            time.sleep(LOCK_WAIT)
        except OSError as err:
            f.close()
            raise UserError(f"{run_dir}: cannot lock the folder ({err.strerror})") from None
    f.close()
    raise UserError(f"{run_dir}: another jpdsim run is writing into this folder") from None


def new_manifest(cfg: RunConfig, config_file: str | None, env: dict) -> dict:
    """A fresh manifest of the run ``cfg`` (``record`` fills in what the folder holds)."""
    driver = DRIVERS[cfg.driver]
    return {
        "name": cfg.name,
        "config": cfg.to_dict(),
        "config_file": config_file,
        **env,
        "schema_version": SCHEMA_VERSION,
        **({"reproducibility": note} if (note := driver.reproducibility) else {}),
        **(driver.programs(cfg) if driver.programs else {}),
        "status": "running",
        "started": now(),
        "updated": None,  # this, games_written and shards: ``record``
        "ended": None,
        "games": cfg.games,
        "games_written": None,
        "shards": None,
        "seconds": 0.0,
        "throughput_games_per_s": None,
        "sessions": [],
    }


def prepare(cfg: RunConfig, run_dir: Path, resume: bool, config_file: str | None, env: dict):
    """Check or create the run folder (the lock is held); returns (manifest, state or None).
    A deleted manifest is written again from ``cfg`` once every shard passed the check."""
    for tmp in run_dir.iterdir():
        if MANIFEST_TMP.fullmatch(tmp.name):  # left by a runner killed while writing
            tmp.unlink()
    if not check_folder(run_dir, resume):
        manifest = new_manifest(cfg, config_file, env)
        record(run_dir, manifest, cfg, (), "running")
        return manifest, None
    rewrite = not (run_dir / MANIFEST).exists()
    if rewrite:
        manifest = {**new_manifest(cfg, config_file, env), "rewritten": now()}
    else:
        manifest = identity.manifest_of(
            run_dir,
            cfg,
            "cannot resume, the run there has another config",
            "give the same config file and --games/--seed options as the first run (--games "
            "may grow a run whose games fill whole shards)",
            grow=True,
        )
    try:
        state = check_run(run_dir, verify=True, manifest=manifest)
    except UserError as err:
        if not rewrite:
            raise
        raise UserError(
            f"{err} (or the config given is not the run's: {MANIFEST} is written again only "
            f"when every shard fits it)"
        ) from None
    for tmp in state.leftovers:
        tmp.unlink()
    state.leftovers.clear()
    record(run_dir, manifest, state.config, state.done, "running")
    return manifest, state


def remove_unstarted(run_dir: Path, made: Path | None) -> None:
    """Remove what a new run that stopped before its first shard put into ``run_dir``, and the
    folders up to ``made`` (the topmost that the run made, or None); a run with a shard
    written is kept."""
    if any((run_dir / GAMES).glob("part-*")):
        return
    for name in (MANIFEST, LOG, LOCK):
        (run_dir / name).unlink(missing_ok=True)
    above = [run_dir, *run_dir.parents]
    made_here = above[: above.index(made) + 1] if made in above else []
    for folder in (run_dir / GAMES, run_dir / MOVES, *made_here):
        try:
            folder.rmdir()
        except OSError:  # not there, or not empty
            pass


def remove_temporary_shards(run_dir: Path) -> None:
    """Remove the half-written shard files that stopped workers left behind."""
    for sub in (GAMES, MOVES):
        for tmp in (run_dir / sub).glob(".part-*.parquet.tmp"):
            tmp.unlink(missing_ok=True)


def discard_engine_errors(run_dir: Path, shards) -> int:
    """When every game of ``shards`` (those a session wrote) ended ``engine_error``, remove
    their files and return their games (the programs could not play one game: ``--resume``
    plays them again, as it plays the shard that a program stopped); else 0."""
    games = 0
    for i in shards:
        endings = read_part(run_dir / GAMES / part_name(i), ["ending"])["ending"].to_pylist()
        if set(endings) != {"engine_error"}:
            return 0
        games += len(endings)
    for i in shards:
        for sub in (GAMES, MOVES):  # the games file first: without it the shard is not there
            (run_dir / sub / part_name(i)).unlink(missing_ok=True)
    return games


def record(run_dir: Path, manifest: dict, cfg: RunConfig, done, status: str) -> None:
    """Write in the manifest what the folder holds (``done``: the whole shards) and ``status``."""
    done = set(done)
    manifest.update(
        {
            "status": status,
            "updated": now(),
            "games_written": sum(len(cfg.shard_range(i)) for i in done),
            "shards": {
                "count": cfg.n_shards,
                "size": cfg.shard_size,
                "written": len(done),
                "missing": format_ranges(i for i in range(cfg.n_shards) if i not in done),
            },
        }
    )
    write_manifest(run_dir, manifest)


def finish_manifest(
    run_dir: Path, manifest: dict, state: RunState, status: str, session: dict
) -> None:
    """Record the session that ends and what the folder now holds."""
    manifest["sessions"].append(session)
    secs = sum(s["seconds"] for s in manifest["sessions"])
    played = sum(s["games_played"] for s in manifest["sessions"])
    manifest.update(
        {
            "ended": session["ended"],
            "seconds": round(secs, 3),
            "throughput_games_per_s": round(played / secs, 1) if secs > 0 else None,
        }
    )
    record(run_dir, manifest, state.config, state.done, status)
