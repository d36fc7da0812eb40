"""The players' findings of docs/findings.md (the rows of the search of 2026-12-03), printed
as markdown.

    python docs/findings/players.py [--workers K] [--scale S] [--parts 2,3,4]
                                    [--before-rave | --early-stop]

Plays, with ``sim.play.selfplay.play_batch`` (games split by id among K processes, seed 20261201),
the default search (RAVE), with ``--early-stop`` the search of the morning of 2026-12-02 (RAVE
and ``stop_early = true``), or with ``--before-rave`` the search as these findings were first
measured on 2026-12-01 (``rave = 0``):

(1. fair komi under mcts self-play as visits grow: now komi sweeps, docs/findings/komi.py)
2. on 7x7, the A/B disagreement and who finishes last under mcts against random play;
3. on 7x7, ``play_for`` jpd_a against jpd_b (both players): who passes or plays a virtual
   move first;
4. on 7x7 under ``dead_stones = "agree"``: how often stones are agreed dead and how often
   play resumes, mcts against mcts and against the pattern player (which names none).

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
from sim.config.player import Player  # noqa: E402
from sim.config.rules import Rules  # noqa: E402
from sim.play.selfplay import play_batch  # noqa: E402

SEED = 20261201
#: The searches other than the default, by flag: the parameters that differ.
SEARCHES = {"before_rave": {"rave": 0.0}, "early_stop": {"stop_early": True}}
GAMES = 200  # mcts games a row (random play: 20 times as many)
AB_COLUMNS = ("players", "games", "differ", "rate", "lo", "hi", "white first share")
RELATION_COLUMNS = (
    "players",
    "both defined",
    "same",
    "not opposite rate",
    "not opposite lo",
    "not opposite hi",
)


def _play(args):
    size, komi, black, white, ids, dead_stones = args
    rules = Rules(size, komi={"jpd_b": komi, "jpd_a": komi - 1}, dead_stones=dead_stones)
    cols, _ = play_batch(rules, seed=SEED, game_ids=ids, black=black, white=white)
    return pd.DataFrame(cols)


def games(pool, workers, size, komi, black, white, n, dead_stones="all_alive") -> pd.DataFrame:
    """``n`` games of ``black`` against ``white``, labelled by their short names."""
    chunks = np.array_split(np.arange(n), 2 * workers)
    jobs = [(size, komi, black, white, c, dead_stones) for c in chunks]
    df = pd.concat(pool.map(_play, jobs))
    df["players"] = f"{short(black)} / {short(white)}"
    return df


def short(player: Player) -> str:
    """A short label: the kind, and for mcts its visits, playout and play_for."""
    if not player.searches:
        return player.kind
    return f"mcts({player.visits},{player.playout},{player.play_for})"


def show(table: pd.DataFrame, columns) -> None:
    print(table[list(columns)].to_string(index=False, float_format="{:.3g}".format))
    print()


def ab_part(pool, workers, scaled, search) -> None:
    print("## 2. A/B disagreement and who finishes last, 7x7 (komi 7.5 B版, 6.5 A版)\n")
    strong = Player("mcts", visits=400, play_for="jpd_a", **search)
    df = pd.concat(
        [
            games(pool, workers, 7, 7.5, Player(), Player(), 20 * scaled),
            games(pool, workers, 7, 7.5, strong, strong, scaled),
        ],
        ignore_index=True,
    )
    show(ab_summary(df, by="players"), AB_COLUMNS)
    show(relations(df, by="players"), RELATION_COLUMNS)


def play_for_part(pool, workers, scaled, search) -> None:
    print("## 3. play_for jpd_a against jpd_b, 7x7 mcts(400) self-play (komi 8.5 B版, 7.5 A版)\n")
    runs = []
    for ruleset in ("jpd_a", "jpd_b"):
        p = Player("mcts", visits=400, play_for=ruleset, **search)
        runs.append(games(pool, workers, 7, 8.5, p, p, 2 * scaled))
    df = pd.concat(runs, ignore_index=True)
    first = df.groupby("players")["first_pass_or_virtual_by"].value_counts(normalize=True)
    print(first.unstack(fill_value=0).to_string(float_format="{:.3f}".format))
    print()
    show(ab_summary(df, by="players"), AB_COLUMNS)
    show(relations(df, by="players"), RELATION_COLUMNS)


def dead_stones_part(pool, workers, scaled, search) -> None:
    print("## 4. Dead stones agreed at the pause, 7x7 (dead_stones = agree, komi 8.5 B版)\n")
    mcts = Player("mcts", visits=400, play_for="jpd_b", **search)
    runs = [
        games(pool, workers, 7, 8.5, mcts, mcts, scaled, "agree"),
        games(pool, workers, 7, 8.5, mcts, Player("pattern"), scaled, "agree"),
    ]
    df = pd.concat(runs, ignore_index=True)
    df["dead agreed"] = df["dead_b"] + df["dead_w"] > 0
    df["resumed"] = df["resumptions"] > 0
    table = df.groupby("players").agg(
        games=("ending", "size"),
        dead_agreed=("dead agreed", "mean"),
        dead_stones=("dead agreed", "sum"),
        resumed=("resumed", "mean"),
        resumptions=("resumptions", "sum"),
    )
    table["dead_stones"] = df.groupby("players")[["dead_b", "dead_w"]].sum().sum(axis=1)
    print(table.to_string(float_format="{:.3f}".format))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--parts", default="2,3,4", help="which parts to play, e.g. 2,3")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--before-rave", action="store_true", help="the search of 2026-12-01")
    which.add_argument("--early-stop", action="store_true", help="RAVE with the early stop")
    args = parser.parse_args()
    search = next((v for k, v in SEARCHES.items() if getattr(args, k)), {})
    scaled = max(2 * args.workers, int(GAMES * args.scale))
    parts = {int(p) for p in args.parts.split(",")}
    with ProcessPoolExecutor(args.workers) as pool:
        parts_by_number = (
            (2, ab_part),
            (3, play_for_part),
            (4, dead_stones_part),
        )
        for number, part in parts_by_number:
            if number in parts:
                part(pool, args.workers, scaled, search)


if __name__ == "__main__":
    main()
