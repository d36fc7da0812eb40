"""Who plays a colour: one frozen value type, its validator and its canonical name.

A ``Player`` is a kind (``sim.schema.PLAYERS``) and the parameters of that kind. A run config
gives one per colour (``[players.black]``, ``[players.white]``); rows record each as its
canonical string (``Player.name``), which the analysis groups by. docs/rules.md §11, and
docs/gtp.md for ``gtp``.

=============== ============================================== ==================
parameter       meaning                                        default
=============== ============================================== ==================
*mcts*
visits          playouts per move, 1..100,000 (the trees of    1000
                both colours take about 200 * visits * (N² + 2)
                bytes, 296 with RAVE: 0.3 GB at 4,000 visits on
                19x19, ``Player.tree_bytes``)
resign_below    resign when its best move's win rate is below  0 (never)
                this, 0..0.5
explore         the exploration constant of its PUCT selection 1.0
rave            RAVE's equivalence visits: an edge's value     1000
                blends in its all-moves-as-first value with
                weight ñ / (ñ + n + n·ñ / rave); 0 (no RAVE,
                the search before 2026-12-01)..10^6
stop_early      end a move's search once its most visited move  false
                cannot change in the simulations left (the
                move is the same, found sooner, but the tree
                kept for the next move is smaller: weaker
                against GNU Go, docs/findings.md)
*kofight*
threat_rate     probability of a virtual move (the ko threat)  0.5
                when the repetition rule bans every recapture
*mcts and kofight*
playout         mcts: the playout policy; kofight: the policy  ``"pattern"``
                of its other moves (``sim.schema.PLAYOUTS``)
*mcts, gtp and katago*
play_for        the ruleset whose win it plays for             ``"jpd_a"``
                (``sim.schema.RULESETS``; komi from the run's)
*gtp and katago*
command         the program: a string (split as a shell        required
                would) or a list of arguments
name            what rows call it (``name`` in a config)      the program's
                                                               file name
startup_timeout seconds allowed for a fresh process to answer   60
                its first commands (a network to load), 0.1..3600
*gtp*
genmove_timeout seconds allowed for one move, 0.1..3600         30
command_timeout seconds allowed for any other command, 0.1..3600 10
komi_to_engine  the komi the engine is told                    the komi of
                                                               ``play_for``
*katago* (docs/katago.md; ``visits`` as for mcts, at least 2: its maxVisits)
model           the network file KataGo plays with             required
config          KataGo's analysis config file                  one jpdsim writes
sample_moves    its moves among the game's first N actions are   0
                drawn in proportion to the visits of KataGo's
                root moves (from the game's random stream:
                varied, reproducible openings), 0..1000
in_flight       games a worker keeps going at once, 1..4096    16
move_timeout    seconds KataGo may go without an answer while  60
                queries wait, 0.1..3600
=============== ============================================== ==================
"""

from __future__ import annotations

import math
import os
import shlex
from dataclasses import dataclass

from sim.schema import PLAYER_PARAMETERS, PLAYERS, PLAYOUTS, RULESETS

MAX_VISITS = 100_000  # the trees' arrays grow with it (``sim.players.tree.new_tree``)
MAX_IN_FLIGHT = 4096  # a katago player's games in flight per worker


class PlayerError(ValueError):
    """A bad player option: ``key`` names it, ``reason`` says what is wrong."""

    def __init__(self, key: str, reason: str):
        super().__init__(f"{key}: {reason}")
        self.key, self.reason = key, reason


def _number(key, value, lo, hi, integer=False):
    kinds = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise PlayerError(key, f"must be {'an integer' if integer else 'a number'}, got {value!r}")
    if not (math.isfinite(value) and lo <= value <= hi):
        raise PlayerError(key, f"must be in {lo:,}..{hi:,}, got {value!r}")
    return value if integer else float(value)


