"""What the search believes about the empty board: the root value of one deep search from it,
Black to play, at each komi (docs/findings.md, "The solved boards").

    python docs/findings/root_value.py BOARD KOMI [KOMI ...] [--visits V] [--seeds S]
        [--set KEY=VALUE ...] [--rule KEY=VALUE ...]

For each komi (Chinese area; the player plays for it) ``--seeds`` searches of ``--visits``
simulations (default 100,000) from the empty board, each a fresh tree and its own random stream:
the root's value for Black (its simulations' mean value, ``sim.players.mcts``: the win with the
score utility's share), the mean over the seeds and their spread. Then the komi where the value
falls through 1/2, read as ``jpdsim komi`` reads a fair komi (``sim.komi_fit``): the fair komi
the search's own evaluation gives, without a game played. ``--set`` changes a parameter of the
default search (``mcts``; a TOML value, else a string: ``--set rave=0 --set playout=random``),
``--rule`` one of the rules (``sim.rules.Rules``, e.g. ``--rule repetition=basic_ko``).

First, what the search's playouts alone say (they do not look at the komi): ``--playouts``
(default 10,000) playouts from the empty board as the search plays them, without a tree: Black's
mean lead by area and the share that end with one colour owning the whole board (the other's
stones all captured).
"""

import argparse
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sim import komi_fit  # noqa: E402
from sim.engine.game import Game  # noqa: E402
from sim.engine.history import copy_game  # noqa: E402
from sim.engine.state import BLACK, colour_row  # noqa: E402
from sim.native import NativePlayers  # noqa: E402
from sim.player import Player  # noqa: E402
from sim.players.mcts import black_value, finish, search  # noqa: E402
from sim.players.tree import COUNT, FIRST, NUM  # noqa: E402
from sim.rules import Rules  # noqa: E402


def _empty_board(rules: Rules, player: Player, seed: int):
    """The empty board, and ``player`` on both colours with its random stream from ``seed``."""
    players = NativePlayers(rules, player, player)
    players.start(seed, 0)
    return Game(rules, exact=False).state, players


def root_value(rules: Rules, player: Player, seed: int) -> float:
    """Black's mean value over the root simulations of one search from the empty board."""
    g, players = _empty_board(rules, player, seed)
    tree, t = players.tree, colour_row(BLACK)
    root = search(g, players.sim, tree, players.rng, players.params[t])
    first = tree.node[t, FIRST, root]
    edges = slice(first, first + tree.node[t, COUNT, root])
    return float(tree.wsum[t, edges].sum() / tree.edge[t, NUM, edges].sum())


def bare_playouts(rules: Rules, player: Player, n: int) -> np.ndarray:
    """Black's area lead at the end of each of ``n`` playouts from the empty board (the
    search's playout policy, no tree; ``rules`` at komi 0 under Chinese area)."""
    g, players = _empty_board(rules, player, 0)
    s, tree, params = players.sim, players.tree, players.params[colour_row(BLACK)]
    leads = np.empty(n)
    for i in range(n):
        copy_game(s, g)
        finish(s, players.rng, params, tree, 0)
        leads[i] = black_value(s, tree.row, params, 0.0)[1]
    return leads


def crossing(komis, values) -> float:
    """The komi where ``values`` (sorted by komi) fall through 1/2: ``sim.komi_fit``'s reading
    of a fair komi (their non-increasing fit, a line between the komis around 1/2), ±inf past
    the komis given."""
    values = np.asarray(values, np.float64)
    return komi_fit.crossing(np.asarray(komis), komi_fit.isotonic(values, np.ones(len(values))))


def _values(items: list[str]) -> dict:
    """``KEY=VALUE`` items as a dict, each VALUE read as TOML (else kept as the string)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{item!r}: expected KEY=VALUE")
        try:
            out[key] = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            out[key] = value
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("board", type=int)
    ap.add_argument("komis", type=float, nargs="+")
    ap.add_argument("--visits", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--playouts", type=int, default=10_000)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    size, komis = args.board, sorted(args.komis)
    try:  # a bad option or rule: one line naming it
        options, rule = _values(args.set), _values(args.rule)
        players = [
            Player("mcts", visits=v, play_for="chinese", **options) for v in (1, args.visits)
        ]
        boards = [Rules(size, komi={"chinese": k}, **rule) for k in (0.0, *komis)]
    except (TypeError, ValueError) as e:
        ap.error(str(e))
    leads = bare_playouts(boards[0], players[0], args.playouts)
    print(
        f"{size}x{size} playouts: Black's mean area lead {leads.mean():+.2f}; the whole board "
        f"Black's in {np.mean(leads == size * size):.1%}, White's in "
        f"{np.mean(leads == -size * size):.1%} of {args.playouts:,}",
        flush=True,
    )
    means = []
    for komi, rules in zip(komis, boards[1:]):
        start = time.perf_counter()
        values = [root_value(rules, players[1], seed) for seed in range(1, args.seeds + 1)]
        means.append(float(np.mean(values)))
        print(
            f"{size}x{size} komi {komi:g}: Black's root value {means[-1]:.3f} "
            f"(seeds {min(values):.3f}–{max(values):.3f}; {time.perf_counter() - start:.0f} s)",
            flush=True,
        )
    fair = crossing(komis, means)
    where = {np.inf: "above the komis given", -np.inf: "below the komis given"}
    print("falls through 1/2", where.get(fair, f"at komi {fair:.2f}"))


if __name__ == "__main__":
    main()
