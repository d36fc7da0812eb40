"""The strong-play reference table of docs/findings.md ("Fair komi", the KataGo rows): a
``komi_search`` of KataGo's self-play per board, printed as markdown.

    python docs/findings/reference.py play --katago BINARY --model NETWORK [--workers K] [BOARD ...]
    python docs/findings/reference.py tables

``play`` plays each board (default: ``DEFAULT_BOARDS``; 13x13's first figure when named) into
``results/reference/<board>``, completing a folder a stopped ``play`` left: KataGo against
itself (``BOARDS``' visits and opening moves drawn by visits, playing for Chinese area at the
komi of its game), a komi search for Chinese area from the known value (``BOARDS``) to a 95%
interval within ``PRECISION`` on either side or ``BOARDS``' budget of games. The other
rulesets' komis move with Chinese's, their offsets the defaults (B版 equal; A版, 唐宋版 and
Japanese one lower), so that their fair komis, a point apart at most, are read off the same
games.

``tables`` prints, from the folders there: the fitted fair komi of every ruleset with its 95%
interval and the known value beside it; and at the komis played next to the fitted fair komi,
how often A版 and B版 name different winners, who finishes last and the share of draws.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "findings"))

from katago import katago  # noqa: E402

from sim.config.rules import Rules  # noqa: E402
from sim.config.run import RunConfig  # noqa: E402
from sim.komi.search import KomiSearch  # noqa: E402

OUT = ROOT / "results" / "reference"
SEED, PRECISION = 20261203, 0.25
#: board -> (known fair komi by area, by territory, the search's budget of games, its rounds'
#: games, KataGo's visits, its sampled opening moves). On 5x5 and 6x6 any sampled opening move
#: but the best gives the game away (on 5x5 KataGo's own games with four sampled moves left
#: Black short of 25 at komi 23 to 24.5 in 24 of 30): there KataGo plays its best move always,
#: so that the games at a komi are one game, and a round plays each komi twice; at 100 visits
#: those games gave 23.5 on 5x5 and 1.57 on 6x6, too few visits for the network there. On 7x7
#: two sampled moves: with four, Black's score sat near one half from komi 7.5 to 9 and 1,400
#: games left the interval at 7.25–8.69 (docs/findings.md).
BOARDS = {
    5: (25, 24, 28, 14, 800, 0),
    6: (4, 3, 28, 14, 800, 0),
    7: (9, 8, 1400, 70, 100, 2),
    9: (7, 6, 490, 70, 50, 4),
    13: (None, None, 140, 70, 50, 4),
}
#: The boards ``play`` plays unless named: 13x13's first figure only when asked for.
DEFAULT_BOARDS = ("5x5", "6x6", "7x7", "9x9")
FIRST_GUESS_13 = 7.5  # no known value on 13x13: the search starts from the 9x9 one


def studies(binary: str, model: str) -> dict[str, RunConfig]:
    """Every board's search: its name -> the run config."""
    out = {}
    for size, (area, _, budget, round_games, visits, sample) in BOARDS.items():
        player = katago(binary, model, visits, "chinese", sample)
        start = area if area is not None else FIRST_GUESS_13
        out[f"{size}x{size}"] = RunConfig(
            f"reference_{size}x{size}",
            1,  # the search decides the games
            Rules(size),
            min(round_games, 35),
            SEED,
            player,
            player,
            komi_search=KomiSearch("chinese", PRECISION, budget, round_games, start),
        )
    return out


def _rate(k, n) -> str:
    """``k`` of ``n`` as a share with its 95% Wilson interval."""
    from analysis.stats import wilson

    lo, hi = (float(x) for x in wilson(k, n))
    return f"{k / n:.1%} ({lo:.1%}–{hi:.1%})"


def _interval(value, lo, hi) -> str:
    f = lambda v: f"{v:.2f}" if np.isfinite(v) else "?"  # noqa: E731
    return f"{f(value)} ({f(lo)}–{f(hi)})"


def tables() -> None:
    from make import markdown

    from analysis import ab_effect, counts, komi_sweep
    from sim.dataset.check import check_run

    fits, near = [], []
    for size, (area, territory, *_) in BOARDS.items():
        folder = OUT / f"{size}x{size}"
        if not (folder.is_dir() and check_run(folder).complete):
            print(
                f"{size}x{size}: not played yet (reference.py play {size}x{size})", file=sys.stderr
            )
            continue
        d = counts.statistics([folder])
        fit = komi_sweep.fitted_fair_komi(d).set_index("ruleset")
        row = {"board": f"{size}x{size}", "games": int(fit["games"].max())}
        for r in fit.index:
            f = fit.loc[r]
            row[r] = _interval(f["fair komi"], f["fair komi lo"], f["fair komi hi"])
        row["known (area / territory)"] = "–" if area is None else f"{area} / {territory}"
        fits.append(row)
        fair = fit.loc["chinese", "fair komi"]
        curve = komi_sweep.sweep_curve(d, ["chinese"]).set_index("komi")
        for _, t in ab_effect.by_komi(d).iterrows():
            komi = t["komi_jpd_b"]  # B版's komi is Chinese's
            if np.isfinite(fair) and abs(komi - fair) > 0.5:
                continue
            near.append(
                {
                    "board": f"{size}x{size}",
                    "Chinese komi": komi,
                    "games": int(t["games"]),
                    "A版 ≠ B版 winner": _rate(t["differ"], t["both winners"]),
                    "White first": _rate(t["white first"], t["games"]),
                    "Black last": _rate(t["black last"], t["games"]),
                    "Black's score": f"{t['black score']:.1%}",
                    "draws (Chinese)": _rate(curve.loc[komi, "draws"], t["games"]),
                }
            )
    print("## Fair komi under KataGo's self-play, per ruleset (95% interval)\n")
    print(markdown(pd.DataFrame(fits)))
    print("\n## At the komis next to the fitted fair komi (Chinese area)\n")
    print(markdown(pd.DataFrame(near)))


if __name__ == "__main__":
    from make import play_or_tables

    play_or_tables(__doc__, studies, OUT, tables, workers=1, default=DEFAULT_BOARDS)