def _choice(key, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise PlayerError(key, f"must be one of {', '.join(choices)}; got {value!r}")
    return value


@dataclass(frozen=True)
class Player:
    """A player; validated on creation, a PlayerError naming the option otherwise. A gtp
    player's ``name`` option is the field ``label`` (``name`` is the canonical string)."""

    kind: str = "random"
    visits: int = 1000
    playout: str = "pattern"
    play_for: str = "jpd_a"
    resign_below: float = 0.0
    explore: float = 1.0
    rave: float = 1000.0
    stop_early: bool = False
    command: tuple = ()
    label: str = ""
    genmove_timeout: float = 30.0
    startup_timeout: float = 60.0
    command_timeout: float = 10.0
    komi_to_engine: float | None = None
    threat_rate: float = 0.5
    model: str = ""
    config: str | None = None
    sample_moves: int = 0
    in_flight: int = 16
    move_timeout: float = 60.0

    def __post_init__(self):
        _choice("kind", self.kind, PLAYERS)
        _number("visits", self.visits, 1, MAX_VISITS, integer=True)
        _choice("playout", self.playout, PLAYOUTS)
        _choice("play_for", self.play_for, RULESETS)
        object.__setattr__(self, "resign_below", _number("resign_below", self.resign_below, 0, 0.5))
        object.__setattr__(self, "explore", _number("explore", self.explore, 0, 100))
        object.__setattr__(self, "rave", _number("rave", self.rave, 0, 1e6))
        object.__setattr__(self, "threat_rate", _number("threat_rate", self.threat_rate, 0, 1))
        if not isinstance(self.stop_early, bool):
            raise PlayerError("stop_early", f"must be true or false, got {self.stop_early!r}")
        for key in _TIMEOUTS:
            object.__setattr__(self, key, _number(key, getattr(self, key), 0.1, 3600))
        if self.komi_to_engine is not None:
            komi = _number("komi_to_engine", self.komi_to_engine, -1000, 1000)
            object.__setattr__(self, "komi_to_engine", komi)
        command = self.command
        if isinstance(command, str):
            try:
                command = tuple(shlex.split(command))
            except ValueError as e:
                raise PlayerError("command", f"cannot be split into arguments: {e}") from None
        if not isinstance(command, (tuple, list)) or not all(isinstance(a, str) for a in command):
            raise PlayerError("command", f"must be a string or a list of strings, got {command!r}")
        object.__setattr__(self, "command", tuple(command))
        if self.is_program and not self.command:
            raise PlayerError("command", f"a {self.kind} player needs the command that starts it")
        if not isinstance(self.label, str) or any(c in self.label for c in ",()="):
            raise PlayerError("name", f"must be a string without , ( ) =, got {self.label!r}")
        if self.is_program and not self.label:
            object.__setattr__(self, "label", os.path.basename(self.command[0]))
        _number("in_flight", self.in_flight, 1, MAX_IN_FLIGHT, integer=True)
        _number("sample_moves", self.sample_moves, 0, 1000, integer=True)
        for key in ("model", "config"):
            value = getattr(self, key)
            if not (isinstance(value, str) or (key == "config" and value is None)):
                raise PlayerError(key, f"must be a file name (a string), got {value!r}")
        if self.kind == "katago" and not self.model:
            raise PlayerError("model", "a katago player needs the network file it plays with")
        if self.kind == "katago" and self.visits < 2:
            raise PlayerError(
                "visits",
                "must be at least 2 for katago (with 1 its analysis engine searches no move)",
            )

    @property
    def is_program(self) -> bool:
        """Whether a program plays (``gtp``, ``katago``), not one of the simulator's own."""
        return self.kind in ("gtp", "katago")

    @property
    def searches(self) -> bool:
        """Whether the player searches a tree (it has the parameters)."""
        return self.kind == "mcts"

    def tree_bytes(self, board_size: int) -> int:
        """About the bytes of the trees a searching player keeps on ``board_size`` (both
        colours', ``sim.players.tree.new_tree``: 200 · visits · (N² + 2), 296 · ... with
        RAVE's statistics); 0 for the other kinds."""
        per_slot = 296 if self.rave > 0 else 200
        return per_slot * self.visits * (board_size**2 + 2) * self.searches

    @property
    def parameters(self) -> tuple:
        """The names of this kind's options, in canonical order (config keys)."""
        return PLAYER_PARAMETERS[self.kind]

    @classmethod
    def from_table(cls, table, stored: bool = False) -> Player:
        """A player from a config table (``kind`` and the parameters of that kind); ``stored``:
        a table a run stored (its manifest), in which a parameter of ``LEGACY`` it lacks takes
        the value it played with."""
        if isinstance(table, str):
            table = {"kind": table}
        if not isinstance(table, dict):
            raise PlayerError("kind", f"must be a table with a kind, got {table!r}")
        kind = _choice("kind", table.get("kind", "random"), PLAYERS)
        allowed = PLAYER_PARAMETERS[kind]
        if stored:
            table = {**{k: v for k, v in LEGACY.items() if k in allowed}, **table}
        for key in table:
            if key != "kind" and key not in allowed:
                what = f"parameters of {kind}: {', '.join(allowed)}" if allowed else "no parameters"
                raise PlayerError(key, f"unknown for kind {kind!r} ({what})")
        return cls(**{_FIELD.get(k, k): v for k, v in table.items()})

    def to_dict(self) -> dict:
        """The kind and its parameters, resolved (the form of a config table; a program's
        command as a list)."""
        values = {k: getattr(self, _FIELD.get(k, k)) for k in self.parameters}
        if "command" in values:
            values["command"] = list(values["command"])
        return {"kind": self.kind, **{k: v for k, v in values.items() if v is not None}}

    @property
    def name(self) -> str:
        """The canonical string: the kind, and every parameter in order (but ``_NOT_NAMED``,
        and a ``LEGACY`` parameter at its legacy value), e.g.
        ``mcts(visits=1000,playout=pattern,play_for=jpd_a,resign_below=0,explore=1,rave=1000)``."""
        if not self.parameters:
            return self.kind
        values = []
        for k, v in self.to_dict().items():
            if k != "kind" and k not in _NOT_NAMED and LEGACY.get(k, object()) != v:
                text = shlex.join(v) if k == "command" else f"{v:.12g}" if k in _FLOATS else v
                values.append(f"{k}={text}")
        return f"{self.kind}({','.join(values)})"


_TIMEOUTS = ("genmove_timeout", "startup_timeout", "command_timeout", "move_timeout")
_FIELD = {"name": "label"}  # config key -> field, where they differ
_FLOATS = ("resign_below", "explore", "rave", "komi_to_engine", "threat_rate", *_TIMEOUTS)
#: Options that say how a program is run, not who plays: left out of the canonical name (so
#: the rows of a run keep their player names when they change).
_NOT_NAMED = ("startup_timeout", "command_timeout", "move_timeout", "in_flight")
#: Parameters added after runs were stored, with the value that plays as before they existed:
#: left out of the canonical name at that value (the rows of older runs keep their players'
#: names), and taken where a stored config lacks them (``Player.from_table``).
LEGACY = {"sample_moves": 0, "rave": 0.0, "stop_early": False}

#: The variants of the batch kernel (``sim.batch``), by what the players need, as a user reads
#: them.
VARIANTS = {"light": "light playouts", "playout": "playout players", "search": "tree search"}


#: The drivers of games (``sim.run.shard``): the batch kernel (``sim.selfplay``), GTP programs
#: one game at a time (``sim.referee``), KataGo many games at a time (``sim.katago.driver``).
DRIVERS = ("batch", "referee", "katago")


def driver(black: Player, white: Player) -> str:
    """The driver of ``black`` against ``white`` (one of DRIVERS); ValueError for a gtp player
    against a katago player (no driver plays both)."""
    kinds = {black.kind, white.kind}
    if kinds == {"gtp", "katago"}:
        raise ValueError("a gtp player cannot play a katago player (play katago through gtp)")
    if "katago" in kinds:
        return "katago"
    return "referee" if "gtp" in kinds else "batch"


def kernel_variant(black: Player, white: Player) -> str:
    """The batch kernel ``black`` and ``white`` need: ``search`` if one searches, ``light`` if
    both are ``random``, else ``playout``."""
    if black.searches or white.searches:
        return "search"
    return "light" if black.kind == white.kind == "random" else "playout"
