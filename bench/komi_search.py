"""The games a ``komi_search`` needs against a fixed komi grid, for the same interval width.

    python bench/komi_search.py [--pool 40000] [--trials 20] [--precision 0.5 0.25]
    python bench/komi_search.py --model RUN [RUN ...] [--start K] [--round G] [...]
    (either: [--grid-step 1 | 0.5] [--grid-games 60] [--seed 7] [--fixed]: the grid's spacing,
    the games it adds at a time, the trials' draws, and a grid played once too)

For each board (5x5 and 7x7, Chinese rules, pattern self-play): a pool of games is played once
(``sim.selfplay.play_rows``) and Black's area lead before komi read from each. The pattern
player does not look at the komi, so a game "at komi k" is a game of the pool scored at k:
both designs below draw their games from the same pool, and what differs is only where the
games go.

- **grid**: the fixed sweep of docs/findings.md's solved-board studies, six komis a point
  apart (half points, ``k - 2.5 .. k + 2.5``), centred on the fair komi of the whole pool (the
  best a grid can be placed: a user who guessed would do worse), games spread evenly, grown by
  ``--grid-games`` at a time (as a search grows by its rounds) until the fit's 95% interval
  (``sim.komi_fit``, as ``jpdsim komi`` prints it) is within the precision on either side;
  with ``--grid-step 0.5`` the whole points between them too (eleven komis), so that the grid
  reads the same curve as the search, whose whole komis pin the draws;
- **search**: ``sim.komi_search.next_round`` from the run's default komi (7.5, a guess far from
  both answers), in rounds of 120 games, until it stops.

Prints, per board and precision, the median (and mean) games of each over ``--trials`` trials
(each its own draws) and their ratio, and how often each interval held the pool's fair komi.
The grid above looks at its interval each time it grows and stops at the first narrow look,
as a user topping up a sweep would. With ``--fixed``, also the sweep as ``komi_sweep`` plays
it, its games chosen before it starts: the fewest games (in steps of ``--grid-games``) at which
the grid's interval is within the precision in half and in nine tenths of the trials, beside
the search's median and 90th percentile.

With ``--model`` the games come from a player that looks at the komi instead: the run folders'
games (a komi sweep or search of it, Chinese area) give Black's shares of wins, draws and losses
at each komi they played, and a game "at komi k" is drawn from the shares of the komi played
nearest to k of the same kind (whole or half point; past the ends, the end's). The grid is
centred on the model's own fair komi as above; the search starts from ``--start`` in rounds of
``--round`` games.
"""

import argparse
import functools
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the code of this tree, not an installed one

from sim import komi_fit  # noqa: E402
from sim.komi_search import KomiSearch, next_round  # noqa: E402

GRID_SPAN = 2.5  # the grid's komis from its centre: -2.5 to 2.5 in steps of --grid-step
GRID_GAMES, ROUND, CAP = 60, 120, 200_000


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


def model(run_dirs) -> tuple[np.ndarray, np.ndarray]:
    """The Chinese komis the runs' games were played at and Black's (wins, draws, losses) at
    each (``analysis.komi_sweep``'s count, games without a result left out)."""
    from analysis.komi_sweep import sweep_curve
    from analysis.load import load_runs

    curve = sweep_curve(
        load_runs(run_dirs, columns=["komi_chinese", "winner_chinese"]), ["chinese"]
    )
    wins, draws = curve["wins"].to_numpy(), curve["draws"].to_numpy()
    wdl = np.stack([wins, draws, curve["games"].to_numpy() - wins - draws], axis=1)
    return curve["komi"].to_numpy(np.float64), wdl.astype(np.int64)


def model_counts(modelled, komis, per, rng) -> np.ndarray:
    """Black's (wins, draws, losses) of ``per[j]`` games at each komi, drawn from the shares of
    the modelled komi nearest to it of the same kind (``model``)."""
    ks, wdl = modelled
    out = []
    for k, n in zip(komis, per):
        kind = np.flatnonzero((ks % 1 == 0) == (k % 1 == 0))
        j = kind[np.argmin(abs(ks[kind] - k))] if kind.size else np.argmin(abs(ks - k))
        out.append(rng.multinomial(n, wdl[j] / wdl[j].sum()))
    return np.array(out, np.int64)


def fit(komis, c):
    boot = komi_fit.bootstrap_counts(c, 1000, 0)
    return komi_fit.fit(np.asarray(komis, np.float64), c, boot)


