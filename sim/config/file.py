"""Run configs read: a TOML file (``configs/*.toml``), or the table a run stored in its
manifest, into a ``sim.config.run.RunConfig``.

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
[players.black] each colour's player (``sim.config.player.Player``): a  ``kind = "random"``
[players.white] table with ``kind`` and its parameters (mcts, kofight,
                gtp, katago)
virtual_rate    probability that a playout player (random, capture,     0.0
                pattern) plays a virtual move, 0..1
record_moves    ``"none"``, ``"cycles"`` (games not ended by a pause,   ``"none"``; ``"all"``
                or with repetition bans) or ``"all"``                   if a program plays
setup           start position(s) (``sim.config.setups``): a corpus     the empty board
                name, a diagram file, a table (name, diagram, to_move)
                or a list of them; game i starts from setup i mod k
to_move         ``"black"`` or ``"white"``: who moves first from every  each setup's own
                setup                                                   (a file's header)
*the rules*     (``sim.config.rules.Rules``, validated there)
rules           a preset of ``sim.config.rules.PRESETS``; the keys      ``"jpd"``
                below override its values
board_size      N, 2..25                                                required (the
                                                                        setups' size)
repetition      ``sim.schema.tables.REPETITIONS``                       the preset's
suicide         ``sim.schema.tables.SUICIDES``                          the preset's
max_actions     move cap per game, 1..MAX_ACTIONS_LIMIT (1,000,000)    8 * N * N
dead_stones     ``sim.schema.tables.DEAD_STONES``                       ``"all_alive"``
[komi]          komi per ruleset (``sim.schema.tables.RULESETS``),      the ruleset's
                finite                                                  ``DEFAULT_KOMI``
komi_sweep      ``{ ruleset = R, values = [k0, k1, ...] }``: game i is      no sweep
                played at komi ``values[(i div s) mod k]`` for ruleset
                R (s setups, else 1: every komi from every setup),
                every other ruleset's komi moved by as much (its offset
                from R's in ``[komi]`` kept); 1..MAX_SWEEP (1000)
                distinct values; ``cross_setups = false``: ``values[i
                mod k]``, as runs stored without the key played
                (``sim.config.rules.KomiSweep``)
komi_search     ``{ ruleset = R, precision = 0.25, max_games = 4000,      no search
                round_games = 400, start = K }``: rounds of games at
                komis chosen from the results before them, until the
                fair komi's 95% interval is ``precision`` wide on either
                side (``sim.komi.search``); decides ``games``
=============== ======================================================= ==========================

The keys ``policy_b``/``policy_w`` of schema 1 are gone: ``[players.black] kind = ...`` says
it. ``RunConfig``, ``Player``, ``Rules``, ``KomiSweep`` and ``KomiSearch`` check themselves
on creation (a ``sim.options.OptionError`` naming the key); reading a file turns any mistake
(unknown key, wrong type, value out of range, unknown name, TOML syntax) into a
``sim.errors.UserError`` with one line naming the file and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

from sim.config.player import Player
from sim.config.rules import RULE_KEYS, KomiSweep, Rules
from sim.config.run import RUN_KEYS, RunConfig
from sim.config.setups import TO_MOVE, Setup, load_setup
from sim.errors import UserError, quoted
from sim.files import read_text
from sim.komi.search import KomiSearch
from sim.options import OptionError

_KEYS = (*RUN_KEYS, "to_move", "players", "komi_sweep", "komi_search", "rules", *RULE_KEYS)
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
    the values it played with, ``sim.config.player.LEGACY``)."""
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
        values = {"name": default_name, "games": 0, **{k: raw[k] for k in RUN_KEYS if k in raw}}
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
