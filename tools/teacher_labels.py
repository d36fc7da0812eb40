"""Label the positions of recorded games with a teacher: KataGo's root evaluation of each.

    python tools/teacher_labels.py RUN_DIR --katago BINARY --model NETWORK --out FILE.npz
        [--visits 400] [--moves 8 12 16 20] [--processes 2]

Each game of the run (``record_moves = "all"``, from the empty board) after each of
``--moves`` actions while it goes on (``sim.run.positions``), at the game's own komi under
Chinese area, is searched by KataGo (``sim.katago.root.RootEvaluator``: each process one
position at a time, one search thread, no random symmetries, so a label depends on its
position alone): its winrate for
Black, its score lead and its best move. ``--out`` (npz) holds, per position: the game id, the
number of actions played and the actions (padded with ``PAD``), the komi, Black's score in the
game, the teacher's winrate, lead and move (an action); and the network's file name and sha256,
the visits, the run and this command. Then it prints, per komi and number of moves, the
teacher's mean winrate beside Black's score in the games. ``docs/findings/root_value.py --from
RUN --labels FILE`` sets the labels beside what the search and its playouts say there.
"""

import argparse
import hashlib
import shlex
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the code of this tree, not an installed one

from sim.dataset.check import check_run  # noqa: E402
from sim.errors import UserError  # noqa: E402
from sim.katago.root import RootEvaluator  # noqa: E402
from sim.run.positions import positions  # noqa: E402
from sim.schema.coords import parse_action  # noqa: E402

PAD = -9  # the actions array's filler past a position's moves


def label(run_dir, evaluator: RootEvaluator, visits: int, moves) -> dict:
    """The labels of the run's positions as arrays (``--out``'s, without the metadata)."""
    found = list(positions(run_dir, moves))
    if not found:
        raise UserError(f"{run_dir}: no game lasts {min(moves)} actions")
    if any(p.rules.board_size != evaluator.size for p in found):
        raise UserError(f"{run_dir}: its games are not on {evaluator.size}x{evaluator.size}")
    asked = [("chinese", visits, p.komi, p.told) for p in found]
    evaluations = evaluator.evaluate(asked)
    actions = np.full((len(found), max(p.moves for p in found)), PAD, np.int16)
    for i, p in enumerate(found):
        actions[i, : p.moves] = p.actions
    return {
        "game_id": np.array([p.game_id for p in found], np.int32),
        "moves": np.array([p.moves for p in found], np.int16),
        "actions": actions,
        "komi": np.array([p.komi for p in found]),
        "score": np.array([p.score for p in found]),
        "winrate": np.array([e.winrate for e in evaluations]),
        "lead": np.array([e.lead for e in evaluations]),
        "move": np.array([parse_action(e.move, evaluator.size) for e in evaluations], np.int16),
        "seconds": np.array([e.seconds for e in evaluations]),
    }


def summary(labels: dict) -> str:
    """Per komi and number of moves: the positions, the teacher's mean winrate for Black and
    Black's score in the games (over those with a result)."""
    lines = ["| komi | moves | positions | the teacher's winrate for Black | Black's score |"]
    lines.append("|---|---|---|---|---|")
    for komi in np.unique(labels["komi"]):
        for k in np.unique(labels["moves"]):
            at = (labels["komi"] == komi) & (labels["moves"] == k)
            if at.any():
                lines.append(
                    f"| {komi:g} | {k} | {at.sum()} | {labels['winrate'][at].mean():.3f} | "
                    f"{np.nanmean(labels['score'][at]):.3f} |"
                )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", metavar="RUN_DIR")
    ap.add_argument("--katago", required=True, metavar="BINARY")
    ap.add_argument("--model", required=True, metavar="NETWORK")
    ap.add_argument("--out", required=True, type=Path, metavar="FILE")
    ap.add_argument("--visits", type=int, default=400)
    ap.add_argument("--moves", type=int, nargs="+", default=[8, 12, 16, 20])
    ap.add_argument("--processes", type=int, default=2)
    args = ap.parse_args()
    started = time.monotonic()
    if not args.out.parent.is_dir():  # before the hours of labelling, not after
        sys.exit(f"teacher_labels: error: --out {args.out}: no such folder")
    try:
        size = check_run(Path(args.run)).config.rules.board_size
        evaluator = RootEvaluator(args.katago, args.model, size, args.processes)
        try:
            labels = label(args.run, evaluator, args.visits, args.moves)
        finally:
            evaluator.close()
    except (UserError, ValueError) as e:
        sys.exit(f"teacher_labels: error: {e}")
    network = Path(args.model)
    np.savez_compressed(
        args.out,
        **labels,
        network=network.name,
        sha256=hashlib.sha256(network.read_bytes()).hexdigest(),
        visits=args.visits,
        run=str(args.run),
        command=shlex.join(["python", "tools/teacher_labels.py", *sys.argv[1:]]),
    )
    print(summary(labels))
    seconds = time.monotonic() - started
    print(f"\n{len(labels['komi'])} positions in {seconds:.0f} s; written to {args.out}")


if __name__ == "__main__":
    main()
