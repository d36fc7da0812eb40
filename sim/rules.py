"""The rules of play of a game: one frozen value type, its one validator and named presets.

A ``Rules`` value holds every knob that decides how a game is played and scored (docs/rules.md
§1-§5, §8): board size, repetition rule, suicide option, move cap, dead-stone mode and the
komi of each ruleset. Run configs, ``sim.engine.game.Game``, ``sim.selfplay.play_batch``,
``jpdsim replay`` and the runner all take a ``Rules``; nothing else validates rule options.

Presets name the *play* rules of a tradition; every game is still scored under all five
rulesets of ``sim.schema.RULESETS`` (docs/rules.md §8):

- ``jpd`` (the default): ``global_superko``, ``multi`` — 计枰点 A版 A§4.2 (禁全同), A§3.4;
- ``jpd_tangsong``: ``no_result``, ``multi`` — 唐宋版 T§5: a cycle ends with no result;
- ``tromp_taylor``: ``board_superko``, ``multi`` — positional superko, suicide allowed;
- ``new_zealand``: ``situational_superko``, ``multi`` — situational superko, suicide allowed;
- ``chinese``: ``board_superko``, ``none`` — positional superko, no suicide;
- ``japanese``: ``basic_ko``, ``none`` — basic ko only, no suicide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from sim.coords import MAX_SIZE, MIN_SIZE
from sim.schema import DEAD_STONES, DEFAULT_KOMI, REPETITIONS, RULESETS, SUICIDES

MAX_ACTIONS_LIMIT = 1_000_000  # the largest move cap (a game state's tables grow with it)


def default_max_actions(size: int) -> int:
    """The move cap of a game on an N x N board when none is given: 8 * N * N."""
    return 8 * size * size


class RuleError(ValueError):
    """A bad rule option: ``key`` names it (``komi.<ruleset>`` for one komi), ``reason`` says
    what is wrong; ``str`` is ``"<key>: <reason>"``."""

    def __init__(self, key: str, reason: str):
        super().__init__(f"{key}: {reason}")
        self.key, self.reason = key, reason


def _integer(key, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(key, f"must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise RuleError(key, f"must be in {lo:,}..{hi:,}, got {value}")
    return value


def _choice(key, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise RuleError(key, f"must be one of {', '.join(choices)}; got {value!r}")
    return value


def resolve_komi(komi) -> dict:
    """Every ruleset's komi: ``DEFAULT_KOMI`` overridden by ``komi`` (a mapping of ruleset to
    a finite number); RuleError names the ruleset."""
    if komi is None:
        komi = {}
    if not hasattr(komi, "items"):
        raise RuleError("komi", f"must be a table of ruleset = number, got {komi!r}")
    for ruleset, value in komi.items():
        if ruleset not in RULESETS:
            raise RuleError(f"komi.{ruleset}", f"unknown ruleset (rulesets: {', '.join(RULESETS)})")
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise RuleError(f"komi.{ruleset}", f"must be a finite number, not {value!r}")
    return {r: float(komi.get(r, DEFAULT_KOMI[r])) for r in RULESETS}


@dataclass(frozen=True)
class Rules:
    """The rules of play; validated and resolved on creation (``max_actions`` None -> 8*N*N,
    ``komi`` -> every ruleset), a RuleError naming the option otherwise."""

    board_size: int
    repetition: str = "global_superko"
    suicide: str = "multi"
    max_actions: int | None = None
    dead_stones: str = "all_alive"
    komi: dict = field(default_factory=dict)

    def __post_init__(self):
        size = _integer("board_size", self.board_size, MIN_SIZE, MAX_SIZE)
        _choice("repetition", self.repetition, REPETITIONS)
        _choice("suicide", self.suicide, SUICIDES)
        cap = default_max_actions(size) if self.max_actions is None else self.max_actions
        object.__setattr__(self, "max_actions", _integer("max_actions", cap, 1, MAX_ACTIONS_LIMIT))
        _choice("dead_stones", self.dead_stones, DEAD_STONES)
        object.__setattr__(self, "komi", resolve_komi(self.komi))

    @classmethod
    def preset(cls, name: str, board_size: int, **overrides) -> Rules:
        """The preset ``name`` (``PRESETS``) on an N x N board, with ``overrides``."""
        _choice("rules", name, tuple(PRESETS))
        return cls(board_size, **{**PRESETS[name], **overrides})

    def with_(self, **changes) -> Rules:
        """A copy with ``changes`` (validated)."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """Plain JSON values, every field resolved."""
        return {
            f.name: (dict(getattr(self, f.name)) if f.name == "komi" else getattr(self, f.name))
            for f in fields(self)
        }

    @property
    def repetition_code(self) -> int:
        """The index of ``repetition`` in ``sim.schema.REPETITIONS`` (the engine's code)."""
        return REPETITIONS.index(self.repetition)

    @property
    def suicide_code(self) -> int:
        """The index of ``suicide`` in ``sim.schema.SUICIDES`` (the engine's code)."""
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
