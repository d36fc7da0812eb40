"""GTP programs as players, on 9x9: the referee's overhead and match tables, printed as
figures (one process per worker).

    python bench/gtp.py speed [--games N] [--level L]
    python bench/gtp.py match [--games N] [--workers K] [--visits 1000,4000] [--levels 1,10]
                              [--engine NAME=COMMAND ...] [--rave K] [--stop-early]
                              [--prior hand|learned|diamond] [--prior-visits K] [--explore C]
                              [--score-utility U] [--[no-]tactics] [--[no-]doubt-passes]
                              [--[no-]avoid-suicides] [--playout P] [--ruleset R] [--size N]
                              [--colour both|black|white]
    python bench/gtp.py table [--games N] [--visits 1000,4000] [--levels 1,10]
                              [--engine NAME=COMMAND ...] [--rave K] [--stop-early]
                              [--prior hand|learned|diamond] [--prior-visits K] [--explore C]
                              [--score-utility U] [--[no-]tactics] [--[no-]doubt-passes]
                              [--[no-]avoid-suicides] [--playout P] [--ruleset R] [--size N]

``speed``: GNU Go self-play at ``--level`` (1) through the referee (``sim.play.referee``, one
process) against the same games over a plain GTP loop (two GNU Go processes told each other's
moves until two passes, the same seeds), games/s and the referee's overhead (at most 10%).

``match``: the mcts player (its ``--playout``, ``--rave``, ``--prior``, ``--prior-visits``
and ``--explore``, by default the
player's defaults; ``--rave 0``: the search before RAVE; without the early stop unless
``--stop-early``) at each ``--visits`` against GNU
Go at each ``--levels`` (none: ``--levels ""``) and against each GTP program ``--engine
NAME=COMMAND`` (e.g. ``--engine "pachi=pachi -t =10000"``; NAME names its runs and rows), each
colour half of the games, on 9x9 or ``--size``, at the default komi, every player playing for
``--ruleset`` (jpd_a; a program told that ruleset's komi); the mcts player's wins under that
ruleset with Wilson 95% intervals, over the games with a winner (a game that ends by
an engine error has none: GNU Go refuses some moves these rules allow, e.g. a multi-stone
suicide). Each pairing and colour is a run (``jpdsim run``'s runner, ``--workers`` processes)
in ``--out`` (results/gtp_match): a stopped match goes on where it stopped when the same
command runs again, and every game can be replayed and exported to SGF. ``--colour black``
plays only the runs where mcts is Black (and ``white`` the others), so that two processes can
play both colours of a pairing at once and a stopped match stays balanced.

``table``: the match table from the games played so far (a pairing not yet complete says how
many of its games were played).
"""

import argparse
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.load import IncompleteRunWarning, load_runs  # noqa: E402
from analysis.stats import wilson  # noqa: E402
from sim.config.file import config_from_dict  # noqa: E402
from sim.config.player import Player  # noqa: E402
from sim.config.rules import Rules  # noqa: E402
from sim.errors import UserError  # noqa: E402
from sim.gtp.engine import GtpEngine, engine_seed  # noqa: E402
from sim.options import OptionError  # noqa: E402
from sim.play.program import named_command  # noqa: E402
from sim.play.referee import play_refereed  # noqa: E402
from sim.run.runner import run  # noqa: E402
from sim.schema.tables import PLAYOUTS, PRIORS, RULESETS  # noqa: E402

SIZE = 9


def gnugo(level: int) -> Player:
    return Player("gtp", command=f"gnugo --mode gtp --level {level}", label=f"gnugo-l{level}")


def plain_loop(level: int, game_ids, seed: int) -> int:
    """GNU Go self-play over a plain GTP loop (no referee); returns the moves played."""
    command = f"gnugo --mode gtp --level {level}"
    engines = {1: GtpEngine(command), 2: GtpEngine(command)}
    komi = Rules(SIZE).komi["jpd_a"]
    moves = 0
    for game_id in game_ids:
        for engine in engines.values():
            engine.new_game(SIZE, komi, engine_seed(seed, int(game_id)))
        colour, passes = 1, 0
        while passes < 2 and moves < 10**6:
            vertex = engines[colour].genmove(colour)
            if vertex == "resign":
                break
            passes = passes + 1 if vertex == "pass" else 0
            engines[3 - colour].play(colour, vertex)
            colour = 3 - colour
            moves += 1
    for engine in engines.values():
        engine.close()
    return moves


