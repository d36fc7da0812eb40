"""Synthetic runs in the dataset layout, for the tests and the benchmarks (a fixture, not part
of the library: ``bench/report_scale.py`` imports it from the repository root).

``games_table`` completes hand-made rows (defaults, margins and winners derived from the raw
differences); ``random_games`` draws plausible, mutually consistent games with vectorised numpy
(not played games: no engine is involved); ``write_run`` writes them as a finished run with the
dataset layer's own writers (``sim.dataset``), so ``sim.dataset.check.check_run`` accepts it.
The numbers are made up here, everything derived from them is the engine's: margins and
winners (``sim.engine.outcome.rulings``), the vocabularies (``sim.schema.tables.ENDINGS``,
``sim.schema.tables.COLOURS``/``WINNERS``), komi and the move cap (``sim.config.rules``), the run's
config (``sim.config.run.RunConfig``) and its manifest (``sim.dataset.manifest``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from sim.config.file import config_from_dict
from sim.config.rules import default_max_actions, resolve_komi
from sim.config.run import RunConfig
from sim.dataset import write
from sim.dataset.manifest import environment
from sim.engine.outcome import labels, rulings
from sim.run.folder import new_manifest, record
from sim.schema.tables import (
    COLOURS,
    DEFAULT_KOMI,
    ENDINGS,
    GAME_SCHEMA,
    RULESET_SCORE,
    RULESETS,
    WINNERS,
)

#: The manifest's ``jpdsim_version`` of a synthetic run: no jpdsim played its games.
SYNTHETIC_VERSION = "synthetic"

_WINNER_LABELS = np.array([*WINNERS, None], dtype=object)  # winner code -1 -> None


def codes(values, vocabulary: Sequence[str], column: str) -> np.ndarray:
    """The engine's raw codes of string values: 1 + the index in ``vocabulary``, 0 for None
    (``sim.engine.outcome.rulings``); ValueError names a value outside the vocabulary."""
    s = pd.Series(np.asarray(values, dtype=object), dtype=object)
    code = s.map({v: i + 1 for i, v in enumerate(vocabulary)})
    unknown = s.notna() & code.isna()
    if unknown.any():
        raise ValueError(
            f"column {column!r}: {s[unknown].iloc[0]!r} is not one of {', '.join(vocabulary)}"
        )
    return code.fillna(0).to_numpy(np.int64)


def results(cols: dict, komi: dict | None = None) -> dict:
    """margin_R and winner_R for every ruleset (``sim.schema.tables.RULESET_SCORE``) from the raw
    differences, the triggers ("B"/"W"/None) and the ending (names of
    ``sim.schema.tables.ENDINGS``), arrays in ``cols``, by the engine's rule
    (``sim.engine.outcome.rulings``); winners are object arrays of ``WINNERS`` labels
    ("W"/"draw"/"B"), None for no winner (or a NaN margin)."""
    raw = {diff: cols[diff] for diff, _ in RULESET_SCORE.values()}
    raw["ending"] = codes(cols["ending"], ENDINGS, "ending")
    for col in ("first_pass_or_virtual_by", "last_real_move_by"):
        raw[col] = codes(cols[col], COLOURS, col)
    raw["resigned_by"] = np.zeros(len(raw["ending"]), np.int64)  # no resignations here
    with np.errstate(invalid="ignore"):  # a NaN margin's sign: no winner, set below
        ruled = rulings(raw, resolve_komi(komi))
    out = {}
    for r, (margin, winner) in ruled.items():
        winner[np.isnan(margin)] = -1
        out[f"margin_{r}"] = margin
        out[f"winner_{r}"] = _WINNER_LABELS[winner]
    return out


def games_table(rows: Sequence[dict] | pd.DataFrame, komi: dict | None = None) -> pa.Table:
    """A GAME_SCHEMA table from hand-made rows: given columns are kept, the rest defaulted.

    Defaults: game ids 0, 1, ..., run seed 0, board 9, global_superko, multi, ending pause,
    counts 0, first/last None, area_diff_jpd 0, chinese and japanese differences equal to
    area_diff_jpd, equal_stones_diff consistent with the A版 point, margins and winners
    derived (``results``) unless given; other numbers 0."""
    df = pd.DataFrame(list(rows) if not isinstance(rows, pd.DataFrame) else rows).copy()
    n = len(df)
    komi = resolve_komi(komi)

    def fill(col, value):
        """Set ``col`` where it is absent or null to ``value`` (scalar, array or f(df))."""
        if col in df.columns and df[col].notna().all():
            return
        if callable(value):
            value = value(df)
        if not isinstance(value, (np.ndarray, pd.Series)):
            value = [value] * n
        value = pd.Series(value, index=df.index)
        df[col] = value if col not in df.columns else df[col].where(df[col].notna(), value)

    fill("game_id", lambda d: np.arange(n))
    fill("seed", 0)
    fill("player_b", "random")
    fill("player_w", "random")
    fill("virtual_rate", 0.0)
    fill("board_size", 9)
    fill("max_actions", lambda d: np.array([default_max_actions(int(b)) for b in d["board_size"]]))
    for r in RULESETS:
        fill(f"komi_{r}", komi[r])
    fill("repetition", "global_superko")
    fill("suicide", "multi")
    fill("ending", "pause")
    fill("first_pass_or_virtual_by", None)
    fill("last_real_move_by", None)
    fill("area_diff_jpd", 0.0)
    fill("area_diff_chinese", lambda d: d["area_diff_jpd"].astype(np.int64))
    fill("territory_diff_japanese", lambda d: d["area_diff_jpd"].astype(np.int64))
    fill("equal_stones_diff", lambda d: d["area_diff_jpd"] - (d["first_pass_or_virtual_by"] == "W"))
    derived = results({c: df[c].to_numpy() for c in df.columns}, komi)
    for c, v in derived.items():
        fill(c, v)
    for field in GAME_SCHEMA:
        if field.name not in df.columns:
            fill(
                field.name,
                0.0
                if pa.types.is_floating(field.type)
                else (None if pa.types.is_string(field.type) else 0),
            )
    df = df.astype(object).where(df.notna(), None)
    unknown = [c for c in df.columns if c not in GAME_SCHEMA.names]
    if unknown:
        raise ValueError(f"no column {unknown[0]!r} in GAME_SCHEMA")
    arrays = [pa.array(df[f.name].tolist(), type=f.type) for f in GAME_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=GAME_SCHEMA)


def random_games(
    n: int,
    *,
    board_size: int = 9,
    repetition: str = "global_superko",
    suicide: str = "multi",
    player_b: str = "random",
    player_w: str = "random",
    virtual_rate: float = 0.05,
    komi: dict | None = None,
    seed: int = 0,
    first_game_id: int = 0,
) -> pa.Table:
    """``n`` plausible random games (consistent counts, areas, triggers, margins and winners)
    with game ids ``first_game_id ..``; ``seed`` is the run seed (and the ``seed`` column)."""
    rng = np.random.default_rng([seed, first_game_id])
    komi = resolve_komi(komi)
    N2 = board_size * board_size
    i32 = np.int32
    # ending: an index into ENDINGS
    p4 = min(0.3, 0.02 + 2 * virtual_rate)
    p_cycle = 0.01 if repetition == "no_result" else 0.0
    p_limit = 0.01 if repetition == "basic_ko" else 0.001
    p_ending = {
        "pause": 1 - p4 - p_cycle - p_limit,
        "four_virtual": p4,
        "cycle": p_cycle,
        "move_limit": p_limit,
        "resign": 0.0,  # random players never resign
        "engine_error": 0.0,  # no GTP program plays
    }
    ending = rng.choice(len(ENDINGS), size=n, p=[p_ending[e] for e in ENDINGS])
    pause = ending == ENDINGS.index("pause")
    four = ending == ENDINGS.index("four_virtual")
    # final position: public points, each side's stones and territory
    q = np.minimum(rng.poisson(0.03 * N2 + 0.5, n), N2 // 4)
    own = N2 - q
    share = np.clip(rng.normal(0.5 + 3.5 / own, 0.09, n), 0.02, 0.98)  # Black leads ~7
    b_own = rng.binomial(own, share)
    w_own = own - b_own
    s_b, s_w = rng.binomial(b_own, 0.7), rng.binomial(w_own, 0.7)
    t_b, t_w = b_own - s_b, w_own - s_w
    d = (b_own - w_own).astype(np.float64)
    # moves: lost stones absorb the balance S_B - S_W in {0, 1}
    lost_b, lost_w = rng.poisson(0.2 * N2, n), rng.poisson(0.2 * N2, n)
    converted = rng.poisson(1.0, n) + 2 * four
    cb = rng.binomial(converted, 0.5)
    vb = rng.poisson(virtual_rate * 0.3 * N2, n) + cb + 2 * four
    vw = rng.poisson(virtual_rate * 0.3 * N2, n) + (converted - cb) + 2 * four
    bit = rng.integers(0, 2, n)
    t = (s_b + lost_b + vb) - (s_w + lost_w + vw) - bit
    lost_w += np.maximum(t, 0)
    lost_b += np.maximum(-t, 0)
    rb, rw = s_b + lost_b, s_w + lost_w
    passes = converted + 2 * pause
    moves = rb + rw + vb + vw
    actions = moves + passes - converted
    # triggers: an index into COLOURS (-1: none)
    any_pv = (vb + vw + passes) > 0
    first = np.where(rng.random(n) < 0.45, 0, 1)
    first = np.where((first == 0) & (vb == 0) & ~pause, 1, first)
    first = np.where((first == 1) & (vw == 0) & ~pause, 0, first)
    first = np.where(any_pv, first, -1)
    last = np.where(rb + rw > 0, rng.integers(0, 2, n), -1)
    white_first = first == 1
    esd = d - white_first
    k = (rw + vw).astype(np.int64)
    moku_w = t_w + s_w - k
    chinese = d + rng.choice([-1, 0, 1], size=n, p=[0.05, 0.9, 0.05])
    japanese = (t_b - t_w) + (lost_w - lost_b)
    sizes = np.full(n, board_size, dtype=i32)
    cols = {
        "game_id": np.arange(first_game_id, first_game_id + n, dtype=np.int64),
        "seed": np.full(n, seed, dtype=np.int64),
        "player_b": labels(np.zeros(n, np.int8), [player_b]),
        "player_w": labels(np.zeros(n, np.int8), [player_w]),
        "virtual_rate": np.full(n, virtual_rate),
        "max_actions": np.full(n, default_max_actions(board_size), dtype=i32),
        **{f"komi_{r}": np.full(n, komi[r]) for r in RULESETS},
        "board_size": sizes,
        "repetition": labels(np.zeros(n, np.int8), [repetition]),
        "suicide": labels(np.zeros(n, np.int8), [suicide]),
        "ending": labels(ending, ENDINGS),
        "actions": actions,
        "moves": moves,
        "real_moves_b": rb,
        "real_moves_w": rw,
        "virtual_moves_b": vb,
        "virtual_moves_w": vw,
        "passes": passes,
        "converted_passes": converted,
        "stones_lost_b": lost_b,
        "stones_lost_w": lost_w,
        "suicides_b": rng.binomial(lost_b, 0.02 if suicide == "multi" else 0.0),
        "suicides_w": rng.binomial(lost_w, 0.02 if suicide == "multi" else 0.0),
        "first_pass_or_virtual_by": labels(first, COLOURS),
        "last_real_move_by": labels(last, COLOURS),
        "stones_b": s_b,
        "stones_w": s_w,
        "public_points": q,
        "territory_b_jpd": t_b,
        "territory_w_jpd": t_w,
        "area_b_jpd": b_own + q / 2,
        "area_w_jpd": w_own + q / 2,
        "area_diff_jpd": d,
        "moku_b": moku_w + esd.astype(np.int64),
        "moku_w": moku_w,
        "balanced_moves": 2 * k,
        "equal_stones_diff": esd,
        "area_diff_chinese": chinese,
        "territory_diff_japanese": japanese,
        "prisoners_b": lost_w,
        "prisoners_w": lost_b,
        "dead_b": np.zeros(n, i32),  # random players keep every stone alive
        "dead_w": np.zeros(n, i32),
        "resumptions": np.zeros(n, i32),
    }
    raw = {  # the engine's raw codes (sim.engine.outcome.rulings)
        "area_diff_jpd": d,
        "area_diff_chinese": chinese,
        "territory_diff_japanese": japanese,
        "first_pass_or_virtual_by": first + 1,
        "last_real_move_by": last + 1,
        "ending": ending + 1,
        "resigned_by": np.zeros(n, np.int64),
    }
    for r, (margin, winner) in rulings(raw, komi).items():
        cols[f"margin_{r}"] = margin
        cols[f"winner_{r}"] = labels(winner, WINNERS)
    rate = 0.004 if repetition in ("basic_ko", "no_result") else 0.015
    cols["repetition_bans"] = rng.poisson(rate * moves).astype(i32)
    cols["engine_illegal"] = np.zeros(n, i32)
    cols["setup"] = pa.nulls(n, pa.string())  # from the empty board
    arrays = [
        cols[f.name]
        if isinstance(cols[f.name], pa.Array)
        else pa.array(np.asarray(cols[f.name]).astype(f.type.to_pandas_dtype()), type=f.type)
        for f in GAME_SCHEMA
    ]
    return pa.Table.from_arrays(arrays, schema=GAME_SCHEMA)


def run_config(config: dict | RunConfig, name: str | None = None) -> RunConfig:
    """A validated ``RunConfig`` from a config table (``sim.config.run`` keys; its name defaults
    to ``name``); UserError names a bad key."""
    if isinstance(config, RunConfig):
        return config
    return config_from_dict(dict(config), "synthetic run config", default_name=name)


def _shards(cfg: RunConfig, tables: Iterable[pa.Table]) -> Iterator[tuple[int, pa.Table]]:
    """Re-cut a stream of game tables into the run's shards (index, table)."""
    pending: list[pa.Table] = []
    have = given = index = 0
    for table in tables:
        pending.append(table)
        have += table.num_rows
        given += table.num_rows
        while index < cfg.n_shards and have >= len(cfg.shard_range(index)):
            size = len(cfg.shard_range(index))
            whole = pa.concat_tables(pending)
            yield index, whole.slice(0, size)
            pending, have, index = [whole.slice(size)], have - size, index + 1
    if given != cfg.games:
        raise ValueError(f"{given} games given, the config says {cfg.games}")


