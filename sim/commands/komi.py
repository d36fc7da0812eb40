"""``jpdsim komi RUN_DIR...``: the fair komi of runs, per config (board size, rules, players)
and ruleset, fitted across the komis their games were played at
(``analysis.komi_sweep.komi_study_table``: a komi sweep, or runs at different komis together), with
its bootstrap interval and the margin method's value beside it. ``jpdsim run`` prints the same
table after the summary of a run with a ``komi_sweep``."""

from __future__ import annotations

from pathlib import Path


def komi_text(run_dirs: list[str | Path]) -> str:
    """The fair-komi table of ``run_dirs`` as text: one block per config (board size, rules,
    players, virtual-move rate, move cap: runs of different configs are fitted apart, as
    ``jpdsim report`` splits them), the notes below it (a missing value, a gap between the
    komis around the crossing). The heading names the config when there are several."""
    from analysis import counts, komi_sweep  # the analysis only here: pandas loads in a while

    table = komi_sweep.komi_study_table(counts.statistics(run_dirs))
    several = table["config"].nunique() > 1
    blocks = []
    for (config, players), part in table.groupby(["config", "players"], sort=False):
        black, _, white = players.partition(" / ")
        who = f"{black} self-play" if black == white else players
        where = f"; {config}" if several else ""
        games = f"{part['games'].max():,} games at {part['komis'].max()} komis"
        shown = part.drop(columns=["config", "players", "games", "komis", "note"])
        notes = [f"  {r}: {n}" for r, n in zip(part["ruleset"], part["note"]) if n]
        blocks.append(
            "\n".join(
                [f"fair komi, fitted across the komis played ({who}{where}; {games}):"]
                + [shown.to_string(index=False)]
                + notes
            )
        )
    return "\n\n".join(blocks)


def main(args) -> int:
    print(komi_text(list(args.run_dirs)))
    return 0
