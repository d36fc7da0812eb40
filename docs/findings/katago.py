"""KataGo's findings (docs/findings/history.md, KataGo self-play at komi 7; docs/search.md,
"KataGo") and its throughput
(docs/katago.md), played as runs and printed as markdown.

    python docs/findings/katago.py speed --katago BINARY --model NETWORK [--size N ...]
        [--visits V ...] [--games G]
    python docs/findings/katago.py queries --katago BINARY --model NETWORK
    python docs/findings/katago.py play --katago BINARY --model NETWORK [--workers K] [STUDY ...]
    python docs/findings/katago.py tables

``speed`` plays KataGo against itself on each board of ``--size`` (default 9) at each of
``--visits`` (default 50, 100 and 200) with one and two workers (two shards) into a temporary
folder, at the board's fair komi by area (``SPEED_KOMI``), and prints games per hour and visits
per second, to set beside what KataGo's own ``katago benchmark`` gives on the same network and
machine (docs/katago.md). ``queries`` times KataGo alone answering a game's successive
positions one query at a time, as a worker's KataGo gets them.

``play`` plays each study (default: all of ``studies()``) into ``results/katago/<study>``,
completing a folder a stopped ``play`` left:

- self-play on 9x9 at komi 7 by area (B版 and Chinese 7; A版, 唐宋版 and Japanese 6), dead
  stones agreed at the pause, of KataGo (``SELF_VISITS`` visits, playing for B版, its first
  ``SAMPLE_MOVES`` moves drawn by visits), GNU Go level 1, mcts(1000) and random players;
- KataGo (``MATCH_VISITS`` visits, playing for A版) against mcts(10000) and against GNU Go level
  10 under the default rules and komi, half the games with each colour, as ``bench/gtp.py
  match`` plays the mcts player against GNU Go. Against GNU Go KataGo plays through its GTP
  mode (a katago player cannot play a GTP program): a GTP config written here tells it the
  rules ``sim.katago.rules.query_rules`` gives its queries.

``tables`` prints, from the folders there, the self-play tables of docs/findings/gnugo.py
(endings, disagreement, the A/B effect, who finishes last, fair komi, dead stones) and the
match table.
"""

import argparse
import shlex
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "findings"))

from sim.config.player import Player  # noqa: E402
from sim.config.rules import Rules  # noqa: E402
from sim.config.run import RunConfig  # noqa: E402
from sim.katago.rules import query_rules  # noqa: E402

OUT = ROOT / "results" / "katago"
SIZE, SEED = 9, 20261201
SELF_VISITS, SAMPLE_MOVES, MATCH_VISITS = 50, 8, 50
#: Komi 7 by area: B版 and Chinese 7, the rulesets without a half-point convention one lower.
KOMI_7 = {"jpd_a": 6, "jpd_b": 7, "jpd_tangsong": 6, "chinese": 7, "japanese": 6}
SELFPLAY = Rules(SIZE, dead_stones="agree", komi=KOMI_7)
#: The studies: name -> (players, games); self-play for one player, else a pairing played
#: half with each colour.
SELF_GAMES = {"katago": 1000, "gnugo": 1000, "mcts": 200, "random": 20_000}
MATCH_GAMES = 100
#: ``speed``'s komi by area on each board (its fair komi: a solved board's, 9x9's of strong
#: play), the rulesets without a half-point convention one lower, as in KOMI_7.
SPEED_KOMI = {5: 25, 6: 4, 7: 9, 9: 7, 13: 7, 19: 7}


def katago(binary: str, model: str, visits: int, play_for: str, sample: int = 0) -> Player:
    name = f"katago-{Path(model).name.split('-')[1] if '-' in Path(model).name else 'net'}"
    return Player(
        "katago",
        command=binary,
        model=model,
        label=name,
        visits=visits,
        play_for=play_for,
        sample_moves=sample,
        move_timeout=600,
    )


def gnugo(level: int) -> Player:
    return Player("gtp", command=f"gnugo --mode gtp --level {level}", label=f"gnugo-l{level}")


