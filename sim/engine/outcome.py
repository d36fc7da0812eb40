"""The outcome of a game: the kernel ``outcome_row`` writes a game's raw outcome (integers)
into a row of ``sim.schema.tables.RAW_FIELDS`` (the ``R_*`` indices are looked up there by name);
``outcome_arrays`` and ``columns`` turn raw rows into the named outcome columns of
``sim.schema.tables`` (``OUTCOME_TYPES``): scores, margins under each ruleset's komi
(``rulings``, ``sim.schema.tables.RULESET_SCORE``, docs/rules.md §8) and winners."""

import numpy as np
import pyarrow as pa
from numba import njit

from sim.engine.scoring import PUBLIC, counter, equal_stones, japanese_territory, ownership
from sim.engine.state import (
    ACTIONS,
    BLACK,
    CONVERTED,
    DEAD,
    ENDING,
    FIRST_PV,
    LAB,
    LAST_REAL,
    LOST,
    MOVES,
    PASSES,
    REAL,
    REGION,
    REP_BANS,
    RESIGNED_BY,
    RESUMPTIONS,
    ST,
    SUICIDES_BY,
    T_JAPANESE,
    T_LABELS,
    T_MOKU,
    T_REGIONS,
    T_STONES,
    VIRT,
    WHITE,
    opponent,
    slot,
)
from sim.schema.tables import (
    COLOURS,
    ENDINGS,
    NO_WINNER_ENDINGS,
    OUTCOME_FIELDS,
    OUTCOME_TYPES,
    RAW_FIELDS,
    RULESET_SCORE,
    RULESETS,
    WINNERS,
)


def _pair(name: str) -> int:
    """The index of the per-colour raw field ``name`` (its ``_b`` entry; ``_w`` follows)."""
    i = RAW_FIELDS.index(name + "_b")
    assert RAW_FIELDS[i + 1] == name + "_w"
    return i


R_ENDING = RAW_FIELDS.index("ending")
R_ACTIONS = RAW_FIELDS.index("actions")
R_MOVES = RAW_FIELDS.index("moves")
R_PASSES = RAW_FIELDS.index("passes")
R_CONVERTED = RAW_FIELDS.index("converted_passes")
R_FIRST_PV = RAW_FIELDS.index("first_pass_or_virtual_by")
R_LAST_REAL = RAW_FIELDS.index("last_real_move_by")
R_PUBLIC = RAW_FIELDS.index("public_points")
R_BALANCED = RAW_FIELDS.index("balanced_moves")
R_ES_DIFF2 = RAW_FIELDS.index("equal_stones_diff2")
R_CHINESE = RAW_FIELDS.index("area_diff_chinese")
R_JAPANESE = RAW_FIELDS.index("territory_diff_japanese")
R_REP_BANS = RAW_FIELDS.index("repetition_bans")
R_RESIGNED_BY = RAW_FIELDS.index("resigned_by")
R_RESUMPTIONS = RAW_FIELDS.index("resumptions")
R_DEAD = _pair("dead")
R_REAL = _pair("real_moves")
R_VIRT = _pair("virtual_moves")
R_LOST = _pair("stones_lost")
R_SUICIDES = _pair("suicides")
R_STONES = _pair("stones")
R_PRISONERS = _pair("prisoners")
R_MOKU = _pair("moku")
R_TERR = RAW_FIELDS.index("territory_b_jpd")
R_AREA2 = RAW_FIELDS.index("area2_b_jpd")
assert RAW_FIELDS[R_TERR + 1] == "territory_w_jpd" and RAW_FIELDS[R_AREA2 + 1] == "area2_w_jpd"


@njit(cache=True, _nrt=False)
def outcome_row(g, row, literal):
    """The raw outcome of the game as it stands (stones agreed dead already removed) into
    ``row``; with ``literal`` False the literal equal-stones count and the moku are left out
    (a search's playouts: ``row_margin`` reads neither)."""
    st = g.tab[ST]
    row[R_ENDING] = st[ENDING]
    row[R_ACTIONS] = st[ACTIONS]
    row[R_MOVES] = st[MOVES]
    row[R_PASSES] = st[PASSES]
    row[R_CONVERTED] = st[CONVERTED]
    row[R_FIRST_PV] = st[FIRST_PV]
    row[R_LAST_REAL] = st[LAST_REAL]
    row[R_REP_BANS] = st[REP_BANS]
    row[R_RESIGNED_BY] = st[RESIGNED_BY]
    row[R_RESUMPTIONS] = st[RESUMPTIONS]
    for c in (BLACK, WHITE):
        row[slot(R_REAL, c)] = st[slot(REAL, c)]
        row[slot(R_VIRT, c)] = st[slot(VIRT, c)]
        row[slot(R_LOST, c)] = st[slot(LOST, c)]
        row[slot(R_SUICIDES, c)] = st[slot(SUICIDES_BY, c)]
        row[slot(R_PRISONERS, c)] = st[slot(LOST, opponent(c))]
        row[slot(R_DEAD, c)] = st[slot(DEAD, c)]
    lab, region = g.pt[LAB], g.pt[REGION]
    stones, regions, labels = counter(g, T_STONES), counter(g, T_REGIONS), counter(g, T_LABELS)
    ownership(g, region, lab, stones, regions, labels)
    row[R_PUBLIC] = labels[PUBLIC]
    for c in (BLACK, WHITE):
        row[slot(R_STONES, c)] = stones[c]
        row[slot(R_TERR, c)] = labels[c]
        row[slot(R_AREA2, c)] = 2 * (stones[c] + labels[c]) + labels[PUBLIC]
    row[R_CHINESE] = stones[BLACK] + regions[BLACK] - stones[WHITE] - regions[WHITE]
    japanese = counter(g, T_JAPANESE)
    japanese_territory(g, region, regions, japanese)
    row[R_JAPANESE] = (
        japanese[BLACK] + st[slot(LOST, WHITE)] - japanese[WHITE] - st[slot(LOST, BLACK)]
    )
    if not literal:
        return
    row[R_BALANCED], row[R_ES_DIFF2] = equal_stones(g, lab)
    moku = counter(g, T_MOKU)
    for c in (BLACK, WHITE):
        row[slot(R_MOKU, c)] = moku[c]


