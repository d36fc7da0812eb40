"""The `jpdsim` command: argument parsing only; each subcommand lives in its own module.

Exit status (every command): 0 done; 1 the run is incomplete (``run``) or the stored game
differs from its re-play (``replay --run``); 2 bad input or a file that cannot be read or
written, one line on stderr (``UserError``, usage errors); 130 Ctrl-C (SIGINT); 143 SIGTERM
(``run`` and ``report``; the others die by it); 141 stdout closed before all was written
(``| head``).

Only light modules are imported before ``main`` runs, so that a Ctrl-C while the libraries
load is a one-line "interrupted" too.
"""

import argparse
import os
import signal
import sys

from sim import __version__, interrupts
from sim.errors import UserError, limit_error


def _path(text: str) -> str:
    """A path argument: not empty (``--out ''`` would be the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("empty path")
    return text


def _add_rule_options(p, dead_stones_help: str, komi_help: str) -> None:
    """The options of the rules of play (``sim.commands.replay.rules_from_options`` reads them)."""
    from sim.config.rules import PRESETS
    from sim.schema.tables import DEAD_STONES, REPETITIONS, SUICIDES

    p.add_argument(
        "--rules",
        default="jpd",
        choices=tuple(PRESETS),
        help="preset of the rules of play (default jpd); the options below override it",
    )
    p.add_argument("--repetition", choices=REPETITIONS, help="default: the preset's")
    p.add_argument("--suicide", choices=SUICIDES, help="default: the preset's")
    p.add_argument("--max-actions", type=int, help="move cap (default 8*N*N)")
    p.add_argument("--dead-stones", choices=DEAD_STONES, help=dead_stones_help)
    p.add_argument("--komi", action="append", default=[], metavar="RULESET=VALUE", help=komi_help)


def _add_replay(sub):
    p = sub.add_parser(
        "replay", help="play a move list (or a stored game) and print its outcome as JSON"
    )
    p.add_argument("--size", type=int, help="board size N (2..25); default: the size of --setup")
    _add_rule_options(
        p,
        "at a pause: all_alive (default) or agree (then `agree` and the dead stones, or "
        "`resume`, follow the two passes)",
        "komi for one ruleset (repeatable)",
    )
    p.add_argument(
        "--setup",
        type=_path,
        metavar="FILE",
        help="starting position: an ASCII diagram file (top row first; '# key: value' header "
        "lines allowed) or a corpus name (docs/corpus.md)",
    )
    p.add_argument(
        "--to-move",
        choices=("black", "white"),
        help="who moves first from --setup (default: the file's to_move header, else black)",
    )
    p.add_argument("--legal", action="store_true", help="also print legal_moves")
    p.add_argument(
        "--from-file",
        type=_path,
        metavar="FILE",
        help="one game per line; one JSON object per line",
    )
    p.add_argument(
        "--run",
        type=_path,
        metavar="RUN_DIR",
        help="re-play a stored game of this run (with --game)",
    )
    p.add_argument("--game", type=int, metavar="GAME_ID", help="the stored game to re-play")
    p.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="with --run: re-play a program's game (gtp, katago) with this command for the "
        "program the run calls NAME (repeatable); without it the stored moves are judged by the "
        "rules alone, and no command the run folder names is started",
    )
    p.add_argument(
        "moves",
        nargs="*",
        metavar="MOVES",
        help="GTP vertices, pass, virtual, resign, agree, resume",
    )


def _add_run(sub):
    p = sub.add_parser("run", help="play a configured run of games into a Parquet dataset")
    p.add_argument(
        "config", type=_path, metavar="CONFIG", help="a TOML run configuration (see configs/)"
    )
    p.add_argument("--games", type=int, help="override the number of games")
    p.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    p.add_argument(
        "--out", type=_path, metavar="DIR", help="run folder (default results/<config name>)"
    )
    p.add_argument("--seed", type=int, help="override the run seed")
    p.add_argument("--resume", action="store_true", help="complete an interrupted run")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="play the shards on a Dask distributed cluster (e.g. tcp://host:8786); "
        "the run folder must be on a file system its workers share",
    )


def _add_stress(sub):
    p = sub.add_parser(
        "stress",
        help="the superko and cycle stress set: setup positions x rules x players, one run each",
    )
    p.add_argument("config", type=_path, help="stress config (TOML), e.g. configs/stress.toml")
    p.add_argument("--games", type=int, help="override the games of each run")
    p.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    p.add_argument(
        "--out", type=_path, metavar="DIR", help="folder of the runs (default results/<config>)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_sgf(sub):
    from sim.schema.tables import RULESETS

    p = sub.add_parser(
        "sgf", help="write one game of a run as SGF (re-played when its moves are not stored)"
    )
    p.add_argument("run_dir", type=_path, metavar="RUN_DIR")
    p.add_argument("game_id", type=int, metavar="GAME_ID")
    p.add_argument(
        "--ruleset",
        choices=RULESETS,
        help="the ruleset of KM and RE (default: the one the players play for, else jpd_b)",
    )
    p.add_argument("--out", type=_path, metavar="FILE", help="output file (default: stdout)")


def _add_run_dirs(p, help: str) -> None:
    """The run folders an analysis command reads (``args.run_dirs``)."""
    p.add_argument("run_dirs", nargs="+", type=_path, metavar="RUN_DIR", help=help)


def _add_report(sub):
    p = sub.add_parser(
        "report", help="run the analysis notebooks on runs and write one HTML report"
    )
    _add_run_dirs(p, "a run folder, or a `jpdsim stress` folder (its runs)")
    p.add_argument(
        "--out", type=_path, metavar="FILE", help="HTML file (default RUN_DIR/report.html)"
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="compute the statistics of the shards on this Dask scheduler (tcp://host:8786)",
    )


def _add_komi(sub):
    p = sub.add_parser(
        "komi", help="the fair komi of runs, fitted across the komis their games were played at"
    )
    _add_run_dirs(p, "a run folder (a komi sweep), or runs played at different komis")


def _add_root_komi(sub):
    from sim.schema.tables import RULESETS

    p = sub.add_parser(
        "root-komi",
        help="a KataGo network's own fair komi: its evaluations of the empty board across komis",
    )
    p.add_argument("--katago", required=True, metavar="BINARY", help="the KataGo program")
    p.add_argument("--model", required=True, type=_path, metavar="NETWORK", help="its network")
    p.add_argument("--size", type=int, required=True, help="board size N")
    p.add_argument(
        "--visits", type=int, nargs="+", default=[400], metavar="V",
        help="maxVisits of each evaluation; several show how the reading moves (default 400)",
    )  # fmt: skip
    p.add_argument(
        "--ruleset", nargs="+", choices=RULESETS, default=["chinese", "japanese"],
        metavar="RULESET",
        help=f"the rulesets KataGo is told, as a katago player playing for them is: "
        f"{', '.join(RULESETS)} (default: chinese japanese, area and territory)",
    )  # fmt: skip
    p.add_argument(
        "--komi", type=float, nargs="+", metavar="K",
        help="the komis asked (default: the half points within --span of komi 0's score lead)",
    )  # fmt: skip
    p.add_argument("--span", type=float, default=2.0, help="see --komi (default 2)")
    p.add_argument(
        "--processes", type=int, default=1,
        help="KataGo processes, each searching one position at a time (default 1)",
    )  # fmt: skip
    p.add_argument("--config", type=_path, help="KataGo analysis config (default: jpdsim's)")
    p.add_argument(
        "--timeout", type=float, default=3600.0, help="seconds one evaluation may take (3600)"
    )
    p.add_argument("--csv", type=_path, metavar="FILE", help="also write every evaluation here")


def _add_gtp(sub):
    p = sub.add_parser(
        "gtp", help="play one of the simulator's players as a GTP 2 engine on stdin/stdout"
    )
    p.add_argument(
        "--player",
        default="random",
        metavar="SPEC",
        help="random, capture, pattern, mcts or e.g. mcts(visits=400,play_for=jpd_b) "
        "(default random)",
    )
    p.add_argument(
        "--size", type=int, default=19, help="board size N (2..25) until boardsize (default 19)"
    )
    _add_rule_options(
        p,
        "at a pause: all_alive (default) or agree",
        "komi for one ruleset (repeatable); GTP komi sets the player's play_for ruleset's",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="game k of the session plays the stream (S, k)"
    )
    p.add_argument(
        "--virtual-rate",
        type=float,
        default=0.0,
        help="share of virtual moves of the playout players, 0..1 (default 0)",
    )


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line, exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


DESCRIPTION = """\
Go self-play and statistics under the 计枰点 (Ji-Ping-Dian) rules: play runs of games into
Parquet files, score every game under JPD A版, B版, 唐宋版, Chinese and Japanese rules, replay
move lists and stored games, export SGF, fit the fair komi of komi sweeps, write an HTML
report.

