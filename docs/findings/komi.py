"""The komi findings of docs/findings.md ("Fair komi"): komi sweeps played as runs, their tables
printed as markdown.

    python docs/findings/komi.py play [--workers K] [STUDY ...]   # into results/komi/STUDY
    python docs/findings/komi.py tables [--figure PNG]

``play`` plays each study (default: all of ``studies()``) with ``sim.run.runner.run`` into
``results/komi/<study>``, completing a folder a killed ``play`` left (the runs resume like
every run). A study whose players search comes once per search of ``SEARCHES``: ``NAME`` with
the default search (RAVE, the learned priors with diamond patterns, the priors as 60 virtual
simulations, ladders and nakade, passes doubted, the score utility 0.3, suicides not searched:
2026-12-05), ``NAME-learned`` with the learned priors without diamonds (``prior = "learned"``:
the late night from 23:50 on 2026-12-04), ``NAME-doubt`` with those and suicides searched
(``avoid_suicides = false``: the night of 2026-12-04), ``NAME-tactics`` without passes doubted
and the score utility (``score_utility = 0``, ``doubt_passes = false``: the evening of
2026-12-04), ``NAME-pv60`` with that search without ladders and nakade (``tactics = false``: the
afternoon of 2026-12-04), ``NAME-puct`` with the PUCT search of 2026-12-03 (``explore = 1``,
``prior_visits = 0``, ``tactics = false``), and variants of that one: ``NAME-score``
(``score_utility = 0.3``), ``NAME-rave100``, ``NAME-norave-learned``, ``NAME-hand`` (the search
of 2026-12-02: the hand-set priors), ``NAME-stop`` (the morning of 2026-12-02: the early stop)
and ``NAME-norave`` (2026-12-01: no
RAVE). ``tables`` prints, from the folders there:

1. the fitted fair komi (Chinese area) against visits on the solved boards 5x5, 6x6 and 7x7
   (``configs/komi_5x5.toml`` and its siblings, the visits changed), for each search;
2. the fitted fair komi of every ruleset on 9x9 under random, pattern, mcts and GNU Go play
   (``configs/komi_9x9.toml``, ``configs/komi_9x9_gnugo.toml``, the players changed);
3. the A版 one-point effect, who passes first and who finishes last against the komi's
   distance from the fair komi, for those four players.
"""

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sim.config.file import load_config  # noqa: E402
from sim.config.player import EVENING, LATE_NIGHT, NIGHT, PUCT, Player  # noqa: E402
from sim.config.run import KomiSweep  # noqa: E402

OUT = ROOT / "results" / "komi"
SOLVED = {5: 25, 6: 4, 7: 9}  # Black's margin under area scoring with perfect play
VISITS = {5: (200, 800, 3200), 6: (800, 3200, 12800), 7: (800, 3200, 12800)}
#: The studies in the figure: the most visits on each solved board, and 9x9's players (the PUCT
#: search's, as docs/findings.md shows them).
FIGURE = (
    "5x5-mcts3200-puct",
    "6x6-mcts12800-puct",
    "7x7-mcts12800-puct",
    "9x9-mcts-puct",
    "9x9-gnugo",
)
#: 9x9 players -> games (None: the config's) and B版 komis (None: the config's); the playout
#: players play the same games at every komi, so theirs sit around their own fair komi.
NINE = {
    "random": (600_000, (-0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5)),
    "pattern": (60_000, (-0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5)),
    "mcts": (None, None),
    "gnugo": (None, None),
}


def studies() -> dict:
    """Every study: its name -> the run config it plays."""
    out = {}
    for size, visits in VISITS.items():
        base = load_config(ROOT / "configs" / f"komi_{size}x{size}.toml")
        for v in visits:
            players = {
                c: dataclasses.replace(getattr(base, c), visits=v) for c in ("black", "white")
            }
            out[f"{size}x{size}-mcts{v}"] = dataclasses.replace(
                base, name=f"komi_{size}x{size}_{v}", **players
            )
    for player, (games, komis) in NINE.items():
        config = "komi_9x9_gnugo" if player == "gnugo" else "komi_9x9"
        cfg = load_config(ROOT / "configs" / f"{config}.toml", games=games)
        if komis is not None:
            cfg = dataclasses.replace(
                cfg,
                name=f"komi_9x9_{player}",
                black=Player(player),
                white=Player(player),
                shard_size=games // 10,
                komi_sweep=KomiSweep("jpd_b", komis),
            )
        out[f"9x9-{player}"] = cfg
    every = {}
    for name, cfg in out.items():
        if not cfg.black.searches:
            every[name] = cfg
            continue
        for suffix, (run_suffix, search) in SEARCHES.items():
            every[name + suffix] = _searching(cfg, cfg.name + run_suffix, search)
    return every


