"""Throughput of random self-play under the default rules, printed as figures and ratios.

    python bench/throughput.py [--games9 N] [--games19 N]

For 9x9 and 19x19: numba compile time (fresh cache, in a subprocess), engine-only games/s and
actions/s on one core (``play_batch``: play + full scoring; the best of three runs of a third
of the games each), end-to-end ``jpdsim run`` games/s with 1 and 2 workers (whole command,
all the games, shards written), the ratio of end-to-end to engine-only, and the fixed cost of
a run (the seconds of a run of 8 games: processes, imports, loading the kernels). The default
game counts make the 1-worker runs about 40 s long, the length of the quickstart run: a run
pays its fixed cost once, so the ratio of a much shorter run says more about the start than
about the throughput (``--games9 1000000`` gives about 0.85 on 9x9). With the
``bench`` extra (open-spiel) installed, OpenSpiel's C++ random simulation loop is timed in the
same run as a ratio.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = dict(black="random", white="random", virtual_rate=0.0, record_moves=False)


def compile_seconds() -> float:
    """Seconds to compile every kernel of a batch run, in a fresh process with an empty cache."""
    code = (
        "import time, numpy as np; t = time.perf_counter(); from sim.selfplay import play_batch; "
        "from sim.rules import Rules; "
        f"play_batch(Rules(9), seed=0, game_ids=np.arange(1), **{PLAYERS!r}); "
        "print(time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.strip())


def engine(size: int, games: int, repeats: int = 3) -> tuple[float, float]:
    """(games/s, actions/s) of ``play_batch`` in this process (one core): the best of
    ``repeats`` runs of ``games // repeats`` games each (a shared machine's noise only slows)."""
    from sim.rules import Rules
    from sim.selfplay import play_batch

    rules = Rules(size)
    play_batch(rules, seed=1, game_ids=np.arange(2), **PLAYERS)  # load the cached kernels
    ids = np.arange(max(1, games // repeats))
    best = None
    for _ in range(repeats):
        t = time.perf_counter()
        columns, _ = play_batch(rules, seed=1, game_ids=ids, **PLAYERS)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return ids.size / best, columns["actions"].sum() / best


def run_seconds(size: int, games: int, workers: int) -> float:
    """Seconds of the whole ``jpdsim run`` command (8 shards)."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "bench.toml"
        config.write_text(
            f"board_size = {size}\ngames = {games}\nshard_size = {max(1, games // 8)}\n"
        )
        cmd = [
            sys.executable,
            "-m",
            "sim",
            "run",
            str(config),
            "--workers",
            str(workers),
            "--out",
            str(Path(tmp) / "run"),
            "--no-progress",
        ]
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        return time.perf_counter() - t


def openspiel(size: int, games: int):
    """games/s of OpenSpiel's C++ random simulation loop, or None without open-spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("go", {"board_size": size})
    t = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=games, serialize=False, verbose=False)
    return games / (time.perf_counter() - t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games9", type=int, default=3_000_000)
    parser.add_argument("--games19", type=int, default=750_000)
    args = parser.parse_args()
    print(f"compile (all kernels, fresh cache): {compile_seconds():.1f} s")
    print(
        f"{'board':>6} {'engine games/s/core':>20} {'actions/s':>12} {'run 1 worker':>13} "
        f"{'run 2 workers':>14} {'run1/engine':>12} {'run startup':>12} {'openspiel':>10}"
    )
    for size, games in ((9, args.games9), (19, args.games19)):
        rate, actions = engine(size, games)
        run1 = games / run_seconds(size, games, 1)
        run2 = games / run_seconds(size, games, 2)
        startup = run_seconds(size, 8, 1)  # a run of 8 games: the fixed cost of a run
        spiel = openspiel(size, max(1, games // 2000))
        spiel_text = "n/a" if spiel is None else f"{rate / spiel:.1f}x"
        print(
            f"{size:>4}x{size:<2} {rate:>20,.0f} {actions:>12,.0f} {run1:>13,.0f} {run2:>14,.0f} "
            f"{run1 / rate:>12.2f} {startup:>10.1f} s {spiel_text:>10}"
        )


if __name__ == "__main__":
    main()
