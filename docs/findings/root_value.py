"""What the search believes about the empty board: the root value of one deep search from it,
Black to play, at each komi (docs/findings.md, "The solved boards").

    python docs/findings/root_value.py BOARD KOMI [KOMI ...] [--visits V] [--seeds S]
        [--set KEY=VALUE ...] [--rule KEY=VALUE ...]

For each komi (Chinese area; the player plays for it) ``--seeds`` searches of ``--visits``
simulations (default 100,000) from the empty board, each a fresh tree and its own random stream:
the root's value for Black (its simulations' mean value, ``sim.players.mcts``: the win with the
score utility's share), the mean over the seeds and their spread. Then the komi where the value
crosses 1/2, read on a line between the two komis around it: the fair komi the search's own
evaluation gives, without a game played. ``--set`` changes a parameter of the default search
(``mcts``; a TOML value, else a string: ``--set rave=0 --set playout=random``), ``--rule`` one
of the rules (``sim.rules.Rules``, e.g. ``--rule repetition=basic_ko``).

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

from sim.engine.game import Game  # noqa: E402
from sim.engine.history import copy_game  # noqa: E402
from sim.engine.state import BLACK, colour_row, new_state  # noqa: E402
from sim.player import Player  # noqa: E402
from sim.players.mcts import black_value, finish, search  # noqa: E402
from sim.players.params import kernel_parameters  # noqa: E402
from sim.players.stream import start_stream  # noqa: E402
from sim.players.tree import COUNT, FIRST, NUM, drop_trees, new_tree  # noqa: E402
from sim.rules import Rules  # noqa: E402
from sim.schema import RAW_FIELDS  # noqa: E402


def root_value(rules: Rules, player: Player, seed: int) -> float:
    """Black's mean value over the root simulations of one search from the empty board."""
    g, s = Game(rules, exact=False).state, new_state(rules, False)
    tree = new_tree(rules, player.visits, len(RAW_FIELDS), player.rave > 0, (player.prior,) * 2)
    rng = np.zeros(2, np.uint64)
    start_stream(rng, seed, 0)
    drop_trees(tree)
    root = search(g, s, tree, rng, np.array(kernel_parameters(player, rules)))
    t = colour_row(BLACK)
    edges = slice(tree.node[t, FIRST, root], tree.node[t, FIRST, root] + tree.node[t, COUNT, root])
    return float(tree.wsum[t, edges].sum() / tree.edge[t, NUM, edges].sum())


def bare_playouts(rules: Rules, player: Player, n: int) -> np.ndarray:
    """Black's area lead at the end of each of ``n`` playouts from the empty board (the
    search's playout policy, no tree; ``rules`` at komi 0 under Chinese area)."""
    g, s = Game(rules, exact=False).state, new_state(rules, False)
    tree = new_tree(rules, player.visits, len(RAW_FIELDS), player.rave > 0, (player.prior,) * 2)
    params = np.array(kernel_parameters(player, rules))
    rng = np.zeros(2, np.uint64)
    start_stream(rng, 0, 0)
    leads = np.empty(n)
    for i in range(n):
        copy_game(s, g)
        finish(s, rng, params, tree, 0)
        leads[i] = black_value(s, tree.row, params, 0.0)[1]
    return leads


def crossing(komis, values) -> float | None:
    """The komi where ``values`` (sorted by komi) fall through 1/2, on a line between the two
    komis around it; None where they do not."""
    for (k0, v0), (k1, v1) in zip(zip(komis, values), zip(komis[1:], values[1:])):
        if v0 >= 0.5 >= v1 and v0 > v1:
            return k0 + (v0 - 0.5) / (v0 - v1) * (k1 - k0)
    return None


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
    print("crosses 1/2 at", "no komi played" if fair is None else f"komi {fair:.2f}")


if __name__ == "__main__":
    main()
