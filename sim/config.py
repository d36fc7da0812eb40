"""Run configurations: a TOML file (``configs/*.toml``) read into a validated, frozen ``RunConfig``.

Keys (all at the top level of the file, except the ``[komi]`` table):

=============== ======================================================= ==========================
key             meaning                                                 default
=============== ======================================================= ==========================
name            run name; the default run folder is ``results/<name>``  the file's stem
games           number of games (game ids ``0 .. games-1``), at most    required
                MAX_SHARDS (1,000,000) shards of ``shard_size``
shard_size      games per shard file ``games/part-NNNNN.parquet``,      10000
                1..10,000,000
seed            run seed, 0 .. 2**63-1; a game depends on (seed, id)    0
[players.black] the player of each colour (``sim.player.Player``): a table  ``kind = "random"``
[players.white] with ``kind`` and its parameters (mcts, kofight, gtp, katago)
virtual_rate    probability that a playout player (random, capture,     0.0
                pattern) plays a virtual move, 0..1
record_moves    ``"none"``, ``"cycles"`` (games not ended by a pause,   ``"none"``; ``"all"``
                or with repetition bans) or ``"all"``                   if a program plays
setup           start position(s) (``sim.setups``): a corpus name, a    the empty board
                diagram file, a table (name, diagram, to_move) or a
                list of them; game i starts from setup i mod k
to_move         ``"black"`` or ``"white"``: who moves first from every  each setup's own
                setup                                                   (a file's header)
*the rules*     (``sim.rules.Rules``, validated there)
rules           a preset of ``sim.rules.PRESETS``; the keys below       ``"jpd"``
                override its values
board_size      N, 2..25                                                required (the
                                                                        setups' size)
repetition      ``sim.schema.REPETITIONS``                              the preset's
suicide         ``sim.schema.SUICIDES``                                 the preset's
max_actions     move cap per game, 1..MAX_ACTIONS_LIMIT (1,000,000)    8 * N * N
dead_stones     ``sim.schema.DEAD_STONES``                              ``"all_alive"``
[komi]          komi per ruleset (``sim.schema.RULESETS``), finite       ``sim.schema.DEFAULT_KOMI``
komi_sweep      ``{ ruleset = R, values = [k0, k1, ...] }``: game i is      no sweep
                played at komi ``values[(i div s) mod k]`` for ruleset
                R (s setups, else 1: every komi from every setup),
                every other ruleset's komi moved by as much (its offset
                from R's in ``[komi]`` kept); 1..MAX_SWEEP (1000)
                distinct values; ``cross_setups = false``: ``values[i
                mod k]``, as runs stored without the key played
                (``sim.rules.KomiSweep``)
komi_search     ``{ ruleset = R, precision = 0.25, max_games = 4000,      no search
                round_games = 400, start = K }``: rounds of games at
                komis chosen from the results before them, until the
                fair komi's 95% interval is ``precision`` wide on either
                side (``sim.komi_search``); decides ``games``
=============== ======================================================= ==========================

The keys ``policy_b``/``policy_w`` of schema 1 are gone: ``[players.black] kind = ...`` says
it. ``RunConfig``, ``Player``, ``Rules`` and ``KomiSweep`` check themselves on creation (a
``sim.options.OptionError`` naming the key); reading a file turns any mistake (unknown key,
wrong type, value out of range, unknown name, TOML syntax) into a ``sim.errors.UserError``
with one line naming the file and the key.

Just over 300 lines with the key table above, the reference for every key."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from sim.errors import UserError, quoted
from sim.files import read_text
from sim.komi_search import KomiSearch, Round
from sim.options import OptionError, choice, folder_name, integer, number
from sim.pairing import driver
from sim.player import Player
from sim.rules import RULE_KEYS, KomiSweep, Rules
from sim.setups import TO_MOVE, Setup, load_setup

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
                raise OptionError(f"players.{colour}", "must be a sim.player.Player")
        object.__setattr__(self, "virtual_rate", number("virtual_rate", self.virtual_rate, 0, 1))
        if self.record_moves is None:  # a program's games replay only from their moves
            object.__setattr__(self, "record_moves", "all" if self.engines else "none")
        choice("record_moves", self.record_moves, RECORD_MOVES)
        if not isinstance(self.rules, Rules):
            raise OptionError("rules", "must be a sim.rules.Rules")
        size = self.rules.board_size
        for x in self.setup:
            if not isinstance(x, Setup) or x.size != size:
                name = getattr(x, "name", x)
                raise OptionError("setup", f"{name!r} is not a {size}x{size} sim.setups.Setup")
        try:
            driver(self.black, self.white)
        except ValueError as err:
            raise OptionError("players", str(err)) from None
        if self.setup and self.engines:
            raise OptionError("setup", "gtp and katago players start from the empty board")
        if self.komi_sweep is not None:
            if not isinstance(self.komi_sweep, KomiSweep):
                raise OptionError("komi_sweep", "must be a sim.rules.KomiSweep")
            if len(self.setup) < 2:  # nothing to cross: one config whatever the key says
                object.__setattr__(self, "komi_sweep", replace(self.komi_sweep, cross_setups=True))
            for colour in ("black", "white"):
                if getattr(self, colour).komi_to_engine is not None:
                    raise OptionError(
                        f"players.{colour}.komi_to_engine",
                        "a komi sweep tells every player the komi of its game; a fixed "
                        "komi_to_engine would not follow it",
                    )

    def _start_search(self) -> None:
        """Check the ``komi_search``, decide its first round, and take its games."""
        search = self.komi_search
        if not isinstance(search, KomiSearch):
            raise OptionError("komi_search", "must be a sim.komi_search.KomiSearch")
        if self.komi_sweep is not None:
            raise OptionError("komi_search", "a run has a komi_sweep or a komi_search, not both")
        if search.round_games % self.shard_size:
            raise OptionError(
                "komi_search.round_games",
                f"must be whole shards: a multiple of shard_size ({self.shard_size:,}), got "
                f"{search.round_games:,}",
            )
        if not isinstance(self.rules, Rules):
            raise OptionError("rules", "must be a sim.rules.Rules")
        search = search.started(self.rules.komi[search.ruleset])
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
    def at_komi(self, k: int) -> RunConfig:
        """The config of the games played at the sweep's k-th komi (no sweep: itself)."""
        if self.komi_sweep is None:
            return self
        return replace(self, rules=self.komi_sweep.rules(self.rules, k), komi_sweep=None)

    def at_komi_value(self, value: float) -> RunConfig:
        """The config of a search's games played at komi ``value``."""
        rules = self.rules.at_komi(self.komi_search.ruleset, value)
        return replace(self, rules=rules, komi_search=None)

    def komi_groups(self, game_ids: np.ndarray) -> list[tuple[RunConfig, np.ndarray]]:
        """The games ``game_ids`` by the komi they are played at: (their config, their
        positions in ``game_ids``), one group without a sweep or a search. Game i starts from
        setup i mod s (``sim.batch``) and is played at the sweep's komi (i div s) mod k, so that
        every (komi, setup) pair has one game in each s * k (``cross_setups``; else at komi
        i mod k); a search crosses its round's komis with the setups the same way."""
        if self.komi_search is not None:
            values = self.komi_search.komi_of(game_ids, self.setups_crossed)
            return [(self.at_komi_value(v), np.flatnonzero(values == v)) for v in np.unique(values)]
        if self.komi_sweep is None:
            return [(self, np.arange(len(game_ids)))]
        step = self.setups_crossed if self.komi_sweep.cross_setups else 1
        k = np.asarray(game_ids, np.int64) // step % len(self.komi_sweep.values)
        return [(self.at_komi(j), np.flatnonzero(k == j)) for j in np.unique(k).tolist()]

    @property
    def setups_crossed(self) -> int:
        """The games in a row that share a komi of a sweep or a search: one per setup."""
        return max(len(self.setup), 1)

    @property
    def komi_configs(self) -> list[RunConfig]:
        """The config of every komi the run's games are played at (itself without a sweep or
        a search)."""
        if self.komi_search is not None:
            komis = {k for r in self.komi_search.rounds for k in r.komis}
            return [self.at_komi_value(k) for k in sorted(komis)]
        sweep = self.komi_sweep.values if self.komi_sweep else [None]
        return [self.at_komi(k) for k in range(len(sweep))]

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
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name in _RUN_KEYS}
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
        """What plays the games (``sim.pairing.driver``)."""
        return driver(self.black, self.white)

    def play_kwargs(self) -> dict:
        """Keyword arguments of ``sim.selfplay.play_batch`` (all but game_ids, record_moves)."""
        return dict(
            rules=self.rules,
            black=self.black,
            white=self.white,
            virtual_rate=self.virtual_rate,
            seed=self.seed,
            setups=self.setup,
        )


