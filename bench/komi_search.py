"""The games a ``komi_search`` needs against a fixed komi grid, for the same interval width.

    python bench/komi_search.py [--pool 40000] [--trials 20] [--precision 0.5 0.25]
    python bench/komi_search.py --model RUN [RUN ...] [--start K] [--round G] [...]
    (either: [--grid-step 1 | 0.5] [--grid-games 60] [--seed 7] [--fixed]: the grid's spacing,
    the games it adds at a time, the trials' draws, and a grid played once too)

For each board (5x5 and 7x7, Chinese rules, pattern self-play): a pool of games is played once
(``sim.play.selfplay.play_rows``) and Black's area lead before komi read from each. The pattern
player does not look at the komi, so a game "at komi k" is a game of the pool scored at k:
both designs below draw their games from the same pool, and what differs is only where the
games go.

- **grid**: the fixed sweep of docs/findings.md's solved-board studies, six komis a point
  apart (half points, ``k - 2.5 .. k + 2.5``), centred on the fair komi of the whole pool (the
  best a grid can be placed: a user who guessed would do worse), games spread evenly, grown by
  ``--grid-games`` at a time (as a search grows by its rounds) until the fit's 95% interval
  (``sim.komi.fitting``, as ``jpdsim komi`` prints it) is within the precision on either side;
  with ``--grid-step 0.5`` the whole points between them too (eleven komis), so that the grid
  reads the same curve as the search, whose whole komis pin the draws;
- **search**, twice, in rounds of 120 games (``--round``) until it stops
  (``sim.komi.search.next_round``): from ``start = 7.5`` (``--start``, a guess far from both
  answers), walking out while its komis do not bracket the answer; and without a ``start``,
  its first round one shard of 40 games around the run's default komi (the same 7.5), its
  second placed by that round's leads (Black's margin plus the komi of each game).

Prints, per board and precision, the median (and mean) games of each over ``--trials`` trials
(each its own draws) and their ratio, and how often each interval held the pool's fair komi.
The grid above looks at its interval each time it grows and stops at the first narrow look,
as a user topping up a sweep would. With ``--fixed``, also the sweep as ``komi_sweep`` plays
it, its games chosen before it starts: the fewest games (in steps of ``--grid-games``) at which
the grid's interval is within the precision in half and in nine tenths of the trials, beside
the search's median and 90th percentile.

With ``--model`` the games come from a player that looks at the komi instead: the run folders'
games (a komi sweep or search of it, Chinese area, with their results and leads), and a game
"at komi k" is one drawn from the games of the komi played nearest to k of the same kind (whole
or half point; past the ends, the end's): its result and its lead, which for a player that
plays for the komi depends on the komi played, not on k. The grid is centred on the model's own
fair komi as above; the searches go in rounds of ``--round`` games.
"""

import argparse
import functools
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the code of this tree, not an installed one

from sim.komi import fitting  # noqa: E402
from sim.komi.search import KomiSearch, next_round  # noqa: E402

GRID_SPAN = 2.5  # the grid's komis from its centre: -2.5 to 2.5 in steps of --grid-step
GRID_GAMES, ROUND, SHARD, CAP = 60, 120, 40, 200_000


def leads(size: int, games: int) -> np.ndarray:
    """Black's Chinese area lead before komi in ``games`` pattern self-play games."""
    from sim.config.rules import Rules
    from sim.engine.outcome import row_margin
    from sim.play.selfplay import play_rows
    from sim.schema.tables import RULESETS

    rows, _ = play_rows(
        Rules.preset("chinese", size),
        seed=1,
        game_ids=np.arange(games),
        black="pattern",
        white="pattern",
    )
    chinese = RULESETS.index("chinese")
    return np.array([row_margin(rows[i], chinese, 0.0) for i in range(games)])


def _scored(x: np.ndarray, k: float) -> list[int]:
    """Black's (wins, draws, losses) at komi ``k`` of games with leads ``x``."""
    return [(x > k).sum(), (x == k).sum(), (x < k).sum()]


def counts(pool: np.ndarray, komis, per, rng) -> tuple[np.ndarray, np.ndarray]:
    """Black's (wins, draws, losses) of ``per[j]`` games drawn from ``pool`` at each komi, and
    the games' leads."""
    drawn = [rng.choice(pool, n) for n in per]
    return np.array([_scored(x, k) for k, x in zip(komis, drawn)], np.int64), np.concatenate(drawn)


def model(run_dirs) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The runs' games under Chinese rules (those with a result): each one's komi, Black's
    result (0 win, 1 draw, 2 loss) and lead (margin plus komi), and the board's points."""
    from analysis.load import load_runs

    cols = ["board_size", "komi_chinese", "winner_chinese", "margin_chinese"]
    games = load_runs(run_dirs, columns=cols).dropna(subset=["winner_chinese"])
    komi = games["komi_chinese"].to_numpy(np.float64)
    result = games["winner_chinese"].map({"B": 0, "draw": 1, "W": 2}).to_numpy(np.int64)
    lead = games["margin_chinese"].to_numpy(np.float64) + komi
    return komi, result, lead, int(games["board_size"].max()) ** 2


