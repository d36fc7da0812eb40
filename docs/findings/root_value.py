"""What the search believes about the empty board: the root value of one deep search from it,
Black to play, at each komi (docs/findings.md, "Fair komi"; docs/search.md, "The small boards:
why 6x6 is lost"); or about the positions of recorded games, beside what its playouts say there.

    python docs/findings/root_value.py BOARD KOMI [KOMI ...] [--visits V] [--seeds S]
        [--set KEY=VALUE ...] [--rule KEY=VALUE ...]
    python docs/findings/root_value.py --from RUN [--moves K ...] [--visits V] [--playouts P]
        [--set KEY=VALUE ...] [--labels FILE]

For each komi (Chinese area; the player plays for it) ``--seeds`` searches of ``--visits``
simulations (default 100,000) from the empty board, each a fresh tree and its own random stream:
the root's value for Black (its simulations' mean value, ``sim.players.mcts``: the win with the
score utility's share), the mean over the seeds and their spread. Then the komi where the value
falls through 1/2, read as ``jpdsim komi`` reads a fair komi (``sim.komi.fitting``): the fair komi
the search's own evaluation gives, without a game played. ``--set`` changes a parameter of the
default search (``mcts``; a TOML value, else a string: ``--set rave=0 --set playout=random``),
``--rule`` one of the rules (``sim.config.rules.Rules``, e.g. ``--rule repetition=basic_ko``).

First, what the search's playouts alone say (they do not look at the komi): ``--playouts``
(default 10,000) playouts from the empty board as the search plays them, without a tree: Black's
mean lead by area and the share that end with one colour owning the whole board (the other's
stones all captured).

With ``--from RUN`` (a run that recorded its games' moves, ``record_moves = "all"``): the
position of each game after each of ``--moves`` actions (8, 12, 16, 20; while the game goes on),
at the game's own komi under Chinese area, the run's other rules; per komi and number of moves
the mean of one deep search's root value for Black there (the player to move searching, a fresh
tree), of ``--playouts`` bare playouts' values from there, and of Black's score in the games
(win 1, draw 1/2): whether the playouts value a position as the deep search does, and both as
the games ended (the labels a simulation balancing would fit its playout to); with ``--labels
FILE`` (``tools/teacher_labels.py``'s, of the same run) also a teacher's winrate there, and the
playouts' mean squared error against it.
"""

import argparse
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sim.config.player import Player  # noqa: E402
from sim.config.rules import Rules  # noqa: E402
from sim.engine.game import Game  # noqa: E402
from sim.engine.history import copy_game  # noqa: E402
from sim.engine.state import BLACK, ST, TO_MOVE, colour_row  # noqa: E402
from sim.errors import UserError  # noqa: E402
from sim.komi import fitting  # noqa: E402
from sim.play.native import NativePlayers  # noqa: E402
from sim.players.mcts import black_value, finish, search  # noqa: E402
from sim.players.tree import COUNT, FIRST, NUM  # noqa: E402
from sim.run.positions import positions  # noqa: E402


def _started(rules: Rules, player: Player, seed: int) -> NativePlayers:
    """``player`` on both colours under ``rules``, its random stream from ``seed``."""
    players = NativePlayers(rules, player, player)
    players.start(seed, 0)
    return players


def _empty_board(rules: Rules, player: Player, seed: int):
    """The empty board, and ``player`` on both colours with its random stream from ``seed``."""
    return Game(rules, exact=False).state, _started(rules, player, seed)


def searched(g, players: NativePlayers) -> float:
    """Black's mean value over the root simulations of one search by ``players`` (started)
    from the state ``g``, the player to move searching."""
    mover = int(g.tab[ST, TO_MOVE])
    tree, t = players.tree, colour_row(mover)
    root = search(g, players.sim, tree, players.rng, players.params[t])
    first = tree.node[t, FIRST, root]
    edges = slice(first, first + tree.node[t, COUNT, root])
    value = float(tree.wsum[t, edges].sum() / tree.edge[t, NUM, edges].sum())
    return value if mover == BLACK else 1.0 - value  # the mover of an edge stores its own


def root_value(rules: Rules, player: Player, seed: int) -> float:
    """Black's mean value over the root simulations of one search from the empty board."""
    return searched(*_empty_board(rules, player, seed))


