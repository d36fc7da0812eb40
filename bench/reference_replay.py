"""Stored cycle games re-played by the pure-Python reference (tests/reference.py), at scale.

    python bench/reference_replay.py results/stress [--sample N] [--workers W] [--legal]

Takes every run folder under the given folder (``jpdsim stress`` writes one per position
group x rule x suicide x player) and draws ``--sample`` games in all (default 10,000) from
their games with stored moves (``record_moves = "cycles"``: the games not ended by a pause,
or with repetition bans), an equal share from each run; a run with fewer gives all it has
and the others make up the difference. Each game is re-played action by action from its
setup in the reference and in the engine's ``Game`` (exact mode): every action must be legal
in both, the boards equal after each, and the outcome equal to the stored row
(``tests.conftest.replay_with_reference``; ``--legal`` compares the legal-move sets before
every action too, slower). Prints the games per repetition rule and ending; exit status 1 on
any disagreement.
"""

import argparse
import collections
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.dataset.check import check_run, read_part  # noqa: E402
from sim.dataset.layout import GAMES, MOVES, part_name  # noqa: E402
from sim.schema.tables import OUTCOME_FIELDS  # noqa: E402


def _stored(run_dir: Path, k: int, seed: int):
    """(config, [(row, actions)]) of ``k`` games with stored moves of a run, drawn at random."""
    state = check_run(run_dir)
    games = []
    for shard in sorted(state.moves_shards):
        moves = read_part(run_dir / MOVES / part_name(shard))
        rows = read_part(run_dir / GAMES / part_name(shard))
        start = state.config.shard_range(shard).start
        for game_id, actions in zip(moves.column("game_id").to_pylist(), moves["actions"]):
            games.append((rows.slice(game_id - start, 1).to_pylist()[0], actions))
    picked = np.random.default_rng(seed).permutation(len(games))[:k]
    return state.config, [(games[i][0], games[i][1].as_py()) for i in sorted(picked)]


def stored_count(run_dir: Path) -> int:
    """How many games of a run have stored moves (from the shards' footers)."""
    state = check_run(run_dir)
    return sum(
        pq.read_metadata(run_dir / MOVES / part_name(s)).num_rows for s in state.moves_shards
    )


def shares(available: list[int], sample: int) -> list[int]:
    """Games to draw from each run: equal shares of ``sample``, a run that has fewer giving all
    it has and the rest shared among the others (all of every run if ``sample`` exceeds them)."""
    take = [0] * len(available)
    left, open_runs = sample, [i for i, n in enumerate(available) if n > 0]
    while left > 0 and open_runs:
        share = -(-left // len(open_runs))
        for i in open_runs:
            extra = min(share, available[i] - take[i], left)
            take[i] += extra
            left -= extra
        open_runs = [i for i in open_runs if take[i] < available[i]]
    return take


def replay_run(run_dir: Path, k: int, legal: bool) -> list[tuple[str, str, str]]:
    """(repetition, ending, problem or "") of ``k`` stored games of a run."""
    from tests.conftest import replay_with_reference

    cfg, games = _stored(run_dir, k, seed=len(str(run_dir)))
    setups = {x.name: x for x in cfg.setup}
    out = []
    for row, actions in games:
        setup = setups.get(row["setup"])
        cells, first = (list(setup.cells), setup.first) if setup else (None, 1)
        problem = ""
        try:
            expected = replay_with_reference(
                cfg.rules, actions, f"{run_dir.name} game {row['game_id']}", cells, first, legal
            )
            stored = {f: row[f] for f in OUTCOME_FIELDS}
            stored = {
                f: None if isinstance(v, float) and math.isnan(v) else v for f, v in stored.items()
            }
            if stored != expected:
                wrong = sorted(f for f in OUTCOME_FIELDS if stored[f] != expected[f])
                problem = f"stored row differs in {', '.join(wrong)}"
        except AssertionError as err:
            problem = str(err).splitlines()[0]
        out.append((cfg.rules.repetition, row["ending"], problem))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", help="a folder of run folders (jpdsim stress's --out)")
    p.add_argument("--sample", type=int, default=10_000, help="games in all (default 10,000)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--legal", action="store_true", help="compare legal-move sets too")
    args = p.parse_args()
    runs = sorted(d for d in Path(args.folder).iterdir() if (d / "manifest.json").exists())
    if not runs:
        print(f"{args.folder}: no run folders", file=sys.stderr)
        return 2
    take = shares([stored_count(run) for run in runs], args.sample)
    counts, problems = collections.Counter(), []
    with ProcessPoolExecutor(args.workers) as pool:
        for run, results in zip(runs, pool.map(replay_run, runs, take, [args.legal] * len(runs))):
            for repetition, ending, problem in results:
                counts[repetition, ending] += 1
                if problem:
                    problems.append(f"{run.name}: {problem}")
    for (repetition, ending), n in sorted(counts.items()):
        print(f"{repetition:20} {ending:13} {n:7,}")
    print(
        f"reference replay: {sum(counts.values()):,} stored games of {len(runs)} runs, "
        f"{len(problems)} disagree"
    )
    for line in problems[:20]:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
