"""Regenerate the figures and tables of docs/findings.md from run folders.

    python docs/findings/make.py results/quickstart results/19x19 [results/superko_stress]
    python docs/findings/make.py --update-docs results/quickstart results/19x19

Prints the tables as Markdown (the analysis library's functions, as the report's notebooks call
them) and writes the figures into results/findings/ (``--out DIR``), so that reproducing the
findings leaves the checkout as it was; ``--update-docs`` writes them over the tracked figures
in docs/findings/ that docs/findings.md shows.
"""

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from analysis import ab_effect, cycles, disagreement, finishes_last, komi, load, plots  # noqa: E402
from sim.schema.tables import CONFIG_COLUMNS  # noqa: E402

DOCS = Path(__file__).parent


def markdown(df) -> str:
    cell = lambda v: f"{v:.4g}" if isinstance(v, float) else str(v)  # noqa: E731
    rows = [list(map(str, df.columns))] + [
        [cell(v) for v in row] for row in df.itertuples(index=False)
    ]
    return (
        "\n".join("| " + " | ".join(r) + " |" for r in [rows[0], ["---"] * len(rows[0]), *rows[1:]])
        + "\n"
    )


def play_studies(every: dict, names: list[str], out: Path, workers: int) -> None:
    """Play each study of ``names`` (all of ``every``, name -> run config, when none is named)
    into ``out / name``, completing a folder a stopped play left; exit naming the first that
    stays incomplete."""
    from sim.run import runner

    for name in names or every:
        result = runner.run(every[name], out / name, workers=workers, resume=True, progress=True)
        print(f"{name}: {result.games_played} games played in {result.seconds:.0f} s", flush=True)
        if not result.state.complete:
            sys.exit(f"{name}: incomplete (see {out / name / 'run.log'}); play it again to go on")


def play_or_tables(doc: str, studies, out: Path, tables, workers: int, default=()) -> None:
    """The command line of a script of KataGo studies: ``play --katago BINARY --model NETWORK
    [--workers K] [STUDY ...]`` plays the named studies of ``studies(binary, model)`` (those of
    ``default``, else all, when none is named) into ``out``; ``tables`` calls ``tables()``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("play")
    p.add_argument("--katago", required=True, help="the katago binary")
    p.add_argument("--model", required=True, help="the network file")
    p.add_argument("--workers", type=int, default=workers)
    p.add_argument("studies", nargs="*", metavar="STUDY")
    sub.add_parser("tables")
    args = parser.parse_args()
    if args.what == "tables":
        tables()
    else:
        every = studies(args.katago, args.model)
        play_studies(every, args.studies or list(default), out, args.workers)


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="make.py", description=__doc__.splitlines()[0])
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--out",
        type=Path,
        default=Path("results") / "findings",
        help="folder of the figures (default results/findings)",
    )
    where.add_argument(
        "--update-docs", action="store_true", help=f"write the figures into {DOCS} instead"
    )
    args = p.parse_args(argv)
    out = DOCS if args.update_docs else args.out
    out.mkdir(parents=True, exist_ok=True)
    columns = sorted(
        set(
            disagreement.COLUMNS
            + finishes_last.COLUMNS
            + ab_effect.COLUMNS
            + komi.COLUMNS
            + cycles.COLUMNS
            + CONFIG_COLUMNS
        )
    )
    games = load.load_runs(args.run_dirs, columns=columns)
    random_default = games[games["virtual_rate"] == 0]
    print("## Disagreement per board size\n")
    print(markdown(disagreement.disagreement(random_default, by="board_size")))
    for size, part in random_default.groupby("board_size", observed=True):
        plots.disagreement_heatmap(disagreement.disagreement_matrix(part)).savefig(
            out / f"disagreement_{size}x{size}.png", dpi=90, bbox_inches="tight"
        )
    print("\n## Who finishes last\n")
    print(markdown(finishes_last.relations(games, by="board_size")))
    print(markdown(finishes_last.parity_table(random_default, by="board_size")))
    print("\n## A/B effect\n")
    print(markdown(ab_effect.ab_summary(random_default, by="board_size")))
    print(markdown(ab_effect.ab_by_first(random_default)))
    print("\n## Fair komi\n")
    print(markdown(komi.fair_komi(random_default, by="board_size")))
    plots.komi_curves(komi.komi_curves(random_default, by="board_size"), by="board_size").savefig(
        out / "komi_curves.png", dpi=90, bbox_inches="tight"
    )
    print("\n## Endings and conversions\n")
    print(markdown(cycles.endings_wide(games, by=["repetition", "board_size", "virtual_rate"])))
    print(markdown(cycles.conversions(games, by=["board_size", "virtual_rate"])))
    print(markdown(cycles.self_check_summary(games)))
    print(f"figures written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
