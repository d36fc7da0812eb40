"""``jpdsim root-komi``: a KataGo network's own fair komi on an empty board, from its root
evaluations across komis (``sim.katago.root``; docs/katago.md, "The network's own fair komi").

Prints, for each ruleset and number of visits, the winrate and score lead at each komi asked
and the two readings of the fair komi; then a table of the readings as the visits grow.
``--csv FILE`` also writes every evaluation, one row each.
"""

from __future__ import annotations

import csv
import io
import math
import time
from pathlib import Path

from sim.errors import UserError
from sim.files import write_text_atomic
from sim.katago.root import RootEvaluator, fair_komi
from sim.komi.fitting import GAP


def _komi(value: float, around=(math.nan, math.nan)) -> str:
    """A fair komi by winrate as text: past the komis asked, or across a gap between them."""
    if math.isinf(value):
        return "above the komis asked" if value > 0 else "below the komis asked"
    low, high = around
    if high - low > GAP:
        return f"{value:.2f} (a line across {low:g}..{high:g})"
    return f"{value:.2f}"


def readings_text(size: int, readings) -> str:
    """Each reading's evaluations and fair komi, then the readings as the visits grow."""
    blocks = []
    for r in readings:
        seconds = sum(e.seconds for e in r.evaluations)
        by_winrate = _komi(r.by_winrate, r.around)
        lines = [
            f"{r.ruleset}, {r.visits} visits: fair komi {by_winrate} by winrate, "
            f"{r.by_lead:.2f} by komi 0's score lead ({len(r.evaluations)} komis, {seconds:.0f} s)",
            "   komi  winrate    lead  komi+lead",
        ]
        lines += [
            f"  {e.komi:5g}  {e.winrate:7.3f}  {e.lead:6.2f}  {e.komi + e.lead:9.2f}"
            for e in r.evaluations
        ]
        blocks.append("\n".join(lines))
    summary = [f"{size}x{size}, the empty board, Black to play: the fair komi by", ""]
    summary.append(f"  {'ruleset':<13}{'visits':>8}{'winrate':>24}{'score lead':>12}")
    for r in readings:
        summary.append(f"  {r.ruleset:<13}{r.visits:>8}{_komi(r.by_winrate):>24}{r.by_lead:>12.2f}")
    return "\n\n".join(blocks + ["\n".join(summary)])


def csv_text(readings) -> str:
    """Every evaluation as a CSV row (ruleset, visits, komi, winrate, lead, seconds)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["ruleset", "visits", "komi", "winrate", "lead", "seconds"])
    for r in readings:
        for e in r.evaluations:
            writer.writerow([e.ruleset, e.visits, e.komi, e.winrate, e.lead, f"{e.seconds:.3f}"])
    return out.getvalue()


def main(args) -> int:
    if not 2 <= args.size <= 19:
        raise UserError(f"--size {args.size}: KataGo plays boards of 2..19 here")
    if any(v < 2 for v in args.visits):
        raise UserError(f"--visits {min(args.visits)}: at least 2 (KataGo searches no move at 1)")
    if args.span < 0:
        raise UserError(f"--span {args.span:g}: not negative")
    if args.processes < 1:
        raise UserError(f"--processes {args.processes}: at least 1")
    if args.csv is not None and not Path(args.csv).parent.is_dir():
        raise UserError(f"--csv {args.csv}: no such folder")
    started = time.monotonic()
    evaluator = RootEvaluator(
        args.katago, args.model, args.size, args.processes, args.config, args.timeout
    )
    try:
        visits = sorted(set(args.visits))
        readings = fair_komi(evaluator, args.ruleset, visits, args.komi or None, args.span)
        print(f"KataGo {evaluator.version}, network {args.model}")
    finally:
        evaluator.close()
    print(readings_text(args.size, readings))
    print(f"\n{time.monotonic() - started:.0f} s in all")
    if args.csv is not None:
        write_text_atomic(Path(args.csv), csv_text(readings))
    return 0