def katago_gtp(binary: str, model: str, visits: int, play_for: str, rules: Rules) -> Player:
    """KataGo's GTP mode as a gtp player: a config written under OUT with the board's buffers,
    ``visits`` and the rules its analysis queries would carry (komi with A版's half point)."""
    katago_rules, komi = query_rules(rules, play_for)
    keys = {
        "koRule": katago_rules["ko"],
        "scoringRule": katago_rules["scoring"],
        "taxRule": katago_rules["tax"],
        "multiStoneSuicideLegal": katago_rules["suicide"],
        "hasButton": katago_rules["hasButton"],
        "whiteHandicapBonus": katago_rules["whiteHandicapBonus"],
        "friendlyPassOk": katago_rules["friendlyPassOk"],
        "maxVisits": visits,
        "numSearchThreads": 1,
        "maxBoardXSizeForNNBuffer": SIZE,
        "maxBoardYSizeForNNBuffer": SIZE,
        "requireMaxBoardSize": True,
        "allowResignation": False,
        "resignThreshold": -0.9,
        "resignConsecTurns": 3,
        "ponderingEnabled": False,
        "logToStderr": False,
        "logFile": "/dev/null",
        "logAllGTPCommunication": False,
        "logSearchInfo": False,
    }
    text = "".join(
        f"{k} = {str(v).lower() if isinstance(v, bool) else v}\n" for k, v in keys.items()
    )
    config = OUT / f"katago_gtp_{SIZE}x{SIZE}_{visits}_{play_for}.cfg"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    command = f"{shlex.quote(binary)} gtp -model {shlex.quote(model)} -config {config}"
    label = katago(binary, model, visits, play_for).label + "-gtp"
    return Player("gtp", command=command, label=label, play_for=play_for, komi_to_engine=komi)


