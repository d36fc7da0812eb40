"""The vocabulary shared by the engine, the records and the analysis: one table each for the
rulesets (``RULESET_TABLE``), the player kinds (``PLAYER_TABLE``) and the columns of a game row
with the kernel's raw fields (``COLUMN_TABLE``), every other list derived from them, and the
named conversions of the engine's integer codes (colours, endings, winners). Imports neither
numba nor pandas."""

from typing import NamedTuple

import pyarrow as pa

SCHEMA_VERSION = "4"

REPETITIONS = ("global_superko", "no_result", "board_superko", "situational_superko", "basic_ko")
SUICIDES = ("multi", "none")
ENDINGS = ("pause", "four_virtual", "cycle", "move_limit", "resign", "engine_error")
#: The columns of who first passed or played a virtual move and who played the last real move.
FIRST, LAST = "first_pass_or_virtual_by", "last_real_move_by"

#: The rulesets, the ways a finished game is scored (docs/rules.md §7, §8): (default komi, the
#: stored raw difference it scores (Black - White, before komi), when Black pays one extra
#: point ((column, player) or None), what the analysis calls it).
#: margin = raw difference - komi - [column == player].
RULESET_TABLE = {
    "jpd_a": (6.5, "area_diff_jpd", (FIRST, "W"), "JPD area, A版 point"),
    "jpd_b": (7.5, "area_diff_jpd", None, "JPD area"),
    "jpd_tangsong": (6.5, "area_diff_jpd", (LAST, "B"), "JPD area, 唐宋版 point"),
    "chinese": (7.5, "area_diff_chinese", None, "Chinese area"),
    "japanese": (6.5, "territory_diff_japanese", None, "Japanese territory"),
}
RULESETS = tuple(RULESET_TABLE)
DEFAULT_KOMI = {r: komi for r, (komi, *_) in RULESET_TABLE.items()}
RULESET_SCORE = {r: (diff, point) for r, (_, diff, point, _) in RULESET_TABLE.items()}
RULESET_METHOD = {r: method for r, (*_, method) in RULESET_TABLE.items()}

#: The engine's codes in raw rows: a colour is 1 (Black) or 2 (White), 0 for none, and
#: ``COLOURS[code - 1]`` in the rows; an ending is 0 while the game goes on, else
#: ``ending_code``; a winner is the sign of Black's margin + 1, ``WINNERS[code]``.
COLOURS = ("B", "W")
WINNERS = ("W", "draw", "B")


def ending_code(name: str) -> int:
    """The engine's code of the ending ``name`` (one of ENDINGS)."""
    return 1 + ENDINGS.index(name)


def ending_name(code: int) -> str | None:
    """The ending of the engine's ``code`` (None: the game goes on)."""
    return ENDINGS[code - 1] if code else None


NO_WINNER_ENDINGS = ("cycle", "move_limit", "engine_error")  # engine_error: sim.play.referee
#: Endings without a score: no winner, or a resignation (its winner is set, its margins null).
UNSCORED_ENDINGS = (*NO_WINNER_ENDINGS, "resign")
#: The player kinds (``sim.config.player.Player``; docs/rules.md §11): (the config keys of its
#: parameters, in canonical order; whether it is one of the simulator's own, a numba kernel of
#: ``sim.players`` chosen in ``sim.players.choose``). A new kind: its module, and a row here.
PLAYER_TABLE = {
    "random": ((), True),
    "capture": ((), True),
    "pattern": ((), True),
    "mcts": (
        (
            "visits",
            "playout",
            "play_for",
            "resign_below",
            "explore",
            "rave",
            "stop_early",
            "prior",
            "score_utility",
            "prior_visits",
            "tactics",
            "doubt_passes",
            "avoid_suicides",
        ),
        True,
    ),
    "gtp": (
        (
            "name",
            "command",
            "genmove_timeout",
            "komi_to_engine",
            "play_for",
            "startup_timeout",
            "command_timeout",
        ),
        False,
    ),
    "kofight": (("threat_rate", "playout"), True),
    "katago": (
        (
            "name",
            "command",
            "model",
            "config",
            "visits",
            "play_for",
            "sample_moves",
            "in_flight",
            "move_timeout",
            "startup_timeout",
        ),
        False,
    ),
}
PLAYERS = tuple(PLAYER_TABLE)
NATIVE_PLAYERS = tuple(k for k, (_, native) in PLAYER_TABLE.items() if native)
PLAYER_PARAMETERS = {k: keys for k, (keys, _) in PLAYER_TABLE.items()}
#: The playout policies of a searching player.
PLAYOUTS = ("random", "pattern")
#: The move priors of a searching player: hand-set weights, or learned ones
#: (``sim.players.prior``), with diamond patterns too.
PRIORS = ("hand", "learned", "diamond")
#: Dead stones at a pause (docs/rules.md §4): "all_alive", the agreed ending 两弃终局; "agree",
#: the players name the dead stones (equal lists: removed; else play resumes, 实战解决).
DEAD_STONES = ("all_alive", "agree")
MAX_RESUMPTIONS = 3  # docs/rules.md §4 and §12: after 3 resumptions the next pause ends all alive

#: The kinds of column: where a column's values come from, hence the lists it is in.
RULE = "rule"  # a rule of the run: in the outcome, fixed by the run, a config column
RAW = "raw"  # a raw outcome field: the kernel's integer, stored under its name (a code as its name)
WORK = "work"  # a raw field the kernel writes for outcome columns to be computed from; not stored
HALF = "half"  # an outcome column computed from raw fields, whole or half points (float32 read)
DERIVED = "derived"  # an outcome column computed from raw fields and the komi (margins, winners)
GAME = "game"  # a column a run adds to the outcome of each game
TALLY = "tally"  # a raw field a run stores beside the outcome
CONFIG = "config"  # a column the run fixes that says how its games were played
RUN = "run"  # a column the run fixes (a komi sweep: per komi) that is no config


