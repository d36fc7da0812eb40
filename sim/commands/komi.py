"""``jpdsim komi RUN_DIR...``: the fair komi of runs, per config (board size, rules, players)
and ruleset, fitted across the komis their games were played at
(``analysis.komi_sweep.komi_study_table``: a komi sweep, or runs at different komis together), with
its bootstrap interval and the margin method's value beside it; for a run with a
``komi_search``, how its search ended and the games at each komi. ``jpdsim run`` prints the
same after the summary of a run with a ``komi_sweep`` or a ``komi_search``."""

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
    return "\n\n".join(blocks + _searches(run_dirs))


def _searches(run_dirs) -> list[str]:
    """A block for each run with a komi search: how it ended, the games at each komi."""
    from analysis.runs import run_folders
    from sim.dataset.check import check_run

    blocks = []
    for run_dir in run_folders(run_dirs):
        cfg = check_run(run_dir).config
        search = cfg.komi_search
        if search is None:
            continue
        last = search.rounds[-1]
        rounds = sum(1 for r in search.rounds if r.komis)
        target = f"{search.ruleset}, 95% interval within ±{search.precision:g}"
        played = f"{search.games:,} games in {rounds} rounds"
        if not search.ended:
            ended = f"not ended: {played} so far"
        elif last.met:
            ended = f"met after {played}"
        else:
            ended = f"not met: {last.stop} ({played}; max_games {search.max_games:,})"
        games = search.games_per_komi(cfg.setups_crossed)
        per = ", ".join(f"{k:g}: {n:,}" for k, n in games.items())
        blocks.append(f"komi search of {run_dir} ({target}): {ended}\n  games per komi: {per}")
    return blocks


def main(args) -> int:
    print(komi_text(list(args.run_dirs)))
    return 0