def studies(binary: str, model: str) -> dict[str, RunConfig]:
    """Every study: its name -> the run config it plays (the mcts players without RAVE, as
    they were played on 2026-12-01)."""
    kata = katago(binary, model, SELF_VISITS, "jpd_b", SAMPLE_MOVES)
    players = {
        "katago": kata,
        "gnugo": gnugo(1),
        "mcts": Player("mcts", visits=1000, play_for="jpd_b", rave=0),
        "random": Player(),
    }
    out = {}
    for name, player in players.items():
        games = SELF_GAMES[name]
        shard = 10 if name == "mcts" else max(50, games // 20)
        out[f"selfplay-{name}"] = RunConfig(
            f"katago_selfplay_{name}", games, SELFPLAY, shard, SEED, player, player
        )
    rules = Rules(SIZE)
    kata = katago(binary, model, MATCH_VISITS, "jpd_a")
    for name, other, me in (
        ("mcts10000", Player("mcts", visits=10_000, rave=0), kata),
        ("gnugo-l10", gnugo(10), katago_gtp(binary, model, MATCH_VISITS, "jpd_a", rules)),
    ):
        for colour in ("black", "white"):
            black, white = (me, other) if colour == "black" else (other, me)
            out[f"match-{name}-katago-{colour}"] = RunConfig(
                f"katago_vs_{name}_{colour}", MATCH_GAMES // 2, rules, 10, SEED, black, white
            )
    return out


def speed(binary: str, model: str, sizes, visit_counts, games: int) -> None:
    """Games per hour and visits per second of KataGo self-play (``studies``'s player, its
    visits changed) on each board of ``sizes``: ``games`` games in two shards, so that two
    workers have one each; every action of a game is one query of that many visits."""
    from analysis.load import load_runs
    from sim.run import runner

    print("| board | visits | workers | games | seconds | games per hour | visits per second |")
    print("|---|---|---|---|---|---|---|")
    for size in sizes:
        area = SPEED_KOMI[size]
        komi = {r: area if k == 7 else area - 1 for r, k in KOMI_7.items()}
        rules = Rules(size, dead_stones="agree", komi=komi)
        for visits in visit_counts:
            player = katago(binary, model, visits, "jpd_b", SAMPLE_MOVES)
            cfg = RunConfig(f"speed_{visits}", games, rules, -(-games // 2), SEED, player, player)
            for workers in (1, 2):
                with tempfile.TemporaryDirectory() as folder:
                    t = time.perf_counter()
                    runner.run(cfg, Path(folder) / "run", workers=workers)
                    seconds = time.perf_counter() - t
                    actions = int(load_runs([Path(folder) / "run"], ["actions"])["actions"].sum())
                rate = games / seconds * 3600
                print(
                    f"| {size}x{size} | {visits} | {workers} | {games} | {seconds:.0f} | "
                    f"{rate:,.0f} | {actions * visits / seconds:,.0f} |",
                    flush=True,
                )


def queries(binary: str, model: str) -> None:
    """KataGo alone, with the config jpdsim writes for 9x9: the time of each of a game's 40
    successive positions asked one query at a time (its own best move played), at 50 and 200
    visits, then the same queries again (its evaluation cache)."""
    import json
    import subprocess

    from sim.katago.engine import analysis_config
    from sim.katago.rules import query_rules

    rules, _ = query_rules(SELFPLAY, "chinese")
    command = [binary, "analysis", "-model", model, "-config", str(analysis_config(SIZE))]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as katago:

        def ask(moves, visits):
            query = {"id": "q", "moves": moves, "rules": rules, "komi": 7, "maxVisits": visits}
            query |= {"boardXSize": SIZE, "boardYSize": SIZE}
            katago.stdin.write(json.dumps(query) + "\n")
            katago.stdin.flush()
            return json.loads(katago.stdout.readline())["moveInfos"][0]["move"]

        ask([], 10)  # the network loaded
        for visits in (50, 200, 50, 200):
            moves, t = [], time.perf_counter()
            for k in range(40):
                moves.append(["BW"[k % 2], ask(moves, visits)])
            seconds = (time.perf_counter() - t) / 40
            rate = visits / seconds
            print(f"{visits} visits: {seconds * 1000:.0f} ms a query, {rate:,.0f} visits/s")
        katago.stdin.close()


def tables() -> None:
    from gnugo import selfplay_tables

    from analysis.load import IncompleteRunWarning, load_runs
    from analysis.players import COLUMNS, strength

    frames = []
    for name in SELF_GAMES:
        folder = OUT / f"selfplay-{name}"
        if folder.is_dir():
            frames.append(load_runs([folder]).assign(players=f"{name} self-play"))
        else:
            print(f"selfplay-{name}: not played yet", file=sys.stderr)
    if frames:
        print(f"9x9, dead_stones = agree, komi {KOMI_7}\n")
        selfplay_tables(pd.concat(frames, ignore_index=True))
    print("### KataGo against mcts(10000) and GNU Go level 10 (A版, komi 6.5)\n")
    print("| opponent | games with a winner | KataGo score | Wilson 95% | as Black | as White |")
    print("|---|---|---|---|---|---|")
    for opponent in ("mcts10000", "gnugo-l10"):
        folders = [OUT / f"match-{opponent}-katago-{c}" for c in ("black", "white")]
        if not all(f.is_dir() for f in folders):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IncompleteRunWarning)
            df = load_runs(folders, list(COLUMNS), allow_incomplete=True)
        row = strength(df).iloc[0]
        score, lo, hi = row["first score"], row["first score lo"], row["first score hi"]
        black, white = row["first as Black"], row["first as White"]
        if not row["first"].startswith(("katago", "gtp(name=katago")):  # KataGo second
            score, lo, hi, black, white = 1 - score, 1 - hi, 1 - lo, 1 - white, 1 - black
        print(
            f"| {opponent} | {row['games']:.0f} | {score:.1%} | {lo:.1%}–{hi:.1%} | "
            f"{black:.1%} | {white:.1%} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    for what in ("speed", "play", "queries"):
        p = sub.add_parser(what)
        p.add_argument("--katago", required=True, help="the katago binary")
        p.add_argument("--model", required=True, help="the network file")
    sub.choices["play"].add_argument("--workers", type=int, default=2)
    sub.choices["speed"].add_argument("--size", type=int, nargs="+", default=[9])
    sub.choices["speed"].add_argument("--visits", type=int, nargs="+", default=[50, 100, 200])
    sub.choices["speed"].add_argument("--games", type=int, default=16)
    sub.choices["play"].add_argument("studies", nargs="*")
    sub.add_parser("tables")
    args = parser.parse_args()
    if args.what == "speed":
        speed(args.katago, args.model, args.size, args.visits, args.games)
    elif args.what == "queries":
        queries(args.katago, args.model)
    elif args.what == "play":
        from make import play_studies

        play_studies(studies(args.katago, args.model), args.studies, OUT, args.workers)
    else:
        tables()


if __name__ == "__main__":
    main()
