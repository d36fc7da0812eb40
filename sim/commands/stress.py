"""``jpdsim stress CONFIG``: the superko and cycle stress set (docs/corpus.md): every setup
position x every repetition rule x every suicide option x every player, each combination a
normal run (``sim.run.runner.run``: resumable, logged) in ``<out>/<run name>``, then the table
of ``analysis.cycles.stress_table`` printed and written to ``<out>/stress.csv``, and one
example game per position and run that ended ``cycle`` or ``four_virtual`` as
``<out>/sgf/<run>.<ending>.sgf``. Last, the expected facts are checked: no
``move_limit`` ending under ``global_superko`` (printed) and no JPD self-check failure (exit
status 1 if any).

A stress config is a run config (``sim.config.run``) whose ``setup`` may be ``"corpus"`` (every
corpus position), whose ``record_moves`` must store the cycle games (``"cycles"`` or
``"all"``: the example SGFs are stored games; a set without is refused before any game) and
which takes lists instead of single values for three keys:

=============== ================================================== =======================
key             meaning                                            default
=============== ================================================== =======================
games           games of each run                                  required
repetitions     repetition rules                                   all five
                (``sim.schema.tables.REPETITIONS``)
suicides        suicide options (``sim.schema.tables.SUICIDES``)   both
players         players, each playing both colours (a kind or a    ``["random",
                table as ``[players.black]`` takes)                "kofight"]``
=============== ================================================== =======================

A run is named ``<position>-<repetition>-<suicide>-<player kind>`` (so a position added to the
corpus adds runs and leaves the others complete). ``--games N`` plays N games a run instead of
the config's ``games`` (a smaller set: give it its own ``--out``). The printed table fits the
terminal (``console_table``); ``stress.csv`` has every column. Exit status as ``jpdsim run``'s.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from sim.config.file import config_from_dict
from sim.config.player import Player
from sim.config.run import RunConfig
from sim.config.setups import corpus_names, load_setup
from sim.errors import UserError, quoted
from sim.files import read_text
from sim.options import OptionError
from sim.schema.tables import REPETITIONS, RULESETS, SUICIDES

if TYPE_CHECKING:
    import pandas as pd

LISTS = {"repetitions": REPETITIONS, "suicides": SUICIDES, "players": ("random", "kofight")}


def _list(raw: dict, key: str, where: str) -> list:
    values = raw.get(key, list(LISTS[key]))
    if not isinstance(values, list) or not values:
        raise UserError(f"{where}: key {key!r}: must be a non-empty list, got {quoted(values)}")
    return values


def stress_runs(raw: dict, where: str) -> list[RunConfig]:
    """The runs of a parsed stress config, validated; UserError names the key."""
    if not isinstance(raw, dict):
        raise UserError(f"{where}: a stress config must be a table of keys")
    base = {k: v for k, v in raw.items() if k not in LISTS and k not in ("setup", "name")}
    for key in ("repetition", "suicide", "board_size"):
        if key in base:
            raise UserError(f"{where}: key {key!r}: a stress config sets it per run; remove it")
    if "komi_search" in raw:
        raise UserError(f"{where}: key 'komi_search': a stress config plays fixed games; use run")
    if "games" not in raw:
        raise UserError(f"{where}: key 'games': missing (required)")
    specs = raw.get("setup", "corpus")
    specs = corpus_names() if specs == "corpus" else specs if isinstance(specs, list) else [specs]
    if not specs:
        raise UserError(
            f"{where}: key 'setup': must be a non-empty list (of corpus names, diagram files or "
            f'tables), or "corpus" (the default: every corpus position), got []'
        )
    setups = []
    for spec in specs:
        try:
            setups.append(load_setup(spec))
        except ValueError as err:
            raise UserError(f"{where}: key 'setup' ({quoted(spec)}): {err}") from None
    players = []
    for entry in _list(raw, "players", where):
        try:
            players.append(Player.from_table(entry))
        except OptionError as err:
            raise UserError(f"{where}: key 'players' ({quoted(entry)}): {err}") from None
    runs = []
    for setup in setups:
        for repetition in _list(raw, "repetitions", where):
            for suicide in _list(raw, "suicides", where):
                for player in players:
                    table = {
                        **base,
                        "name": f"{setup.name}-{repetition}-{suicide}-{player.kind}",
                        "setup": setup.to_dict(),
                        "repetition": repetition,
                        "suicide": suicide,
                        "players": {"black": player.to_dict(), "white": player.to_dict()},
                    }
                    runs.append(config_from_dict(table, where))
    names = [cfg.name for cfg in runs]
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice:
        raise UserError(f"{where}: two runs would be named {twice} (setups or players alike)")
    if runs[0].record_moves == "none":
        raise UserError(
            f"{where}: key 'record_moves': the example games are stored cycle games; set it "
            f'to "cycles" (or "all")'
        )
    return runs


def load_stress(path: str | Path, games: int | None = None) -> list[RunConfig]:
    """The runs of a stress config file, ``games`` games each when given (the ``--games``
    option); UserError names the file and the key, or the option."""
    path = Path(path)
    try:
        raw = tomllib.loads(read_text(path))
    except OSError as err:
        raise UserError(f"{path}: cannot read stress config ({err.strerror})") from None
    except tomllib.TOMLDecodeError as err:
        raise UserError(f"{path}: not a TOML file: {err}") from None
    except ValueError as err:
        raise UserError(f"{path}: cannot read stress config ({err})") from None
    runs = stress_runs(raw, str(path))
    if games is None:
        return runs
    return [config_from_dict({**cfg.to_dict(), "games": games}, "option --games") for cfg in runs]


#: The console's headers of stress.csv's columns ("<ending> share" becomes "<ending>").
_SHORT = {
    "player_b": "player",
    "moves mean": "length",
    "moves p99": "p99",
    "moves max": "max",
    "bans per game": "bans",
}
#: The columns that tell the runs apart (the groups of the table, ``analysis.cycles.STRESS_BY``)
#: and their games, in the order they go first, when one holds the same value in every row and
#: the console table is too wide (a line gives the value).
_RUN_COLUMNS = ("games", "suicide", "player_b", "repetition", "setup")
#: Then these columns go, in this order, until the table fits (a line names them).
_DROP = (
    *(f"{r} B" for r in reversed(RULESETS)),
    "moves p99",
    "moves max",
    "bans per game",
    "moves mean",
    "resign share",
    "engine_error share",
    "pause share",
    "move_limit share",
    "cycle share",
    "four_virtual share",
)


def console_table(table: pd.DataFrame, width: int) -> str:
    """The stress table as text at most ``width`` characters wide where it can be: players by
    kind, short headers, then columns left out one by one until it fits: those of
    ``_RUN_COLUMNS`` that hold one value in every row, then those of ``_DROP``."""
    table = table.assign(player_b=[str(p).split("(")[0] for p in table["player_b"]])
    same = [c for c in _RUN_COLUMNS if len(table) > 1 and table[c].nunique() == 1]
    dropped = []

    def text() -> str:
        shown = table.drop(columns=dropped).rename(
            columns=lambda c: _SHORT.get(c, c.removesuffix(" share"))
        )
        return shown.to_string(index=False, float_format=lambda x: f"{x:.4g}")

    out = text()
    for column in [*same, *(c for c in _DROP if c in table.columns)]:
        if max(map(len, out.splitlines())) <= width:
            break
        dropped.append(column)
        out = text()
    constant = [c for c in dropped if c in same]
    others = [c for c in dropped if c not in same]
    notes = []
    if constant:
        values = ", ".join(f"{_SHORT.get(c, c)} {table[c].iloc[0]}" for c in constant)
        notes.append(f"every run: {values}")
    if others:
        notes.append(f"left out to fit the terminal (stress.csv has them): {', '.join(others)}")
    return "\n".join([out, *(textwrap.fill(note, width) for note in notes)])


def main(args) -> int:
    # the runner (and numba in its workers) once the config holds
    from sim.run.capacity import check_workers
    from sim.run.runner import run

    runs = load_stress(args.config, args.games)
    out = Path(args.out) if args.out is not None else Path("results") / Path(args.config).stem
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    check_workers(runs, workers)
    t0, played = time.perf_counter(), 0
    for k, cfg in enumerate(runs, 1):
        run_dir = out / cfg.name
        print(f"[{k}/{len(runs)}] {cfg.name}: {cfg.games:,} games", file=sys.stderr)
        result = run(
            cfg,
            run_dir,
            workers=workers,
            resume=(run_dir / "manifest.json").exists(),
            progress=not args.no_progress,
            config_file=str(args.config),
        )
        played += result.games_played
        if result.interrupted:
            print(f"jpdsim stress: stopped; run it again to go on ({run_dir})", file=sys.stderr)
            return 128 + result.interrupted
        if result.stopped:
            raise UserError(f"{run_dir}: {result.stopped}; run it again to go on")
        if not result.state.complete:
            print(f"jpdsim stress: {run_dir} is incomplete (see its run.log)", file=sys.stderr)
            return 1
    seconds = time.perf_counter() - t0
    from analysis.cycles import COLUMNS, examples, stress_table
    from analysis.load import load_runs
    from analysis.runs import run_labels
    from sim.commands.sgf import stored_game_sgf

    dirs = [out / cfg.name for cfg in runs]
    games = load_runs(dirs, columns=COLUMNS)
    if "run" not in games:  # load_runs labels the runs only when there are several
        games.insert(0, "run", run_labels(dirs)[0])
    table = stress_table(games)
    table.to_csv(out / "stress.csv", index=False)
    (out / "sgf").mkdir(exist_ok=True)
    by_label = dict(zip(run_labels(dirs), dirs))
    for x in examples(games, by="run").itertuples():  # a run: position, rule, suicide, player
        sgf = stored_game_sgf(by_label[x.run], x.game_id)
        (out / "sgf" / f"{x.run}.{x.ending}.sgf").write_text(sgf, encoding="utf-8")
    print(
        f"stress {out}: {len(runs)} runs, {int(table['games'].sum()):,} games "
        f"({played:,} played now in {seconds:.0f} s, {workers} worker{'s' * (workers != 1)}); "
        f"table: {out / 'stress.csv'}"
    )
    width = shutil.get_terminal_size().columns
    print(console_table(table, width))
    capped = int(
        ((games["repetition"] == "global_superko") & (games["ending"] == "move_limit")).sum()
    )
    mismatches = int(table["mismatches"].sum())
    checks = (
        f"checks: {capped} move_limit endings under global_superko (expected 0 unless "
        f"max_actions is below a game's natural length); {mismatches} JPD self-check "
        f"failures (expected 0)"
    )
    print(textwrap.fill(checks, width))
    return 1 if mismatches else 0