def write_run(
    run_dir: str | Path,
    tables: pa.Table | Iterable[pa.Table],
    config: dict | RunConfig,
    name: str | None = None,
) -> Path:
    """Write the games in ``tables`` (GAME_SCHEMA; game ids 0 .. games-1 in order, in tables of
    any size) as a finished run: one ``games/part-NNNNN.parquet`` per shard of the config and a
    manifest, with ``sim.dataset``'s own writers. The columns that are constant in a run (run
    seed, players, virtual rate, move cap, komi) are taken from the config; board size and
    rules must match it (ValueError otherwise). ``config``: a RunConfig or a config table
    (``sim.config.run`` keys: at least board_size and games); ``name``: the run name (default:
    the config's, else the folder's). Returns the folder, which ``sim.dataset.check.check_run``
    accepts."""
    run_dir = Path(run_dir)
    cfg = run_config(config, run_dir.name)
    if name is not None and name != cfg.name:
        cfg = dataclasses.replace(cfg, name=name)
    if cfg.record_moves != "none":
        raise ValueError('a synthetic run has no moves: record_moves must be "none"')
    run_dir.mkdir(parents=True, exist_ok=True)
    if isinstance(tables, pa.Table):
        tables = [tables]
    fixed = {
        "board_size": cfg.rules.board_size,
        "repetition": cfg.rules.repetition,
        "suicide": cfg.rules.suicide,
    }
    for index, table in _shards(cfg, tables):
        ids = cfg.shard_range(index)
        got = table.column("game_id").to_numpy()
        if not np.array_equal(got, np.arange(ids.start, ids.stop)):
            raise ValueError(f"shard {index}: game ids are not {ids.start}..{ids.stop - 1}")
        for col, want in fixed.items():
            values = table.column(col).unique().to_pylist()
            if values != [want]:
                raise ValueError(
                    f"shard {index}: column {col!r} holds {values}, the config says {want!r}"
                )
        columns = {c: table.column(c) for c in table.column_names}
        write.write_shard(
            run_dir, index, write.games_table(cfg, np.arange(ids.start, ids.stop), columns), None
        )
    manifest = new_manifest(cfg, None, {**environment(), "jpdsim_version": SYNTHETIC_VERSION})
    manifest["ended"] = manifest["started"]
    record(run_dir, manifest, cfg, range(cfg.n_shards), "complete")
    return run_dir


def synthetic_run(
    run_dir: str | Path,
    games: int,
    *,
    board_size: int = 9,
    repetition: str = "global_superko",
    suicide: str = "multi",
    player_b: str = "random",
    player_w: str = "random",
    virtual_rate: float = 0.05,
    seed: int = 0,
    shard_size: int = 1_000_000,
    name: str | None = None,
) -> Path:
    """Write a run of ``games`` random games (``random_games``), ``shard_size`` per shard."""
    config = {
        "board_size": board_size,
        "games": games,
        "shard_size": shard_size,
        "seed": seed,
        "players": {"black": player_b, "white": player_w},
        "virtual_rate": virtual_rate,
        "repetition": repetition,
        "suicide": suicide,
        "komi": dict(DEFAULT_KOMI),
    }
    cfg = run_config(config, name or Path(run_dir).name)
    tables = (
        random_games(
            len(cfg.shard_range(i)),
            board_size=board_size,
            repetition=repetition,
            suicide=suicide,
            player_b=player_b,
            player_w=player_w,
            virtual_rate=virtual_rate,
            seed=seed,
            first_game_id=cfg.shard_range(i).start,
        )
        for i in range(cfg.n_shards)
    )
    return write_run(run_dir, tables, cfg)
