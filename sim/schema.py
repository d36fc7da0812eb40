"""The vocabulary shared by the engine, the records and the analysis: one table each for the
rulesets (``RULESET_TABLE``), the player kinds (``PLAYER_TABLE``) and the columns of a game row
(``OUTCOME_TYPES``, ``RUN_TYPES``, ``VOCABULARY``), every other list derived from them, and the
named conversions of the engine's integer codes (colours, endings, winners). Imports neither
numba nor pandas."""

import pyarrow as pa

SCHEMA_VERSION = "4"

REPETITIONS = ("global_superko", "no_result", "board_superko", "situational_superko", "basic_ko")
SUICIDES = ("multi", "none")
ENDINGS = ("pause", "four_virtual", "cycle", "move_limit", "resign", "engine_error")

#: The rulesets, the ways a finished game is scored (docs/rules.md §7, §8): (default komi, the
#: stored raw difference it scores (Black - White, before komi), when Black pays one extra
#: point ((column, player) or None), what the analysis calls it).
#: margin = raw difference - komi - [column == player].
RULESET_TABLE = {
    "jpd_a": (6.5, "area_diff_jpd", ("first_pass_or_virtual_by", "W"), "JPD area, A版 point"),
    "jpd_b": (7.5, "area_diff_jpd", None, "JPD area"),
    "jpd_tangsong": (6.5, "area_diff_jpd", ("last_real_move_by", "B"), "JPD area, 唐宋版 point"),
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


NO_WINNER_ENDINGS = ("cycle", "move_limit", "engine_error")  # engine_error: sim.referee
#: Endings without a score: no winner, or a resignation (its winner is set, its margins null).
UNSCORED_ENDINGS = (*NO_WINNER_ENDINGS, "resign")
#: The player kinds (``sim.player.Player``; docs/rules.md §11): (the config keys of its
#: parameters, in canonical order; whether it is one of the simulator's own, a numba kernel of
#: ``sim.players`` chosen in ``sim.players.choose``). A new kind: its module, and a row here.
PLAYER_TABLE = {
    "random": ((), True),
    "capture": ((), True),
    "pattern": ((), True),
    "mcts": (
        ("visits", "playout", "play_for", "resign_below", "explore", "rave", "stop_early"),
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
#: Dead stones at a pause (docs/rules.md §4): "all_alive", the agreed ending 两弃终局; "agree",
#: the players name the dead stones (equal lists: removed; else play resumes, 实战解决).
DEAD_STONES = ("all_alive", "agree")
MAX_RESUMPTIONS = 3  # docs/rules.md §4 and §12: after 3 resumptions the next pause ends all alive

#: The raw outcome of one game as the engine writes it (``sim.engine.scoring.outcome_row``):
#: integers in this order; a per-colour field is a ``_b``, ``_w`` pair. ``sim.engine.outcome``
#: turns raw rows into the OUTCOME_TYPES columns (a raw field of the same name goes out as it
#: is) and ``repetition_bans``.
RAW_FIELDS = (
    "ending",
    "actions",
    "moves",
    "real_moves_b",
    "real_moves_w",
    "virtual_moves_b",
    "virtual_moves_w",
    "passes",
    "converted_passes",
    "stones_lost_b",
    "stones_lost_w",
    "suicides_b",
    "suicides_w",
    "first_pass_or_virtual_by",
    "last_real_move_by",
    "stones_b",
    "stones_w",
    "public_points",
    "territory_b_jpd",
    "territory_w_jpd",
    "area2_b_jpd",
    "area2_w_jpd",
    "moku_b",
    "moku_w",
    "balanced_moves",
    "equal_stones_diff2",
    "area_diff_chinese",
    "territory_diff_japanese",
    "prisoners_b",
    "prisoners_w",
    "dead_b",
    "dead_w",
    "resumptions",
    "resigned_by",
    "repetition_bans",
)

_str, _i32, _f64 = pa.string(), pa.int32(), pa.float64()

#: Every outcome field of one game, in order, with its Arrow type.
OUTCOME_TYPES = {
    "board_size": _i32,
    "repetition": _str,
    "suicide": _str,
    "ending": _str,
    "actions": _i32,
    "moves": _i32,
    "real_moves_b": _i32,
    "real_moves_w": _i32,
    "virtual_moves_b": _i32,
    "virtual_moves_w": _i32,
    "passes": _i32,
    "converted_passes": _i32,
    "stones_lost_b": _i32,
    "stones_lost_w": _i32,
    "suicides_b": _i32,
    "suicides_w": _i32,
    "first_pass_or_virtual_by": _str,
    "last_real_move_by": _str,
    "stones_b": _i32,
    "stones_w": _i32,
    "public_points": _i32,
    "territory_b_jpd": _i32,
    "territory_w_jpd": _i32,
    "area_b_jpd": _f64,
    "area_w_jpd": _f64,
    "area_diff_jpd": _f64,
    "moku_b": _i32,
    "moku_w": _i32,
    "balanced_moves": _i32,
    "equal_stones_diff": _f64,
    "area_diff_chinese": _i32,
    "territory_diff_japanese": _i32,
    "prisoners_b": _i32,
    "prisoners_w": _i32,
    "dead_b": _i32,  # stones removed as dead at the pause (agreed lists), by owner
    "dead_w": _i32,
    "resumptions": _i32,  # pauses whose lists differed: play resumed
}
for _r in RULESETS:
    OUTCOME_TYPES[f"margin_{_r}"] = _f64
    OUTCOME_TYPES[f"winner_{_r}"] = _str
OUTCOME_FIELDS = tuple(OUTCOME_TYPES)

#: Columns a run adds to the outcome of each game.
RUN_TYPES = {
    "game_id": pa.int64(),
    "seed": pa.int64(),
    "player_b": _str,  # the canonical string of each colour's player (sim.player.Player.name)
    "player_w": _str,
    "setup": _str,  # the start position's name (sim.setups), null for the empty board
    "virtual_rate": _f64,
    "max_actions": _i32,
    "repetition_bans": _i32,  # candidate moves the player drew that the repetition rule banned
    "engine_illegal": _i32,  # moves a program (gtp, katago) chose that the rules forbid (passes)
    **{f"komi_{r}": _f64 for r in RULESETS},
}

#: The values of each string column, in the analysis' category order.
VOCABULARY = {
    "repetition": REPETITIONS,
    "suicide": SUICIDES,
    "ending": ENDINGS,
    "first_pass_or_virtual_by": COLOURS,
    "last_real_move_by": COLOURS,
    **{f"winner_{r}": ("B", "W", "draw") for r in RULESETS},
}

GAME_SCHEMA = pa.schema(
    [pa.field(name, typ) for name, typ in {**RUN_TYPES, **OUTCOME_TYPES}.items()],
    metadata={"jpdsim.schema_version": SCHEMA_VERSION},
)
