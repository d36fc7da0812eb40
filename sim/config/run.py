"""The run configuration: a validated, frozen ``RunConfig`` of the run's own keys, its rules,
its players and its komi sweep or search (``sim.config.file`` reads one from a TOML file or a
stored table; its docstring is the reference for every key). ``RunConfig``, ``Player``,
``Rules``, ``KomiSweep`` and ``KomiSearch`` check themselves on creation, an
``sim.options.OptionError`` naming the key."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from sim.config.pairing import driver
from sim.config.player import Player
from sim.config.rules import KomiSweep, Rules
from sim.config.setups import Setup
from sim.komi.search import KomiSearch, Round
from sim.options import OptionError, choice, folder_name, integer, number

RECORD_MOVES = ("none", "cycles", "all")
DEFAULT_SHARD_SIZE = 10_000
MAX_INT64 = 2**63 - 1
MAX_GAMES = 2**48  # game ids must stay exact in float64 columns of the analysis
MAX_SHARD_SIZE = 10_000_000
#: Shards of one run: the runner keeps a few numbers per shard, the folder a file per shard.
MAX_SHARDS = 1_000_000


@dataclass(frozen=True)
class RunConfig:
    """One run configuration: the run's own keys and its ``Rules``; validated on creation
    (``virtual_rate`` made a float, ``record_moves`` None resolved), an OptionError naming
    the key otherwise."""

    name: str
    games: int
    rules: Rules
    shard_size: int = DEFAULT_SHARD_SIZE
    seed: int = 0
    black: Player = Player()
    white: Player = Player()
    virtual_rate: float = 0.0
    record_moves: str | None = None  # None: "all" if a program plays, else "none"
    setup: tuple[Setup, ...] = ()
    komi_sweep: KomiSweep | None = None
    komi_search: KomiSearch | None = None

    def __post_init__(self):
        folder_name("name", self.name)
        integer("shard_size", self.shard_size, 1, MAX_SHARD_SIZE)
        if self.komi_search is not None:
            self._start_search()
        integer("games", self.games, 1, MAX_GAMES)
        if self.n_shards > MAX_SHARDS:
            raise OptionError(
                "games",
                f"{self.games:,} games make {self.n_shards:,} shards of {self.shard_size:,}; a "
                f"run has at most {MAX_SHARDS:,} shards: raise shard_size (at most "
                f"{MAX_SHARD_SIZE:,}) or play fewer games",
            )
        integer("seed", self.seed, 0, MAX_INT64)
        for colour in ("black", "white"):
            if not isinstance(getattr(self, colour), Player):
                raise OptionError(f"players.{colour}", "must be a sim.config.player.Player")
        object.__setattr__(self, "virtual_rate", number("virtual_rate", self.virtual_rate, 0, 1))
        if self.record_moves is None:  # a program's games replay only from their moves
            object.__setattr__(self, "record_moves", "all" if self.engines else "none")
        choice("record_moves", self.record_moves, RECORD_MOVES)
        if not isinstance(self.rules, Rules):
            raise OptionError("rules", "must be a sim.config.rules.Rules")
        size = self.rules.board_size
        for x in self.setup:
            if not isinstance(x, Setup) or x.size != size:
                name = getattr(x, "name", x)
                raise OptionError(
                    "setup", f"{name!r} is not a {size}x{size} sim.config.setups.Setup"
                )
        try:
            driver(self.black, self.white)
        except ValueError as err:
            raise OptionError("players", str(err)) from None
        if self.setup and self.engines:
            raise OptionError("setup", "gtp and katago players start from the empty board")
        if self.komi_sweep is not None:
            if not isinstance(self.komi_sweep, KomiSweep):
                raise OptionError("komi_sweep", "must be a sim.config.rules.KomiSweep")
            if len(self.setup) < 2:  # nothing to cross: one config whatever the key says
                object.__setattr__(self, "komi_sweep", replace(self.komi_sweep, cross_setups=True))
        if self.komi_sweep is not None or self.komi_search is not None:
            for colour in ("black", "white"):
                if getattr(self, colour).komi_to_engine is not None:
                    raise OptionError(
                        f"players.{colour}.komi_to_engine",
                        f"a komi {'sweep' if self.komi_sweep else 'search'} tells every player "
                        "the komi of its game; a fixed komi_to_engine would not follow it",
                    )

    def _start_search(self) -> None:
        """Check the ``komi_search``, decide its first round, and take its games."""
        search = self.komi_search
        if not isinstance(search, KomiSearch):
            raise OptionError("komi_search", "must be a sim.komi.search.KomiSearch")
        if self.komi_sweep is not None:
            raise OptionError("komi_search", "a run has a komi_sweep or a komi_search, not both")
        if search.round_games % self.shard_size:
            raise OptionError(
                "komi_search.round_games",
                f"must be whole shards: a multiple of shard_size ({self.shard_size:,}), got "
                f"{search.round_games:,}",
            )
        if -(-search.max_games // self.shard_size) > MAX_SHARDS:
            raise OptionError(
                "komi_search.max_games",
                f"{search.max_games:,} games make more than {MAX_SHARDS:,} shards of "
                f"{self.shard_size:,}: raise shard_size or lower max_games",
            )
        if not isinstance(self.rules, Rules):
            raise OptionError("rules", "must be a sim.config.rules.Rules")
        n = self.rules.board_size
        points = n * n
        if search.start is not None and abs(search.start) > points:
            raise OptionError(
                "komi_search.start",
                f"{search.start:g} is past what a {n}x{n} board can decide: a score difference "
                f"lies in -{points}..{points}",
            )
        search = search.started(self.rules.komi[search.ruleset], points, self.shard_size)
        object.__setattr__(self, "komi_search", search)
        object.__setattr__(self, "games", search.games)

    def with_round(self, round_: Round) -> RunConfig:
        """The config of a search with its next round decided (its games added)."""
        search = self.komi_search
        return replace(self, komi_search=replace(search, rounds=(*search.rounds, round_)))

    def with_rounds_of(self, run: RunConfig) -> RunConfig:
        """This config with the rounds that the search of ``run`` decided."""
        return replace(self, komi_search=replace(self.komi_search, rounds=run.komi_search.rounds))

    # -- komi sweeps and searches -------------------------------------------------------
    def at_komi(self, value: float) -> RunConfig:
        """The config of the games a sweep or a search plays at komi ``value`` of its ruleset
        (``Rules.at_komi``: the other rulesets' komis moved by as much)."""
        ruleset = (self.komi_sweep or self.komi_search).ruleset
        rules = self.rules.at_komi(ruleset, value)
        return replace(self, rules=rules, komi_sweep=None, komi_search=None)

    def komi_groups(self, game_ids: np.ndarray) -> list[tuple[RunConfig, np.ndarray]]:
        """The games ``game_ids`` by the komi they are played at: (their config, their
        positions in ``game_ids``) in komi order, one group without a sweep or a search. Game
        i starts from setup i mod s (``sim.play.batch``) and is played at the sweep's komi
        (i div s) mod k, so that every (komi, setup) pair has one game in each s * k
        (``cross_setups``; else at komi i mod k); a search crosses its round's komis with the
        setups the same way."""
        ids = np.asarray(game_ids, np.int64)
        if self.komi_search is not None:
            values = self.komi_search.komi_of(ids, self.setups_crossed)
        elif self.komi_sweep is not None:
            step = self.setups_crossed if self.komi_sweep.cross_setups else 1
            values = np.asarray(self.komi_sweep.values)[ids // step % len(self.komi_sweep.values)]
        else:
            return [(self, np.arange(len(ids)))]
        return [(self.at_komi(v), np.flatnonzero(values == v)) for v in np.unique(values).tolist()]

    @property
    def setups_crossed(self) -> int:
        """The games in a row that share a komi of a sweep or a search: one per setup."""
        return max(len(self.setup), 1)

    @property
    def komi_configs(self) -> list[RunConfig]:
        """The config of every komi the run's games are played at (itself without a sweep or
        a search)."""
        if self.komi_search is not None:
            return [
                self.at_komi(k)
                for k in sorted({k for r in self.komi_search.rounds for k in r.komis})
            ]
        if self.komi_sweep is not None:
            return [self.at_komi(k) for k in self.komi_sweep.values]
        return [self]

    def game_config(self, game_id: int) -> RunConfig:
        """The config game ``game_id`` is played under (``at_komi``)."""
        return self.komi_groups(np.array([game_id]))[0][0]

    # -- shards -------------------------------------------------------------------------
    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    def shard_range(self, index: int) -> range:
        """The game ids of shard ``index``."""
        lo = index * self.shard_size
        return range(lo, min(lo + self.shard_size, self.games))

    # -- conversions --------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The resolved config as one flat table of plain JSON types (the form of a config
        file, stored in manifest.json)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name in RUN_KEYS}
        out["setup"] = [x.to_dict() for x in self.setup]
        players = {"black": self.black.to_dict(), "white": self.white.to_dict()}
        if self.komi_sweep is not None:
            out["komi_sweep"] = self.komi_sweep.to_dict()
        if self.komi_search is not None:
            out["komi_search"] = self.komi_search.to_dict()
        return {**out, "players": players, **self.rules.to_dict()}

    @property
    def engines(self) -> bool:
        """Whether a program plays (gtp or katago: the games are refereed move by move)."""
        return self.black.is_program or self.white.is_program

    @property
    def driver(self) -> str:
        """What plays the games (``sim.config.pairing.driver``)."""
        return driver(self.black, self.white)

    def play_kwargs(self) -> dict:
        """Keyword arguments of ``sim.play.selfplay.play_batch`` (all but game_ids and
        record_moves)."""
        return dict(
            rules=self.rules,
            black=self.black,
            white=self.white,
            virtual_rate=self.virtual_rate,
            seed=self.seed,
            setups=self.setup,
        )


#: The fields of ``RunConfig`` that a config names as top-level keys of its own (the others
#: have their own readers: ``sim.config.file``).
OWN_READERS = ("rules", "black", "white", "komi_sweep", "komi_search")
RUN_KEYS = tuple(f.name for f in fields(RunConfig) if f.name not in OWN_READERS)