#: The searches a study is played with: study suffix -> (run name suffix, the parameters that
#: differ from the default search).
SEARCHES = {
    "": ("_rave_nostop_diamond_pv60_tactics_score0.3_doubt_nosuicides", {}),
    "-learned": ("_rave_nostop_learned_pv60_tactics_score0.3_doubt_nosuicides", LATE_NIGHT),
    "-doubt": ("_rave_nostop_learned_pv60_tactics_score0.3_doubt", NIGHT),
    "-tactics": ("_rave_nostop_learned_pv60_tactics", EVENING),
    "-pv60": ("_rave_nostop_learned_pv60", {"tactics": False, **EVENING}),
    "-puct": ("_rave_nostop_learned", PUCT),
    "-score": ("_rave_nostop_learned_score0.3", {**PUCT, "score_utility": 0.3}),
    "-rave100": ("_rave100_nostop_learned", {**PUCT, "rave": 100.0}),
    "-norave-learned": ("_nostop_learned", {**PUCT, "rave": 0.0}),
    "-hand": ("_rave_nostop", {**PUCT, "prior": "hand"}),
    "-stop": ("_rave", {**PUCT, "stop_early": True, "prior": "hand"}),
    "-norave": ("", {**PUCT, "rave": 0.0, "prior": "hand"}),
}
#: The tables' name of each search, by study suffix.
SEARCH_LABEL = {
    "": "diamond priors, prior visits 60, ladders and nakade, passes doubted, score utility "
    "0.3, no suicides",
    "-learned": "learned priors, prior visits 60, ladders and nakade, passes doubted, score "
    "utility 0.3, no suicides",
    "-doubt": "learned priors, prior visits 60, ladders and nakade, passes doubted, score "
    "utility 0.3",
    "-tactics": "learned priors, prior visits 60, ladders and nakade",
    "-pv60": "learned priors, prior visits 60",
    "-puct": "learned priors",
    "-score": "learned priors, score utility 0.3",
    "-rave100": "learned priors, RAVE equivalence 100",
    "-norave-learned": "learned priors, no RAVE",
    "-hand": "RAVE",
    "-stop": "RAVE, early stop",
    "-norave": "2026-12-01",
}


def _searching(cfg, name: str, search: dict):
    """``cfg`` named ``name``, its searching players with the parameters ``search``."""
    players = {c: getattr(cfg, c) for c in ("black", "white")}
    return dataclasses.replace(
        cfg,
        name=name,
        **{c: dataclasses.replace(p, **search) if p.searches else p for c, p in players.items()},
    )


def _interval(value, lo, hi) -> str:
    """``x (lo–hi)`` in points; "?" for a missing value or bound (past the komis played)."""
    f = lambda v: f"{v:.2f}" if np.isfinite(v) else "?"  # noqa: E731
    return f"{f(value)} ({f(lo)}–{f(hi)})"


def _rate(k, n, lo, hi) -> str:
    return f"{k / n:.1%} ({lo:.1%}–{hi:.1%})" if n else "–"


