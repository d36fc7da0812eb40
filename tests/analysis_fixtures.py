"""Hand-made games and small runs for the analysis tests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis import load
from sim.schema.tables import DEFAULT_KOMI
from tests import synthetic


def frame(rows, komi=None) -> pd.DataFrame:
    """A games frame (loader dtypes) from hand-made rows completed by ``games_table``."""
    return load.compact(synthetic.games_table(rows, komi).to_pandas())


def config(games, board_size=9, repetition="global_superko", **extra) -> dict:
    """A run config for ``games`` hand-made games: two shards when there are more than 3."""
    return {
        "board_size": board_size,
        "games": games,
        "shard_size": -(-games // 2) if games > 3 else games,
        "repetition": repetition,
        "komi": dict(DEFAULT_KOMI),
        **extra,
    }


def write_run(root: Path, name: str, rows, **cfg) -> Path:
    """A run folder ``root/name`` holding ``rows`` (game ids 0 .. n-1)."""
    table = synthetic.games_table(rows)
    return synthetic.write_run(root / name, table, config(table.num_rows, **cfg), name=name)


# Known numbers for rows_superko(): JPD area difference d, who passed first, who finished last.
#   d = 7 with Black (or nobody) first -> A版 says B, B版 says W: games 0, 3 (two A/B differences)
#   game 5 is planted to fail the JPD self-check.
PLANTED_BAD_GAME = 5


def rows_superko() -> list[dict]:
    """12 games on 9x9 under global_superko, with repetition bans recorded."""
    spec = [  # d, first, last, ending, moves, converted passes, bans
        (7, "B", "W", "pause", 90, 1, 0),
        (7, "W", "B", "pause", 95, 0, 2),
        (-3, "W", "W", "pause", 80, 2, 0),
        (7, None, "B", "pause", 70, 0, 1),
        (12, "B", "B", "four_virtual", 110, 3, 0),
        (5, "W", "B", "pause", 100, 1, 4),
        (-10, "B", "W", "pause", 85, 0, 0),
        (0, "W", "W", "pause", 92, 1, 0),
        (8, "B", "W", "move_limit", 648, 5, 9),
        (20, "W", "B", "pause", 99, 0, 0),
        (-1, "B", "B", "four_virtual", 101, 2, 1),
        (6, "W", "B", "pause", 97, 1, 0),
    ]
    rows = []
    for i, (d, first, last, ending, moves, conv, bans) in enumerate(spec):
        rows.append(
            {
                "game_id": i,
                "area_diff_jpd": float(d),
                "first_pass_or_virtual_by": first,
                "last_real_move_by": last,
                "ending": ending,
                "moves": moves,
                "actions": moves + conv + (2 if ending == "pause" else 0),
                "passes": conv + (2 if ending == "pause" else 0),
                "converted_passes": conv,
                "virtual_moves_b": conv,
                "virtual_moves_w": 0,
                "repetition_bans": bans,
                "area_diff_chinese": d + (1 if i % 4 == 0 else 0),
                "territory_diff_japanese": d - (i % 3),
            }
        )
    rows[5]["equal_stones_diff"] = 3.0  # should be 5 - 1 = 4: the planted bad game
    return rows


def rows_no_result() -> list[dict]:
    """8 games on 7x7 under no_result (two cycles), no repetition bans."""
    spec = [
        (9, "B", "W", "pause"),
        (3, "W", "B", "cycle"),
        (-2, "B", "B", "pause"),
        (9, "W", "W", "pause"),
        (4, "B", "W", "cycle"),
        (15, "W", "B", "four_virtual"),
        (9, "B", "B", "pause"),
        (1, "W", "W", "pause"),
    ]
    return [
        {
            "game_id": i,
            "board_size": 7,
            "repetition": "no_result",
            "area_diff_jpd": float(d),
            "first_pass_or_virtual_by": f,
            "last_real_move_by": la,
            "ending": e,
            "moves": 40 + 3 * i,
            "actions": 42 + 3 * i,
            "passes": 2,
            "converted_passes": i % 2,
            "virtual_moves_b": i % 2,
            "virtual_moves_w": 0,
        }
        for i, (d, f, la, e) in enumerate(spec)
    ]


def two_runs(root: Path) -> list[Path]:
    """Two small runs in ``root``: 9x9 under global superko and 7x7 under no_result."""
    a = write_run(root, "superko-9", rows_superko())
    b = write_run(root, "noresult-7", rows_no_result(), board_size=7, repetition="no_result")
    return [a, b]
