"""``jpdsim komi RUN_DIR...``: the fair komi of runs, per ruleset and pairing of players,
fitted across the komis their games were played at (``analysis.komi.komi_study_table``: a
komi sweep, or runs at different komis together), with its bootstrap interval and the margin
method's value beside it. ``jpdsim run`` prints the same table after the summary of a run
with a ``komi_sweep``."""

from __future__ import annotations

from pathlib import Path


def komi_text(run_dirs: list[str | Path]) -> str:
    """The fair-komi table of ``run_dirs`` as text: one block per pairing of players, the
    reasons for missing values below it."""
    from analysis import counts, komi  # the analysis only here: pandas loads in a while

    table = komi.komi_study_table(counts.statistics(run_dirs))
    blocks = []
    for players, part in table.groupby("players", sort=False):
        black, _, white = players.partition(" / ")
        who = f"{black} self-play" if black == white else players
        games = f"{part['games'].max():,} games at {part['komis'].max()} komis"
        shown = part.drop(columns=["players", "games", "komis", "note"])
        notes = [f"  {r}: {n}" for r, n in zip(part["ruleset"], part["note"]) if n]
        blocks.append(
            "\n".join(
                [f"fair komi, fitted across the komis played ({who}; {games}):"]
                + [shown.to_string(index=False)]
                + notes
            )
        )
    return "\n\n".join(blocks)


def main(args) -> int:
    print(komi_text(list(args.run_dirs)))
    return 0