def grid_fits(play, centre, rng, step=1.0, grow=GRID_GAMES):
    """The grid around ``centre``, komis ``step`` apart, grown by ``grow`` games at a time to
    ``CAP`` (``play(komis, per, rng)``: Black's counts of ``per`` games at each komi): its games
    and fit after each growth."""
    komis = np.round((centre + np.arange(-GRID_SPAN, GRID_SPAN + step / 2, step)) * 2) / 2
    c = np.zeros((len(komis), 3), np.int64)
    while c.sum() < CAP:
        c += play(komis, [max(grow // len(komis), 1)] * len(komis), rng)
        yield int(c.sum()), fit(komis, c)


def half_width(f) -> float:
    return (f.hi - f.lo) / 2


def grid_games(play, centre, precision, rng, step=1.0, grow=GRID_GAMES):
    """The games of the grid (``grid_fits``) when its fit is first within ``precision``, and
    that fit."""
    for n, f in grid_fits(play, centre, rng, step, grow):
        if half_width(f) <= precision or n >= CAP:
            return n, f


def fixed_grid(play, centre, precision, rng, trials, shares, step=1.0, grow=GRID_GAMES):
    """For each of ``shares``: the fewest games of a fixed grid (played once, not looked at on
    the way) whose fit is within ``precision`` in that share of ``trials`` trials, and how many
    of the trials' intervals there hold ``centre`` (None where ``CAP`` games do not get there)."""
    out = {q: None for q in shares}
    for level in zip(*(grid_fits(play, centre, rng, step, grow) for _ in range(trials))):
        within = np.mean([half_width(f) <= precision for _, f in level])
        for q in shares:
            if out[q] is None and within >= q:
                out[q] = level[0][0], sum(f.lo <= centre <= f.hi for _, f in level)
        if all(out.values()):
            break
    return out


def search_games(play, precision, rng, start=7.5, round_games=ROUND):
    """The games of a search from ``start`` to ``precision`` and its last round."""
    search = KomiSearch("chinese", precision=precision, max_games=CAP, round_games=round_games)
    totals, played = {}, 0
    while True:
        ks = sorted(totals)
        r = next_round(search, start, ks, [totals[k] for k in ks], played)
        if not r.komis:
            return played, r
        per = np.bincount(np.arange(round_games) % len(r.komis), minlength=len(r.komis))
        for k, c in zip(r.komis, play(r.komis, per, rng)):
            totals[k] = totals.get(k, 0) + c
        played += round_games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=40_000)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--precision", type=float, nargs="+", default=[0.5, 0.25])
    parser.add_argument("--model", nargs="+", metavar="RUN")
    parser.add_argument("--start", type=float, default=7.5)
    parser.add_argument("--round", type=int, default=ROUND)
    parser.add_argument("--grid-step", type=float, default=1.0, choices=(1.0, 0.5))
    parser.add_argument("--grid-games", type=int, default=GRID_GAMES)
    parser.add_argument("--seed", type=int, default=7, help="the trials' random draws")
    parser.add_argument(
        "--fixed", action="store_true", help="also the games a grid played once needs"
    )
    args = parser.parse_args()
    if args.model:
        modelled = model(args.model)
        ks, wdl = modelled
        truth = komi_fit.fit(ks, wdl).fair
        print(f"a model of {wdl.sum():,} games at {len(ks)} komis, its fair komi {truth:.2f}")
        compare(functools.partial(model_counts, modelled), truth, args)
        return
    for size in (5, 7):
        pool = leads(size, args.pool)
        ks = np.arange(np.floor(pool.min()) - 1, np.ceil(pool.max()) + 1.5, 0.5)
        whole = np.array([[(pool > k).sum(), (pool == k).sum(), (pool < k).sum()] for k in ks])
        truth = komi_fit.fit(ks, whole).fair
        print(f"{size}x{size}: {args.pool:,} pattern games, fair komi of the pool {truth:.2f}")
        compare(functools.partial(counts, pool), truth, args)


def compare(play, truth: float, args) -> None:
    """Print, per precision, the median games of the grid and of the search over the trials."""
    for precision in args.precision:
        rng = np.random.default_rng(args.seed)
        g, s, g_in, s_in = [], [], 0, 0
        for _ in range(args.trials):
            n, f = grid_games(play, truth, precision, rng, args.grid_step, args.grid_games)
            g.append(n)
            g_in += f.lo <= truth <= f.hi
            n, r = search_games(play, precision, rng, args.start, args.round)
            s.append(n)
            s_in += r.lo <= truth <= r.hi
        print(
            f"  ±{precision:g}: grid {np.median(g):,.0f} games, mean {np.mean(g):,.0f} (interval "
            f"held the fair komi {g_in}/{args.trials}), search {np.median(s):,.0f}, mean "
            f"{np.mean(s):,.0f} ({s_in}/{args.trials}): {np.median(g) / np.median(s):.2f}x "
            f"fewer, {np.mean(g) / np.mean(s):.2f}x by the means"
        )
        if args.fixed:
            rng = np.random.default_rng(args.seed)
            kw = dict(step=args.grid_step, grow=args.grid_games)
            fixed = fixed_grid(play, truth, precision, rng, args.trials, (0.5, 0.9), **kw)
            for q, name in zip(fixed, ("median", "90th percentile")):
                n, held = fixed[q] or (np.nan, 0)
                searched = np.percentile(s, 100 * q)
                print(
                    f"    a grid played once, within ±{precision:g} in {q:.0%} of trials: {n:,.0f} "
                    f"games (interval held the fair komi {held}/{args.trials}); the search's "
                    f"{name} {searched:,.0f}: {n / searched:.2f}x; its mean {np.mean(s):,.0f}: "
                    f"{n / np.mean(s):.2f}x"
                )


if __name__ == "__main__":
    main()
