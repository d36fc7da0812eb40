"""Scale benchmark of the report: for each size, write a synthetic run of that many games in the
dataset layout (``tests/synthetic.py``), then time ``jpdsim report`` on it and measure its
memory peak; the run is deleted after its measurement.

Each step runs in a fresh child process: the writer; the statistics alone
(``analysis.counts.compute``, the part whose work grows with the games); the whole report
(statistics, then the five notebooks, each in its own kernel). The peak resident memory of a
step is the largest sum of the resident memory of its process and all its descendants (the
report's kernels), sampled from /proc every 20 ms (pages two processes share count twice).

    python bench/report_scale.py                               # 10M, 30M and 100M games
    python bench/report_scale.py --rows 1000000 --out /tmp/scale
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree_rss(root: int) -> int:
    """Bytes resident in process ``root`` and all its descendants now (Linux /proc)."""
    parent, rss = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{name}/statm") as f:
                rss[int(name)] = int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):  # a process that ended meanwhile
            continue
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo.extend(c for c, p in parent.items() if p == pid and c not in tree)
    return sum(rss.get(p, 0) for p in tree)


def write_run(run_dir: str, rows: int, shard_size: int, board_size: int, seed: int) -> dict:
    """Write the synthetic run; return seconds, parquet MiB and the writer's peak."""
    from tests import synthetic  # the test fixture (ROOT is on sys.path)

    t0 = time.perf_counter()
    synthetic.synthetic_run(
        run_dir, rows, board_size=board_size, seed=seed, shard_size=shard_size, name=f"scale-{rows}"
    )
    size = sum(f.stat().st_size for f in (Path(run_dir) / "games").iterdir()) / 2**20
    return {"seconds": time.perf_counter() - t0, "mib": size}


def statistics(run_dir: str) -> dict:
    """Compute the statistics of the run; return seconds and cube rows."""
    from analysis import counts

    t0 = time.perf_counter()
    data = counts.compute(run_dir)
    return {
        "seconds": time.perf_counter() - t0,
        "games": data.games,
        "cube_rows": sum(len(f) for f in data.cubes.values()),
    }


def build(run_dir: str) -> dict:
    """Build the HTML report; return seconds and its size."""
    from analysis.report import build_report

    t0 = time.perf_counter()
    html = build_report([run_dir], Path(run_dir).parent / "report.html")
    return {"seconds": time.perf_counter() - t0, "mib": html.stat().st_size / 2**20}


def _child(*args: str) -> dict:
    """Run this script in child mode and return its JSON answer, with ``peak_mib``: the
    largest resident memory of the child and its descendants together."""
    proc = subprocess.Popen(
        [sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peak = 0

    def sample():
        nonlocal peak
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    stdout, stderr = proc.communicate()
    sampler.join()
    if proc.returncode:
        sys.exit(f"child {args[:2]} failed:\n{stderr}")
    for line in stdout.splitlines():
        if line.startswith("report:"):
            print("  " + line, flush=True)
    return {**json.loads(stdout.strip().splitlines()[-1]), "peak_mib": peak / 2**20}


def measure(run_dir: Path, rows: int, args) -> None:
    w = _child(
        "--child",
        "write",
        "--run",
        str(run_dir),
        "--rows",
        str(rows),
        "--shard-size",
        str(args.shard_size),
        "--board-size",
        str(args.board_size),
        "--seed",
        str(args.seed),
    )
    n = args.board_size
    print(
        f"{rows:,} games ({n}x{n}): written in {w['seconds']:.1f} s, {w['mib']:,.0f} MiB of "
        f"parquet; writer peak {w['peak_mib']:,.0f} MiB",
        flush=True,
    )
    s = _child("--child", "statistics", "--run", str(run_dir))
    print(
        f"  statistics {s['seconds']:.1f} s ({s['seconds'] / rows * 1e7:.1f} s per 10M games), "
        f"{s['cube_rows']:,} cube rows, peak {s['peak_mib']:,.0f} MiB",
        flush=True,
    )
    if args.no_report:
        return
    r = _child("--child", "report", "--run", str(run_dir))
    print(
        f"  report {r['seconds']:.1f} s ({r['seconds'] / rows * 1e7:.1f} s per 10M games), "
        f"{r['mib']:.1f} MiB of HTML; peak {r['peak_mib']:,.0f} MiB (with its kernels)",
        flush=True,
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--rows",
        type=int,
        nargs="+",
        default=[10_000_000, 30_000_000, 100_000_000],
        help="games in each synthetic run",
    )
    p.add_argument(
        "--shard-size", type=int, default=1_000_000, help="games per shard (one parquet file each)"
    )
    p.add_argument("--board-size", type=int, default=9)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="folder for the runs (default: a temporary folder)")
    p.add_argument("--no-report", action="store_true", help="measure the statistics only")
    p.add_argument("--child", choices=("write", "statistics", "report"), help=argparse.SUPPRESS)
    p.add_argument("--run", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.child == "write":
        result = write_run(args.run, args.rows[0], args.shard_size, args.board_size, args.seed)
        print(json.dumps(result))
        return 0
    if args.child:
        print(json.dumps({"statistics": statistics, "report": build}[args.child](args.run)))
        return 0

    if args.out and Path(args.out).exists():
        sys.exit(f"{args.out} exists; choose another --out")
    root = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="jpdsim-scale-"))
    try:
        for rows in args.rows:
            folder = root / f"run-{rows}"
            try:
                measure(folder / "run", rows, args)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
