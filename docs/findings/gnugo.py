"""The GNU Go findings of docs/findings.md (its GNU Go rows; older ones in
docs/findings/history.md), printed as markdown.

    jpdsim run configs/gnugo_9x9.toml                 # 5,000 games -> results/gnugo_9x9/
    python docs/findings/gnugo.py [RUN_DIR] [--random N] [--mcts N] [--workers K]

Reads the GNU Go run (``RUN_DIR``, default ``results/gnugo_9x9``) and plays, under the same
rules (9x9, the run's komi and ``dead_stones``), ``--random`` games of random self-play and
``--mcts`` games of mcts(1000) self-play, before RAVE (``rave = 0``) as measured
(``sim.play.selfplay.play_batch``, games split by id among K processes), then prints for each:
endings, winner disagreement between the five rulesets, the A/B effect, who finishes last,
fair komi, and dead stones agreed.
"""

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from analysis.ab_effect import ab_summary  # noqa: E402
from analysis.disagreement import disagreement  # noqa: E402
from analysis.finishes_last import relations  # noqa: E402
from analysis.komi import fair_komi  # noqa: E402
from analysis.load import load_runs, open_run  # noqa: E402
from sim.config.player import Player  # noqa: E402
from sim.play.selfplay import play_batch  # noqa: E402

SEED = 20261201


def _play(args):
    rules, player, ids = args
    cols, _ = play_batch(rules, seed=SEED, game_ids=ids, black=player, white=player)
    return pd.DataFrame(cols).assign(players=player.name)


def selfplay(pool, workers, rules, player, n) -> pd.DataFrame:
    chunks = np.array_split(np.arange(n), 4 * workers)
    return pd.concat(pool.map(_play, [(rules, player, c) for c in chunks]), ignore_index=True)


def show(title: str, table: pd.DataFrame) -> None:
    print(f"### {title}\n")
    print(table.to_string(index=False, float_format="{:.4g}".format))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", nargs="?", default="results/gnugo_9x9")
    parser.add_argument("--random", type=int, default=20_000)
    parser.add_argument("--mcts", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rules = open_run(args.run_dir).config.rules
    gnugo = load_runs(args.run_dir)
    gnugo["players"] = "gnugo-l1 self-play"
    frames = [gnugo]
    with ProcessPoolExecutor(args.workers) as pool:
        for player, n in (
            (Player(), args.random),
            (Player("mcts", visits=1000, rave=0), args.mcts),
        ):
            if n > 0:
                frames.append(selfplay(pool, args.workers, rules, player, n))
    print(f"9x9, {rules.repetition}, dead_stones = {rules.dead_stones}, komi {rules.komi}\n")
    selfplay_tables(pd.concat(frames, ignore_index=True))


def selfplay_tables(df: pd.DataFrame) -> None:
    """Print the tables of the games ``df`` (rows of several runs) by ``players``: endings,
    winner disagreement, the A/B effect, who finishes last, fair komi, dead stones agreed."""
    df["players"] = df["players"].astype(str)
    endings = df.groupby("players")["ending"].value_counts(normalize=True).unstack(fill_value=0)
    show("Endings (share of games)", endings.reset_index())
    table = disagreement(df, by="players")
    show(
        "Winner disagreement between rulesets",
        table[["players", "ruleset_1", "ruleset_2", "games", "differ", "rate", "lo", "hi"]],
    )
    show("The A/B effect", ab_summary(df, by="players"))
    show("Who finishes last", relations(df, by="players"))
    komi = fair_komi(df, rulesets=("jpd_a", "jpd_b", "chinese", "japanese"), by="players")
    show("Fair komi", komi)
    df["dead agreed"] = df["dead_b"] + df["dead_w"] > 0
    dead = df.groupby("players").agg(
        games=("ending", "size"),
        dead_agreed=("dead agreed", "mean"),
        dead_stones=("dead_b", "sum"),
        resumed=("resumptions", lambda r: (r > 0).mean()),
        engine_illegal=("engine_illegal", "sum"),
    )
    dead["dead_stones"] += df.groupby("players")["dead_w"].sum()
    show("Dead stones agreed at the pause", dead.reset_index())


if __name__ == "__main__":
    main()
