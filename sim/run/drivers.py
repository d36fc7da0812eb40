"""The drivers of a run's games, one registration each in ``DRIVERS`` (``sim.config.pairing.driver``
names the one of a pair of players): ``batch``, the batch kernel (``sim.play.selfplay``);
``referee``, GTP programs one game at a time (``sim.play.referee``); ``katago``, KataGo many games
at a time (``sim.katago.driver``).

The run layer asks a driver three things (``Driver``): ``check`` a run before anything is made,
``compile`` the kernels of its games before the workers start, ``play`` the games. Importing
this module imports neither the engine (numba) nor a program's protocol: a registration
imports them when it is used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sim import kernel_cache
from sim.config.pairing import VARIANTS, kernel_variant
from sim.config.player import Player
from sim.config.run import RunConfig
from sim.errors import UserError
from sim.files import write_text_atomic


@dataclass(frozen=True)
class Driver:
    """A driver: its ``name`` (what ``sim.config.pairing.driver`` returns); ``check(cfg)``, the
    start-up checks of a run it plays (its programs start, answer and take the run's rules; its
    setups have liberties), a UserError naming the key; ``games`` and ``compiles`` import and return
    the function that plays its games (``sim.play.selfplay.play_batch``'s contract) and the one
    whose game of stand-ins compiles the kernels those games run; ``reproducibility``: what
    the manifest says of what jpdsim cannot control in its games (docs/gtp.md,
    docs/katago.md), None when they depend on (seed, game id) alone; ``programs(cfg)``: what
    the manifest records of the run's programs beyond its config, computed once in the parent
    (``sim.katago.checks.programs``: the networks, which ``--resume`` compares, KataGo's
    version, and ``not_reproducible``, which the summary repeats), None for nothing."""

    name: str
    check: Callable[[RunConfig], None]
    games: Callable[[], Callable]
    compiles: Callable[[], Callable]
    reproducibility: str | None = None
    programs: Callable[[RunConfig], dict] | None = None

    def play(self, **kwargs):
        """Play games: ``sim.play.selfplay.play_batch``'s keywords and results."""
        return self.games()(**kwargs)

    def compile(self, kwargs: dict, log=None) -> tuple[str, ...]:
        """Compile the kernels of the games that ``kwargs`` (of ``RunConfig.play_kwargs``)
        describe, the first time this driver plays that kind of game with this cache folder
        (``sim.kernel_cache``), by playing one game of stand-ins (``_stand_in``) in this
        process, and tell ``log`` what and how long it took; a marker in the folder says it
        was done (then nothing is loaded here: the workers load the cached kernels themselves)
        and keeps the numba patches left off (``sim.engine.PATCHES_OFF``), which ``log`` is
        told every time and which are returned. Runs do it before their workers start, so
        that they do not all compile the same kernels at once. ``log``: default the
        ``sys.stderr`` of the call (not of the import)."""
        log = log or sys.stderr
        black, white = _stand_in(kwargs["black"]), _stand_in(kwargs["white"])
        variant = kernel_variant(black, white)
        own = kernel_cache.kernel_cache_dir()  # hashes the sources: once
        cache = kernel_cache.folder(own)
        kernel_cache.mark_used(cache, own)
        # keyed by the kernels compiled and by what decides their code, for a folder that
        # NUMBA_CACHE_DIR names (own's name is that key)
        kernels = self.compiles.__name__.strip("_")
        marker = cache / f"compiled-{kernels}-{variant}-{own.name}"
        if not marker.exists():
            play = self.compiles()  # imports the engine (numba): only to compile
            log.write(f"compiling the kernels for {VARIANTS[variant]} (first time only)...\n")
            log.flush()
            t = time.perf_counter()
            games = {**kwargs, "black": black, "white": white}
            play(game_ids=np.zeros(1, np.int64), record_moves=True, arrow=True, **games)
            log.write(f"compiled in {time.perf_counter() - t:.0f} s\n")
            from sim.engine import PATCHES_OFF

            with contextlib.suppress(OSError):  # a cache numba cannot write either: said again
                write_text_atomic(marker, "".join(f"{line}\n" for line in PATCHES_OFF))
        try:
            patches_off = tuple(marker.read_text("utf-8").splitlines())
        except (OSError, UnicodeDecodeError):
            from sim.engine import PATCHES_OFF as patches_off
        log.writelines(f"warning: {line}\n" for line in patches_off)
        log.flush()
        return patches_off


def _stand_in(player: Player) -> Player:
    """A player of the same kernels that plays at once: a search of one visit; ``random`` for
    a program (what is compiled is the simulator's side of its games)."""
    if player.is_program:
        return Player("random")
    return dataclasses.replace(player, visits=1) if player.searches else player


def _batch():
    from sim.play.selfplay import play_batch

    return play_batch


def _gtp():
    from sim.play.referee import play_refereed

    return play_refereed


def _katago():
    from sim.katago.driver import play_katago

    return play_katago


def _refereed():
    """The simulator's players alone, moved as the drivers that referee move them
    (``sim.play.referee.Referee``): the kernels of both those drivers."""
    from sim.play.referee import Referee

    return Referee.play


def _check_setups(cfg: RunConfig) -> None:
    """Set each setup up once, before any game: a group without liberty is one UserError."""
    if cfg.setup:
        from sim.engine.game import Game  # the engine (numba) only when there are setups

        for x in cfg.setup:
            try:
                Game(cfg.rules, x.cells, to_move=x.first)
            except ValueError as err:
                raise UserError(f"setup {x.name}: {err}") from None


def _check_gtp(cfg: RunConfig) -> None:
    from sim.gtp.engine import check_player

    for colour in _colours(cfg, "gtp"):
        check_player(cfg, colour, getattr(cfg, colour))


def _check_katago(cfg: RunConfig) -> None:
    from sim.katago.checks import check_player

    for colour in _colours(cfg, "katago"):
        check_player(cfg, colour, getattr(cfg, colour))


def _katago_programs(cfg: RunConfig) -> dict:
    from sim.katago.checks import programs

    return programs(cfg)


def _colours(cfg: RunConfig, kind: str) -> list[str]:
    return [c for c in ("black", "white") if getattr(cfg, c).kind == kind]


DRIVERS = {
    d.name: d
    for d in (
        Driver("batch", _check_setups, _batch, _batch),
        Driver(
            "referee",
            _check_gtp,
            _gtp,
            _refereed,
            "a GTP program plays: its own randomness is outside jpdsim's control; it is given a "
            "seed from (seed, game id) where it takes one (set_random_seed), and every move is "
            "stored (a program whose moves depend on the position and that seed alone, as GNU "
            "Go's, gives the same rows with any number of workers: docs/gtp.md)",
        ),
        Driver(
            "katago",
            _check_katago,
            _katago,
            _refereed,
            "KataGo plays: its analysis engine takes no seed with a query; the config jpdsim "
            "writes takes its randomness away (one search thread, no random symmetries, no root "
            "noise), searches one position at a time and shows the network no previous moves, so "
            "that no evaluation is batched with another game's or taken from the cache with "
            "another game's history: the same rows with any number of workers; a config of the "
            "user's may not (not_reproducible says so); moves drawn by sample_moves come from "
            "(seed, game id); every move is stored",
            _katago_programs,
        ),
    )
}
