"""The column table (``sim.schema.tables.COLUMN_TABLE``): every list of columns derives from it and
agrees with what the engine, the writer and the analysis produce and read."""

import hashlib

import numpy as np
import pyarrow as pa

from analysis import counts, groups, load, stats
from analysis.cycles import STRESS_BY
from sim.commands.stress import _RUN_COLUMNS
from sim.config.player import Player
from sim.config.rules import Rules
from sim.config.run import RunConfig
from sim.dataset.layout import run_constants
from sim.dataset.write import games_table
from sim.play.selfplay import batch_columns
from sim.schema.tables import (
    COLUMN_TABLE,
    CONFIG_COLUMNS,
    GAME_SCHEMA,
    HALF,
    OUTCOME_FIELDS,
    OUTCOME_TYPES,
    RAW,
    RAW_FIELDS,
    RUN_COLUMNS,
    SCHEMA_VERSION,
    VOCABULARY,
    WORK,
    columns_of,
)
from tests import synthetic

#: The digest of GAME_SCHEMA's names and types at each schema version: a change of the files'
#: columns is a new version (readers refuse files of another).
SCHEMA_DIGESTS = {"4": "861f66eb1c1836b2"}


def test_the_files_schema_changes_only_with_its_version():
    text = " ".join(f"{f.name}:{f.type}" for f in GAME_SCHEMA)
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == SCHEMA_DIGESTS[SCHEMA_VERSION]


def test_every_column_is_stored_once_and_every_raw_field_is_read():
    stored = [name for name, column in COLUMN_TABLE.items() if column.type is not None]
    assert sorted(GAME_SCHEMA.names) == sorted(stored)
    assert [GAME_SCHEMA.field(n).type for n in stored] == [COLUMN_TABLE[n].type for n in stored]
    assert set(columns_of(WORK)).isdisjoint(GAME_SCHEMA.names)
    assert set(RAW_FIELDS) - set(columns_of(WORK)) <= set(GAME_SCHEMA.names)
    assert GAME_SCHEMA.names[-len(OUTCOME_FIELDS) :] == list(OUTCOME_FIELDS)
    assert set(CONFIG_COLUMNS) <= set(RUN_COLUMNS) <= set(GAME_SCHEMA.names)


def test_string_columns_have_their_values():
    strings = {f.name for f in GAME_SCHEMA if pa.types.is_string(f.type)}
    assert set(VOCABULARY) <= strings
    # a raw code goes out as the name of its code: the vocabulary names every code
    assert {n for n in columns_of(RAW) if n in strings} <= set(VOCABULARY)


def test_a_batch_and_its_run_make_the_files_schema():
    """The engine's outcome columns, the batch's own and the run's constants are every column
    of GAME_SCHEMA with its type, in order."""
    cfg = RunConfig(
        name="t",
        games=3,
        rules=Rules(7, repetition="basic_ko"),
        black=Player("mcts", visits=8),
        seed=5,
    )
    rows = np.zeros((3, len(RAW_FIELDS)), np.int64)
    rows[:, RAW_FIELDS.index("ending")] = 1
    columns = batch_columns(rows, cfg.rules, np.zeros(3, np.int32), [None] * 3, arrow=True)
    assert [n for n in columns if n in OUTCOME_TYPES] == list(OUTCOME_FIELDS)
    table = games_table(cfg, np.arange(3), columns)
    assert table.schema.equals(GAME_SCHEMA, check_metadata=True)
    constants = run_constants(cfg)
    assert list(constants) == list(RUN_COLUMNS)
    assert {n: table[n].unique().to_pylist() for n in RUN_COLUMNS} == {
        n: [v] for n, v in constants.items()
    }


def test_the_analysis_reads_its_columns_from_the_table():
    assert counts.BASE == ("run", *CONFIG_COLUMNS, "setup")
    assert groups.SOURCES["config"] == CONFIG_COLUMNS
    assert load.HALF_POINT_COLUMNS == columns_of(HALF)
    read = counts._columns()
    assert set(read) <= set(GAME_SCHEMA.names)
    for inputs, _ in stats.DERIVED.values():
        assert set(inputs) <= set(read)
    assert set(_RUN_COLUMNS) == {"games", *STRESS_BY}


def test_derived_columns_are_computed_from_their_inputs():
    games = synthetic.games_table(
        [
            {"repetition_bans": 2, "equal_stones_diff": 2.0, "area_diff_jpd": 3.0},
            {"converted_passes": 1, "first_pass_or_virtual_by": "W", "area_diff_jpd": 3.0},
        ]
    ).to_pandas()
    got = {name: stats.column(games, name).tolist() for name in stats.DERIVED}
    assert got == {
        "with a ban": [True, False],
        "with a conversion": [False, True],
        "self-check": [2, 1],
    }
    for name, (inputs, _) in stats.DERIVED.items():
        assert stats.column(games[list(inputs)], name).tolist() == got[name]
