"""The stress-set findings of docs/findings.md ("Cycles"), printed
as markdown.

    jpdsim stress configs/stress.toml                  # -> results/stress/
    python docs/findings/stress.py [results/stress]

Reads every run of the stress folder and prints: per repetition rule (all positions, both
suicide options, both players) the endings with 95% Wilson intervals, game lengths and bans;
the same table per position and rule (both players); per position and rule, the endings of
the kofight player; and the winners under A版 for each
position under global_superko against no_result (the kofight player, multi suicide).
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make import markdown  # noqa: E402

from analysis import cycles, load  # noqa: E402


def main(folder: Path) -> None:
    runs = sorted(d for d in folder.iterdir() if (d / "manifest.json").exists())
    games = load.load_runs(runs, columns=cycles.COLUMNS)
    print(f"{len(games):,} games in {len(runs)} runs of {folder}\n")
    table = cycles.stress_table(games, by="repetition")
    print("Per repetition rule (every position, suicide option and player):\n")
    print(markdown(table))
    rare = cycles.endings(games, by="repetition")
    rare = rare[rare["ending"].isin(["cycle", "four_virtual", "move_limit"])]
    print("Rare endings with 95% Wilson intervals:\n")
    print(markdown(rare[["repetition", "ending", "games", "count", "rate", "lo", "hi"]]))
    per_position = cycles.stress_table(games, by=["setup", "repetition"])
    print("Per position and rule (both suicide options and players):\n")
    print(markdown(per_position.drop(columns="mismatches")))
    kofight = games[games["player_b"].astype(str).str.startswith("kofight")]
    wide = cycles.endings_wide(kofight, by=["setup", "repetition"])
    print("The kofight player, per position and rule (both suicide options):\n")
    print(markdown(wide))
    pair = kofight[
        (kofight["suicide"] == "multi")
        & kofight["repetition"].isin(["global_superko", "no_result"])
    ]
    wins = cycles.black_wins(pair, by=["setup", "repetition"])[
        ["setup", "repetition", "games", "jpd_a B"]
    ]
    print("Black's wins under A版 (kofight, multi): global_superko against no_result:\n")
    print(markdown(wins))


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", nargs="?", type=Path, default=Path("results/stress"))
    main(p.parse_args().folder)
