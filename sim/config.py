"""Run configurations: a TOML file (``configs/*.toml``) read into a validated, frozen ``RunConfig``.

Keys (all at the top level of the file, except the ``[komi]`` table):

=============== ======================================================= ==========================
key             meaning                                                 default
=============== ======================================================= ==========================
name            run name; the default run folder is ``results/<name>``  the file's stem
board_size      N, 2..25                                                required
games           number of games (game ids ``0 .. games-1``)             required
shard_size      games per shard file ``games/part-NNNNN.parquet``       10000
seed            run seed, 0 .. 2**63-1; a game depends on (seed, id)    0
policy_b/_w     move policy of each colour (``sim.schema.POLICIES``)    ``"random"``
virtual_rate    probability that a policy plays a virtual move, 0..1    0.0
repetition      ``sim.schema.REPETITIONS``                              ``"global_superko"``
suicide         ``sim.schema.SUICIDES``                                 ``"multi"``
max_actions     move cap per game, 1..MAX_ACTIONS_LIMIT (1,000,000)    8 * N * N
[komi]          komi per ruleset (``sim.schema.RULESETS``), finite       ``sim.schema.DEFAULT_KOMI``
record_moves    ``"none"``, ``"cycles"`` (games not ended by a pause,   ``"none"``
                or with repetition bans) or ``"all"``
=============== ======================================================= ==========================

Any mistake (unknown key, wrong type, value out of range, unknown name, TOML syntax) raises
``sim.errors.UserError`` with one line naming the file and the key.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from sim.coords import MAX_SIZE, MIN_SIZE
from sim.errors import UserError
from sim.schema import (
    MAX_ACTIONS_LIMIT, POLICIES, REPETITIONS, RULESETS, SUICIDES, default_max_actions, resolve_komi,
)

RECORD_MOVES = ("none", "cycles", "all")
DEFAULT_SHARD_SIZE = 10_000
MAX_INT64 = 2**63 - 1
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
        raise ValueError(f"must be a folder-safe name (letters, digits, '.', '_', '-'; "
                         f"at most 100), got {value!r}")
    return value


@dataclass(frozen=True)
class RunConfig:
    """One validated run configuration. ``max_actions`` and ``komi`` are resolved on creation
    (``None`` -> 8*N*N; missing rulesets -> ``DEFAULT_KOMI``); any bad value raises UserError."""

    name: str
    board_size: int
    games: int
    shard_size: int = DEFAULT_SHARD_SIZE
    seed: int = 0
    policy_b: str = "random"
    policy_w: str = "random"
    virtual_rate: float = 0.0
    repetition: str = "global_superko"
    suicide: str = "multi"
    max_actions: int | None = None
    komi: dict = field(default_factory=dict)
    record_moves: str = "none"

    def __post_init__(self):
        _resolve(self, "RunConfig")

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
        """The resolved config as plain JSON types (the form stored in manifest.json)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["komi"] = {r: self.komi[r] for r in RULESETS}
        return out

    def play_kwargs(self) -> dict:
        """Keyword arguments of ``sim.selfplay.play_batch`` (all but game_ids, record_moves)."""
        return dict(size=self.board_size, repetition=self.repetition, suicide=self.suicide,
                    max_actions=self.max_actions, policy_b=self.policy_b, policy_w=self.policy_w,
                    virtual_rate=self.virtual_rate, komi=dict(self.komi), seed=self.seed)


def _resolve(cfg: RunConfig, where: str) -> None:
    """Validate every field of ``cfg`` in place (resolving defaults); UserError names the key."""
    def check(key, fn, *a):
        try:
            object.__setattr__(cfg, key, fn(getattr(cfg, key), *a))
        except ValueError as err:
            raise UserError(f"{where}: key {key!r}: {err}") from None

    check("name", _name)
    check("board_size", _integer, MIN_SIZE, MAX_SIZE)
    n = cfg.board_size
    check("games", _integer, 1, 2**48)
    check("shard_size", _integer, 1, 10_000_000)
    check("seed", _integer, 0, MAX_INT64)
    check("policy_b", _choice, POLICIES)
    check("policy_w", _choice, POLICIES)
    check("virtual_rate", _number, 0.0, 1.0)
    check("repetition", _choice, REPETITIONS)
    check("suicide", _choice, SUICIDES)
    if cfg.max_actions is None:
        object.__setattr__(cfg, "max_actions", default_max_actions(n))
    check("max_actions", _integer, 1, MAX_ACTIONS_LIMIT)
    check("record_moves", _choice, RECORD_MOVES)
    komi = cfg.komi
    if not isinstance(komi, dict):
        raise UserError(f"{where}: key 'komi': must be a table of ruleset = number, got {komi!r}")
    for r, value in komi.items():
        try:
            resolve_komi({r: value})
        except ValueError as err:
            raise UserError(f"{where}: key 'komi.{r}': {err}") from None
    object.__setattr__(cfg, "komi", resolve_komi(komi))


_KEYS = tuple(f.name for f in fields(RunConfig))


def config_from_dict(raw: dict, where: str, default_name: str | None = None) -> RunConfig:
    """A RunConfig from a parsed table; ``where`` (a file name) starts every error message."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: a config must be a table of keys")
    unknown = [k for k in raw if k not in _KEYS]
    if unknown:
        raise UserError(f"{where}: key {unknown[0]!r}: unknown key; keys are {', '.join(_KEYS)}")
    for key in ("board_size", "games"):
        if key not in raw:
            raise UserError(f"{where}: key {key!r}: missing (required)")
    values = dict(raw)
    values.setdefault("name", default_name)
    if values["name"] is None:
        raise UserError(f"{where}: key 'name': missing (required)")
    cfg = RunConfig.__new__(RunConfig)
    for f in fields(RunConfig):
        default = f.default_factory() if callable(f.default_factory) else f.default
        object.__setattr__(cfg, f.name, values.get(f.name, default))
    _resolve(cfg, where)
    return cfg


def load_config(path: str | Path, games: int | None = None, seed: int | None = None) -> RunConfig:
    """Read and validate a TOML run config; ``games``/``seed`` override the file's values
    (the ``--games``/``--seed`` options: errors in them name the option)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such config file") from None
    except (OSError, UnicodeDecodeError) as err:
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
