"""The players' findings of docs/findings.md ("Games that look like Go"), printed as markdown.

    python docs/findings/players.py [--workers K] [--scale S]

Plays, with ``sim.selfplay.play_batch`` (games split by id among K processes, seed 20261201):

1. fair komi under mcts self-play as visits grow, on 5x5, 7x7 and 9x9 (pattern playouts,
   both players play for B版 with the komi of ``KOMI``, near the board's fair komi so that
   neither side has won before the game starts), against random self-play;
2. on 7x7, the A/B disagreement and who finishes last under mcts against random play;
3. on 7x7, ``play_for`` jpd_a against jpd_b (both players): who passes or plays a virtual
   move first.

Every run gives A版 a komi one point below B版's, as the defaults do.

``--scale`` multiplies every game count (1 is what docs/findings.md reports).
"""

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from analysis.ab_effect import ab_summary  # noqa: E402
from analysis.finishes_last import relations  # noqa: E402
from analysis.komi import fair_komi  # noqa: E402
from sim.player import Player  # noqa: E402
from sim.rules import Rules  # noqa: E402
from sim.selfplay import play_batch  # noqa: E402

SEED = 20261201
KOMI = {5: 24.5, 7: 8.5, 9: 6.5}  # B版 komi the searching players play for (A版: 1 less)
VISITS = {5: (50, 200, 800), 7: (50, 200, 800), 9: (100, 400)}
GAMES = {5: 200, 7: 200, 9: 100}


def _play(args):
    size, komi, black, white, ids = args
    rules = Rules(size, komi={"jpd_b": komi, "jpd_a": komi - 1})
    cols, _ = play_batch(rules, seed=SEED, game_ids=ids, black=black, white=white)
    return pd.DataFrame(cols)


def games(pool, workers, size, komi, black, white, n) -> pd.DataFrame:
    """``n`` games of ``black`` against ``white``, labelled by their canonical names."""
    chunks = np.array_split(np.arange(n), 2 * workers)
    df = pd.concat(pool.map(_play, [(size, komi, black, white, c) for c in chunks]))
    df["players"] = f"{black.name} / {white.name}"
    return df


def show(table: pd.DataFrame, columns) -> None:
    print(table[list(columns)].to_string(index=False, float_format="{:.3g}".format))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    scaled = {k: max(2 * args.workers, int(v * args.scale)) for k, v in GAMES.items()}
    with ProcessPoolExecutor(args.workers) as pool:
        print("## 1. Fair komi as visits grow (B版 and Chinese area, Japanese territory)\n")
        for size in (5, 7, 9):
            runs = [
                games(pool, args.workers, size, KOMI[size], Player(), Player(), 20 * scaled[size])
            ]
            for v in VISITS[size]:
                p = Player("mcts", visits=v, play_for="jpd_b")
                runs.append(games(pool, args.workers, size, KOMI[size], p, p, scaled[size]))
            df = pd.concat(runs, ignore_index=True)
            table = fair_komi(df, rulesets=("jpd_b", "chinese", "japanese"), by="players")
            print(f"### {size}x{size} (players play for B版 at komi {KOMI[size]})\n")
            show(
                table, ("players", "ruleset", "games", "fair komi", "fair komi lo", "fair komi hi")
            )
            endings = (
                df.groupby("players")["ending"].value_counts(normalize=True).unstack(fill_value=0)
            )
            print(endings.to_string(float_format="{:.3f}".format))
            print()

        print("## 2. A/B disagreement and who finishes last, 7x7 (komi 7.5 B版, 6.5 A版)\n")
        strong = Player("mcts", visits=400, play_for="jpd_a")
        df = pd.concat(
            [
                games(pool, args.workers, 7, 7.5, Player(), Player(), 20 * scaled[7]),
                games(pool, args.workers, 7, 7.5, strong, strong, scaled[7]),
            ],
            ignore_index=True,
        )
        show(
            ab_summary(df, by="players"),
            ("players", "games", "differ", "differ rate", "white first share"),
        )
        show(
            relations(df, by="players"),
            ("players", "games", "both defined", "same", "not opposite rate"),
        )

        print(
            "## 3. play_for jpd_a against jpd_b, 7x7 mcts(400) self-play (komi 8.5 B版, 7.5 A版)\n"
        )
        runs = []
        for ruleset in ("jpd_a", "jpd_b"):
            p = Player("mcts", visits=400, play_for=ruleset)
            runs.append(games(pool, args.workers, 7, 8.5, p, p, 2 * scaled[7]))
        df = pd.concat(runs, ignore_index=True)
        first = df.groupby("players")["first_pass_or_virtual_by"].value_counts(normalize=True)
        print(first.unstack(fill_value=0).to_string(float_format="{:.3f}".format))
        print()
        show(
            ab_summary(df, by="players"),
            ("players", "games", "differ", "differ rate", "white first share"),
        )


if __name__ == "__main__":
    main()
