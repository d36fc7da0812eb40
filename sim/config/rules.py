"""The rules of play of a game: one frozen value type, its one validator and named presets.

A ``Rules`` value holds every knob that decides how a game is played and scored (docs/rules.md
§1-§5, §8): board size, repetition rule, suicide option, move cap, dead-stone mode and the
komi of each ruleset (a read-only ``Komi``). Run configs, ``sim.engine.game.Game``,
``sim.play.selfplay.play_batch``, ``jpdsim replay`` and the runner all take a ``Rules``; nothing
else validates rule options. A ``KomiSweep`` is a run config's ``komi_sweep``; ``Rules.at_komi``
gives the rules of a sweep's or a search's games at each of its komis.

Presets name the *play* rules of a tradition; every game is still scored under all five
rulesets of ``sim.schema.tables.RULESETS`` (docs/rules.md §8):

- ``jpd`` (the default): ``global_superko``, ``multi`` — 计枰点 A版 A§4.2 (禁全同), A§3.4;
- ``jpd_tangsong``: ``no_result``, ``multi`` — 唐宋版 T§5: a cycle ends with no result;
- ``tromp_taylor``: ``board_superko``, ``multi`` — positional superko, suicide allowed;
- ``new_zealand``: ``situational_superko``, ``multi`` — situational superko, suicide allowed;
- ``chinese``: ``board_superko``, ``none`` — positional superko, no suicide;
- ``japanese``: ``basic_ko``, ``none`` — basic ko only, no suicide.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from sim.errors import quoted
from sim.options import OptionError, choice, flag, integer, number
from sim.schema.coords import MAX_SIZE, MIN_SIZE
from sim.schema.tables import DEAD_STONES, DEFAULT_KOMI, REPETITIONS, RULESETS, SUICIDES

MAX_ACTIONS_LIMIT = 1_000_000  # the largest move cap (a game state's tables grow with it)
#: Komi values of one sweep.
MAX_SWEEP = 1000


def default_max_actions(size: int) -> int:
    """The move cap of a game on an N x N board when none is given: 8 * N * N."""
    return 8 * size * size


class Komi(Mapping):
    """Every ruleset's komi, read only: a mapping of ruleset to float, hashable, equal to a dict
    of the same items (and shown as one)."""

    def __init__(self, values: Mapping):
        self._values = dict(values)

    def __getitem__(self, ruleset: str) -> float:
        return self._values[ruleset]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __repr__(self) -> str:
        return repr(self._values)


def resolve_komi(komi) -> Komi:
    """Every ruleset's komi: ``DEFAULT_KOMI`` overridden by ``komi`` (a mapping of ruleset to
    a finite number); an OptionError names the ruleset."""
    if komi is None:
        komi = {}
    if not hasattr(komi, "items"):
        raise OptionError("komi", f"must be a table of ruleset = number, got {quoted(komi)}")
    for ruleset, value in komi.items():
        if ruleset not in RULESETS:
            raise OptionError(
                f"komi.{ruleset}", f"unknown ruleset (rulesets: {', '.join(RULESETS)})"
            )
        number(f"komi.{ruleset}", value)
    return Komi({r: float(komi.get(r, DEFAULT_KOMI[r])) for r in RULESETS})


@dataclass(frozen=True)
class Rules:
    """The rules of play; validated and resolved on creation (``max_actions`` None -> 8*N*N,
    ``komi`` -> every ruleset's, a ``Komi``), an OptionError naming the option otherwise."""

    board_size: int
    repetition: str = "global_superko"
    suicide: str = "multi"
    max_actions: int | None = None
    dead_stones: str = "all_alive"
    komi: Mapping[str, float] | None = None

    def __post_init__(self):
        size = integer("board_size", self.board_size, MIN_SIZE, MAX_SIZE)
        choice("repetition", self.repetition, REPETITIONS)
        choice("suicide", self.suicide, SUICIDES)
        cap = default_max_actions(size) if self.max_actions is None else self.max_actions
        object.__setattr__(self, "max_actions", integer("max_actions", cap, 1, MAX_ACTIONS_LIMIT))
        choice("dead_stones", self.dead_stones, DEAD_STONES)
        object.__setattr__(self, "komi", resolve_komi(self.komi))

    @classmethod
    def preset(cls, name: str, board_size: int, **overrides) -> Rules:
        """The preset ``name`` (``PRESETS``) on an N x N board, with ``overrides``."""
        choice("rules", name, tuple(PRESETS))
        return cls(board_size, **{**PRESETS[name], **overrides})

    def with_(self, **changes) -> Rules:
        """A copy with ``changes`` (validated)."""
        return replace(self, **changes)

    def at_komi(self, ruleset: str, value: float) -> Rules:
        """These rules with ``ruleset``'s komi ``value``, every other ruleset's moved by as
        much (rounded to 1e-9: 6.5 + (0.1 - 7.5) is -0.9, not -0.9000000000000004)."""
        shift = value - self.komi[ruleset]
        komi = {r: round(v + shift, 9) for r, v in self.komi.items()}
        return self.with_(komi={**komi, ruleset: value})

    def to_dict(self) -> dict:
        """Plain JSON values, every field resolved."""
        return {
            f.name: (dict(getattr(self, f.name)) if f.name == "komi" else getattr(self, f.name))
            for f in fields(self)
        }

    @property
    def repetition_code(self) -> int:
        """The index of ``repetition`` in ``sim.schema.tables.REPETITIONS`` (the engine's code)."""
        return REPETITIONS.index(self.repetition)

    @property
    def suicide_code(self) -> int:
        """The index of ``suicide`` in ``sim.schema.tables.SUICIDES`` (the engine's code)."""
        return SUICIDES.index(self.suicide)


RULE_KEYS = tuple(f.name for f in fields(Rules))

#: Named presets: the play rules of each tradition (see the module docstring).
PRESETS = {
    "jpd": {"repetition": "global_superko", "suicide": "multi"},
    "jpd_tangsong": {"repetition": "no_result", "suicide": "multi"},
    "tromp_taylor": {"repetition": "board_superko", "suicide": "multi"},
    "new_zealand": {"repetition": "situational_superko", "suicide": "multi"},
    "chinese": {"repetition": "board_superko", "suicide": "none"},
    "japanese": {"repetition": "basic_ko", "suicide": "none"},
}


@dataclass(frozen=True)
class KomiSweep:
    """``komi_sweep``: the games of a run cycle through the komis ``values`` of ``ruleset``;
    ``cross_setups``: with several setups, every komi is played from every setup
    (``sim.config.run.RunConfig.komi_groups``; False: as the runs stored without the key were
    played). Validated on creation (``values`` made a tuple of floats)."""

    ruleset: str
    values: tuple[float, ...]
    cross_setups: bool = True

    def __post_init__(self):
        choice("komi_sweep.ruleset", self.ruleset, RULESETS)
        if not isinstance(self.values, (list, tuple)) or not 1 <= len(self.values) <= MAX_SWEEP:
            raise OptionError(
                "komi_sweep.values",
                f"must be a list of 1..{MAX_SWEEP} komis, got {quoted(self.values)}",
            )
        try:
            values = tuple(number("komi_sweep.values", v, -1000, 1000) for v in self.values)
        except OptionError as err:
            raise OptionError(err.key, f"every komi {err.reason}") from None
        twice = [v for i, v in enumerate(values) if v in values[:i]]
        if twice:
            raise OptionError("komi_sweep.values", f"{twice[0]:g} is there twice")
        object.__setattr__(self, "values", values)
        flag("komi_sweep.cross_setups", self.cross_setups)

    @classmethod
    def from_table(cls, table, stored: bool = False) -> KomiSweep:
        """The sweep of a config's ``komi_sweep`` table (``stored``: of a run's manifest, where
        a sweep without ``cross_setups`` was played without crossing)."""
        if not isinstance(table, dict):
            raise OptionError(
                "komi_sweep",
                f'must be a table such as {{ ruleset = "jpd_b", values = [6.5, 7.5, 8.5] }}, '
                f"got {quoted(table)}",
            )
        keys = [f.name for f in fields(cls)]
        for key in table:
            if key not in keys:
                raise OptionError(f"komi_sweep.{key}", f"unknown ({', '.join(keys)})")
        for key in ("ruleset", "values"):
            if key not in table:
                raise OptionError(f"komi_sweep.{key}", "missing (required)")
        return cls(**{"cross_setups": not stored, **table})

    def to_dict(self) -> dict:
        return {
            "ruleset": self.ruleset,
            "values": list(self.values),
            "cross_setups": self.cross_setups,
        }