_OWN_READERS = ("rules", "black", "white", "komi_sweep", "komi_search")
_RUN_KEYS = tuple(f.name for f in fields(RunConfig) if f.name not in _OWN_READERS)
_KEYS = (*_RUN_KEYS, "to_move", "players", "komi_sweep", "komi_search", "rules", *RULE_KEYS)
_GONE = {"policy_b": "[players.black] kind = ...", "policy_w": "[players.white] kind = ..."}


def players_from_dict(raw: dict, stored: bool = False) -> dict:
    """The ``black`` and ``white`` Players of a parsed table's ``[players]`` (``stored``: of a
    run's manifest, ``Player.from_table``); an OptionError names the key."""
    table = raw.get("players", {})
    if not isinstance(table, dict):
        raise OptionError("players", "must be a table with black and white tables")
    for colour in table:
        if colour not in ("black", "white"):
            raise OptionError(f"players.{colour}", "unknown (black or white)")
    players = {}
    for colour in ("black", "white"):
        try:
            players[colour] = Player.from_table(table.get(colour, {}), stored)
        except OptionError as err:
            raise OptionError(f"players.{colour}.{err.key}", err.reason) from None
    return players


def setups_from_dict(raw: dict, where: str) -> tuple[Setup, ...]:
    """The Setups of a parsed table's ``setup`` and ``to_move``; an OptionError names the key
    (a UserError, with ``where``, the entry of ``setup``)."""
    specs = raw.get("setup", [])
    specs = specs if isinstance(specs, list) else [specs]
    to_move = raw.get("to_move")
    if to_move is not None and to_move not in TO_MOVE:
        raise OptionError("to_move", f"must be black or white, got {quoted(to_move)}")
    if to_move == "white" and not specs:
        raise OptionError("to_move", "White moves first only from a setup")
    setups = []
    for i, spec in enumerate(specs):
        try:
            x = load_setup(spec)
        except ValueError as err:
            entry = quoted(spec) if isinstance(spec, str) else f"entry {i + 1}"
            raise UserError(f"{where}: key 'setup' ({entry}): {err}") from None
        setups.append(x if to_move is None else replace(x, to_move=to_move))
    names = [x.name for x in setups]
    twice = [name for i, name in enumerate(names) if name in names[:i]]
    if twice:
        raise OptionError("setup", f"two setups are named {twice[0]!r}")
    sizes = {x.size for x in setups}
    if len(sizes) > 1:
        raise OptionError("setup", f"the setups' boards differ ({sorted(sizes)})")
    return tuple(setups)


