"""Who plays a colour: one frozen value type, its validator and its canonical name.

A ``Player`` is a kind (``sim.schema.tables.PLAYERS``) and the parameters of that kind. A run config
gives one per colour (``[players.black]``, ``[players.white]``); rows record each as its
canonical string (``Player.name``, read back by ``Player.from_name``), which the analysis
groups by. docs/rules.md §11, and docs/gtp.md for ``gtp``.

Longer than 300 lines on purpose: 80 of them are the table below, the reference of every
parameter, kept beside the fields and limits it describes; the rest is one value type, whose
canonical name is read back (``from_name``) through the checks that made it.

=============== ============================================== ==================
parameter       meaning                                        default
=============== ============================================== ==================
*mcts*
visits          playouts per move, 1..100,000 (the trees of    1000
                both colours take about 264 * visits * (N² + 2)
                bytes, 360 with RAVE: 0.4 GB at 4,000 visits on
                19x19, ``Player.tree_bytes``)
resign_below    resign when its best move's win rate is below  0 (never)
                this, 0..0.5
explore         the exploration constant of its PUCT selection 0 (1 before
                                                               2026-12-04)
rave            RAVE's equivalence visits: an edge's value     1000
                blends in its all-moves-as-first value with
                weight ñ / (ñ + n + n·ñ / rave); 0 (no RAVE,
                the search before 2026-12-01)..10^6
stop_early      end a move's search once its most visited move  false
                cannot change in the simulations left (the
                move is the same, found sooner, but the tree
                kept for the next move is smaller: weaker
                against GNU Go, docs/search.md)
prior           the move priors of its tree: ``"diamond"``     ``"diamond"``
                (from KataGo's moves, with 12-point diamond    (``"learned"``
                patterns, ``sim.players.prior``),              before
                ``"learned"`` (the same without diamonds) or   2026-12-05)
                ``"hand"`` (set by hand: captures, patterns
                next to the last move, no self-atari; the
                search before 2026-12-03)
score_utility   the weight of the margin in a simulation's      0.3 (0 before
                value, centred on the search's expected        the night of
                margin (``sim.players.mcts``), 0..1            2026-12-04)
prior_visits    the prior as virtual simulations (Pachi's):    60
                an edge's value counts 14 at 1/2 and
                sqrt(P)·prior_visits won ones beside its own;
                0 (the PUCT search before 2026-12-04)..10^6
tactics         read ladders (its priors and playouts) and     true (false
                play the vital point of a small eye space in   before the
                its playouts (``sim.players.ladder``,          evening of
                ``sim.players.nakade``)                        2026-12-04)
doubt_passes    a pass that proposes a pause, a virtual move   true (false
                and, with ``avoid_suicides`` false, a suicide  before the
                (turns given up) get their prior's even        night of
                virtual simulations only, no won ones          2026-12-04)
avoid_suicides  leave suicides (moves that leave their chain   true (false
                without a liberty) out of the moves its tree   before 23:50
                searches                                       on 2026-12-04)
*kofight*
threat_rate     probability of a virtual move (the ko threat)  0.5
                when the repetition rule bans every recapture
*mcts and kofight*
playout         mcts: the playout policy; kofight: the policy  ``"pattern"``
                of its other moves (``sim.schema.tables.PLAYOUTS``)
*mcts, gtp and katago*
play_for        the ruleset whose win it plays for             ``"jpd_a"``
                (``sim.schema.tables.RULESETS``; komi from the run's)
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
move_timeout    seconds KataGo may take over one query, from   60
                when it is asked to its answer, 0.1..3600
=============== ============================================== ==================
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from sim.errors import quoted
from sim.options import OptionError, choice, flag, integer, number
from sim.schema.tables import PLAYER_PARAMETERS, PLAYERS, PLAYOUTS, PRIORS, RULESETS

MAX_VISITS = 100_000  # the trees' arrays grow with it (``sim.players.tree.new_tree``)
MAX_IN_FLIGHT = 4096  # a katago player's games in flight per worker


@dataclass(frozen=True)
class Player:
    """A player; validated on creation (numbers made floats), an OptionError naming the option
    otherwise. A gtp player's ``name`` option is the field ``label`` (``name`` is the
    canonical string)."""

    kind: str = "random"
    visits: int = 1000
    playout: str = "pattern"
    play_for: str = "jpd_a"
    resign_below: float = 0.0
    explore: float = 0.0
    rave: float = 1000.0
    stop_early: bool = False
    prior: str = "diamond"
    score_utility: float = 0.3
    prior_visits: float = 60.0
    tactics: bool = True
    doubt_passes: bool = True
    avoid_suicides: bool = True
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
        choice("kind", self.kind, PLAYERS)
        for key, (lo, hi) in _INTEGERS.items():
            integer(key, getattr(self, key), lo, hi)
        choice("playout", self.playout, PLAYOUTS)
        choice("prior", self.prior, PRIORS)
        choice("play_for", self.play_for, RULESETS)
        for key, (lo, hi) in _NUMBERS.items():
            if not (key == "komi_to_engine" and self.komi_to_engine is None):
                object.__setattr__(self, key, number(key, getattr(self, key), lo, hi))
        for key in _FLAGS:
            flag(key, getattr(self, key))
        command = self.command
        if isinstance(command, str):
            try:
                command = tuple(shlex.split(command))
            except ValueError as e:
                raise OptionError("command", f"cannot be split into arguments: {e}") from None
        if not isinstance(command, (tuple, list)) or not all(isinstance(a, str) for a in command):
            raise OptionError(
                "command", f"must be a string or a list of strings, got {quoted(command)}"
            )
        object.__setattr__(self, "command", tuple(command))
        if self.is_program and not self.command:
            raise OptionError("command", f"a {self.kind} player needs the command that starts it")
        label = self.label
        if self.is_program and label == "":  # the default: the program's file name
            label = os.path.basename(self.command[0])
        if not isinstance(label, str) or any(c in label for c in ",()="):
            raise OptionError("name", f"must be a string without , ( ) =, got {quoted(label)}")
        object.__setattr__(self, "label", label)
        for key in ("model", "config"):
            value = getattr(self, key)
            if not (isinstance(value, str) or (key == "config" and value is None)):
                raise OptionError(key, f"must be a file name (a string), got {quoted(value)}")
        if self.kind == "katago" and not self.model:
            raise OptionError("model", "a katago player needs the network file it plays with")
        if self.kind == "katago" and self.visits < 2:
            raise OptionError(
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
        colours', ``sim.players.tree.new_tree``: 264 · visits · (N² + 2), 360 · ... with
        RAVE's statistics); 0 for the other kinds."""
        per_slot = 360 if self.rave > 0 else 264
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
            raise OptionError("kind", f"must be a table with a kind, got {quoted(table)}")
        kind = choice("kind", table.get("kind", "random"), PLAYERS)
        allowed = PLAYER_PARAMETERS[kind]
        if stored:
            table = {**{k: v for k, v in LEGACY.items() if k in allowed}, **table}
        for key in table:
            if key != "kind" and key not in allowed:
                what = f"parameters of {kind}: {', '.join(allowed)}" if allowed else "no parameters"
                raise OptionError(key, f"unknown for kind {kind!r} ({what})")
        return cls(**{_FIELD.get(k, k): v for k, v in table.items()})

    @classmethod
    def from_name(cls, name: str) -> Player:
        """The player whose canonical string (``name``) is ``name``: its kind and the parameters
        the name shows, a ``LEGACY`` parameter left out at its legacy value, any other left out
        at its default. Where a value holds ``,KEY=`` of a later parameter, two players can
        have one name: the one with more parameters named is meant (a katago ``model=m,config=c``
        is the model ``m`` with the config ``c``, not the model ``m,config=c``). An OptionError
        (key ``player``) if no player, or two with as many parameters, has that name."""
        form = _NAME.fullmatch(name) if isinstance(name, str) else None
        if form is None or form[1] not in PLAYERS:
            raise OptionError(
                "player",
                f"{quoted(name)} is not KIND or KIND(KEY=VALUE,...) of a kind of "
                f"{', '.join(PLAYERS)}",
            )
        kind, keys = form[1], PLAYER_PARAMETERS[form[1]]
        named, errors = {}, []  # a player of that name -> the parameters its reading names
        for reading in _readings(form[2] or "", keys):
            try:
                table = {k: _value(k, text) for k, text in reading}
                player = cls.from_table({"kind": kind, **table}, stored=True)
            except OptionError as err:
                errors.append(str(err))
                continue
            if player.name == name:
                named[player] = max(named.get(player, 0), len(reading))
            else:
                errors.append(f"that player is named {player.name!r}")
        most = [p for p, n in named.items() if n == max(named.values(), default=0)]
        if len(most) > 1:
            raise OptionError(
                "player", f"{name!r} is the name of {len(most)} players (a value holds ',KEY=')"
            )
        if not most:
            why = errors[0] if errors else f"{kind}'s parameters are, in order, {', '.join(keys)}"
            raise OptionError("player", f"{quoted(name)} is not a canonical player name ({why})")
        return most[0]

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
        and a ``LEGACY`` parameter at its legacy value), e.g. ``mcts(visits=1000,
        playout=pattern,play_for=jpd_a,resign_below=0,explore=0,rave=1000,prior=diamond,
        prior_visits=60)`` (without the line breaks); ``from_name`` reads it back."""
        if not self.parameters:
            return self.kind
        values = []
        for k, v in self.to_dict().items():
            if k != "kind" and k not in _NOT_NAMED and LEGACY.get(k, object()) != v:
                text = shlex.join(v) if k == "command" else f"{v:.12g}" if k in _NUMBERS else v
                values.append(f"{k}={text}")
        return f"{self.kind}({','.join(values)})"


def _readings(text: str, keys: tuple):
    """Every way ``text`` reads as ``KEY=VALUE,KEY=VALUE,...`` with keys of ``keys`` in their
    order: lists of (key, value text). A value ends where ``,KEY=`` of a later key starts, or
    with ``text``."""
    if not text:
        yield []
        return
    for i, key in enumerate(keys):
        if text.startswith(f"{key}="):
            rest, later = text[len(key) + 1 :], keys[i + 1 :]
            ends = sorted({m.start() for k in later for m in re.finditer(f",{k}=", rest)})
            for end in ends:
                for tail in _readings(rest[end + 1 :], later):
                    yield [(key, rest[:end]), *tail]
            yield [(key, rest)]


def _value(key: str, text: str):
    """The value of parameter ``key`` that a canonical name writes as ``text``."""
    try:
        if key in _NUMBERS:
            return float(text)
        if key in _INTEGERS:
            return int(text)
        return {"True": True, "False": False}[text] if key in _FLAGS else text
    except (ValueError, KeyError):
        raise OptionError(key, f"cannot be read from {quoted(text)}") from None


_NAME = re.compile(r"(\w+)(?:\((.*)\))?", re.DOTALL)  # KIND or KIND(...): Player.name
#: The true/false parameters.
_FLAGS = ("stop_early", "tactics", "doubt_passes", "avoid_suicides")
_TIMEOUTS = ("genmove_timeout", "startup_timeout", "command_timeout", "move_timeout")
#: The integer parameters and their limits.
_INTEGERS = {"visits": (1, MAX_VISITS), "in_flight": (1, MAX_IN_FLIGHT), "sample_moves": (0, 1000)}
#: The number parameters (floats) and their limits.
_NUMBERS = {
    "resign_below": (0, 0.5),
    "explore": (0, 100),
    "rave": (0, 1_000_000),
    "score_utility": (0, 1),
    "prior_visits": (0, 1_000_000),
    "threat_rate": (0, 1),
    **{key: (0.1, 3600) for key in _TIMEOUTS},
    "komi_to_engine": (-1000, 1000),  # None: the komi of play_for
}
_FIELD = {"name": "label"}  # config key -> field, where they differ
#: Options that say how a program is run, not who plays: left out of the canonical name (so
#: the rows of a run keep their player names when they change).
_NOT_NAMED = ("startup_timeout", "command_timeout", "move_timeout", "in_flight")
#: Parameters added after runs were stored, with the value that plays as before they existed:
#: left out of the canonical name at that value (the rows of older runs keep their players'
#: names), and taken where a stored config lacks them (``Player.from_table``).
LEGACY = {
    "sample_moves": 0,
    "rave": 0.0,
    "stop_early": False,
    "prior": "hand",
    "score_utility": 0.0,
    "prior_visits": 0.0,
    "tactics": False,
    "doubt_passes": False,
    "avoid_suicides": False,
}
#: Earlier default searches, as the parameters in which each differs from today's default
#: player: what benches and studies pin so that their names and games stay that search's. The
#: late night from 23:50 on 2026-12-04 (no diamond patterns, until 2026-12-05), the night
#: before it (suicides searched), the evening before that (no score utility, passes trusted)
#: and the PUCT search (before 2026-12-04: explore 1, the priors not counted as simulations,
#: no ladders).
LATE_NIGHT = {"prior": "learned"}
NIGHT = {"avoid_suicides": False, **LATE_NIGHT}
EVENING = {"score_utility": 0.0, "doubt_passes": False, **NIGHT}
PUCT = {"explore": 1.0, "prior_visits": 0.0, "tactics": False, **EVENING}