def playouts(g, players: NativePlayers, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Black's value and margin under ``players``' ruleset at the end of each of ``n``
    playouts from the state ``g`` (the search's playout policy, no tree)."""
    s, tree = players.sim, players.tree
    params = players.params[colour_row(int(g.tab[ST, TO_MOVE]))]
    values, margins = np.empty(n), np.empty(n)
    for i in range(n):
        copy_game(s, g)
        finish(s, players.rng, params, tree, 0)
        values[i], margins[i], _ = black_value(s, tree.row, params, 0.0)
    return values, margins


def bare_playouts(rules: Rules, player: Player, n: int) -> np.ndarray:
    """Black's area lead at the end of each of ``n`` playouts from the empty board (``rules``
    at komi 0 under Chinese area)."""
    return playouts(*_empty_board(rules, player, 0), n)[1]


def teacher(path) -> dict:
    """The winrates of a labels file of ``tools/teacher_labels.py``: (game id, moves) ->
    the teacher's winrate for Black."""
    with np.load(path) as f:
        return {
            (int(g), int(k)): float(w) for g, k, w in zip(f["game_id"], f["moves"], f["winrate"])
        }


def labelled(run_dir, moves, deep: Player, flat: Player, n: int, taught=None) -> list[tuple]:
    """(komi, moves played, the deep search's value for Black, the mean value of ``n``
    playouts, Black's score in the game, the teacher's winrate or NaN) for each of
    ``positions(run_dir, moves)`` (``sim.run.positions``): ``deep`` searches, ``flat``
    plays the playouts, each position on its own random stream; ``taught``: ``teacher``'s
    labels of the run's positions."""
    out = []
    for p in positions(run_dir, moves):
        label = searched(p.state, _started(p.rules, deep, len(out)))
        mean = float(playouts(p.state, _started(p.rules, flat, len(out)), n)[0].mean())
        told = (taught or {}).get((p.game_id, p.moves), np.nan)
        out.append((p.komi, p.moves, label, mean, p.score, told))
    return out


def _print_labelled(rows) -> None:
    """``labelled``'s rows, averaged per komi and number of moves."""
    for komi, k in sorted({(r[0], r[1]) for r in rows}):
        here = np.array([r[2:] for r in rows if (r[0], r[1]) == (komi, k)])
        deep, flat = here[:, :2].mean(axis=0)
        score = np.nanmean(here[:, 2])  # over the games with a result
        taught = here[np.isfinite(here[:, 3])]
        by = ""
        if len(taught):
            error = np.mean((taught[:, 1] - taught[:, 3]) ** 2)
            by = (
                f"; by the teacher {taught[:, 3].mean():.3f} ({len(taught)} labelled; the "
                f"playouts' mean squared error against it {error:.3f})"
            )
        print(
            f"komi {komi:g}, after {k} moves: {len(here)} positions; Black's value by the deep "
            f"search {deep:.3f}, by the playouts {flat:.3f}{by}; Black's score in the games "
            f"{score:.3f}"
        )


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
    ap.add_argument("board", type=int, nargs="?")
    ap.add_argument("komis", type=float, nargs="*")
    ap.add_argument("--from", dest="run", metavar="RUN")
    ap.add_argument("--moves", type=int, nargs="+", default=[8, 12, 16, 20])
    ap.add_argument("--visits", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--playouts", type=int, default=10_000)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--labels", metavar="FILE", help="with --from: tools/teacher_labels.py's")
    args = ap.parse_args()
    board_given = args.board is not None or bool(args.komis)
    if board_given == (args.run is not None) or board_given and not args.komis:
        ap.error("give BOARD KOMI [KOMI ...] or --from RUN")
    if args.run is not None and args.rule:
        ap.error("--rule goes with BOARD KOMI: --from reads the run's rules")
    size, komis = args.board, sorted(args.komis)
    try:  # a bad option or rule: one line naming it
        options, rule = _values(args.set), _values(args.rule)
        players = [
            Player("mcts", visits=v, play_for="chinese", **options) for v in (1, args.visits)
        ]
        boards = [Rules(size, komi={"chinese": k}, **rule) for k in (0.0, *komis)] if size else []
    except (TypeError, ValueError) as e:
        ap.error(str(e))
    if args.run is not None:
        try:
            taught = teacher(args.labels) if args.labels else None
            rows = labelled(args.run, args.moves, players[1], players[0], args.playouts, taught)
            _print_labelled(rows)
        except (UserError, ValueError) as e:
            sys.exit(f"root_value.py: {e}")
        return
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
    fair = fitting.value_crossing(komis, means)
    where = {np.inf: "above the komis given", -np.inf: "below the komis given"}
    print("falls through 1/2", where.get(fair, f"at komi {fair:.2f}"))


if __name__ == "__main__":
    main()
