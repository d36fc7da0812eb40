"""Speed and strength of the players on 9x9, printed as figures and ratios (one thread each).

    python bench/players.py speed [--games N] [--mcts-games M]
    python bench/players.py strength [--games N] [--workers K] [--pairs a,b,...] [--first F]

``speed``:
- the pattern policy's games/s against the random player's, in the same run (floor 0.3x);
- playouts/s of each playout policy, bare (``copy_game`` + playout + value, from positions
  after 0, 20 and 40 pattern moves) and inside the search (``mcts.search``, 1000 visits, a
  fresh tree), and their ratio (the tree's overhead);
- mcts self-play games/s and actions/s at 1000 visits (``--mcts-games``, 8), per playout,
  with and without RAVE and the early stop (the last row is the default player);
- the anchors measured for Pachi 12.90 on this machine (one thread, 9x9): its heavy "moggy"
  playouts 18,000/s flat and 13,400/s in its tree search, its light playouts 72,000/s flat.

``strength``: pairings (``PAIRS``, or ``--pairs A:B,...``), each colour half of the games, at the
default komi; wins under jpd_a with Wilson 95% intervals. Games are split among ``--workers``
processes by id. A player is ``random``, ``pattern`` or ``mctsV`` (V visits), with ``raveK`` for
RAVE at equivalence K (left out: none, the search before it), ``exploreC`` for the exploration
constant C (left out: the default), ``stop`` for ``stop_early`` (left out: false, the search before
it), ``hand`` for the hand-set priors and ``learned`` for the learned ones without diamond patterns
(left out: the default, with them), ``scoreU`` for ``score_utility`` U (left out: the default),
``pvK`` for ``prior_visits`` K (left out: the default), ``notactics`` for ``tactics`` false,
``trustpasses`` for ``doubt_passes`` false and ``suicides`` for ``avoid_suicides`` false (left out:
true, the defaults), e.g. ``mcts1000rave1000explore0.5``, ``mcts1000rave1000hand``,
``mcts1000rave1000score0``, ``mcts1000rave1000learned`` (the default of the late night of
2026-12-04), ``mcts1000rave1000learnedsuicides`` (the night's),
``mcts1000rave1000learnedscore0trustpassessuicides`` (the evening's),
``mcts1000rave1000learnedscore0notacticstrustpassessuicides`` (the afternoon's) or
``mcts1000rave1000explore1learnedscore0pv0notacticstrustpassessuicides`` (the PUCT search, the
default before 2026-12-04).
``--first F`` plays game ids F, F+1, ... of each colour: a second run of a pairing with new
games.
"""

import argparse
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from numba import njit  # noqa: E402

from analysis.stats import wilson  # noqa: E402
from sim.config.player import EVENING, LATE_NIGHT, NIGHT, PUCT, Player  # noqa: E402
from sim.config.rules import Rules  # noqa: E402
from sim.engine.history import apply_action, copy_game, reset  # noqa: E402
from sim.engine.state import BLACK, new_state  # noqa: E402
from sim.play.selfplay import play_batch  # noqa: E402
from sim.players.mcts import black_value, finish, search  # noqa: E402
from sim.players.params import kernel_parameters  # noqa: E402
from sim.players.pattern import pattern_move  # noqa: E402
from sim.players.stream import start_stream  # noqa: E402
from sim.players.tree import drop_trees, new_tree  # noqa: E402
from sim.schema.tables import RAW_FIELDS  # noqa: E402

PACHI = {"moggy flat": 18_000, "moggy in tree": 13_400, "light flat": 72_000}
#: mcts self-play rows of ``speed``: the parameters of each (the PUCT search's ``explore`` 1,
#: ``prior_visits`` 0, no ``tactics``, ``score_utility`` 0, trusted passes, suicides searched
#: and no diamond patterns where not the default's); the last is the default player, the four
#: before it the defaults of the afternoon (no ``tactics``), the evening, the night (suicides
#: searched) and the late night (no diamonds) of 2026-12-04.
SELF_PLAY = (
    {**PUCT, "playout": "random", "rave": 0.0, "prior": "hand"},
    {**PUCT, "playout": "pattern", "rave": 0.0, "prior": "hand"},
    {**PUCT, "rave": 1000.0, "stop_early": True, "prior": "hand"},
    {**PUCT, "rave": 1000.0, "prior": "hand"},
    {"rave": 1000.0, **PUCT},
    {"tactics": False, **EVENING},
    EVENING,
    NIGHT,
    LATE_NIGHT,
    {},
)
PAIRS = (("pattern", "random"), ("mcts1000", "pattern"), ("mcts4000", "mcts1000"))


def player(name: str) -> Player:
    """The player a bench name stands for (the module docstring)."""
    if name in ("random", "pattern"):
        return Player(name)
    found = re.fullmatch(
        r"mcts(\d+)(?:rave(\d+))?(?:explore([\d.]+))?(stop)?(hand|learned|diamond)?"
        r"(?:score([\d.]+))?(?:pv([\d.]+))?(notactics)?(trustpasses)?(suicides)?",
        name,
    )
    if not found:
        sys.exit(
            f"unknown player {name!r}: random, pattern, "
            "mctsV[raveK][exploreC][stop][hand|learned|diamond][scoreU][pvK][notactics]"
            "[trustpasses][suicides]"
        )
    rave, explore = float(found[2] or 0), float(found[3] or Player().explore)
    visits, stop = int(found[1]), bool(found[4])
    prior = found[5] or Player().prior
    score = float(found[6] or Player().score_utility)
    prior_visits = float(found[7] or Player().prior_visits)
    return Player(
        "mcts",
        visits=visits,
        rave=rave,
        explore=explore,
        stop_early=stop,
        prior=prior,
        score_utility=score,
        prior_visits=prior_visits,
        tactics=not found[8],
        doubt_passes=not found[9],
        avoid_suicides=not found[10],
    )


