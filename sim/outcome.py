"""From raw outcome rows (``sim.scoring.RAW_FIELDS``) to the named outcome columns of
``sim.schema``: scores, margins under each ruleset's komi (``sim.schema.RULESET_SCORE``,
RULES.md §8) and winners."""

import math

import numpy as np

from sim.schema import DEFAULT_KOMI, ENDINGS, NO_WINNER_ENDINGS, OUTCOME_FIELDS, RULESET_SCORE, RULESETS
from sim.scoring import RAW_FIELDS

_BY = np.array([None, "B", "W"], dtype=object)
_ENDING = np.array([None, *ENDINGS], dtype=object)
_NO_WINNER = np.array([e in NO_WINNER_ENDINGS for e in _ENDING])
_WINNER = np.array(["W", "draw", "B", None], dtype=object)  # by sign of the margin; [3]: none


def resolve_komi(komi: dict | None) -> dict:
    """Every ruleset's komi: the defaults of RULES.md §8 overridden by ``komi``."""
    unknown = sorted(set(komi or {}) - set(RULESETS))
    if unknown:
        raise ValueError(f"unknown ruleset {unknown[0]!r} (rulesets: {', '.join(RULESETS)})")
    resolved = {**DEFAULT_KOMI, **(komi or {})}
    for ruleset, value in resolved.items():
        if not math.isfinite(value):
            raise ValueError(f"komi of {ruleset} must be a finite number, not {value}")
    return resolved


def columns(rows: np.ndarray, size: int, repetition: str, suicide: str, komi: dict) -> dict:
    """Named outcome columns (numpy arrays; strings as object arrays with None) of raw rows."""
    n = len(rows)
    raw = {name: rows[:, i] for i, name in enumerate(RAW_FIELDS)}
    raw["area_diff_jpd"] = (raw["area2_b_jpd"] - raw["area2_w_jpd"]) / 2
    out = {
        "board_size": np.full(n, size, np.int32),
        "repetition": np.full(n, repetition, dtype=object),
        "suicide": np.full(n, suicide, dtype=object),
        "ending": _ENDING[raw["ending"]],
        "first_pass_or_virtual_by": _BY[raw["first_pass_or_virtual_by"]],
        "last_real_move_by": _BY[raw["last_real_move_by"]],
        "area_b_jpd": raw["area2_b_jpd"] / 2,
        "area_w_jpd": raw["area2_w_jpd"] / 2,
        "area_diff_jpd": raw["area_diff_jpd"],
        "equal_stones_diff": raw["equal_stones_diff2"] / 2,
    }
    no_winner = _NO_WINNER[raw["ending"]]
    for ruleset, (diff, extra) in RULESET_SCORE.items():
        margin = raw[diff] - komi[ruleset]
        if extra is not None:
            margin = margin - (out[extra[0]] == extra[1])
        code = np.sign(margin).astype(np.int64) + 1
        code[no_winner] = 3
        out[f"margin_{ruleset}"] = margin.astype(np.float64)
        out[f"winner_{ruleset}"] = _WINNER[code]
    for name in OUTCOME_FIELDS:
        if name not in out:
            out[name] = raw[name].astype(np.int32)
    return {name: out[name] for name in OUTCOME_FIELDS}
