"""From raw outcome rows (``sim.schema.RAW_FIELDS``) to the named outcome columns of
``sim.schema``: scores, margins under each ruleset's komi (``sim.schema.RULESET_SCORE``,
RULES.md §8) and winners."""

import numpy as np
import pyarrow as pa

from sim.schema import (
    ENDINGS, NO_WINNER_ENDINGS, OUTCOME_FIELDS, OUTCOME_TYPES, RAW_FIELDS, RULESET_SCORE,
)

BY = ("B", "W")  # first_pass_or_virtual_by, last_real_move_by: colour - 1 (0: none)
WINNERS = ("W", "draw", "B")  # by sign of the margin + 1
_NO_WINNER = np.array([False] + [e in NO_WINNER_ENDINGS for e in ENDINGS])


def rulings(raw, komi: dict) -> dict:
    """Every ruleset's (margin, winner code) from game values (RULES.md §8): ``raw`` maps the
    raw differences of ``RULESET_SCORE``, ``first_pass_or_virtual_by`` and
    ``last_real_move_by`` (colour codes, 0 for none) and ``ending`` (1 + the index in ENDINGS)
    to arrays. margin = difference - komi - the ruleset's point; the winner code indexes
    WINNERS by the margin's sign (-1: no winner, the endings of NO_WINNER_ENDINGS)."""
    no_winner = _NO_WINNER[np.asarray(raw["ending"])]
    out = {}
    for ruleset, (diff, extra) in RULESET_SCORE.items():
        margin = np.asarray(raw[diff], np.float64) - komi[ruleset]
        if extra is not None:  # the ruleset's point: one off Black's margin when field = player
            field, player = extra
            margin = margin - (np.asarray(raw[field]) == 1 + BY.index(player))
        winner = np.sign(margin).astype(np.int64) + 1
        winner[no_winner] = -1
        out[ruleset] = (margin, winner)
    return out


def _labels(codes: np.ndarray, values) -> pa.Array:
    """Arrow strings ``values[code]`` (-1: null), built through a dictionary: Arrow turns
    codes into strings about 4x faster than it reads an array of Python strings."""
    indices = pa.array(codes.astype(np.int8), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(values, pa.string())).cast(pa.string())


def outcome_arrays(rows: np.ndarray, rules) -> dict:
    """Named outcome columns (Arrow arrays of ``sim.schema.OUTCOME_TYPES``) of raw rows of
    games played under ``rules`` (``sim.rules.Rules``)."""
    n = len(rows)
    size, komi = rules.board_size, rules.komi
    raw = {name: rows[:, i] for i, name in enumerate(RAW_FIELDS)}
    area_diff = (raw["area2_b_jpd"] - raw["area2_w_jpd"]) / 2
    out = {
        "board_size": np.full(n, size, np.int32),
        "repetition": _labels(np.zeros(n, np.int8), [rules.repetition]),
        "suicide": _labels(np.zeros(n, np.int8), [rules.suicide]),
        "ending": _labels(raw["ending"] - 1, ENDINGS),
        "first_pass_or_virtual_by": _labels(raw["first_pass_or_virtual_by"] - 1, BY),
        "last_real_move_by": _labels(raw["last_real_move_by"] - 1, BY),
        "area_b_jpd": raw["area2_b_jpd"] / 2,
        "area_w_jpd": raw["area2_w_jpd"] / 2,
        "area_diff_jpd": area_diff,
        "equal_stones_diff": raw["equal_stones_diff2"] / 2,
    }
    for name, (margin, winner) in rulings({**raw, "area_diff_jpd": area_diff}, komi).items():
        out[f"margin_{name}"] = margin
        out[f"winner_{name}"] = _labels(winner, WINNERS)
    values = {name: out[name] if name in out else raw[name] for name in OUTCOME_FIELDS}
    return {name: v if isinstance(v, pa.Array) else pa.array(v, OUTCOME_TYPES[name])
            for name, v in values.items()}


def columns(rows: np.ndarray, rules) -> dict:
    """``outcome_arrays`` as numpy arrays (strings as object arrays with None)."""
    return {name: values.to_numpy(zero_copy_only=False, writable=True)
            for name, values in outcome_arrays(rows, rules).items()}
