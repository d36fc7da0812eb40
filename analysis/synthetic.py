"""Synthetic runs in the dataset layout, for tests, benchmarks and demonstrations.

``games_table`` completes hand-made rows (defaults, margins and winners derived from the raw
differences); ``random_games`` draws plausible, mutually consistent games with vectorised numpy
(not played games: no engine is involved); ``write_run`` writes games/part-*.parquet and
manifest.json like a finished run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.schema import DEFAULT_KOMI, GAME_SCHEMA, NO_WINNER_ENDINGS, RULESETS

#: Optional columns written after the schema's own when given (none of GAME_SCHEMA's).
EXTRA_TYPES = {c: t for c, t in {"repetition_bans": pa.int32()}.items() if c not in GAME_SCHEMA.names}
_RAW = {"jpd_a": "area_diff_jpd", "jpd_b": "area_diff_jpd", "jpd_tangsong": "area_diff_jpd",
        "chinese": "area_diff_chinese", "japanese": "territory_diff_japanese"}


def results(cols: dict, komi: dict | None = None) -> dict:
    """margin_R and winner_R for every ruleset from the raw differences, the triggers and the
    ending (arrays in ``cols``); winners are object arrays of "B"/"W"/"draw"/None."""
    komi = {**DEFAULT_KOMI, **(komi or {})}
    first = np.asarray(cols["first_pass_or_virtual_by"], dtype=object)
    last = np.asarray(cols["last_real_move_by"], dtype=object)
    no_winner = np.isin(np.asarray(cols["ending"], dtype=object), NO_WINNER_ENDINGS)
    out = {}
    for r in RULESETS:
        margin = np.asarray(cols[_RAW[r]], dtype=np.float64) - komi[r]
        if r == "jpd_a":
            margin = margin - (first == "W")
        elif r == "jpd_tangsong":
            margin = margin - (last == "B")
        winner = np.where(margin > 0, "B", np.where(margin < 0, "W", "draw")).astype(object)
        winner[no_winner | np.isnan(margin)] = None
        out[f"margin_{r}"] = margin
        out[f"winner_{r}"] = winner
    return out


def games_table(rows: Sequence[dict] | pd.DataFrame, komi: dict | None = None,
                drop: Sequence[str] = ()) -> pa.Table:
    """A GAME_SCHEMA table from hand-made rows: given columns are kept, the rest defaulted.

    Defaults: board 9, global_superko, multi, ending pause, counts 0, first/last None,
    area_diff_jpd 0, chinese and japanese differences equal to area_diff_jpd,
    equal_stones_diff consistent with the A版 point, margins and winners derived
    (``results``) unless given; other numbers 0. ``drop``: columns to leave out (e.g.
    ``repetition_bans``, as in runs written before it was recorded)."""
    df = pd.DataFrame(list(rows) if not isinstance(rows, pd.DataFrame) else rows).copy()
    n = len(df)
    komi = {**DEFAULT_KOMI, **(komi or {})}

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
    fill("seed", lambda d: np.arange(n))
    fill("policy_b", "random")
    fill("policy_w", "random")
    fill("virtual_rate", 0.0)
    fill("board_size", 9)
    fill("max_actions", lambda d: 8 * np.asarray(d["board_size"]) ** 2)
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
            fill(field.name, 0.0 if pa.types.is_floating(field.type) else
                 (None if pa.types.is_string(field.type) else 0))
    df = df.astype(object).where(df.notna(), None)
    arrays = [pa.array(df[f.name].tolist(), type=f.type) for f in GAME_SCHEMA]
    names = list(GAME_SCHEMA.names)
    for c, typ in EXTRA_TYPES.items():
        if c in df.columns:
            arrays.append(pa.array(df[c].tolist(), type=typ))
            names.append(c)
    schema = pa.schema([pa.field(nm, a.type) for nm, a in zip(names, arrays)],
                       metadata=GAME_SCHEMA.metadata)
    table = pa.Table.from_arrays(arrays, schema=schema)
    return table.drop_columns([c for c in drop if c in table.column_names])


def _strings(values: Sequence[str], idx: np.ndarray) -> pa.Array:
    """A string array from indices into ``values`` (-1 = null), built without Python objects."""
    idx = np.asarray(idx)
    mask = idx < 0
    dictionary = pa.array(list(values), type=pa.string())
    arr = pa.DictionaryArray.from_arrays(pa.array(np.where(mask, 0, idx).astype(np.int32),
                                                  mask=mask), dictionary)
    return arr.cast(pa.string())


def random_games(n: int, *, board_size: int = 9, repetition: str = "global_superko",
                 suicide: str = "multi", policy_b: str = "random", policy_w: str = "random",
                 virtual_rate: float = 0.05, komi: dict | None = None, seed: int = 0,
                 first_game_id: int = 0, repetition_bans: bool = True) -> pa.Table:
    """``n`` plausible random games (consistent counts, areas, triggers, margins and winners)."""
    rng = np.random.default_rng([seed, first_game_id])
    komi = {**DEFAULT_KOMI, **(komi or {})}
    N2 = board_size * board_size
    i32 = np.int32
    # ending
    p4 = min(0.3, 0.02 + 2 * virtual_rate)
    p_cycle = 0.01 if repetition == "no_result" else 0.0
    p_limit = 0.01 if repetition == "basic_ko" else 0.001
    ending = rng.choice(4, size=n, p=[1 - p4 - p_cycle - p_limit, p4, p_cycle, p_limit])
    pause = ending == 0
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
    converted = rng.poisson(1.0, n) + 2 * (ending == 1)
    cb = rng.binomial(converted, 0.5)
    vb = rng.poisson(virtual_rate * 0.3 * N2, n) + cb + 2 * (ending == 1)
    vw = rng.poisson(virtual_rate * 0.3 * N2, n) + (converted - cb) + 2 * (ending == 1)
    bit = rng.integers(0, 2, n)
    t = (s_b + lost_b + vb) - (s_w + lost_w + vw) - bit
    lost_w += np.maximum(t, 0)
    lost_b += np.maximum(-t, 0)
    rb, rw = s_b + lost_b, s_w + lost_w
    passes = converted + 2 * pause
    moves = rb + rw + vb + vw
    actions = moves + passes - converted
    # triggers
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
        "seed": rng.integers(0, 2**62, n, dtype=np.int64),
        "policy_b": _strings([policy_b], np.zeros(n, np.int8)),
        "policy_w": _strings([policy_w], np.zeros(n, np.int8)),
        "virtual_rate": np.full(n, virtual_rate),
        "max_actions": np.full(n, 8 * N2, dtype=i32),
        **{f"komi_{r}": np.full(n, komi[r]) for r in RULESETS},
        "board_size": sizes,
        "repetition": _strings([repetition], np.zeros(n, np.int8)),
        "suicide": _strings([suicide], np.zeros(n, np.int8)),
        "ending": _strings(["pause", "four_virtual", "cycle", "move_limit"], ending),
        "actions": actions, "moves": moves,
        "real_moves_b": rb, "real_moves_w": rw, "virtual_moves_b": vb, "virtual_moves_w": vw,
        "passes": passes, "converted_passes": converted,
        "stones_lost_b": lost_b, "stones_lost_w": lost_w,
        "suicides_b": rng.binomial(lost_b, 0.02 if suicide == "multi" else 0.0),
        "suicides_w": rng.binomial(lost_w, 0.02 if suicide == "multi" else 0.0),
        "first_pass_or_virtual_by": _strings(["B", "W"], first),
        "last_real_move_by": _strings(["B", "W"], last),
        "stones_b": s_b, "stones_w": s_w, "public_points": q,
        "territory_b_jpd": t_b, "territory_w_jpd": t_w,
        "area_b_jpd": b_own + q / 2, "area_w_jpd": w_own + q / 2, "area_diff_jpd": d,
        "moku_b": moku_w + esd.astype(np.int64), "moku_w": moku_w, "balanced_moves": 2 * k,
        "equal_stones_diff": esd, "area_diff_chinese": chinese, "territory_diff_japanese": japanese,
        "prisoners_b": lost_w, "prisoners_w": lost_b,
    }
    margins = {}
    no_winner = (ending == 2) | (ending == 3)
    raw = {"area_diff_jpd": d, "area_diff_chinese": chinese.astype(np.float64),
           "territory_diff_japanese": japanese.astype(np.float64)}
    for r in RULESETS:
        m = raw[_RAW[r]] - komi[r]
        if r == "jpd_a":
            m = m - white_first
        elif r == "jpd_tangsong":
            m = m - (last == 0)
        margins[f"margin_{r}"] = m
        outcome = np.where(m > 0, 0, np.where(m < 0, 1, 2))
        margins[f"winner_{r}"] = _strings(["B", "W", "draw"], np.where(no_winner, -1, outcome))
    cols.update(margins)
    rate = 0.004 if repetition in ("basic_ko", "no_result") else 0.015
    cols["repetition_bans"] = rng.poisson(rate * moves).astype(i32)
    fields = list(GAME_SCHEMA) + [pa.field(c, t) for c, t in EXTRA_TYPES.items()]
    if not repetition_bans:  # as a run that does not record them
        fields = [f for f in fields if f.name != "repetition_bans"]
    arrays = [cols[f.name] if isinstance(cols[f.name], pa.Array) else
              pa.array(np.asarray(cols[f.name]).astype(f.type.to_pandas_dtype()), type=f.type)
              for f in fields]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=GAME_SCHEMA.metadata))


def write_run(run_dir: str | Path, tables: pa.Table | Iterable[pa.Table], config: dict,
              name: str | None = None) -> Path:
    """Write ``tables`` as games/part-00000.parquet, ... (zstd; each written to a temporary
    name, then renamed) and a manifest.json with ``config`` and the number of games."""
    run_dir = Path(run_dir)
    games = run_dir / "games"
    games.mkdir(parents=True, exist_ok=True)
    if isinstance(tables, pa.Table):
        tables = [tables]
    written = 0
    for i, table in enumerate(tables):
        final = games / f"part-{i:05d}.parquet"
        tmp = games / f".part-{i:05d}.parquet.tmp"
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               **GAME_SCHEMA.metadata})
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, final)
        written += table.num_rows
    manifest = {"name": name or run_dir.name, "config": config, "jpdsim_version": "synthetic",
                "games_written": written}
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return run_dir


def synthetic_run(run_dir: str | Path, games: int, *, board_size: int = 9,
                  repetition: str = "global_superko", suicide: str = "multi",
                  policy_b: str = "random", policy_w: str = "random", virtual_rate: float = 0.05,
                  seed: int = 0, rows_per_part: int = 1_000_000, name: str | None = None) -> Path:
    """Write a run of ``games`` random games (``random_games``) in parts of ``rows_per_part``."""
    config = {"board_size": board_size, "games": games, "seed": seed, "policy_b": policy_b,
              "policy_w": policy_w, "virtual_rate": virtual_rate, "repetition": repetition,
              "suicide": suicide, "max_actions": 8 * board_size ** 2, "komi": dict(DEFAULT_KOMI)}
    starts = range(0, games, rows_per_part)
    tables = (random_games(min(rows_per_part, games - s), board_size=board_size,
                           repetition=repetition, suicide=suicide, policy_b=policy_b,
                           policy_w=policy_w, virtual_rate=virtual_rate, seed=seed,
                           first_game_id=s) for s in starts)
    return write_run(run_dir, tables, config, name=name)
