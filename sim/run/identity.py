"""Whether a folder holds the run a config names: the stored config against the config (a
komi search's rounds are the run's, not the config's), the programs it played with (KataGo's
networks) against those the config names now, and a run that may grow by whole shards."""

from __future__ import annotations

from pathlib import Path

from sim.config.file import config_from_dict
from sim.config.run import RunConfig
from sim.dataset.check import RunState, check_run
from sim.dataset.layout import MANIFEST
from sim.dataset.manifest import now, read_manifest
from sim.errors import UserError, quoted
from sim.run.drivers import DRIVERS


def same_run(run_dir: Path, cfg: RunConfig) -> RunState | None:
    """The run in ``run_dir`` (a folder ``check_folder`` found holding one), checked, when it is
    the run ``cfg``; None when its manifest is gone (``--resume`` writes it again); UserError,
    saying what to type, when it is another run."""
    if not (run_dir / MANIFEST).exists():
        return None
    manifest = manifest_of(
        run_dir,
        cfg,
        "holds another run",
        f"to keep it, choose another folder with --out DIR; to replace it, delete {run_dir} first",
    )
    return check_run(run_dir, manifest=manifest)


def manifest_of(
    run_dir: Path, cfg: RunConfig, problem: str, advice: str, grow: bool = False
) -> dict:
    """The manifest of the run in ``run_dir``; a UserError (``problem``, the differences, then
    ``advice``) when that run's config is not ``cfg``, or its networks not those ``cfg``
    names now (``_program_differences``). With ``grow``, ``cfg`` may be that run
    with more games, when its games fill whole shards (a game depends on (seed, game id)
    alone, so the shards written are those of the larger run): the manifest is then the
    larger run's, the growth noted under ``grown``."""
    manifest = read_manifest(run_dir)
    programs = _program_differences(manifest, cfg)
    diffs = config_differences(manifest["config"], cfg) + programs
    if not diffs:
        return manifest
    old = manifest["config"]["games"]
    larger = {**manifest["config"], "games": cfg.games}
    if cfg.games <= old or programs or config_differences(larger, cfg):
        raise UserError(f"{run_dir}: {problem} ({'; '.join(diffs)}); {advice}")
    if old % cfg.shard_size:
        raise UserError(
            f"{run_dir}: cannot grow the run to {cfg.games:,} games: its {old:,} games end "
            f"inside shard {old // cfg.shard_size} (shards of {cfg.shard_size:,}), and a run "
            f"grows by whole shards; choose another --out"
        )
    if not grow:
        raise UserError(
            f"{run_dir}: {problem} ({diffs[0]}); to grow it to {cfg.games:,} games, add --resume"
        )
    grown = [*manifest.get("grown", []), {"games": old, "at": now()}]
    return {**manifest, "config": cfg.to_dict(), "games": cfg.games, "grown": grown}


def config_differences(stored: dict, cfg: RunConfig) -> list[str]:
    """The keys where the stored config (resolved, so that keys added since it was written
    take their defaults, or a player's the values it played with) differs from ``cfg``."""
    stored_cfg = config_from_dict(stored, "manifest.json (config)", stored=True)
    if cfg.komi_search is not None and stored_cfg.komi_search is not None:
        cfg = cfg.with_rounds_of(stored_cfg)  # a search's rounds are the run's, not its config's
    stored, want = _flat(stored_cfg.to_dict()), _flat(cfg.to_dict())
    keys = list(dict.fromkeys([*want, *stored]))
    return [
        f"{k}: run has {quoted(stored.get(k))}, requested {quoted(want.get(k))}"
        for k in keys
        if stored.get(k) != want.get(k)
    ]


def _flat(table: dict, prefix: str = "") -> dict:
    """A config's nested tables as dotted keys (``players.black.rave``): a difference names
    the key that differs."""
    out = {}
    for k, v in table.items():
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
    return out


def _program_differences(manifest: dict, cfg: RunConfig) -> list[str]:
    """Where the programs the stored run played with (its KataGo networks: size, sha256)
    differ from those ``cfg`` names now (``Driver.programs``); nothing for a run that did
    not record them."""
    driver = DRIVERS[cfg.driver]
    stored = manifest.get("networks")
    if not stored or driver.programs is None:
        return []
    now = driver.programs(cfg).get("networks", {})
    return [
        f"players.{c}.model: the run played {net['model']} ({net['bytes']:,} bytes, sha256 "
        f"{net['sha256'][:16]}...), {now[c]['model']} is {now[c]['bytes']:,} bytes, sha256 "
        f"{now[c]['sha256'][:16]}..."
        for c, net in stored.items()
        if c in now and (net["bytes"], net["sha256"]) != (now[c]["bytes"], now[c]["sha256"])
    ]
