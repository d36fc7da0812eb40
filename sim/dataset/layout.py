"""The names in a run folder (see ``sim.dataset``): files, shard parts, the moves schema, and
the game columns whose values a run fixes."""

from __future__ import annotations

import re

import pyarrow as pa

from sim.config import RunConfig
from sim.schema import RULESETS, SCHEMA_VERSION

MANIFEST = "manifest.json"
LOG = "run.log"
LOCK = ".lock"
GAMES, MOVES = "games", "moves"
MOVES_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.int64()),
        pa.field("actions", pa.list_(pa.field("element", pa.int16()))),
    ],  # Parquet's item name
    metadata={"jpdsim.schema_version": SCHEMA_VERSION, "jpdsim.kind": "moves"},
)
#: A whole shard file, and the temporary name it is written under.
PART = re.compile(r"part-(\d{5,})\.parquet")
TMP = re.compile(r"\.part-(\d{5,})\.parquet\.tmp")
#: The temporary names of manifest.json while it is written (``write.write_text_atomic``).
MANIFEST_TMP = re.compile(r"\.manifest\.json\..+\.tmp")


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def tmp_name(index: int) -> str:
    return f".part-{index:05d}.parquet.tmp"


def format_ranges(indices) -> str:
    """Shard indices in short: ``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    runs = []
    for i in sorted(indices):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


#: The GAME_SCHEMA columns that hold one value for every game of a run.
RUN_COLUMNS = (
    "board_size",
    "repetition",
    "suicide",
    "seed",
    "player_b",
    "player_w",
    "virtual_rate",
    "max_actions",
    *(f"komi_{r}" for r in RULESETS),
)


def run_constants(cfg: RunConfig) -> dict:
    """The values of RUN_COLUMNS in a run."""
    rules = cfg.rules
    return dict(
        zip(
            RUN_COLUMNS,
            (
                rules.board_size,
                rules.repetition,
                rules.suicide,
                cfg.seed,
                cfg.black.name,
                cfg.white.name,
                cfg.virtual_rate,
                rules.max_actions,
                *(rules.komi[r] for r in RULESETS),
            ),
        )
    )


def newer_schema(version) -> bool:
    """Whether a schema version (of a file or a manifest) is newer than this jpdsim's."""
    return str(version).isdigit() and int(version) > int(SCHEMA_VERSION)