First run: jpdsim run configs/quickstart.toml   (output in results/quickstart/)
Then:      jpdsim sgf results/quickstart 0      jpdsim report results/quickstart
Each command has its --help; docs/commands.md has every option and exit status."""


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="jpdsim", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--version", action="version", version=f"jpdsim {__version__}")
    sub = p.add_subparsers(
        dest="command", required=True, parser_class=_Parser, title="commands", metavar="COMMAND"
    )
    for add in (
        _add_replay, _add_run, _add_stress, _add_sgf, _add_komi, _add_root_komi, _add_report,
        _add_gtp,
    ):  # fmt: skip
        add(sub)
    return p


#: The module whose ``main(args)`` runs each subcommand (imported only when it runs).
COMMANDS = {
    "replay": "sim.commands.replay",
    "run": "sim.commands.run",
    "stress": "sim.commands.stress",
    "sgf": "sim.commands.sgf",
    "komi": "sim.commands.komi",
    "root-komi": "sim.commands.root_komi",
    "report": "analysis.report",
    "gtp": "sim.commands.gtp",
}


def main(argv=None) -> int:
    with interrupts.handled(signal.SIGINT):
        return _main(argv)


def _main(argv) -> int:
    name = "jpdsim"
    try:
        args = parser().parse_args(argv)
        name += " " + args.command
        status = interrupts.load(COMMANDS[args.command]).main(args)
        sys.stdout.flush()  # now, so that a closed stdout is handled here, not at exit
        return status
    except UserError as err:
        print(f"{name}: error: {err}", file=sys.stderr)
        return 2
    except interrupts.Terminated:  # SIGTERM, where a command handles it (report)
        print(f"{name}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout closed early (| head): stop quietly, as a filter does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 141
    except Exception as err:  # a limit of the process: one line
        if (limit := limit_error(err)) is None:
            raise
        print(f"{name}: error: {limit}", file=sys.stderr)
        return 2
    finally:
        _forget_handled_interrupt()


def _forget_handled_interrupt() -> None:
    """Exit with our status even after a Ctrl-C we handled: CPython marks a Ctrl-C that stops
    an ``exec`` of a string (as dataclasses build their methods while modules load) as never
    handled, and then dies by SIGINT at exit; the next ``exec`` of a string clears the mark."""
    exec("")