@njit(cache=True)
def bare(g, s, rng, params, tree, n):
    """``n`` playouts of ``g`` as a search plays them, without the tree (its work space only)."""
    total = 0.0
    for _ in range(n):
        copy_game(s, g)
        finish(s, rng, params, tree, 0)
        total += black_value(s, tree.row, params, 0.0)[0]
    return total


@njit(cache=True)
def opening(g, rng, moves, setup):
    """A new game in ``g`` with ``moves`` pattern moves played."""
    reset(g, setup, BLACK)
    for _ in range(moves):
        action, code = pattern_move(g, rng, 0.0)
        apply_action(g, action, code)


def speed(games: int, games_mcts: int) -> None:
    rules = Rules(9)
    ids = np.arange(games)
    rates = {}
    for kind in ("random", "pattern"):
        play_batch(rules, seed=1, game_ids=np.arange(2), black=kind, white=kind)
        best = 0.0
        for _ in range(3):
            t = time.perf_counter()
            play_batch(rules, seed=1, game_ids=ids, black=kind, white=kind)
            best = max(best, games / (time.perf_counter() - t))
        rates[kind] = best
        print(f"{kind:8s} self-play: {best:9,.0f} games/s")
    print(f"pattern / random: {rates['pattern'] / rates['random']:.2f}x (floor 0.30x)")

    g, s = new_state(rules, False), new_state(rules, False)
    setup, rng = np.zeros(81, np.int8), np.zeros(2, np.uint64)
    visits = 1000
    tree = new_tree(rules, visits, len(RAW_FIELDS), rave=True)
    for playout, rave in (("random", 0), ("pattern", 0), ("pattern", 1000)):
        p = Player("mcts", visits=visits, playout=playout, rave=rave)
        params = np.array(kernel_parameters(p, rules))
        for moves in (0, 20, 40):
            start_stream(rng, 1, moves)
            opening(g, rng, moves, setup)
            bare(g, s, rng, params, tree, 10)
            drop_trees(tree)
            search(g, s, tree, rng, params)
            t = time.perf_counter()
            bare(g, s, rng, params, tree, 3 * visits)
            flat = 3 * visits / (time.perf_counter() - t)
            t = time.perf_counter()
            for _ in range(3):
                drop_trees(tree)
                search(g, s, tree, rng, params)
            inside = 3 * visits / (time.perf_counter() - t)
            name = playout + (f"+rave{rave}" if rave else "")
            print(
                f"{name:12s} playouts after {moves:2d} moves: bare {flat:8,.0f}/s, in the "
                f"search {inside:8,.0f}/s, search/bare {inside / flat:.2f}"
            )
    for name, rate in PACHI.items():
        print(f"anchor Pachi 12.90 {name}: {rate:,}/s")
    for row in SELF_PLAY:
        p = Player("mcts", visits=visits, **row)
        play_batch(rules, seed=1, game_ids=np.arange(1), black=p, white=p)
        t = time.perf_counter()
        cols, _ = play_batch(rules, seed=2, game_ids=np.arange(games_mcts), black=p, white=p)
        dt = time.perf_counter() - t
        actions = cols["actions"].sum()
        print(
            f"{p.name} self-play: "
            f"{games_mcts / dt:.2f} games/s, {actions / dt:.1f} actions/s "
            f"({actions / games_mcts:.0f} actions a game)"
        )
    print("floor for the default (the last row; issue 35): 0.4 games/s")


def _wins(args):
    """Games ``ids`` of ``a`` (Black) against ``b``: the winners under jpd_a."""
    a, b, ids = args
    cols, _ = play_batch(Rules(9), seed=9, game_ids=ids, black=player(a), white=player(b))
    return cols["winner_jpd_a"].tolist()


def strength(games: int, workers: int, pairs, first: int) -> None:
    print("| pairing (first vs second) | games | first wins | Wilson 95% | as Black | as White |")
    print("|---|---|---|---|---|---|")
    with ProcessPoolExecutor(workers) as pool:
        for a, b in pairs:
            half = games // 2
            chunks = np.array_split(np.arange(first, first + half), 2 * workers)
            t = time.perf_counter()
            black = sum(pool.map(_wins, [(a, b, c) for c in chunks]), [])
            white = sum(pool.map(_wins, [(b, a, c) for c in chunks]), [])
            score = {"B": 1.0, "draw": 0.5}
            as_black = sum(score.get(w, 0.0) for w in black)
            as_white = sum({"W": 1.0, "draw": 0.5}.get(w, 0.0) for w in white)
            n = len(black) + len(white)
            lo, hi = (float(x) for x in wilson(as_black + as_white, n))
            print(
                f"| {player(a).name} vs {player(b).name} | {n} | "
                f"{(as_black + as_white) / n:.1%} | {lo:.1%}-{hi:.1%} | "
                f"{as_black / len(black):.1%} | {as_white / len(white):.1%} |",
                flush=True,
            )
            print(f"<!-- {time.perf_counter() - t:.0f} s -->", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--games", type=int, default=3000)
    s.add_argument("--mcts-games", type=int, default=8)
    t = sub.add_parser("strength")
    t.add_argument("--games", type=int, default=200)
    t.add_argument("--workers", type=int, default=2)
    t.add_argument("--pairs", default=",".join(f"{a}:{b}" for a, b in PAIRS))
    t.add_argument("--first", type=int, default=0)
    args = parser.parse_args()
    if args.what == "speed":
        speed(args.games, args.mcts_games)
    else:
        pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
        strength(args.games, args.workers, pairs, args.first)


if __name__ == "__main__":
    main()