def model_counts(modelled, komis, per, rng) -> tuple[np.ndarray, np.ndarray]:
    """Black's (wins, draws, losses) of ``per[j]`` games at each komi, and their leads: games
    drawn from those of the modelled komi nearest to it of the same kind (``model``)."""
    komi, result, lead = modelled[:3]
    ks = np.unique(komi)
    out, leads = [], []
    for k, n in zip(komis, per):
        kind = np.flatnonzero((ks % 1 == 0) == (k % 1 == 0))
        near = ks[kind[np.argmin(abs(ks[kind] - k))] if kind.size else np.argmin(abs(ks - k))]
        j = rng.choice(np.flatnonzero(komi == near), n)
        out.append(np.bincount(result[j], minlength=3))
        leads.append(lead[j])
    return np.array(out, np.int64), np.concatenate(leads)


def fit(komis, c):
    boot = fitting.bootstrap_counts(c, 1000, 0)
    return fitting.fit(np.asarray(komis, np.float64), c, boot)


def grid_fits(play, centre, rng, step=1.0, grow=GRID_GAMES):
    """The grid around ``centre``, komis ``step`` apart, grown by ``grow`` games at a time to
    ``CAP`` (``play(komis, per, rng)``: Black's counts of ``per`` games at each komi): its games
    and fit after each growth."""
    komis = np.round((centre + np.arange(-GRID_SPAN, GRID_SPAN + step / 2, step)) * 2) / 2
    c = np.zeros((len(komis), 3), np.int64)
    while c.sum() < CAP:
        c += play(komis, [max(grow // len(komis), 1)] * len(komis), rng)[0]
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


def search_games(play, precision, rng, points, guess=7.5, start=None, round_games=ROUND):
    """The games of a search to ``precision`` and its last round: from ``start`` (walking
    while it does not bracket), or, with none, from ``guess`` in a first round of one shard
    (``SHARD`` games), its second placed by the first round's leads; ``points``: the board's
    range."""
    search = KomiSearch(
        "chinese", precision=precision, max_games=CAP, round_games=round_games, start=start
    ).started(guess, points, min(SHARD, round_games))
    totals, leads, r = {}, [], search.rounds[0]
    while r.komis:
        per = np.bincount(np.arange(r.games) % len(r.komis), minlength=len(r.komis))
        c, x = play(r.komis, per, rng)
        for k, ck in zip(r.komis, c):
            totals[k] = totals.get(k, 0) + ck
        leads = np.concatenate([leads, x])
        ks = sorted(totals)
        r = next_round(search, ks, [totals[k] for k in ks], leads, points)
        search = replace(search, rounds=(*search.rounds, r))
    return search.games, r


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
        ks = np.unique(modelled[0])
        wdl = np.array([np.bincount(modelled[1][modelled[0] == k], minlength=3) for k in ks])
        truth = fitting.fit(ks, wdl).fair
        print(f"a model of {wdl.sum():,} games at {len(ks)} komis, its fair komi {truth:.2f}")
        compare(functools.partial(model_counts, modelled), truth, modelled[3], args)
        return
    for size in (5, 7):
        pool = leads(size, args.pool)
        ks = np.arange(np.floor(pool.min()) - 1, np.ceil(pool.max()) + 1.5, 0.5)
        truth = fitting.fit(ks, np.array([_scored(pool, k) for k in ks])).fair
        print(f"{size}x{size}: {args.pool:,} pattern games, fair komi of the pool {truth:.2f}")
        compare(functools.partial(counts, pool), truth, size**2, args)


def compare(play, truth: float, points: int, args) -> None:
    """Print, per precision, the median games of the grid, of the search from ``--start``
    (walking) and of the search without one (placed by the first round's leads) over the
    trials."""
    for precision in args.precision:
        rng = np.random.default_rng(args.seed)
        games = {"grid": [], "walk": [], "placed": []}
        held = dict.fromkeys(games, 0)
        for _ in range(args.trials):
            n, f = grid_games(play, truth, precision, rng, args.grid_step, args.grid_games)
            for name, start in (("grid", None), ("walk", args.start), ("placed", None)):
                if name != "grid":
                    n, f = search_games(play, precision, rng, points, args.start, start, args.round)
                games[name].append(n)
                held[name] += f.lo <= truth <= f.hi
        g = games["grid"]
        line = f"  ±{precision:g}: grid {np.median(g):,.0f} games, mean {np.mean(g):,.0f}"
        line += f" (interval held the fair komi {held['grid']}/{args.trials})"
        for name, what in (("walk", f"from start {args.start:g}"), ("placed", "without one")):
            x = games[name]
            line += (
                f"; search {what} {np.median(x):,.0f}, mean {np.mean(x):,.0f} "
                f"({held[name]}/{args.trials}): {np.median(g) / np.median(x):.2f}x fewer"
            )
        print(line)
        if args.fixed:
            s = games["placed"]
            rng = np.random.default_rng(args.seed)
            kw = dict(step=args.grid_step, grow=args.grid_games)
            fixed = fixed_grid(play, truth, precision, rng, args.trials, (0.5, 0.9), **kw)
            for q, name in zip(fixed, ("median", "90th percentile")):
                n, held_q = fixed[q] or (np.nan, 0)
                searched = np.percentile(s, 100 * q)
                print(
                    f"    a grid played once, within ±{precision:g} in {q:.0%} of trials: {n:,.0f} "
                    f"games (interval held the fair komi {held_q}/{args.trials}); the search's "
                    f"{name} {searched:,.0f}: {n / searched:.2f}x; its mean {np.mean(s):,.0f}: "
                    f"{n / np.mean(s):.2f}x"
                )


if __name__ == "__main__":
    main()
