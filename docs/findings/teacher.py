"""The research answers under the teacher's play (docs/findings.md, "At the fair komi under
strong play"): katrain's b10c384 KataGo network against itself at each small board's fair
komi, and g170 on 9x9, with how often A版 and B版 name different winners, who finishes last,
who passes first and the draws, printed as markdown.

    python docs/findings/teacher.py play --katago BINARY --model NETWORK [--workers K] [STUDY ...]
    python docs/findings/teacher.py tables

``play`` plays each study of ``STUDIES`` (default: all) into ``results/teacher/<study>``,
completing a folder a stopped ``play`` left: KataGo against itself (the study's visits, its
first moves drawn by visits, playing for Chinese area) at the board's fair komi by area, the
rulesets without a half-point convention one lower (``katago.py``'s ``KOMI_7`` offsets), every
move stored (a program's games store them). 5x5 is not among them: at its fair komi of 25 the
network believes Black lost and gives the game away (findings.md, R6).

``tables`` prints one row a study from the folders there, and from ``katago.py``'s 9x9 g170
self-play at komi 7 (``katago.py play selfplay-katago``) where it was played.
"""

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "findings"))

from katago import KOMI_7, SAMPLE_MOVES, SELF_VISITS, katago  # noqa: E402
from katago import OUT as KATAGO_OUT  # noqa: E402
from reference import _rate  # noqa: E402

from sim.config.rules import Rules  # noqa: E402
from sim.config.run import RunConfig  # noqa: E402

OUT = ROOT / "results" / "teacher"
SEED = 20261208
#: study -> (board, its fair komi by area, games, visits, opening moves drawn by visits).
STUDIES = {
    "6x6-200": (6, 4, 240, 200, 2),
    "7x7-200": (7, 9, 160, 200, 2),
    "6x6-50": (6, 4, 120, 50, 2),
    "7x7-50": (7, 9, 80, 50, 2),
    "6x6-200-d4": (6, 4, 240, 200, 4),
}


def studies(binary: str, model: str) -> dict[str, RunConfig]:
    """Every study's self-play: its name -> the run config."""
    out = {}
    for name, (size, area, games, visits, sample) in STUDIES.items():
        komi = {r: area if k == 7 else area - 1 for r, k in KOMI_7.items()}
        rules = Rules(size, komi=komi)
        player = katago(binary, model, visits, "chinese", sample)
        out[name] = RunConfig(f"teacher_{name}", games, rules, 20, SEED, player, player)
    return out


def distinct_games(folder: Path, games: int) -> str:
    """How many of the run's games differ in their moves ("–" when its moves are not stored)."""
    from sim.dataset.read import load_game

    seen = set()
    for game_id in range(games):
        actions = load_game(folder, game_id)[2]
        if actions is None:
            return "–"
        seen.add(tuple(actions))
    return f"{len(seen)}"


def answers(folder: Path, board: str, player: str) -> dict:
    """The row of one run at one komi: the A版 point, who passes first, who finishes last,
    how often the two are the same player, B版's draws and Black's B版 score."""
    from analysis import ab_effect, counts, finishes_last, komi_sweep

    d = counts.statistics([folder])
    (t,) = ab_effect.by_komi(d).to_dict("records")
    (rel,) = finishes_last.relations(d).to_dict("records")
    (curve,) = komi_sweep.sweep_curve(d, ["jpd_b"]).to_dict("records")
    games = int(t["games"])
    return {
        "board": board,
        "player": player,
        "B版 komi": f"{t['komi_jpd_b']:g}",
        "games": games,
        "distinct games": distinct_games(folder, games),
        "A版 ≠ B版 winner": _rate(t["differ"], t["both winners"]),
        "White first to pass or virtual": _rate(t["white first"], games),
        "Black finished last": _rate(t["black last"], games),
        "first passer = last mover": _rate(rel["same"], rel["both defined"]),
        "B版 draws": _rate(curve["draws"], games),
        "Black's B版 score": f"{t['black score']:.1%} ({t['black score lo']:.1%}–"
        f"{t['black score hi']:.1%})",
    }


def tables() -> None:
    from make import markdown

    from sim.dataset.check import check_run

    rows = []
    folders = [
        (OUT / name, f"{s}x{s}", f"b10c384, {v} visits, {k} drawn")
        for name, (s, _, _, v, k) in sorted(STUDIES.items())
    ]
    g170 = f"g170-b6c96, {SELF_VISITS} visits, {SAMPLE_MOVES} drawn"
    folders.append((KATAGO_OUT / "selfplay-katago", "9x9", g170))
    for folder, board, player in folders:
        if not (folder.is_dir() and check_run(folder).complete):
            print(f"{folder}: not played yet", file=sys.stderr)
            continue
        rows.append(answers(folder, board, player))
    print("## The research answers under the teacher's play (95% Wilson intervals)\n")
    print(markdown(pd.DataFrame(rows)))


if __name__ == "__main__":
    from make import play_or_tables

    play_or_tables(__doc__, studies, OUT, tables, workers=2)
