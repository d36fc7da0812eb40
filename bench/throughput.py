"""Throughput of random self-play under the default rules, printed as figures and ratios.

    python bench/throughput.py [--games9 N] [--games19 N] [--peer COMMAND] [--rounds R]
                               [--core K] [--skip-compile]

First the numba compile time of each kernel variant a run may need (``sim.play.batch``: light
playouts, playout players, tree search, and the light playouts with the state check), each in
a fresh process with an empty cache. Then for 9x9 and 19x19: engine-only games/s and
actions/s on one core, core K (``sim.play.selfplay.play_rows``: play and full scoring, the raw
rows; the best of three runs of a third of the games each), end-to-end ``jpdsim run``
games/s with 1 and 2 workers (whole command, all the games, shards written), the ratio of
end-to-end to engine-only, and the fixed cost of a run (the seconds of a run of 8 games:
processes, imports, loading the kernels). The default
game counts make the 1-worker runs about 40 s long, the length of the quickstart run: a run
pays its fixed cost once, so the ratio of a much shorter run says more about the start than
about the throughput (``--games9 1000000`` gives about 0.85 on 9x9). With the
``bench`` extra (open-spiel) installed, OpenSpiel's C++ random simulation loop is timed in the
same run as a ratio. Last, with ``--peer COMMAND`` (a command printing lines ``NAME NxN RATE
games/s``, e.g. a driver timing libego's light playouts on one core, built outside this
repository; started on core K, and it should time there too, best of several runs as the
engine's are), the engine against the peer in R rounds that take turns, peer then engine on
each board, and the median ratio: a shared machine's speed drifts by 10-20% within minutes,
so a single run of each says little.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the engine timed in this process is this tree's
PLAYERS = dict(black="random", white="random", virtual_rate=0.0, record_moves=False)


#: The variants of the batch kernel and a call that compiles each (``sim.play.native``).
VARIANTS = {
    "light playouts": "black='random', white='random'",
    "playout players": "black='pattern', white='kofight'",
    "tree search": "black=Player('mcts', visits=1), white='capture'",
    "light + state check": "check=True",
}


def compile_seconds(call: str) -> float:
    """Seconds to compile the kernels of ``play_batch(..., CALL)`` (one game on 9x9), in a
    fresh process with an empty cache."""
    code = (
        "import time, numpy as np; t = time.perf_counter(); "
        "from sim.play.selfplay import play_batch; "
        "from sim.config.rules import Rules; from sim.config.player import Player; "
        f"play_batch(Rules(9), seed=0, game_ids=np.arange(1), {call}); "
        "print(time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.strip())


def peer_rates(command: str, core: int) -> dict:
    """{board size: games/s} of a peer engine's command (lines ``NAME NxN RATE games/s``),
    started on ``core``."""
    out = subprocess.run(
        shlex.split(command),
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {core}),
    ).stdout
    found = re.findall(r"^\S+ (\d+)x\d+ (\d+) games/s", out, re.M)
    return {int(size): float(rate) for size, rate in found}


def engine(size: int, games: int, core: int, repeats: int = 3) -> tuple[float, float]:
    """(games/s, actions/s) of the kernel in this process on ``core`` (``play_rows``: play +
    full scoring, raw rows): the best of ``repeats`` runs of ``games // repeats`` games each (a
    shared machine's noise only slows)."""
    from sim.config.rules import Rules
    from sim.engine.outcome import R_ACTIONS
    from sim.play.selfplay import play_rows

    rules = Rules(size)
    play_rows(rules, seed=1, game_ids=np.arange(2), **PLAYERS)  # load the cached kernels
    ids = np.arange(max(1, games // repeats))
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})  # only while timing: the runs' workers inherit it
    try:
        best = None
        for _ in range(repeats):
            t = time.perf_counter()
            rows, _ = play_rows(rules, seed=1, game_ids=ids, **PLAYERS)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
    finally:
        os.sched_setaffinity(0, cores)
    return ids.size / best, rows[:, R_ACTIONS].sum() / best


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
    parser.add_argument("--peer", help="a command timing a peer's light playouts")
    parser.add_argument("--rounds", type=int, default=3, help="peer/engine rounds (default 3)")
    parser.add_argument("--core", type=int, default=0, help="the core timing the engine")
    parser.add_argument("--skip-compile", action="store_true", help="no compile times")
    args = parser.parse_args()
    if not args.skip_compile:
        for name, call in VARIANTS.items():
            print(f"compile {name:20s} (fresh cache): {compile_seconds(call):5.1f} s", flush=True)
    boards = {9: args.games9, 19: args.games19}
    print(
        f"{'board':>6} {'engine games/s/core':>20} {'actions/s':>12} {'run 1 worker':>13} "
        f"{'run 2 workers':>14} {'run1/engine':>12} {'run startup':>12} {'openspiel':>10}"
    )
    for size, games in boards.items():
        rate, actions = engine(size, games, args.core)
        run1 = games / run_seconds(size, games, 1)
        run2 = games / run_seconds(size, games, 2)
        startup = run_seconds(size, 8, 1)  # a run of 8 games: the fixed cost of a run
        spiel = openspiel(size, max(1, games // 2000))
        spiel_text = "n/a" if spiel is None else f"{rate / spiel:.1f}x"
        print(
            f"{size:>4}x{size:<2} {rate:>20,.0f} {actions:>12,.0f} {run1:>13,.0f} {run2:>14,.0f} "
            f"{run1 / rate:>12.2f} {startup:>10.1f} s {spiel_text:>10}",
            flush=True,
        )
    if args.peer:
        against_peer(args.peer, boards, args.rounds, args.core)


def against_peer(command: str, boards: dict, rounds: int, core: int) -> None:
    """The engine against the peer's light playouts, taking turns (peer, then engine) on
    ``core``; one line a round and board, then the median ratio of each board."""
    print(f"engine against the peer, {rounds} rounds taking turns on core {core}:")
    ratios = {size: [] for size in boards}
    for r in range(1, rounds + 1):
        peer = peer_rates(command, core)
        for size, games in boards.items():
            if size not in peer:
                print(f"round {r} {size}x{size}: the peer printed no rate")
                continue
            rate = engine(size, games // 3, core)[0]  # a round a third as long as the table's
            ratios[size].append(rate / peer[size])
            print(
                f"round {r} {size}x{size}: engine {rate:,.0f} peer {peer[size]:,.0f} games/s, "
                f"{ratios[size][-1]:.3f}x",
                flush=True,
            )
    for size, found in ratios.items():
        if found:
            print(f"median {size}x{size}: {np.median(found):.3f}x of the peer")


if __name__ == "__main__":
    main()
