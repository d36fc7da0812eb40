"""Digests of every game of a fixed set of mixes: the check that a change to the engine, the
players or the compiler patches leaves every game as it was.

    python bench/game_hashes.py [--quick]

Each mix (players, rules, options) plays its games through ``sim.play.selfplay.play_rows``; its
digest is the SHA-256 of every raw outcome row and every action. Prints one line per mix and
the digest of all; run it on two versions of the code and compare (``git worktree add`` puts
the other version beside this one). ``--quick`` plays a tenth of the games.
"""

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the engine of this tree, not an installed one

from sim.config.player import EVENING, LATE_NIGHT, NIGHT, PUCT, Player  # noqa: E402
from sim.config.rules import Rules  # noqa: E402

# Each mix pins the earlier default search of ``sim.config.player`` (``LATE_NIGHT``, ``NIGHT``,
# ``EVENING``, ``PUCT``) it was first taken with, so that its digest compares with older code.
#: The PUCT search with RAVE, the hand-set priors and the random playout.
MCTS = {"kind": "mcts", **PUCT, "playout": "random", "rave": 1000.0, "prior": "hand"}

#: (name, board size, rule options, black, white, play options, games)
MIXES = [
    ("random 9x9", 9, {}, "random", "random", {}, 20_000),
    ("random 19x19", 19, {}, "random", "random", {}, 2_000),
    *[
        (
            f"7x7 {rep} {sui} virtual check",
            7,
            {"repetition": rep, "suicide": sui},
            "random",
            "random",
            {"virtual_rate": 0.05, "check": True},
            1_000,
        )
        for rep in (
            "global_superko",
            "no_result",
            "board_superko",
            "situational_superko",
            "basic_ko",
        )
        for sui in ("multi", "none")
    ],
    ("pattern vs kofight 9x9", 9, {}, {"kind": "pattern"}, {"kind": "kofight"}, {}, 2_000),
    (
        "capture vs pattern 9x9 virtual",
        9,
        {},
        {"kind": "capture"},
        {"kind": "pattern"},
        {"virtual_rate": 0.02},
        2_000,
    ),
    (
        "mcts(60) vs capture 7x7 agree",
        7,
        {"dead_stones": "agree"},
        {"kind": "mcts", **PUCT, "visits": 60, "prior": "hand"},
        {"kind": "capture"},
        {},
        100,
    ),
    (
        "mcts(40) random playouts 7x7 exact",
        7,
        {},
        {**MCTS, "visits": 40},
        {**MCTS, "visits": 40, "play_for": "chinese"},
        {"exact": True},
        60,
    ),
    (
        "mcts(60) learned priors vs pattern 7x7 situational",
        7,
        {"repetition": "situational_superko"},
        {"kind": "mcts", "visits": 60, **PUCT},
        {"kind": "pattern"},
        {},
        60,
    ),
    (
        "mcts(60) prior visits vs kofight 7x7 board superko",
        7,
        {"repetition": "board_superko"},
        {"kind": "mcts", "visits": 60, "tactics": False, **EVENING},
        {"kind": "kofight"},
        {"virtual_rate": 0.02},
        60,
    ),
    (
        "mcts(60) tactics vs pattern 9x9 basic ko",
        9,
        {"repetition": "basic_ko"},
        {"kind": "mcts", "visits": 60, **EVENING},
        {"kind": "pattern"},
        {},
        40,
    ),
    (
        "mcts(60) doubted passes, score utility vs pattern 7x7 agree",
        7,
        {"dead_stones": "agree"},
        {"kind": "mcts", "visits": 60, **NIGHT},
        {"kind": "pattern"},
        {},
        60,
    ),
    (
        "mcts(60) no suicides vs pattern 7x7 multi-stone suicide",
        7,
        {"suicide": "multi"},
        {"kind": "mcts", "visits": 60, **LATE_NIGHT},
        {"kind": "pattern"},
        {},
        60,
    ),
    (
        "mcts(60) diamond patterns vs pattern 9x9",
        9,
        {},
        {"kind": "mcts", "visits": 60},
        {"kind": "pattern"},
        {},
        40,
    ),
]


def digest(size, rule_options, black, white, options, games) -> str:
    """The SHA-256 of the raw rows and the actions of ``games`` games of one mix."""
    from sim.play.selfplay import play_rows

    rows, moves = play_rows(
        Rules(size, **rule_options),
        seed=20261203,
        game_ids=np.arange(games, dtype=np.int64),
        black=Player.from_table(black),
        white=Player.from_table(white),
        record_moves=True,
        **options,
    )
    h = hashlib.sha256(np.ascontiguousarray(rows, np.int64).tobytes())
    for m in moves:
        h.update(np.int64(len(m)).tobytes() + np.ascontiguousarray(m, np.int16).tobytes())
    return h.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the games")
    args = ap.parse_args()
    total = hashlib.sha256()
    for name, *mix, games in MIXES:
        t = time.perf_counter()
        d = digest(*mix, max(1, games // 10) if args.quick else games)
        total.update(d.encode())
        print(f"{d}  {name}  ({time.perf_counter() - t:.1f} s)", flush=True)
    print(f"{total.hexdigest()[:16]}  all")


if __name__ == "__main__":
    main()
