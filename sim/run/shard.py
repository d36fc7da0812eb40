"""Playing one shard: its games through the engine into the dataset layer's tables, written
to the run folder (in a worker, on a Dask worker, or in-process for a replay)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from sim.config import RunConfig
from sim.dataset.write import games_table, moves_selection, moves_table, write_shard
from sim.player import VARIANTS, Player, kernel_variant


def _play_function(driver: str):
    """The play function of a driver (``sim.player.DRIVERS``); the engine (numba) is imported
    only where games are played."""
    if driver == "katago":
        from sim.katago.driver import play_katago

        return play_katago
    if driver == "referee":
        from sim.referee import play_refereed

        return play_refereed
    from sim.selfplay import play_batch

    return play_batch


def play_table(cfg: RunConfig, game_ids: np.ndarray, record_moves: bool, players=None):
    """Play ``game_ids`` under ``cfg``, each game at its komi (``RunConfig.komi_groups``):
    (GAME_SCHEMA table, moves or None), in the order of ``game_ids``. ``players``: who plays
    instead of ``cfg``'s (``{"black": Player}``: a program given on the command line); the
    rows still name ``cfg``'s."""
    play = _play_function(cfg.driver)
    ids = np.asarray(game_ids, dtype=np.int64)
    tables, moves, positions = [], [], []
    for group, rows in cfg.komi_groups(ids):
        kwargs = {**group.play_kwargs(), **(players or {})}
        columns, m = play(game_ids=ids[rows], record_moves=record_moves, arrow=True, **kwargs)
        tables.append(games_table(group, ids[rows], columns))
        moves += m or []
        positions.append(rows)
    if len(tables) == 1:  # no sweep, or one komi among these games: already in order
        return tables[0], (moves if record_moves else None)
    order = np.argsort(np.concatenate(positions), kind="stable")
    return pa.concat_tables(tables).take(order), (
        [moves[i] for i in order] if record_moves else None
    )


def _stand_in(player: Player) -> Player:
    """A player of the same kernels that plays at once: a search of one visit; ``random`` for
    a program (the referee's own kernels are what compile: the KataGo driver uses them too)."""
    if player.is_program:
        return Player("random")
    return dataclasses.replace(player, visits=1) if player.searches else player


def compile_kernels(kwargs: dict, engines: bool, log=None) -> None:
    """Compile the kernels of the games that ``kwargs`` (of ``RunConfig.play_kwargs``)
    describe, the first time that kind of game is played with these kernel sources, by
    playing one game of stand-ins (``_stand_in``) in this process, and tell ``log`` what and
    how long it took; a marker in numba's cache folder says it was done (then nothing is
    loaded here: the workers load the cached kernels themselves). Runs do it before their
    workers start, so that they do not all compile the same kernels at once. ``log``: default
    the ``sys.stderr`` of the call (not of the import)."""
    log = log or sys.stderr
    kwargs = {**kwargs, "black": _stand_in(kwargs["black"]), "white": _stand_in(kwargs["white"])}
    variant = kernel_variant(kwargs["black"], kwargs["white"])
    driver = "referee" if engines else "batch"
    marker = Path(os.environ["NUMBA_CACHE_DIR"]) / f"compiled-{driver}-{variant}"
    if marker.exists():
        return
    play = _play_function(driver)  # imports the engine (numba): only to compile
    log.write(f"compiling the kernels for {VARIANTS[variant]} (first time only)...\n")
    log.flush()
    t = time.perf_counter()
    play(game_ids=np.zeros(1, np.int64), record_moves=True, arrow=True, **kwargs)
    log.write(f"compiled in {time.perf_counter() - t:.0f} s\n")
    log.flush()
    with contextlib.suppress(OSError):  # a cache numba cannot write either: said again
        marker.touch()


def play_shard(cfg: RunConfig, run_dir: Path, index: int) -> int:
    """Play shard ``index`` and write it (moves first, then games); returns its game count."""
    r = cfg.shard_range(index)
    ids = np.arange(r.start, r.stop, dtype=np.int64)
    record = cfg.record_moves != "none"
    games, moves = play_table(cfg, ids, record)
    moves_tbl = None
    if record:
        mask = moves_selection(cfg.record_moves, games)
        moves_tbl = moves_table(ids, moves, mask)
    write_shard(run_dir, index, games, moves_tbl)
    return len(ids)
