"""Exact against hash-only repetition checks on the stress set: identical rows, counted.

    python bench/exact_vs_hash.py [configs/stress.toml] [--games N] [--workers W]

Runs compare 64-bit position keys only; the exact mode compares whole positions on a key
match (docs/rules.md §10). For every run of the stress config (``jpdsim stress``: one per
position, rule, suicide option and player), its first ``--games`` games (default 5,000:
1,000,000 on the shipped config's 200 runs of ten positions) are played both ways; every
outcome column and every action must be equal. Prints the games compared, the mismatches (expected
0) and the seconds of each mode; exit status 1 on a mismatch.
"""

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.commands.stress import load_stress  # noqa: E402


def compare(cfg, games: int) -> tuple[int, int, float, float]:
    """(games, mismatching games, seconds hash-only, seconds exact) of one run's first
    ``games`` games."""
    from sim.play.selfplay import play_batch

    ids = np.arange(games)
    seconds, results = [], []
    for exact in (False, True):
        t = time.perf_counter()
        results.append(
            play_batch(game_ids=ids, record_moves=True, exact=exact, **cfg.play_kwargs())
        )
        seconds.append(time.perf_counter() - t)
    (hash_cols, hash_moves), (exact_cols, exact_moves) = results
    same = np.array([np.array_equal(x, y) for x, y in zip(hash_moves, exact_moves)])
    for name, col in hash_cols.items():
        a, b = np.asarray(col), np.asarray(exact_cols[name])
        same &= (a == b) | ((a != a) & (b != b)) if a.dtype.kind == "f" else a == b
    return ids.size, int((~same).sum()), seconds[0], seconds[1]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("config", nargs="?", default=str(ROOT / "configs" / "stress.toml"))
    p.add_argument("--games", type=int, default=5000, help="games of each run")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    runs = load_stress(args.config)
    total = bad = 0
    t_hash = t_exact = 0.0
    with ProcessPoolExecutor(args.workers) as pool:
        results = pool.map(compare, runs, [args.games] * len(runs))
        for cfg, (n, mismatches, th, te) in zip(runs, results):
            total, bad, t_hash, t_exact = total + n, bad + mismatches, t_hash + th, t_exact + te
            if mismatches:
                print(f"{cfg.name}: {mismatches} of {n} games differ", flush=True)
    print(
        f"exact vs hash-only: {total:,} games in {len(runs)} runs, {bad} differ; "
        f"hash-only {t_hash:.0f} s, exact {t_exact:.0f} s of engine time "
        f"(exact / hash-only: {t_exact / max(t_hash, 1e-9):.2f}x)"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
