"""Scale benchmark of the analysis: write a synthetic run of N games (default 10,000,000) in the
dataset layout, then time every analysis part and measure its memory peak.

Each part (the work of one notebook: load its columns, compute its tables) runs in a fresh
child process, as each notebook runs in its own kernel, so its peak resident memory
(``resource.getrusage``, ru_maxrss) is its own; the run is written by a child too. Then the
full HTML report is built (unless ``--no-report``) and the peak of its largest kernel reported.

    python bench/report_scale.py                     # 10M games, 9x9
    python bench/report_scale.py --rows 1000000 --shard-size 100000 --keep --out /tmp/scale-run
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PARTS = ("disagreement", "finishes_last", "ab_komi", "cycles")


def _mib(kib: int) -> float:
    return kib / 1024  # Linux reports ru_maxrss in KiB


def run_part(part: str, run_dir: str) -> dict:
    """Load the columns of one part and compute its tables; return the timings in seconds."""
    from analysis import ab_effect, cycles, disagreement, finishes_last, komi, load

    steps: dict[str, float] = {}

    def step(name, fn, *args, **kw):
        t0 = time.perf_counter()
        result = fn(*args, **kw)
        steps[name] = time.perf_counter() - t0
        return result

    columns = {
        "disagreement": disagreement.COLUMNS,
        "finishes_last": finishes_last.COLUMNS,
        "ab_komi": ab_effect.COLUMNS + komi.COLUMNS,
        "cycles": cycles.COLUMNS,
    }[part] + load.CONFIG_COLUMNS
    df = step("load", load.load_runs, [run_dir], columns=columns)
    rows, frame_mib = len(df), df.memory_usage(deep=True).sum() / 2**20
    if part == "disagreement":
        step("pairs", disagreement.disagreement, df)
        step("matrix", disagreement.disagreement_matrix, df)
        step("by board size", disagreement.disagreement, df, by="board_size")
        step("by config", disagreement.disagreement, df, by="config")
    elif part == "finishes_last":
        step("shares", finishes_last.player_shares, df)
        step("crosstab", finishes_last.crosstab, df)
        step("relations by size", finishes_last.relations, df, by="board_size")
        step("parity", finishes_last.parity_table, df, by="board_size")
    elif part == "ab_komi":
        step("A/B summary", ab_effect.ab_summary, df, by="board_size")
        step("A/B by first", ab_effect.ab_by_first, df)
        step("A/B explain", ab_effect.ab_explain, df)
        step("area histogram", ab_effect.area_diff_histogram, df)
        step("komi curves", komi.komi_curves, df)
        step("fair komi (1000 boot)", komi.fair_komi, df)
        step("fair komi by size", komi.fair_komi, df, by="board_size")
    elif part == "cycles":
        by = ["repetition", "board_size"]
        step("endings", cycles.endings_wide, df, by=by)
        step("lengths", cycles.lengths, df, by=by)
        step("length histogram", cycles.length_histogram, df, by=by)
        step("repetition bans", cycles.repetition_bans, df, by=by)
        step("conversions", cycles.conversions, df, by=by)
        step("self-check", cycles.self_check, df)
    peak = _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return {
        "part": part,
        "rows": rows,
        "frame_mib": frame_mib,
        "steps": steps,
        "seconds": sum(steps.values()),
        "peak_mib": peak,
    }


def write_run(run_dir: str, rows: int, shard_size: int, board_size: int, seed: int) -> dict:
    """Write the synthetic run; return seconds, parquet MiB and the writer's peak."""
    from tests import synthetic  # the test fixture (ROOT is on sys.path)

    t0 = time.perf_counter()
    synthetic.synthetic_run(
        run_dir, rows, board_size=board_size, seed=seed, shard_size=shard_size, name=f"scale-{rows}"
    )
    size = sum(f.stat().st_size for f in (Path(run_dir) / "games").iterdir()) / 2**20
    return {
        "seconds": time.perf_counter() - t0,
        "mib": size,
        "peak_mib": _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
    }


def build(run_dir: str) -> dict:
    """Build the HTML report; return seconds, its size and the largest kernel's peak."""
    from analysis.report import build_report

    t0 = time.perf_counter()
    html = build_report([run_dir], Path(run_dir) / "report.html")
    return {
        "seconds": time.perf_counter() - t0,
        "mib": html.stat().st_size / 2**20,
        "kernel_peak_mib": _mib(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss),
        "peak_mib": _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss),
    }


def _child(*args: str) -> dict:
    """Run this script in child mode (a fresh, small process: Linux keeps ru_maxrss across
    exec, so children of a big process would inherit its peak) and return its JSON answer."""
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"child {args[:2]} failed:\n{out.stderr}")
    for line in out.stdout.splitlines():
        if line.startswith("report:"):
            print("  " + line)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=10_000_000, help="games in the synthetic run")
    p.add_argument(
        "--shard-size", type=int, default=1_000_000, help="games per shard (one parquet file each)"
    )
    p.add_argument("--board-size", type=int, default=9)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="run folder to write (default: a temporary folder)")
    p.add_argument("--keep", action="store_true", help="keep the run folder")
    p.add_argument("--no-report", action="store_true", help="skip building the HTML report")
    p.add_argument("--child", choices=("write", "report") + PARTS, help=argparse.SUPPRESS)
    p.add_argument("--run", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.child == "write":
        print(
            json.dumps(write_run(args.run, args.rows, args.shard_size, args.board_size, args.seed))
        )
        return 0
    if args.child == "report":
        print(json.dumps(build(args.run)))
        return 0
    if args.child:
        print(json.dumps(run_part(args.child, args.run)))
        return 0

    tmp = None
    if args.out:
        run_dir = Path(args.out)
        if run_dir.exists():
            sys.exit(f"{run_dir} exists; choose another --out")
    else:
        tmp = Path(tempfile.mkdtemp(prefix="jpdsim-scale-"))
        run_dir = tmp / "run"
    try:
        w = _child(
            "--child",
            "write",
            "--run",
            str(run_dir),
            "--rows",
            str(args.rows),
            "--shard-size",
            str(args.shard_size),
            "--board-size",
            str(args.board_size),
            "--seed",
            str(args.seed),
        )
        n = args.board_size
        print(
            f"wrote {args.rows:,} games ({n}x{n}) in {w['seconds']:.1f} s: "
            f"{w['mib']:,.0f} MiB of parquet in {run_dir}; writer peak {w['peak_mib']:,.0f} MiB"
        )
        results = []
        for part in PARTS:
            r = _child("--child", part, "--run", str(run_dir))
            results.append(r)
            detail = ", ".join(f"{k} {v:.2f}" for k, v in r["steps"].items())
            print(
                f"part {part:14s} {r['seconds']:7.2f} s  peak {r['peak_mib']:7,.0f} MiB  "
                f"frame {r['frame_mib']:6,.0f} MiB  ({detail})"
            )
        print(
            f"all parts {sum(r['seconds'] for r in results):.1f} s; largest peak "
            f"{max(r['peak_mib'] for r in results):,.0f} MiB"
        )
        if not args.no_report:
            r = _child("--child", "report", "--run", str(run_dir))
            print(
                f"HTML report {r['seconds']:.1f} s, {r['mib']:.1f} MiB; largest kernel peak "
                f"{r['kernel_peak_mib']:,.0f} MiB; report process peak {r['peak_mib']:,.0f} MiB"
            )
    finally:
        if tmp is not None and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp is not None:
            print(f"kept {run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