# RULESET_SCORE per ruleset index, for row_margin: the raw difference's field (area2_b_jpd for
# the JPD area, halved), and the field and colour code of the ruleset's point (-1: none)
_DIFF = np.array(
    [
        R_AREA2 if RULESET_SCORE[r][0] == "area_diff_jpd" else RAW_FIELDS.index(RULESET_SCORE[r][0])
        for r in RULESETS
    ]
)
_POINT_FIELD = np.array(
    [RAW_FIELDS.index(RULESET_SCORE[r][1][0]) if RULESET_SCORE[r][1] else -1 for r in RULESETS]
)
_POINT_BY = np.array(
    [1 + COLOURS.index(RULESET_SCORE[r][1][1]) if RULESET_SCORE[r][1] else 0 for r in RULESETS]
)


@njit(cache=True, _nrt=False)
def row_margin(row, ruleset, komi):
    """Black's margin under the ruleset ``ruleset`` (an index in RULESETS) with ``komi``, from
    a raw row: in the kernels, the margin of ``rulings``."""
    i = _DIFF[ruleset]
    diff = (row[i] - row[i + 1]) / 2 if i == R_AREA2 else np.float64(row[i])
    if _POINT_FIELD[ruleset] >= 0 and row[_POINT_FIELD[ruleset]] == _POINT_BY[ruleset]:
        diff -= 1.0
    return diff - komi


_NO_WINNER = np.array([False] + [e in NO_WINNER_ENDINGS for e in ENDINGS])


def rulings(raw, komi: dict) -> dict:
    """Every ruleset's (margin, winner code) from game values (docs/rules.md §8): ``raw`` maps the
    raw differences of ``RULESET_SCORE``, ``first_pass_or_virtual_by``, ``last_real_move_by``
    and ``resigned_by`` (colour codes, 0 for none) and ``ending`` (1 + the index in ENDINGS)
    to arrays. margin = difference - komi - the ruleset's point; the winner code indexes
    WINNERS by the margin's sign (-1: no winner, the endings of NO_WINNER_ENDINGS). After a
    resignation the margin is NaN and the other colour wins."""
    no_winner = _NO_WINNER[np.asarray(raw["ending"])]
    resigned = np.asarray(raw["resigned_by"])
    out = {}
    for ruleset, (diff, extra) in RULESET_SCORE.items():
        margin = np.asarray(raw[diff], np.float64) - komi[ruleset]
        if extra is not None:  # the ruleset's point: one off Black's margin when field = player
            field, player = extra
            margin = margin - (np.asarray(raw[field]) == 1 + COLOURS.index(player))
        winner = np.sign(margin).astype(np.int64) + 1
        winner[no_winner] = -1
        margin = np.where(resigned > 0, np.nan, margin)
        winner = np.where(resigned > 0, 2 * (resigned == WHITE), winner)  # the other colour
        out[ruleset] = (margin, winner)
    return out


def labels(codes: np.ndarray, values) -> pa.Array:
    """Arrow strings ``values[code]`` (-1: null), built through a dictionary: Arrow turns
    codes into strings about 4x faster than it reads an array of Python strings."""
    indices = pa.array(codes.astype(np.int8), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(values, pa.string())).cast(pa.string())


def outcome_arrays(rows: np.ndarray, rules) -> dict:
    """Named outcome columns (Arrow arrays of ``sim.schema.tables.OUTCOME_TYPES``) of raw rows of
    games played under ``rules`` (``sim.config.rules.Rules``)."""
    n = len(rows)
    size, komi = rules.board_size, rules.komi
    raw = {name: rows[:, i] for i, name in enumerate(RAW_FIELDS)}
    area_diff = (raw["area2_b_jpd"] - raw["area2_w_jpd"]) / 2
    out = {
        "board_size": np.full(n, size, np.int32),
        "repetition": labels(np.zeros(n, np.int8), [rules.repetition]),
        "suicide": labels(np.zeros(n, np.int8), [rules.suicide]),
        "ending": labels(raw["ending"] - 1, ENDINGS),
        "first_pass_or_virtual_by": labels(raw["first_pass_or_virtual_by"] - 1, COLOURS),
        "last_real_move_by": labels(raw["last_real_move_by"] - 1, COLOURS),
        "area_b_jpd": raw["area2_b_jpd"] / 2,
        "area_w_jpd": raw["area2_w_jpd"] / 2,
        "area_diff_jpd": area_diff,
        "equal_stones_diff": raw["equal_stones_diff2"] / 2,
    }
    for name, (margin, winner) in rulings({**raw, "area_diff_jpd": area_diff}, komi).items():
        out[f"margin_{name}"] = margin
        out[f"winner_{name}"] = labels(winner, WINNERS)
    values = {name: out[name] if name in out else raw[name] for name in OUTCOME_FIELDS}
    return {
        name: v if isinstance(v, pa.Array) else pa.array(v, OUTCOME_TYPES[name], from_pandas=True)
        for name, v in values.items()
    }


def columns(rows: np.ndarray, rules) -> dict:
    """``outcome_arrays`` as numpy arrays (strings as object arrays with None)."""
    return {
        name: values.to_numpy(zero_copy_only=False, writable=True)
        for name, values in outcome_arrays(rows, rules).items()
    }
