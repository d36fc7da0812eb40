"""The games a ``komi_search`` needs against a fixed komi grid, for the same interval width.

    python bench/komi_search.py [--pool 40000] [--trials 20] [--precision 0.5 0.25]

For each board (5x5 and 7x7, Chinese rules, pattern self-play): a pool of games is played once
(``sim.selfplay.play_rows``) and Black's area lead before komi read from each. The pattern
player does not look at the komi, so a game "at komi k" is a game of the pool scored at k:
both designs below draw their games from the same pool, and what differs is only where the
games go.

- **grid**: the fixed sweep of docs/findings.md's solved-board studies, six komis a point
  apart (half points, ``k - 2.5 .. k + 2.5``), centred on the fair komi of the whole pool (the
  best a grid can be placed: a user who guessed would do worse), games spread evenly, grown by
  60 at a time until the fit's 95% interval (``sim.komi_fit``, as ``jpdsim komi`` prints it)
  is within the precision on either side;
- **search**: ``sim.komi_search.next_round`` from the run's default komi (7.5, a guess far from
  both answers), in rounds of 120 games, until it stops.

Prints, per board and precision, the median games of each over ``--trials`` trials (each its
own draws) and their ratio, and how often each interval held the pool's fair komi.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the code of this tree, not an installed one

from sim import komi_fit  # noqa: E402
from sim.komi_search import KomiSearch, next_round  # noqa: E402

GRID = np.arange(-2.5, 3.0, 1.0)  # six komis a point apart, from the centre
GRID_STEP, ROUND, CAP = 60, 120, 200_000


def leads(size: int, games: int) -> np.ndarray:
    """Black's Chinese area lead before komi in ``games`` pattern self-play games."""
    from sim.engine.outcome import row_margin
    from sim.rules import Rules
    from sim.schema import RULESETS
    from sim.selfplay import play_rows

    rows, _ = play_rows(
        Rules.preset("chinese", size),
        seed=1,
        game_ids=np.arange(games),
        black="pattern",
        white="pattern",
    )
    chinese = RULESETS.index("chinese")
    return np.array([row_margin(rows[i], chinese, 0.0) for i in range(games)])


def counts(pool: np.ndarray, komis, per, rng) -> np.ndarray:
    """Black's (wins, draws, losses) of ``per[j]`` games drawn from ``pool`` at each komi."""
    out = []
    for k, n in zip(komis, per):
        x = rng.choice(pool, n)
        out.append([(x > k).sum(), (x == k).sum(), (x < k).sum()])
    return np.array(out, np.int64)


def fit(komis, c):
    boot = komi_fit.bootstrap_counts(c, 1000, 0)
    return komi_fit.fit(np.asarray(komis, np.float64), c, boot)


def grid_games(pool, centre, precision, rng):
    komis = np.round((centre + GRID) * 2) / 2
    c = np.zeros((len(komis), 3), np.int64)
    while c.sum() < CAP:
        c += counts(pool, komis, [GRID_STEP // len(komis)] * len(komis), rng)
        f = fit(komis, c)
        if (f.hi - f.lo) / 2 <= precision:
            return int(c.sum()), f
    return CAP, f


def search_games(pool, precision, rng):
    search = KomiSearch("chinese", precision=precision, max_games=CAP, round_games=ROUND)
    totals, played = {}, 0
    while True:
        ks = sorted(totals)
        r = next_round(search, 7.5, ks, [totals[k] for k in ks], played)
        if not r.komis:
            return played, r
        per = np.bincount(np.arange(ROUND) % len(r.komis), minlength=len(r.komis))
        for k, c in zip(r.komis, counts(pool, r.komis, per, rng)):
            totals[k] = totals.get(k, 0) + c
        played += ROUND


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=40_000)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--precision", type=float, nargs="+", default=[0.5, 0.25])
    args = parser.parse_args()
    for size in (5, 7):
        pool = leads(size, args.pool)
        ks = np.arange(np.floor(pool.min()) - 1, np.ceil(pool.max()) + 1.5, 0.5)
        whole = np.array([[(pool > k).sum(), (pool == k).sum(), (pool < k).sum()] for k in ks])
        truth = komi_fit.crossing(ks, komi_fit.isotonic(komi_fit.score(whole), whole.sum(1)))
        print(f"{size}x{size}: {args.pool:,} pattern games, fair komi of the pool {truth:.2f}")
        for precision in args.precision:
            rng = np.random.default_rng(7)
            g, s, g_in, s_in = [], [], 0, 0
            for _ in range(args.trials):
                n, f = grid_games(pool, truth, precision, rng)
                g.append(n)
                g_in += f.lo <= truth <= f.hi
                n, r = search_games(pool, precision, rng)
                s.append(n)
                s_in += r.lo <= truth <= r.hi
            print(
                f"  ±{precision:g}: grid {np.median(g):,.0f} games (interval held the pool's "
                f"value {g_in}/{args.trials}), search {np.median(s):,.0f} ({s_in}/{args.trials}): "
                f"{np.median(g) / np.median(s):.2f}x fewer"
            )


if __name__ == "__main__":
    main()
