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
                played at komi ``values[i mod k]`` for ruleset R, every
                other ruleset's komi moved by as much (its offset from
                R's in ``[komi]`` kept); 1..MAX_SWEEP distinct values
=============== ======================================================= ==========================

The keys ``policy_b``/``policy_w`` of schema 1 are gone: ``[players.black] kind = ...`` says
it. Any mistake (unknown key, wrong type, value out of range, unknown name, TOML syntax) raises
``sim.errors.UserError`` with one line naming the file and the key.

Longer than 300 lines on purpose: the key table above is the reference for every key, and each
key's check sits beside its reading."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from sim.errors import UserError
from sim.files import read_text
from sim.player import Player, PlayerError, driver
from sim.rules import RULE_KEYS, RuleError, Rules
from sim.schema import RULESETS
from sim.setups import TO_MOVE, Setup, load_setup

RECORD_MOVES = ("none", "cycles", "all")
DEFAULT_SHARD_SIZE = 10_000
MAX_INT64 = 2**63 - 1
MAX_GAMES = 2**48  # game ids must stay exact in float64 columns of the analysis
MAX_SHARD_SIZE = 10_000_000
#: Shards of one run: the runner keeps a few numbers per shard, the folder a file per shard.
MAX_SHARDS = 1_000_000
#: Komi values of one sweep.
MAX_SWEEP = 1000
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _integer(value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"must be in {lo}..{hi}, got {value}")
    return value


