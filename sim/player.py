"""Who plays a colour: one frozen value type, its validator and its canonical name.

A ``Player`` is a kind (``sim.schema.PLAYERS``) and, for ``mcts``, its parameters. A run
config gives one per colour (``[players.black]``, ``[players.white]``); rows record each as
its canonical string (``Player.name``), which the analysis groups by. docs/rules.md §11.

========== =================================================== ==================
parameter  meaning (``mcts`` only)                             default
========== =================================================== ==================
visits     playouts per move, 1..100,000 (the trees of both     1000
           colours take about 200 * visits * (N² + 2) bytes:
           0.3 GB at 4,000 visits on 19x19)
playout    the playout policy (``sim.schema.PLAYOUTS``)        ``"pattern"``
play_for   the ruleset whose win it plays for                  ``"jpd_a"``
           (``sim.schema.RULESETS``; komi from the run's)
resign_below  resign when its best move's win rate is below    0 (never)
           this, 0..0.5
explore    the exploration constant of its PUCT selection      1.0
========== =================================================== ==================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from sim.schema import PLAYERS, PLAYOUTS, RULESETS

MAX_VISITS = 100_000  # the trees' arrays grow with it (``sim.players.tree.new_tree``)


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
    """A player; validated on creation, a PlayerError naming the option otherwise."""

    kind: str = "random"
    visits: int = 1000
    playout: str = "pattern"
    play_for: str = "jpd_a"
    resign_below: float = 0.0
    explore: float = 1.0

    def __post_init__(self):
        _choice("kind", self.kind, PLAYERS)
        _number("visits", self.visits, 1, MAX_VISITS, integer=True)
        _choice("playout", self.playout, PLAYOUTS)
        _choice("play_for", self.play_for, RULESETS)
        object.__setattr__(self, "resign_below", _number("resign_below", self.resign_below, 0, 0.5))
        object.__setattr__(self, "explore", _number("explore", self.explore, 0, 100))

    @property
    def searches(self) -> bool:
        """Whether the player searches a tree (it has the parameters)."""
        return self.kind == "mcts"

    @classmethod
    def from_table(cls, table) -> Player:
        """A player from a config table (``kind`` and the parameters of that kind)."""
        if isinstance(table, str):
            table = {"kind": table}
        if not isinstance(table, dict):
            raise PlayerError("kind", f"must be a table with a kind, got {table!r}")
        kind = _choice("kind", table.get("kind", "random"), PLAYERS)
        allowed = PARAMETERS if kind == "mcts" else ()
        for key in table:
            if key != "kind" and key not in allowed:
                what = f"parameters of {kind}: {', '.join(allowed)}" if allowed else "no parameters"
                raise PlayerError(key, f"unknown for kind {kind!r} ({what})")
        return cls(**table)

    def to_dict(self) -> dict:
        """The kind and its parameters, resolved (the form of a config table)."""
        return {"kind": self.kind, **{k: getattr(self, k) for k in PARAMETERS if self.searches}}

    @property
    def name(self) -> str:
        """The canonical string: the kind, and every parameter in order, e.g.
        ``mcts(visits=1000,playout=pattern,play_for=jpd_a,resign_below=0,explore=1)``."""
        if not self.searches:
            return self.kind
        values = ",".join(
            f"{k}={getattr(self, k):.12g}" if k in _FLOATS else f"{k}={getattr(self, k)}"
            for k in PARAMETERS
        )
        return f"{self.kind}({values})"


PARAMETERS = tuple(f.name for f in fields(Player) if f.name != "kind")
_FLOATS = ("resign_below", "explore")