def config_from_dict(
    raw: dict, where: str, default_name: str | None = None, stored: bool = False
) -> RunConfig:
    """A RunConfig from a parsed table; ``where`` (a file name) starts every error message;
    ``stored``: the config a run stored in its manifest (players' parameters added since take
    the values it played with, ``sim.player.LEGACY``)."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: a config must be a table of keys")
    try:  # an OptionError names the key: the UserError names the file too
        unknown = [k for k in raw if k not in _KEYS]
        if unknown and unknown[0] in _GONE:
            raise OptionError(unknown[0], f"replaced by {_GONE[unknown[0]]}")
        if unknown:
            raise OptionError(unknown[0], f"unknown key; keys are {', '.join(_KEYS)}")
        setups = setups_from_dict(raw, where)
        if setups and "board_size" not in raw:
            raw = {**raw, "board_size": setups[0].size}
        search = raw.get("komi_search")
        if search is not None and "games" in raw and not stored:
            raise OptionError("games", "a komi_search decides its games (komi_search.max_games)")
        for key in ("board_size", "games") if search is None else ("board_size",):
            if key not in raw:
                raise OptionError(key, "missing (required)")
        players = players_from_dict(raw, stored)
        values = {"name": default_name, "games": 0, **{k: raw[k] for k in _RUN_KEYS if k in raw}}
        if values["name"] is None:
            raise OptionError("name", "missing (required)")
        rule_keys = {k: raw[k] for k in RULE_KEYS if k in raw and k != "board_size"}
        rules = Rules.preset(raw.get("rules", "jpd"), raw["board_size"], **rule_keys)
        sweep = KomiSweep.from_table(raw["komi_sweep"], stored) if "komi_sweep" in raw else None
        search = None if search is None else KomiSearch.from_table(search, stored)
        return RunConfig(
            **{**values, "setup": setups},
            rules=rules,
            **players,
            komi_sweep=sweep,
            komi_search=search,
        )
    except OptionError as err:
        raise UserError(f"{where}: key {err.key!r}: {err.reason}") from None


def load_config(path: str | Path, games: int | None = None, seed: int | None = None) -> RunConfig:
    """Read and validate a TOML run config; ``games``/``seed`` override the file's values
    (the ``--games``/``--seed`` options: errors in them name the option)."""
    path = Path(path)
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise UserError(f"{path}: no such config file") from None
    except OSError as err:
        raise UserError(f"{path}: cannot read config ({err.strerror})") from None
    except ValueError as err:
        raise UserError(f"{path}: cannot read config ({err})") from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"{path}: TOML syntax error: {err}") from None
    cfg = config_from_dict(raw, str(path), default_name=path.stem)
    overrides = {"games": games, "seed": seed}
    for key, value in overrides.items():
        if value is not None:
            raw = {**raw, key: value}
            cfg = config_from_dict(raw, f"option --{key}", default_name=path.stem)
    return cfg