def speed(games: int, level: int) -> None:
    ids = np.arange(games)
    player = gnugo(level)
    rules = Rules(SIZE)
    play_refereed(rules, seed=1, game_ids=ids[:1], black=player, white=player)  # compile, start
    t = time.perf_counter()
    cols, _ = play_refereed(rules, seed=1, game_ids=ids, black=player, white=player)
    refereed = games / (time.perf_counter() - t)
    t = time.perf_counter()
    moves = plain_loop(level, ids, 1)
    plain = games / (time.perf_counter() - t)
    print(f"GNU Go level {level} self-play, {games} games on {SIZE}x{SIZE}:")
    print(f"  through the referee: {refereed:.2f} games/s ({cols['actions'].mean():.0f} actions)")
    print(f"  plain GTP loop:      {plain:.2f} games/s ({moves / games:.0f} moves)")
    print(f"  referee overhead: {plain / refereed - 1:+.1%} (at most 10%)")


def opponents(levels, engines) -> list[Player]:
    """GNU Go at each of ``levels``, then a gtp player for each ``NAME=COMMAND`` of
    ``engines``."""
    programs = [gnugo(level) for level in levels]
    for pair in engines:
        try:
            name, command = named_command("--engine", pair)
            programs.append(Player("gtp", command=command, label=name))
        except UserError as e:
            sys.exit(str(e))
        except OptionError as e:
            sys.exit(f"--engine {pair}: {e}")
    return programs


def match_runs(games: int, visits, programs, search: Player, size: int) -> list:
    """The runs of the match table on ``size``: for each program and mcts visits (the player
    ``search`` at those visits), one run with mcts as Black and one with mcts as White,
    ``games // 2`` games each (shards of 10 games, so that a stopped match loses little), named
    ``[NxN-]mctsV[raveK][stop][learned|diamond][pvK][tactics][scoreU][doubt]``
    ``[nosuicides][exploreC][random][-RULESET]-`` ``PROGRAM-mcts-COLOUR`` (no ``raveK`` for the
    search without RAVE, no ``stop`` without the early stop, the learned prior's name, none with
    the hand-set priors, no ``pvK`` for the PUCT search (``prior_visits`` 0), no ``tactics``
    without them, no ``scoreU`` for ``score_utility`` 0, no ``doubt`` for trusted passes, no
    ``nosuicides`` with suicides searched, as before they existed; ``exploreC`` where the
    exploration constant is not the one of its selection, 1 for PUCT and 0 with
    ``prior_visits``; ``random`` for the random playout; no ``-RULESET`` for jpd_a, no ``NxN-``
    on 9x9); every player plays for ``search.play_for``, the program told its komi."""
    runs = []
    board = "" if size == SIZE else f"{size}x{size}-"
    rave, stop = (f"rave{search.rave:g}" if search.rave else ""), "stop" * search.stop_early
    learned = "" if search.prior == "hand" else search.prior
    since_pv = f"pv{search.prior_visits:g}" if search.prior_visits else ""  # and what came after
    since_pv += "tactics" * search.tactics
    since_pv += f"score{search.score_utility:g}" if search.score_utility else ""
    since_pv += "doubt" * search.doubt_passes
    since_pv += "nosuicides" * search.avoid_suicides
    usual = 0.0 if search.prior_visits else 1.0
    explore = f"explore{search.explore:g}" if search.explore != usual else ""
    playout = "" if search.playout == "pattern" else search.playout
    ruleset = "" if search.play_for == "jpd_a" else f"-{search.play_for}"
    for program in programs:
        for v in visits:
            mcts = replace(search, visits=v).to_dict()
            other = replace(program, play_for=search.play_for).to_dict()
            name = f"{board}mcts{v}{rave}{stop}{learned}{since_pv}{explore}{playout}{ruleset}"
            for colour, black, white in (("black", mcts, other), ("white", other, mcts)):
                table = {
                    "name": f"{name}-{program.label}-mcts-{colour}",
                    "board_size": size,
                    "games": games // 2,
                    "shard_size": 10,
                    "seed": 9,
                    "players": {"black": black, "white": white},
                }
                runs.append(config_from_dict(table, "bench/gtp.py match"))
    return runs


def match(games, workers, visits, programs, search, size, out: Path, colour: str) -> None:
    """Play the match's runs (only mcts's ``colour``'s unless "both"), then print the table."""
    runs = match_runs(games, visits, programs, search, size)
    for cfg in runs:  # resumable: a run folder that exists is completed, not replayed
        if colour != "both" and not cfg.name.endswith(f"-mcts-{colour}"):
            continue
        t = time.perf_counter()
        result = run(cfg, out / cfg.name, workers, resume=(out / cfg.name).exists(), progress=True)
        if not result.state.complete:
            sys.exit(f"{out / cfg.name}: incomplete; run the same command again to go on")
        print(
            f"<!-- {cfg.name}: {result.games_played} games in {time.perf_counter() - t:.0f} s -->"
        )
    table(games, visits, programs, search, size, out)


