"""The names in a run folder (see ``sim.dataset``): files, shard parts, the moves schema, and
the values a run fixes in its game columns."""

from __future__ import annotations

import re

import pyarrow as pa

from sim.config.run import RunConfig
from sim.schema.tables import RULESETS, RUN_COLUMNS, SCHEMA_VERSION

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
#: The temporary names of manifest.json while it is written (``sim.files.write_text_atomic``).
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


def run_constants(cfg: RunConfig) -> dict:
    """The values of ``sim.schema.tables.RUN_COLUMNS`` in a run, in that order."""
    rules = cfg.rules
    values = {
        "board_size": rules.board_size,
        "repetition": rules.repetition,
        "suicide": rules.suicide,
        "seed": cfg.seed,
        "player_b": cfg.black.name,
        "player_w": cfg.white.name,
        "virtual_rate": cfg.virtual_rate,
        "max_actions": rules.max_actions,
        **{f"komi_{r}": rules.komi[r] for r in RULESETS},
    }
    return {name: values[name] for name in RUN_COLUMNS}


def newer_schema(version) -> bool:
    """Whether a schema version (of a file or a manifest) is newer than this jpdsim's."""
    return str(version).isdigit() and int(version) > int(SCHEMA_VERSION)