def tables(figure: Path) -> None:
    from make import markdown

    from analysis import ab_effect, counts, komi_sweep, plots
    from sim.dataset.check import check_run

    data = {}
    for name in studies():
        if (OUT / name).is_dir() and check_run(OUT / name).complete:
            data[name] = counts.statistics([OUT / name])
        else:
            print(f"{name}: not played yet (komi.py play {name})", file=sys.stderr)
    print("## Fair komi (Chinese area) against visits on the solved boards\n")
    rows = []
    for name, d in data.items():
        size = int(name.split("x")[0])
        if size not in SOLVED:
            continue
        fit = komi_sweep.fitted_fair_komi(d, rulesets=("chinese",)).iloc[0]
        curve = komi_sweep.sweep_curve(d, rulesets=("chinese",)).set_index("komi")["score"]
        value = SOLVED[size]
        rows.append(
            {
                "board": f"{size}x{size}",
                "players": name.split("-")[1].replace("mcts", "mcts(") + ")",
                "search": SEARCH_LABEL[next((x for x in SEARCHES if x and name.endswith(x)), "")],
                "games": int(fit["games"]),
                "fair komi (95%)": _interval(
                    fit["fair komi"], fit["fair komi lo"], fit["fair komi hi"]
                ),
                "margin method": f"{fit['fair komi (margins)']:.2f}",
                "solved": value,
                "Black's score at solved − ½": f"{curve.get(value - 0.5, np.nan):.0%}",
                "at solved + ½": f"{curve.get(value + 0.5, np.nan):.0%}",
                "note": fit["note"],
            }
        )
    print(markdown(pd.DataFrame(rows)))
    print("\n## Fair komi on 9x9 by player (B版 komis swept, A版 one point lower)\n")
    nine = {name[4:]: d for name, d in data.items() if name.startswith("9x9")}
    rows = []
    for player, d in nine.items():
        fit = komi_sweep.fitted_fair_komi(d).set_index("ruleset")
        row = {"players": player, "games": int(fit["games"].max())}
        for r in fit.index:
            f = fit.loc[r]
            row[r] = _interval(f["fair komi"], f["fair komi lo"], f["fair komi hi"])
        row["B版 margin method"] = f"{fit.loc['jpd_b', 'fair komi (margins)']:.2f}"
        rows.append(row)
    print(markdown(pd.DataFrame(rows)))
    print("\n## The A版 point, who passes first and who finishes last against komi (9x9)\n")
    rows = []
    for player, d in nine.items():
        for _, t in ab_effect.by_komi(d).iterrows():
            rows.append(
                {
                    "players": player,
                    "B版 komi": t["komi_jpd_b"],
                    "from fair": f"{t['from fair komi (points)']:+.2f}",
                    "games": int(t["games"]),
                    "A版 ≠ B版 winner": _rate(
                        t["differ"], t["both winners"], t["differ lo"], t["differ hi"]
                    ),
                    "White first": f"{t['white first rate']:.1%}",
                    "Black last": f"{t['black last rate']:.1%}",
                    "Black's B版 score": f"{t['black score']:.1%}",
                }
            )
    print(markdown(pd.DataFrame(rows)))
    shown = [OUT / name for name in FIGURE if name in data]
    if shown:
        both = counts.statistics(shown)
        by = "run" if len(shown) > 1 else None  # a cube has runs only when there are several
        curve = komi_sweep.sweep_curve(both, ["chinese"], by=by)
        fitted = komi_sweep.fitted_fair_komi(both, ["chinese"], by=by)
        figure.parent.mkdir(parents=True, exist_ok=True)
        plots.sweep_curve(curve, fitted, by=by).savefig(figure, dpi=70, bbox_inches="tight")
        print(f"\n(figure: {figure})")


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="komi.py", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    q = sub.add_parser("play", help="play the studies into results/komi/")
    q.add_argument(
        "names", nargs="*", metavar="STUDY", help=f"default: all ({', '.join(studies())})"
    )
    q.add_argument("--workers", type=int, default=2)
    t = sub.add_parser("tables", help="print the tables of the studies played")
    t.add_argument(
        "--figure",
        type=Path,
        default=OUT / "komi_sweeps.png",
        help="Black's score against komi (Chinese area) of the strongest studies "
        "(default results/komi/komi_sweeps.png; docs/findings/komi_sweeps.png for the docs)",
    )
    args = p.parse_args(argv)
    if args.command == "play":
        from make import play_studies

        play_studies(studies(), args.names, OUT, args.workers)
    else:
        tables(args.figure)


if __name__ == "__main__":
    main(sys.argv[1:])