def table(games: int, visits, programs, search: Player, size: int, out: Path) -> None:
    """The match table from the games played so far (a pairing not complete says how many)."""
    print("| mcts visits | opponent | games | mcts wins | Wilson 95% | as Black | as White |")
    print("|---|---|---|---|---|---|---|")
    winner = f"winner_{search.play_for}"
    columns = [winner, "ending", "engine_illegal"]
    runs = match_runs(games, visits, programs, search, size)
    for black_run, white_run in zip(runs[::2], runs[1::2]):
        frames = {}
        for colour, cfg in (("B", black_run), ("W", white_run)):
            d = out / cfg.name
            if d.exists():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", IncompleteRunWarning)
                    frames[colour] = load_runs([d], columns, allow_incomplete=True)
        played = sum(len(df) for df in frames.values())
        score = {}  # colour of mcts: (its wins, games with a winner)
        for colour, df in frames.items():
            won = df[winner].dropna().astype(str)
            score[colour] = ((won == colour).sum() + 0.5 * (won == "draw").sum(), len(won))
        wins, n = (sum(x[i] for x in score.values()) for i in (0, 1))
        if n == 0:
            continue
        lo, hi = (float(x) for x in wilson(wins, n))
        v, opponent = black_run.black.visits, black_run.white.label
        shares = {c: f"{w / k:.1%}" if k else "-" for c, (w, k) in score.items()}
        total = 2 * black_run.games
        note = "" if played == total else f" ({played} of {total} played)"
        print(
            f"| {v} | {opponent} | {n}{note} | {wins / n:.1%} | {lo:.1%}-{hi:.1%} | "
            f"{shares.get('B', '-')} | {shares.get('W', '-')} |"
        )
        illegal = sum(int(df["engine_illegal"].sum()) for df in frames.values())
        errors = sum(int((df["ending"] == "engine_error").sum()) for df in frames.values())
        print(
            f"<!-- {illegal} illegal {opponent} moves, {errors} games ended by an engine error "
            f"(no winner, left out) -->"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--games", type=int, default=40)
    s.add_argument("--level", type=int, default=1)
    m = sub.add_parser("match")
    m.add_argument("--games", type=int, default=200)
    m.add_argument("--workers", type=int, default=2)
    m.add_argument("--visits", default="1000,4000,10000")
    m.add_argument("--levels", default="1,10")
    m.add_argument("--out", type=Path, default=Path("results/gtp_match"), help="run folders")
    m.add_argument("--colour", choices=("both", "black", "white"), default="both")
    t = sub.add_parser("table")
    for name, default in (("--games", 200), ("--visits", "1000,4000,10000"), ("--levels", "1,10")):
        t.add_argument(name, type=type(default), default=default)
    t.add_argument("--out", type=Path, default=Path("results/gtp_match"), help="run folders")
    for p in (m, t):
        p.add_argument("--engine", action="append", default=[], metavar="NAME=COMMAND")
        p.add_argument("--rave", type=float, default=Player().rave, help="mcts's rave (0: none)")
        for flag in ("stop_early", "tactics", "doubt_passes", "avoid_suicides"):  # --[no-]...
            p.add_argument(
                "--" + flag.replace("_", "-"),
                action=argparse.BooleanOptionalAction,
                default=getattr(Player(), flag),
                help=f"mcts's {flag}",
            )
        p.add_argument("--size", type=int, default=SIZE, help="board size (default 9)")
        p.add_argument("--prior", choices=PRIORS, default=Player().prior, help="mcts's move priors")
        p.add_argument(
            "--prior-visits",
            type=float,
            default=Player().prior_visits,
            help="mcts's prior_visits (0: the PUCT search before 2026-12-04, with --explore 1)",
        )
        p.add_argument("--explore", type=float, default=Player().explore, help="mcts's explore")
        p.add_argument(
            "--score-utility",
            type=float,
            default=Player().score_utility,
            help="mcts's score_utility (0: the search before the night of 2026-12-04)",
        )
        p.add_argument(
            "--playout", choices=PLAYOUTS, default=Player().playout, help="mcts's playout"
        )
        p.add_argument(
            "--ruleset",
            choices=RULESETS,
            default="jpd_a",
            help="what every player plays for and the games are scored by (default jpd_a)",
        )
    args = parser.parse_args()
    if args.what == "speed":
        speed(args.games, args.level)
        return
    visits = [int(v) for v in args.visits.split(",")]
    programs = opponents([int(v) for v in args.levels.split(",") if v], args.engine)
    search = Player(
        "mcts",
        rave=args.rave,
        stop_early=args.stop_early,
        prior=args.prior,
        prior_visits=args.prior_visits,
        explore=args.explore,
        tactics=args.tactics,
        score_utility=args.score_utility,
        doubt_passes=args.doubt_passes,
        avoid_suicides=args.avoid_suicides,
        playout=args.playout,
        play_for=args.ruleset,
    )
    if args.what == "match":
        match(args.games, args.workers, visits, programs, search, args.size, args.out, args.colour)
    else:
        table(args.games, visits, programs, search, args.size, args.out)


if __name__ == "__main__":
    main()