def _number(value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a number, got {value!r}")
    if not (math.isfinite(value) and lo <= value <= hi):
        raise ValueError(f"must be in {lo:g}..{hi:g}, got {value!r}")
    return float(value)


def _choice(value, choices):
    if not isinstance(value, str):
        raise ValueError(f"must be a string, one of {', '.join(choices)}; got {value!r}")
    if value not in choices:
        raise ValueError(f"must be one of {', '.join(choices)}; got {value!r}")
    return value


def _name(value):
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ValueError(
            f"must be a folder-safe name (letters, digits, '.', '_', '-'; "
            f"at most 100), got {value!r}"
        )
    return value


@dataclass(frozen=True)
class KomiSweep:
    """``komi_sweep``: the games of a run cycle through the komis ``values`` of ``ruleset``."""

    ruleset: str
    values: tuple[float, ...]

    def rules(self, rules: Rules, k: int) -> Rules:
        """``rules`` at the sweep's k-th komi: ``ruleset``'s komi is ``values[k]``, every other
        ruleset's moved by as much (rounded to 1e-9: 6.5 + (0.1 - 7.5) is -0.9, not
        -0.9000000000000004)."""
        shift = self.values[k] - rules.komi[self.ruleset]
        komi = {r: round(v + shift, 9) for r, v in rules.komi.items()}
        return rules.with_(komi={**komi, self.ruleset: self.values[k]})

    def to_dict(self) -> dict:
        return {"ruleset": self.ruleset, "values": list(self.values)}


@dataclass(frozen=True)
class RunConfig:
    """One validated run configuration: the run's own keys and its ``Rules``."""

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

    def __post_init__(self):
        _resolve(self, "RunConfig")

    # -- komi sweeps --------------------------------------------------------------------
    def at_komi(self, k: int) -> RunConfig:
        """The config of the games played at the sweep's k-th komi (no sweep: itself)."""
        if self.komi_sweep is None:
            return self
        return replace(self, rules=self.komi_sweep.rules(self.rules, k), komi_sweep=None)

    def komi_groups(self, game_ids: np.ndarray) -> list[tuple[RunConfig, np.ndarray]]:
        """The games ``game_ids`` by the komi they are played at: (their config, their
        positions in ``game_ids``), one group without a sweep."""
        if self.komi_sweep is None:
            return [(self, np.arange(len(game_ids)))]
        k = np.asarray(game_ids, np.int64) % len(self.komi_sweep.values)
        return [(self.at_komi(j), np.flatnonzero(k == j)) for j in np.unique(k).tolist()]

    @property
    def komi_configs(self) -> list[RunConfig]:
        """The config of every komi the run's games are played at (itself without a sweep)."""
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
        return {**out, "players": players, **self.rules.to_dict()}

    @property
    def engines(self) -> bool:
        """Whether a program plays (gtp or katago: the games are refereed move by move)."""
        return self.black.is_program or self.white.is_program

    @property
    def driver(self) -> str:
        """What plays the games (``sim.player.driver``)."""
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


def _resolve(cfg: RunConfig, where: str) -> None:
    """Validate the run's own fields of ``cfg`` in place; UserError names the key."""

    def check(key, fn, *a):
        try:
            object.__setattr__(cfg, key, fn(getattr(cfg, key), *a))
        except ValueError as err:
            raise UserError(f"{where}: key {key!r}: {err}") from None

    check("name", _name)
    check("games", _integer, 1, MAX_GAMES)
    check("shard_size", _integer, 1, MAX_SHARD_SIZE)
    if cfg.n_shards > MAX_SHARDS:
        raise UserError(
            f"{where}: key 'games': {cfg.games:,} games make {cfg.n_shards:,} shards of "
            f"{cfg.shard_size:,}; a run has at most {MAX_SHARDS:,} shards: raise shard_size "
            f"(at most {MAX_SHARD_SIZE:,}) or play fewer games"
        )
    check("seed", _integer, 0, MAX_INT64)
    for colour in ("black", "white"):
        if not isinstance(getattr(cfg, colour), Player):
            raise UserError(f"{where}: key 'players.{colour}': must be a sim.player.Player")
    check("virtual_rate", _number, 0.0, 1.0)
    if cfg.record_moves is None:  # a program's games replay only from their moves
        object.__setattr__(cfg, "record_moves", "all" if cfg.engines else "none")
    check("record_moves", _choice, RECORD_MOVES)
    if not isinstance(cfg.rules, Rules):
        raise UserError(f"{where}: key 'rules': must be a sim.rules.Rules")
    for x in cfg.setup:
        if not isinstance(x, Setup) or x.size != cfg.rules.board_size:
            raise UserError(
                f"{where}: key 'setup': {getattr(x, 'name', x)!r} is not a "
                f"{cfg.rules.board_size}x{cfg.rules.board_size} sim.setups.Setup"
            )
    try:
        driver(cfg.black, cfg.white)
    except ValueError as err:
        raise UserError(f"{where}: key 'players': {err}") from None
    if cfg.setup and cfg.engines:
        raise UserError(f"{where}: key 'setup': gtp and katago players start from the empty board")
    if cfg.komi_sweep is not None:
        if not isinstance(cfg.komi_sweep, KomiSweep):
            raise UserError(f"{where}: key 'komi_sweep': must be a sim.config.KomiSweep")
        for colour in ("black", "white"):
            if getattr(cfg, colour).komi_to_engine is not None:
                raise UserError(
                    f"{where}: key 'players.{colour}.komi_to_engine': a komi sweep tells every "
                    f"player the komi of its game; a fixed komi_to_engine would not follow it"
                )


def sweep_from_dict(raw: dict, where: str) -> KomiSweep | None:
    """The KomiSweep of a parsed table's ``komi_sweep`` (None without one); UserError names
    the key."""
    if "komi_sweep" not in raw:
        return None
    table = raw["komi_sweep"]
    if not isinstance(table, dict):
        raise UserError(
            f"{where}: key 'komi_sweep': must be a table such as "
            f'{{ ruleset = "jpd_b", values = [6.5, 7.5, 8.5] }}, got {table!r}'
        )
    for key in table:
        if key not in ("ruleset", "values"):
            raise UserError(f"{where}: key 'komi_sweep.{key}': unknown (ruleset or values)")
    for key in ("ruleset", "values"):
        if key not in table:
            raise UserError(f"{where}: key 'komi_sweep.{key}': missing (required)")
    try:
        ruleset = _choice(table["ruleset"], RULESETS)
    except ValueError as err:
        raise UserError(f"{where}: key 'komi_sweep.ruleset': {err}") from None
    values = table["values"]
    if not isinstance(values, list) or not 1 <= len(values) <= MAX_SWEEP:
        raise UserError(
            f"{where}: key 'komi_sweep.values': must be a list of 1..{MAX_SWEEP} komis, "
            f"got {values!r}"
        )
    try:
        values = tuple(_number(v, -1000, 1000) for v in values)
    except ValueError as err:
        raise UserError(f"{where}: key 'komi_sweep.values': every komi {err}") from None
    twice = [v for i, v in enumerate(values) if v in values[:i]]
    if twice:
        raise UserError(f"{where}: key 'komi_sweep.values': {twice[0]:g} is there twice")
    return KomiSweep(ruleset, values)


def rules_from_dict(raw: dict, where: str) -> Rules:
    """The ``Rules`` of a parsed table: its preset (key ``rules``) with the rule keys given;
    UserError names the key."""
    try:
        rule_keys = {k: raw[k] for k in RULE_KEYS if k in raw and k != "board_size"}
        return Rules.preset(raw.get("rules", "jpd"), raw["board_size"], **rule_keys)
    except RuleError as err:
        raise UserError(f"{where}: key {err.key!r}: {err.reason}") from None


_OWN_READERS = ("rules", "black", "white", "komi_sweep")
_RUN_KEYS = tuple(f.name for f in fields(RunConfig) if f.name not in _OWN_READERS)
_KEYS = (*_RUN_KEYS, "to_move", "players", "komi_sweep", "rules", *RULE_KEYS)
_GONE = {"policy_b": "[players.black] kind = ...", "policy_w": "[players.white] kind = ..."}


def players_from_dict(raw: dict, where: str, stored: bool = False) -> dict:
    """The ``black`` and ``white`` Players of a parsed table's ``[players]`` (``stored``: of a
    run's manifest, ``Player.from_table``); UserError names the key."""
    table = raw.get("players", {})
    if not isinstance(table, dict):
        raise UserError(f"{where}: key 'players': must be a table with black and white tables")
    for colour in table:
        if colour not in ("black", "white"):
            raise UserError(f"{where}: key 'players.{colour}': unknown (black or white)")
    players = {}
    for colour in ("black", "white"):
        try:
            players[colour] = Player.from_table(table.get(colour, {}), stored)
        except PlayerError as err:
            raise UserError(f"{where}: key 'players.{colour}.{err.key}': {err.reason}") from None
    return players


def setups_from_dict(raw: dict, where: str) -> tuple[Setup, ...]:
    """The Setups of a parsed table's ``setup`` and ``to_move``; UserError names the key."""
    specs = raw.get("setup", [])
    specs = specs if isinstance(specs, list) else [specs]
    to_move = raw.get("to_move")
    if to_move is not None and to_move not in TO_MOVE:
        raise UserError(f"{where}: key 'to_move': must be black or white, got {to_move!r}")
    if to_move == "white" and not specs:
        raise UserError(f"{where}: key 'to_move': White moves first only from a setup")
    setups = []
    for i, spec in enumerate(specs):
        try:
            x = load_setup(spec)
        except ValueError as err:
            entry = repr(spec) if isinstance(spec, str) else f"entry {i + 1}"
            raise UserError(f"{where}: key 'setup' ({entry}): {err}") from None
        setups.append(x if to_move is None else replace(x, to_move=to_move))
    names = [x.name for x in setups]
    twice = [name for i, name in enumerate(names) if name in names[:i]]
    if twice:
        raise UserError(f"{where}: key 'setup': two setups are named {twice[0]!r}")
    sizes = {x.size for x in setups}
    if len(sizes) > 1:
        raise UserError(f"{where}: key 'setup': the setups' boards differ ({sorted(sizes)})")
    return tuple(setups)


def config_from_dict(
    raw: dict, where: str, default_name: str | None = None, stored: bool = False
) -> RunConfig:
    """A RunConfig from a parsed table; ``where`` (a file name) starts every error message;
    ``stored``: the config a run stored in its manifest (players' parameters added since take
    the values it played with, ``sim.player.LEGACY``)."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: a config must be a table of keys")
    unknown = [k for k in raw if k not in _KEYS]
    if unknown and unknown[0] in _GONE:
        raise UserError(f"{where}: key {unknown[0]!r}: replaced by {_GONE[unknown[0]]}")
    if unknown:
        raise UserError(f"{where}: key {unknown[0]!r}: unknown key; keys are {', '.join(_KEYS)}")
    setups = setups_from_dict(raw, where)
    if setups and "board_size" not in raw:
        raw = {**raw, "board_size": setups[0].size}
    for key in ("board_size", "games"):
        if key not in raw:
            raise UserError(f"{where}: key {key!r}: missing (required)")
    values = {k: raw[k] for k in _RUN_KEYS if k in raw}
    values["setup"] = setups
    players = players_from_dict(raw, where, stored)
    values.setdefault("name", default_name)
    if values["name"] is None:
        raise UserError(f"{where}: key 'name': missing (required)")
    cfg = RunConfig.__new__(RunConfig)
    for f in fields(RunConfig):
        object.__setattr__(cfg, f.name, values.get(f.name, f.default))
    object.__setattr__(cfg, "rules", rules_from_dict(raw, where))
    for colour, player in players.items():
        object.__setattr__(cfg, colour, player)
    object.__setattr__(cfg, "komi_sweep", sweep_from_dict(raw, where))
    _resolve(cfg, where)
    return cfg


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
            raw = {**cfg.to_dict(), key: value}
            cfg = config_from_dict(raw, f"option --{key}")
    return cfg
