"""``jpdsim run CONFIG``: play a configured run of games (``sim.run.runner.run``), say how to
resume it when it stops early, and print the summary of a complete run (appended to its
``run.log`` first, so that it is kept when stdout is closed early).

A folder that holds the same run already (same config, games and seed): complete, its summary
is printed again and nothing is played; incomplete, it is resumed as with ``--resume``. A
folder that holds another run is refused, saying what to type.

Exit status: 0 complete, 1 shards failed (the run is incomplete), 2 bad input or a file that
cannot be written (``UserError``; also when a worker's shard stops the run: a full disk, a file
over the size limit, a GTP program whose games keep ending ``engine_error``, or a run whose
every game did; or a limit of the process: open files, memory), 130 Ctrl-C, 143 SIGTERM."""

from __future__ import annotations

import os
import shlex
import signal
import sys
from pathlib import Path

from sim.commands.komi import komi_text
from sim.config.file import load_config
from sim.dataset.check import RunState
from sim.dataset.layout import LOG, format_ranges
from sim.errors import UserError
from sim.interrupts import Terminated
from sim.run.capacity import check_workers
from sim.run.dask_backend import connect
from sim.run.folder import check_folder
from sim.run.identity import same_run
from sim.run.runner import run

_STOPPED = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


def _resume_command(args, run_dir: Path) -> str:
    parts = ["jpdsim", "run", str(args.config), "--out", str(run_dir), "--resume"]
    if args.games is not None:
        parts += ["--games", str(args.games)]
    if args.seed is not None:
        parts += ["--seed", str(args.seed)]
    if args.scheduler is not None:
        parts += ["--scheduler", args.scheduler]
    return " ".join(shlex.quote(p) for p in parts)


def speed(games: int, seconds: float) -> str | None:
    """How fast ``games`` were played, as a person reads it: ``132,548 games/s``,
    ``2.5 games/s``, ``3.58 s a game``; None when no game was played."""
    if games <= 0 or seconds <= 0:
        return None
    per_second = games / seconds
    if per_second >= 100:
        return f"{per_second:,.0f} games/s"
    if per_second >= 1:
        return f"{per_second:.3g} games/s"
    return f"{seconds / games:.3g} s a game"


def _summary(state: RunState) -> str:
    """The summary of a complete run (``analysis.summary``), why its rows may differ with the
    number of workers where its manifest says so, and the fitted fair komi of a komi sweep
    or search (``sim.commands.komi``)."""
    # the analysis only now: the runner loaded pandas (which it needs) while the workers started
    from analysis.load import read_run
    from analysis.summary import COLUMNS, summary

    text = summary(read_run(state, columns=COLUMNS))  # checked: by run or by same_run
    if why := state.manifest.get("not_reproducible"):
        text += f"\nnot reproducible across worker counts: {why}"
    if state.config.komi_sweep is None and state.config.komi_search is None:
        return text
    return f"{text}\n\n{komi_text([state.run_dir])}"


def main(args) -> int:
    cfg = load_config(args.config, games=args.games, seed=args.seed)
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    if args.scheduler is None:
        check_workers([cfg], workers)
    else:  # a scheduler out of reach is one line, before any folder is made
        connect(args.scheduler).close()
    run_dir = Path(args.out) if args.out is not None else Path("results") / cfg.name
    again = _resume_command(args, run_dir)
    resume = args.resume
    if not resume and check_folder(run_dir, resume=True):  # the folder holds a run
        state = same_run(run_dir, cfg)  # UserError if another
        if state is not None and state.complete:
            print(
                f"run {cfg.name} in {run_dir} is complete already ({state.config.games:,} "
                f"games, seed {cfg.seed}); nothing to play (to play it again, delete the folder "
                f"or choose another --out). Its summary:"
            )
            print(_summary(state))
            return 0
        written = (
            ""
            if state is None
            else f", {len(state.done)} of {state.config.n_shards} shards written"
        )
        print(
            f"jpdsim run: {run_dir} holds this run (incomplete{written}): resuming it",
            file=sys.stderr,
        )
        resume = True
    try:
        result = run(
            cfg,
            run_dir,
            workers=workers,
            resume=resume,
            progress=not args.no_progress,
            config_file=str(args.config),
            scheduler=args.scheduler,
        )
    except KeyboardInterrupt as err:  # before or after the workers ran
        signum = signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT
        print(f"jpdsim run: {_STOPPED[signum]}. To finish the run: {again}", file=sys.stderr)
        return 128 + signum
    state = result.state
    if result.interrupted:
        print(
            f"jpdsim run: {_STOPPED[result.interrupted]}; {len(state.done)} of "
            f"{state.config.n_shards} "
            f"shards are written in {run_dir}. To finish the run: {again}",
            file=sys.stderr,
        )
        return 128 + result.interrupted
    if result.stopped:
        raise UserError(
            f"{result.stopped}; the run stopped with {len(state.done)} of "
            f"{state.config.n_shards} shards "
            f"written (see {run_dir / LOG}); to go on once that is fixed: {again}"
        )
    if not state.complete:
        for shard, reason in sorted(result.failures.items()):
            print(f"jpdsim run: shard {shard} failed: {reason}", file=sys.stderr)
        print(
            f"jpdsim run: run incomplete: shards {format_ranges(state.missing)} missing "
            f"({len(state.missing)} of {state.config.n_shards}; see {run_dir / LOG}). "
            f"To retry them: {again}",
            file=sys.stderr,
        )
        return 1
    text = _summary(state)
    try:
        with open(run_dir / LOG, "a", encoding="utf-8") as f:
            f.write(text + "\n")
    except OSError as err:
        print(
            f"jpdsim run: {run_dir / LOG}: cannot append the summary ({err.strerror})",
            file=sys.stderr,
        )
    how = [speed(result.games_played, result.seconds), f"{workers} worker" + "s" * (workers != 1)]
    print(
        f"run {cfg.name} in {run_dir}: {result.games_played:,} games played in "
        f"{result.seconds:.1f} s ({', '.join(x for x in how if x)})"
    )
    print(text)
    return 0
