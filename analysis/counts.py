"""Streamed exact statistics: the analysis of runs of any size in memory that does not grow
with the number of games.

Every table of the analysis is a function of counts: winners per pair of rulesets, who passed
first and who finished last, histograms of the (half-point) score differences, of endings and
of game lengths. A ``Cube`` names key columns and summed columns; ``reduce`` turns a frame of
games into the cube's weighted frame (one row per combination of keys that occurs, the number
of its games in ``stats.WEIGHT``, the sums of the summed columns) and ``merge`` adds weighted
frames up, exactly. ``compute`` reads each run batch by batch through the checked read path
(``analysis.load.read_run``: only the columns the cubes need, every page checked), reduces each
batch to every cube and merges the results, in this process or on a Dask cluster
(``scheduler``). Its ``Statistics`` go to the table functions in place of a frame of games:
``frame`` hands each the cube that holds its columns, and the tables are the same as from the
games themselves. Two row selections come along: the first games that fail the JPD self-check
and the first cycle or four-virtual game of each group (``analysis.cycles``).

Longer than 300 lines on purpose: each table's cube is declared beside its reduction, so that
a table and its statistics change together."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import groups, load, runs, stats
from analysis.stats import WEIGHT
from sim.dataset.check import RunState
from sim.errors import UserError
from sim.schema.tables import CONFIG_COLUMNS, FIRST, LAST, RULESET_SCORE, RULESETS

#: Keys of every cube: what a table may group by (``run`` only when there are several runs).
BASE = ("run", *CONFIG_COLUMNS, "setup")
#: Games read per batch (whole shards: at least one).
BATCH_ROWS = 1_000_000
#: Games that fail the JPD self-check, kept to be listed (the cubes count them all).
SELF_CHECK_ROWS = 1000
SELF_CHECK_COLUMNS = (
    *BASE,
    "game_id",
    "ending",
    FIRST,
    "area_diff_jpd",
    "equal_stones_diff",
)
#: Endings whose first game per group is kept as an example.
EXAMPLE_ENDINGS = ("cycle", "four_virtual")


#: The lowest game id of a cube row's games (the order in which the loader meets values).
FIRST_GAME = "first game"


@dataclass(frozen=True)
class Cube:
    """A weighted frame's key columns (game columns or ``stats.DERIVED``), summed columns,
    and whether it keeps ``FIRST_GAME``."""

    keys: tuple[str, ...]
    sums: tuple[str, ...] = ()
    first_game: bool = False


#: The cubes every table is computed from (``frame`` takes the first that has its columns).
#: The komis are keys of ``outcomes`` (a komi sweep's games differ in them; in a run of one
#: komi they are constant and cost no rows).
CUBES = {
    "outcomes": Cube(
        BASE
        + ("ending", FIRST, LAST, "area_diff_jpd", "margin_jpd_a", "margin_jpd_b")
        + tuple(f"winner_{r}" for r in RULESETS)
        + tuple(f"komi_{r}" for r in RULESETS),
        first_game=True,
    ),
    **{
        f"lead {raw}": Cube(BASE + ("ending", raw))
        for raw in dict.fromkeys(RULESET_SCORE[r][0] for r in RULESETS)
        if raw != "area_diff_jpd"
    },
    "moves": Cube(BASE + ("moves",)),
    "actions": Cube(BASE + ("actions",)),
    "play": Cube(
        BASE + ("ending", "with a ban", "with a conversion", "self-check"),
        sums=(
            "repetition_bans",
            "moves",
            "passes",
            "converted_passes",
            "virtual_moves_b",
            "virtual_moves_w",
        ),
    ),
}


@dataclass
class Statistics:
    """The merged cubes of some runs (name -> weighted frame, ``CUBES``) and the kept rows
    (``self-check``, ``examples``); what the table functions take in place of games."""

    cubes: dict[str, pd.DataFrame]
    rows: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return stats.games(self.cubes["outcomes"])

    def __contains__(self, column: str) -> bool:
        """Whether the statistics have a key column (``"run" in data``, as in a frame)."""
        return column in self.cubes["outcomes"].columns

    def where(self, keep: Callable[[pd.DataFrame], pd.Series]) -> Statistics:
        """The statistics of the games whose keys pass ``keep`` (a mask of a frame's rows,
        from columns of ``BASE``; e.g. ``lambda f: f["setup"].notna()``)."""

        def sub(f: pd.DataFrame) -> pd.DataFrame:
            return f[np.asarray(keep(f), dtype=bool)].reset_index(drop=True)

        return Statistics(
            {k: sub(f) for k, f in self.cubes.items()}, {k: sub(f) for k, f in self.rows.items()}
        )

    def save(self, path: str | Path) -> None:
        with open(path, "wb") as f:
            pickle.dump(self, f, protocol=pickle.HIGHEST_PROTOCOL)


def load_statistics(path: str | Path) -> Statistics:
    """Statistics written by ``Statistics.save`` (by ``jpdsim report``, for its notebooks)."""
    with open(path, "rb") as f:
        return pickle.load(f)


def frame(data, columns: Iterable[str] = (), by=None, sums: Iterable[str] = ()) -> pd.DataFrame:
    """The frame a table computes from: ``data`` itself when it is a frame of games (or a
    weighted frame), else the first cube of the ``Statistics`` with ``columns`` and the group
    columns of ``by`` as keys and ``sums`` summed."""
    if isinstance(data, pd.DataFrame):
        return data
    need = {*columns, *groups.source_columns(by)}
    for name, f in data.cubes.items():
        cube = CUBES[name]
        if need <= set(cube.keys) & set(f.columns) and set(sums) <= set(cube.sums):
            return f
    raise KeyError(f"no cube has the columns {sorted(need)} and the sums {sorted(sums)}")


def selected(data, name: str) -> pd.DataFrame:
    """The kept rows ``name`` of ``Statistics`` (``self-check``, ``examples``), or ``data``
    itself when it is a frame of games."""
    return data if isinstance(data, pd.DataFrame) else data.rows[name]


def _constant(values: pd.Series) -> bool:
    """Whether a column holds one value in every row (nulls count as varying)."""
    if len(values) == 0:
        return False
    v = values.cat.codes if isinstance(values.dtype, pd.CategoricalDtype) else values
    v = v.to_numpy()
    return bool((v == v[0]).all())


def reduce(df: pd.DataFrame, cube: Cube) -> pd.DataFrame:
    """The weighted frame of ``cube`` from a frame of games or a weighted frame (then it is
    merged: weights and sums add up); a key the frame lacks (``run`` of one run) is left out."""
    keys = [k for k in cube.keys if k in df.columns or k in stats.DERIVED]
    work = {k: df[k] if k in df.columns else stats.column(df, k) for k in keys}
    work = pd.DataFrame(work, index=df.index)
    aggregate = dict.fromkeys(cube.sums, "sum")
    for s in cube.sums:
        work[s] = df[s].to_numpy(dtype=np.int64)
    work[WEIGHT] = stats.weights(df)
    aggregate[WEIGHT] = "sum"
    if cube.first_game:
        first = df[FIRST_GAME] if FIRST_GAME in df.columns else df["game_id"]
        work[FIRST_GAME] = first.to_numpy(dtype=np.int64)
        aggregate[FIRST_GAME] = "min"
    varying = [k for k in keys if not _constant(work[k])]
    if varying:
        out = work.groupby(varying, observed=True, dropna=False, sort=False).agg(aggregate)
        out = out.reset_index()
    else:
        out = work[list(aggregate)].agg(aggregate).to_frame().T.astype(np.int64)
    for k in keys:
        if k not in varying:
            out[k] = work[k].iloc[np.zeros(len(out), dtype=np.int64)].array
    return out[keys + list(aggregate)]


def merge(frames: Sequence[pd.DataFrame], cube: Cube) -> pd.DataFrame:
    """The sum of weighted frames of one cube."""
    return reduce(pd.concat(frames, ignore_index=True), cube)


def _first_rows(df: pd.DataFrame, limit: int | None = None) -> pd.DataFrame:
    """Rows in run and game id order, the first ``limit``."""
    order = [c for c in ("run", "game_id") if c in df.columns]
    return df.sort_values(order, kind="stable", ignore_index=True).head(limit)


def _examples(df: pd.DataFrame) -> pd.DataFrame:
    """The first game of each group of ``BASE`` and ending, for the endings of
    ``EXAMPLE_ENDINGS``."""
    cols = [c for c in BASE if c in df.columns]
    keep = _first_rows(df[df["ending"].isin(EXAMPLE_ENDINGS)][cols + ["ending", "game_id"]])
    return keep.groupby(cols + ["ending"], observed=True, dropna=False, sort=False).head(1)


def _self_check_rows(df: pd.DataFrame) -> pd.DataFrame:
    cols = [c for c in SELF_CHECK_COLUMNS if c in df.columns]
    return _first_rows(df.loc[stats.column(df, "self-check") == 2, cols], SELF_CHECK_ROWS)


def _columns() -> list[str]:
    """The game columns the cubes and the kept rows read (a derived key: its inputs)."""
    cols = [c for cube in CUBES.values() for c in cube.keys + cube.sums] + [*SELF_CHECK_COLUMNS]
    return [i for i in dict.fromkeys(i for c in cols for i in stats.inputs(c)) if i != "run"]


def reduce_games(df: pd.DataFrame) -> Statistics:
    """The statistics of a frame of games (every cube, the kept rows)."""
    cubes = {name: reduce(df, cube) for name, cube in CUBES.items()}
    return Statistics(cubes, {"self-check": _self_check_rows(df), "examples": _examples(df)})


def reduce_batch(state: RunState, shards: list[int], label: str | None, labels) -> Statistics:
    """The statistics of some shards of a checked run (``label``: its ``run`` value among
    ``labels``, None for one run); run where the data are (a Dask worker, or here)."""
    df = load.read_run(state, _columns(), shards=shards)
    if label is not None:
        codes = np.full(len(df), labels.index(label), dtype=np.int32)
        df.insert(0, "run", pd.Categorical.from_codes(codes, categories=labels))
    return reduce_games(df)


def merge_statistics(a: Statistics, b: Statistics) -> Statistics:
    """The statistics of the games of ``a`` and ``b`` together."""
    cubes = {k: merge([a.cubes[k], b.cubes[k]], CUBES[k]) for k in a.cubes}
    both = {k: pd.concat([a.rows[k], b.rows[k]], ignore_index=True) for k in a.rows}
    rows = {
        "self-check": _first_rows(both["self-check"], SELF_CHECK_ROWS),
        "examples": _examples(both["examples"]),
    }
    return Statistics(cubes, rows)


#: String keys whose categories the loader orders as it meets them (the others have a
#: fixed vocabulary, ``sim.schema.tables.VOCABULARY``).
_MET_IN_ORDER = ("player_b", "player_w", "setup")


def _finish(data: Statistics, labels: list[str] | None) -> Statistics:
    """The loader's dtypes (``load.compact``; ``run`` categories in the runs' order, the other
    string keys in the order the loader meets them: by run, then game id) and a fixed row
    order, whatever the order the batches were merged in."""
    outcomes = data.cubes["outcomes"]
    met = outcomes[FIRST_GAME].to_numpy()
    if labels is not None:
        run = pd.Categorical(outcomes["run"].astype(object), categories=labels).codes
        met = run.astype(np.int64) * (int(met.max(initial=0)) + 1) + met
    order = {}
    for c in _MET_IN_ORDER:
        first = pd.Series(met).groupby(outcomes[c].astype(object).to_numpy()).min()
        order[c] = list(first.sort_values(kind="stable").index)

    def tidy(f: pd.DataFrame, by: list[str]) -> pd.DataFrame:
        f = load.compact(f.copy())
        if labels is not None:
            f["run"] = pd.Categorical(f["run"].astype(object), categories=labels)
        for c, values in order.items():
            f[c] = pd.Categorical(f[c].astype(object), categories=values)
        return f.sort_values(by, kind="stable", ignore_index=True) if by else f

    cubes = {
        k: tidy(f, [c for c in CUBES[k].keys if c in f.columns]) for k, f in data.cubes.items()
    }
    rows = {
        k: tidy(f, [c for c in ("run", "game_id") if c in f.columns]) for k, f in data.rows.items()
    }
    return Statistics(cubes, rows)


def _local(tasks: list[tuple]) -> Iterator[Statistics]:
    for task in tasks:
        yield reduce_batch(*task)


def _on_cluster(tasks: list[tuple], scheduler: str) -> Iterator[Statistics]:
    """The batches reduced on the Dask cluster at ``scheduler``, as they finish."""
    from sim.run.dask_backend import connect

    client = connect(scheduler)
    from distributed import as_completed

    with client:
        futures = [client.submit(reduce_batch, *t, pure=False) for t in tasks]
        for _, result in as_completed(futures, with_results=True):
            yield result


def compute(
    run_dirs: str | Path | Sequence[str | Path],
    scheduler: str | None = None,
    batch_rows: int = BATCH_ROWS,
) -> Statistics:
    """The statistics of the games of some runs (each checked first: ``load.open_run``; a
    ``jpdsim stress`` folder stands for its runs): ``of_runs``."""
    if isinstance(run_dirs, (str, Path)):
        run_dirs = [run_dirs]
    dirs = runs.run_folders(run_dirs)
    if not dirs:
        raise UserError("no run folder given")
    states = []
    for d in dirs:
        if not Path(d).exists():
            raise UserError(
                f"{d}: no such run folder; `jpdsim run configs/quickstart.toml` writes "
                f"results/quickstart, or set JPDSIM_RUNS to run folders"
            )
        states.append(load.open_run(d))
    return of_runs(states, scheduler, batch_rows)


def of_runs(
    states: Sequence[RunState], scheduler: str | None = None, batch_rows: int = BATCH_ROWS
) -> Statistics:
    """The statistics of the games of checked runs, read ``batch_rows`` games at a time, in
    this process or on the Dask cluster at ``scheduler``."""
    labels = runs.run_labels([s.run_dir for s in states]) if len(states) > 1 else None
    tasks = [
        (state, shards, None if labels is None else labels[i], labels)
        for i, state in enumerate(states)
        for shards in load.batches(state, batch_rows)
    ]
    if not tasks:  # runs without games: the cubes of an empty frame
        empty = load.read_run(states[0], _columns(), shards=[])
        return _finish(reduce_games(empty), labels)
    parts = _local(tasks) if scheduler is None else _on_cluster(tasks, scheduler)
    data = None
    for part in parts:
        data = part if data is None else merge_statistics(data, part)
    return _finish(data, labels)


def statistics(run_dirs, path: str | Path | None = None) -> Statistics:
    """What a notebook analyses: the statistics saved at ``path`` (by ``jpdsim report``), or
    those of ``run_dirs`` computed here when ``path`` is None."""
    return compute(run_dirs) if path is None else load_statistics(path)
