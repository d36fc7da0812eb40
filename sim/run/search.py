"""A komi search's next round, decided from the games its run folder holds
(``sim.komi.search.next_round``): the runner calls ``next_config`` once a round's shards are
all written; ``log_round`` says in the run's log what it decided."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np

from sim.config.run import RunConfig
from sim.dataset.check import read_part
from sim.dataset.layout import GAMES, part_name
from sim.komi.search import next_round

log = logging.getLogger("jpdsim.runner")
#: A winner column's values as Black's (wins, draws, losses).
_RESULT = {"B": 0, "draw": 1, "W": 2}


def results(cfg: RunConfig, run_dir: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(komis, counts, leads): Black's (wins, draws, losses) under the search's ruleset at
    each komi played, over every shard of ``cfg`` (games without a winner left out), and each
    scored game's lead (Black's margin under the ruleset plus its komi)."""
    r = cfg.komi_search.ruleset
    komis, outcomes, margins = [], [], []
    for i in range(cfg.n_shards):
        t = read_part(run_dir / GAMES / part_name(i), [f"komi_{r}", f"winner_{r}", f"margin_{r}"])
        komis.append(t.column(0).to_numpy(zero_copy_only=False))
        outcomes.append([_RESULT.get(w, -1) for w in t.column(1).to_pylist()])
        margins.append(t.column(2).to_numpy(zero_copy_only=False))
    komi = np.concatenate(komis) if komis else np.empty(0)
    outcome = np.concatenate(outcomes).astype(np.int64) if outcomes else np.empty(0, np.int64)
    lead = (np.concatenate(margins) if margins else np.empty(0)) + komi
    has = outcome >= 0
    values, j = np.unique(komi[has], return_inverse=True)
    counts = np.zeros((len(values), 3), np.int64)
    np.add.at(counts, (j, outcome[has]), 1)
    return values, counts, lead[np.isfinite(lead)]


def next_config(cfg: RunConfig, run_dir: Path) -> RunConfig:
    """``cfg`` with its search's next round decided from the results of all its games (its
    rounds so far all played and written)."""
    komis, counts, leads = results(cfg, run_dir)
    points = cfg.rules.board_size**2
    decided = cfg.with_round(next_round(cfg.komi_search, komis, counts, leads, points))
    why = _unplayable(decided)
    if why is None:
        return decided
    log.warning("komi search ended: %s", why)
    last = decided.komi_search.rounds[-1]
    return cfg.with_round(replace(last, komis=(), games=0, stop=why))


def _unplayable(cfg: RunConfig) -> str | None:
    """Why a katago player cannot play a komi of the search's last round (KataGo takes
    -150..150), or None."""
    from sim.katago.rules import query_rules

    for c in cfg.komi_configs:
        for p in (cfg.black, cfg.white):
            if p.kind == "katago":
                try:
                    query_rules(c.rules, p.play_for)
                except ValueError as err:
                    return str(err)
    return None


def log_round(search) -> None:
    """Say in the log what the fit of a search's rounds so far is and what comes next."""
    last = search.rounds[-1]
    fit = f"{last.fair:.2f} ({last.lo:.2f}-{last.hi:.2f})"
    if last.komis:
        komis = ", ".join(f"{k:g}" for k in dict.fromkeys(last.komis))
        log.info("komi search: fair komi %s so far; round %d at %s", fit, len(search.rounds), komis)
    else:
        log.info("komi search ended (%s): fair komi %s", last.stop, fit)