class Column(NamedTuple):
    """A row of ``COLUMN_TABLE``."""

    type: pa.DataType | None  # None: not stored
    kind: str
    values: tuple[str, ...] | None = None  # a string column's values, in the category order


_str, _i32, _i64, _f64 = pa.string(), pa.int32(), pa.int64(), pa.float64()
#: Every column of a game row and every raw field, named once: the outcome (the replay
#: contract, ``sim.engine.outcome.outcome_arrays``), then what a run adds, which comes first in
#: the files (``GAME_SCHEMA``). The raw fields (``RAW_FIELDS``) are in the order of the
#: kernel's rows (``sim.engine.outcome.outcome_row``); a per-colour field is a ``_b``, ``_w``
#: pair.
COLUMN_TABLE = {
    "board_size": Column(_i32, RULE),
    "repetition": Column(_str, RULE, REPETITIONS),
    "suicide": Column(_str, RULE, SUICIDES),
    "ending": Column(_str, RAW, ENDINGS),
    "actions": Column(_i32, RAW),
    "moves": Column(_i32, RAW),
    "real_moves_b": Column(_i32, RAW),
    "real_moves_w": Column(_i32, RAW),
    "virtual_moves_b": Column(_i32, RAW),
    "virtual_moves_w": Column(_i32, RAW),
    "passes": Column(_i32, RAW),
    "converted_passes": Column(_i32, RAW),
    "stones_lost_b": Column(_i32, RAW),
    "stones_lost_w": Column(_i32, RAW),
    "suicides_b": Column(_i32, RAW),
    "suicides_w": Column(_i32, RAW),
    FIRST: Column(_str, RAW, COLOURS),
    LAST: Column(_str, RAW, COLOURS),
    "stones_b": Column(_i32, RAW),
    "stones_w": Column(_i32, RAW),
    "public_points": Column(_i32, RAW),
    "territory_b_jpd": Column(_i32, RAW),
    "territory_w_jpd": Column(_i32, RAW),
    "area2_b_jpd": Column(None, WORK),  # twice the area: the areas go out in half points
    "area2_w_jpd": Column(None, WORK),
    "area_b_jpd": Column(_f64, HALF),
    "area_w_jpd": Column(_f64, HALF),
    "area_diff_jpd": Column(_f64, HALF),
    "moku_b": Column(_i32, RAW),
    "moku_w": Column(_i32, RAW),
    "balanced_moves": Column(_i32, RAW),
    "equal_stones_diff2": Column(None, WORK),
    "equal_stones_diff": Column(_f64, HALF),
    "area_diff_chinese": Column(_i32, RAW),
    "territory_diff_japanese": Column(_i32, RAW),
    "prisoners_b": Column(_i32, RAW),
    "prisoners_w": Column(_i32, RAW),
    "dead_b": Column(_i32, RAW),  # stones removed as dead at the pause (agreed lists), by owner
    "dead_w": Column(_i32, RAW),
    "resumptions": Column(_i32, RAW),  # pauses whose lists differed: play resumed
    "resigned_by": Column(None, WORK),
    **{
        name: column
        for r in RULESETS
        for name, column in (
            (f"margin_{r}", Column(_f64, DERIVED)),
            (f"winner_{r}", Column(_str, DERIVED, ("B", "W", "draw"))),
        )
    },
    "game_id": Column(_i64, GAME),
    "seed": Column(_i64, RUN),
    "player_b": Column(_str, CONFIG),  # each colour's canonical player (sim.config.player)
    "player_w": Column(_str, CONFIG),
    # the start position's name (sim.config.setups), null: the empty board
    "setup": Column(_str, GAME),
    "virtual_rate": Column(_f64, CONFIG),
    "max_actions": Column(_i32, CONFIG),
    "repetition_bans": Column(_i32, TALLY),  # candidate moves drawn that the repetition rule banned
    "engine_illegal": Column(_i32, GAME),  # moves a program chose that the rules forbid (passes)
    **{f"komi_{r}": Column(_f64, RUN) for r in RULESETS},
}


def columns_of(*kinds: str) -> tuple[str, ...]:
    """The names of the ``COLUMN_TABLE`` rows of these kinds, in its order."""
    return tuple(name for name, column in COLUMN_TABLE.items() if column.kind in kinds)


#: The raw outcome of one game as the kernel writes it: integers in this order
#: (``sim.engine.outcome`` looks its ``R_*`` indices up here by name).
RAW_FIELDS = columns_of(RAW, WORK, TALLY)
#: Every outcome column of one game, in order, with its Arrow type.
OUTCOME_TYPES = {name: COLUMN_TABLE[name].type for name in columns_of(RULE, RAW, HALF, DERIVED)}
OUTCOME_FIELDS = tuple(OUTCOME_TYPES)
#: The columns that hold one value for every game of a run (of a komi, in a komi sweep).
RUN_COLUMNS = columns_of(RULE, CONFIG, RUN)
#: The columns that say how a game was played (the analysis' ``config``).
CONFIG_COLUMNS = columns_of(RULE, CONFIG)
#: The values of each string column, in the analysis' category order.
VOCABULARY = {name: c.values for name, c in COLUMN_TABLE.items() if c.values is not None}
#: The columns of a games file: what a run adds, then the outcome.
GAME_SCHEMA = pa.schema(
    [
        pa.field(name, COLUMN_TABLE[name].type)
        for name in columns_of(GAME, TALLY, CONFIG, RUN) + OUTCOME_FIELDS
    ],
    metadata={"jpdsim.schema_version": SCHEMA_VERSION},
)
