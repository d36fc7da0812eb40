"""Figures for the notebooks: each function takes a table made by the analysis modules and
returns a ``matplotlib.figure.Figure`` (built without pyplot, so nothing is shown twice and
nothing leaks) with labelled axes and units. Importing it adds the report's CJK glyphs to
matplotlib's fonts (``analysis.cjk``); a figure of groups shows at most ``TOP`` of them.

Longer than 300 lines on purpose: one short function per figure of the four notebooks, sharing
one palette and one axis style; split by notebook, the shared style would be imported back and
forth."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis import cjk
from analysis.groups import by_columns
from analysis.show import significant
from sim.schema.tables import DEFAULT_KOMI, RULESETS

cjk.use_in_figures()
#: The most groups a figure shows one by one (``disagreement.top`` pools the others).
TOP = 12

COLOURS = dict(zip(RULESETS, ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")))
#: The fitted fair komi's columns (``komi_sweep.fitted_fair_komi``).
FAIR = ("fair komi", "fair komi lo", "fair komi hi")
_BY_LABEL = {
    "board_size": "board size N (N x N board)",
    "config": "config",
    "run": "run",
    "repetition": "repetition rule",
}


def _figure(width: float = 8.0, height: float = 4.5, ncols: int = 1, **kw):
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    axes = fig.subplots(1, ncols, **kw)
    return fig, axes


def _group_labels(table: pd.DataFrame, by) -> list[str]:
    cols = by_columns(by)
    if not cols:
        return ["all games"] * len(table)
    return [" / ".join(str(v) for v in row) for row in table[cols].itertuples(index=False)]


def disagreement_heatmap(matrix: pd.DataFrame) -> Figure:
    """Heat map of the share of games (%) whose winners differ, for every pair of rulesets."""
    fig, ax = _figure(6.5, 5.2)
    values = matrix.to_numpy(dtype=float) * 100
    top = np.nanmax(values, initial=0)
    im = ax.imshow(values, cmap="Reds", vmin=0, vmax=top if top > 0 else 1)
    ax.set_xticks(range(len(matrix.columns)), matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(len(matrix.index)), matrix.index)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if i != j:
                ax.text(
                    j,
                    i,
                    significant(values[i, j], 2),
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if values[i, j] > 0.6 * values.max() else "black",
                )
    ax.set_xlabel("ruleset")
    ax.set_ylabel("ruleset")
    ax.set_title("Games whose winners differ (%)")
    fig.colorbar(im, ax=ax, label="games whose winners differ (%)")
    return fig


def disagreement_directions(table: pd.DataFrame) -> Figure:
    """Stacked bars per pair: share of games (%) where the first ruleset says B and the second W,
    the reverse, and disagreements involving a draw."""
    t = table.copy()
    labels = [f"{a} vs {b}" for a, b in zip(t["ruleset_1"], t["ruleset_2"])]
    games = t["games"].to_numpy(dtype=float).clip(min=1)
    parts = {
        "first B, second W": t["B|W"],
        "first W, second B": t["W|B"],
        "one says draw": t[["B|draw", "draw|B", "W|draw", "draw|W"]].sum(axis=1),
    }
    fig, ax = _figure(8, 0.35 * len(labels) + 2.2)
    left = np.zeros(len(labels))
    for (name, counts), colour in zip(parts.items(), ("#1f77b4", "#d62728", "#7f7f7f")):
        share = counts.to_numpy(dtype=float) / games * 100
        ax.barh(labels, share, left=left, label=name, color=colour)
        left += share
    ax.invert_yaxis()
    ax.set_xlim(0, left.max(initial=0) * 1.05 or 1)
    ax.set_xlabel("games (%)")
    ax.set_ylabel("pair of rulesets (first vs second)")
    ax.set_title("Direction of disagreement")
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.12 if len(labels) > 6 else -0.25),
        ncols=3,
        fontsize=8,
    )
    return fig


def rate_by(
    table: pd.DataFrame,
    by: str,
    series,
    rate: str = "rate",
    lo: str = "lo",
    hi: str = "hi",
    ylabel: str = "rate (%)",
    title: str = "",
) -> Figure:
    """One line per value of ``series`` (a column, or a list of columns joined with "vs", e.g.
    the pair of rulesets): ``rate`` (%) with its interval against ``by`` (numeric: an axis;
    otherwise categories)."""
    numeric = pd.api.types.is_numeric_dtype(table[by])
    cats = list(dict.fromkeys(table[by].astype(str))) if not numeric else None
    tilt = 20 if numeric or len(cats) <= 4 else 50  # long labels side by side would overlap
    longest = max(map(len, cats), default=0) if tilt == 50 else 0
    fig, ax = _figure(8, 4.5 + 0.06 * longest)  # room under the axis for tilted labels
    for name, sub in table.groupby(series, sort=False, observed=True):
        name = " vs ".join(map(str, name)) if isinstance(name, tuple) else name
        x = sub[by].to_numpy(dtype=float) if numeric else [cats.index(str(v)) for v in sub[by]]
        y = sub[rate].to_numpy(dtype=float) * 100
        err = np.vstack(
            [y - sub[lo].to_numpy(dtype=float) * 100, sub[hi].to_numpy(dtype=float) * 100 - y]
        )  # lo <= rate <= hi (Wilson)
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=str(name))
    if not numeric:
        ax.set_xticks(range(len(cats)), cats, rotation=tilt, ha="right", fontsize=8)
    elif table[by].nunique() <= 25:
        ticks = np.unique(table[by].to_numpy(dtype=float))
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        if len(ticks) == 1:
            ax.set_xlim(ticks[0] - 1, ticks[0] + 1)
    ax.set_xlabel(_BY_LABEL.get(by, by))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7, ncols=2)
    ax.grid(alpha=0.3)
    return fig


def crosstab_heatmap(table: pd.DataFrame, title: str, unit: str = "games (%)") -> Figure:
    """Heat map of a share table (values 0..1 shown as %), with its row and column names."""
    fig, ax = _figure(5.5, 4.2)
    values = table.to_numpy(dtype=float) * 100
    im = ax.imshow(values, cmap="Blues", vmin=0)
    ax.set_xticks(range(table.shape[1]), table.columns)
    ax.set_yticks(range(table.shape[0]), table.index)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            ax.text(
                j,
                i,
                significant(values[i, j], 1),
                ha="center",
                va="center",
                color="white" if values[i, j] > 0.6 * values.max() else "black",
            )
    ax.set_xlabel(table.columns.name or "")
    ax.set_ylabel(table.index.name or "")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, label=unit)
    return fig


def stacked_shares(
    table: pd.DataFrame, by, parts: list[str], title: str, xlabel: str = "games (%)"
) -> Figure:
    """Horizontal stacked bars, one per group: the share (%) of each count column in ``parts``."""
    labels = _group_labels(table, by)
    total = table[parts].sum(axis=1).to_numpy(dtype=float).clip(min=1)
    fig, ax = _figure(8, 0.45 * len(labels) + 2.4)
    left = np.zeros(len(labels))
    for k, name in enumerate(parts):
        share = table[name].to_numpy(dtype=float) / total * 100
        ax.barh(labels, share, left=left, label=str(name).removesuffix(" share"), color=f"C{k}")
        left += share
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(", ".join(_BY_LABEL.get(c, c) for c in by_columns(by)) or "")
    ax.set_title(title)
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.18 if len(labels) < 5 else -0.1),
        ncols=min(len(parts), 4),
        fontsize=8,
    )
    return fig


def ab_area_diff(hist: pd.DataFrame, window: float = 20) -> Figure:
    """Left: all games by JPD area difference (% of games). Right: games whose A版 and B版
    winners differ, by area difference and by who was first to pass or virtual."""
    fig, (ax1, ax2) = _figure(11, 4.2, ncols=2)
    x = hist["area_diff_jpd"].to_numpy(dtype=float)
    total = hist["all"].sum()
    share = hist["all"].to_numpy(dtype=float) / max(total, 1) * 100
    span = x.max() - x.min() if len(x) else 0
    if span <= 80:  # one bar per half point
        ax1.bar(x, share, width=0.45, color="#7f7f7f")
        ax1.set_ylabel("games (%)")
    else:  # bins of an even number of points: each holds as many odd as even differences
        width = 2 * int(np.ceil(span / 200))
        edges = np.arange(np.floor(x.min() / width) * width, x.max() + width + 0.5, width) - 0.25
        binned, _ = np.histogram(x, bins=edges, weights=share)
        ax1.stairs(binned, edges, fill=True, color="#7f7f7f")
        ax1.set_ylabel(f"games (% per bin of {width} points)")
    ax1.set_xlabel("JPD area difference, Black − White (points)")
    ax1.set_title("All games")
    differ_cols = [c for c in hist.columns if c.startswith("differ")]
    any_diff = hist[differ_cols].sum(axis=1) > 0
    if any_diff.any():
        lo, hi = x[any_diff.to_numpy()].min() - 3, x[any_diff.to_numpy()].max() + 3
    else:
        lo, hi = -window / 2, window / 2
    bottom = np.zeros(len(hist))
    for k, c in enumerate(differ_cols):
        ax2.bar(
            x, hist[c], bottom=bottom, width=0.45, label=c.replace("differ, ", ""), color=f"C{k}"
        )
        bottom += hist[c].to_numpy()
    ax2.set_xlim(lo, hi)
    ax2.set_ylim(0, max(bottom.max(initial=0), 1) * 1.4)  # room for the legend above the bars
    ax2.set_xlabel("JPD area difference, Black − White (points)")
    ax2.set_ylabel("games whose A版 and B版 winners differ")
    ax2.set_title("Where 计枰点 A版 and B版 disagree")
    if any_diff.any():
        ax2.legend(title="who passed / played virtual first", fontsize=8, loc="upper left")
    else:
        ax2.text(
            0.5,
            0.5,
            "no game where they disagree",
            transform=ax2.transAxes,
            ha="center",
            va="center",
            color="#555555",
        )
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    return fig


def komi_curves(curves: pd.DataFrame, by=None) -> Figure:
    """Black's win rate (left) and draw rate (right), % of scored games, against komi (points),
    one line per ruleset and one row of panels per group; dotted lines mark the default komis."""
    cols = by_columns(by)
    groups = list(curves.groupby(cols, sort=True, observed=True)) if cols else [(None, curves)]
    fig = Figure(figsize=(12, 4.2 * len(groups)), dpi=100, layout="constrained")
    axes = fig.subplots(len(groups), 2, squeeze=False)
    for (key, part), (ax1, ax2) in zip(groups, axes):
        where = (
            ""
            if key is None
            else " ("
            + ", ".join(
                f"{_BY_LABEL.get(c, c).split(' (')[0]} {v}"
                for c, v in zip(cols, np.atleast_1d(key))
            )
            + ")"
        )
        for r, sub in part.groupby("ruleset", sort=False):
            c = COLOURS.get(r)
            ax1.plot(sub["komi"], sub["win"] * 100, label=r, color=c, lw=1.4)
            whole = sub[np.isclose(sub["komi"] % 1, 0)]
            ax2.plot(
                whole["komi"],
                whole["draw"] * 100,
                label=r,
                color=c,
                ls="none",
                marker="o",
                ms=2.5,
                alpha=0.8,
            )
            ax1.axvline(DEFAULT_KOMI.get(r, np.nan), color=c, ls=":", lw=1)
        ax1.axhline(50, color="black", lw=0.8)
        ax1.set_xlabel("komi (points)")
        ax1.set_ylabel("Black wins (% of scored games)")
        ax1.set_title("Black's win rate against komi" + where)
        ax1.legend(fontsize=8)
        ax2.set_xlabel("komi, whole points only (points)")
        ax2.set_ylabel("draws (% of scored games)")
        ax2.set_title("Draw rate against komi" + where)
        for ax in (ax1, ax2):
            ax.grid(alpha=0.3)
    return fig


def sweep_curve(curve: pd.DataFrame, fitted: pd.DataFrame | None = None, by=None) -> Figure:
    """Black's score (%, wins + draws/2) against the komis played (``komi_sweep.sweep_curve``): per
    ruleset the observed score with its 95% Wilson interval and, dashed, its isotonic fit;
    one panel per group. With ``fitted`` (``komi_sweep.fitted_fair_komi``, same ``by``) each
    bracketed fair komi is a diamond on the 50% line, its bootstrap interval a bar below."""
    cols = by_columns(by)
    groups = list(curve.groupby(cols, sort=True, observed=True)) if cols else [(None, curve)]
    fig = Figure(figsize=(8, 4.2 * max(len(groups), 1)), dpi=100, layout="constrained")
    axes = fig.subplots(max(len(groups), 1), 1, squeeze=False)[:, 0]
    for (key, part), ax in zip(groups, axes):
        key = () if key is None else key if isinstance(key, tuple) else (key,)
        for r, sub in part.groupby("ruleset", sort=False):
            c = COLOURS.get(r)
            y = sub["score"].to_numpy(dtype=float) * 100
            err = [y - sub["score lo"].to_numpy() * 100, sub["score hi"].to_numpy() * 100 - y]
            ax.errorbar(sub["komi"], y, yerr=err, color=c, marker="o", ls="none", capsize=3)
            ax.plot(sub["komi"], sub["fitted score"] * 100, color=c, ls="--", lw=1.2, label=r)
        if fitted is not None:
            mine = fitted["bracketed"].to_numpy(dtype=bool, copy=True)
            for c, v in zip(cols, key):
                mine &= (fitted[c] == v).to_numpy()
            rows = fitted.loc[mine, ["ruleset", *FAIR]].itertuples(index=False)
            for i, (r, fk, lo, hi) in enumerate(rows):
                below = 50 - 1.5 * (i + 1)  # the intervals one under the other
                ax.plot([lo, hi], [below, below], color=COLOURS.get(r), lw=2, marker="|", ms=6)
                ax.plot([fk], [50], "D", color=COLOURS.get(r), ms=6)
        ax.axhline(50, color="black", lw=0.8)
        ax.set_xlabel("komi (points)")
        ax.set_ylabel("Black's score (% of games with a result)")
        where = "\n" + " / ".join(map(str, key)) if key else ""  # a config label is long
        ax.set_title("Black's score against the komis played" + where, fontsize=10)
        if len(part):
            ax.legend(fontsize=8, title="dashed: monotone fit", title_fontsize=8)
        ax.grid(alpha=0.3)
    return fig


def fair_komi(table: pd.DataFrame, by=None) -> Figure:
    """Fair komi (points) with its bootstrap interval per ruleset (and group); the default
    komi of each ruleset is marked with an x."""
    labels = _group_labels(table, by)
    fig, ax = _figure(8, 0.32 * len(table) + 1.8)
    y = np.arange(len(table))
    for i, row in enumerate(table.itertuples(index=False)):
        r = row.ruleset
        fk, lo, hi = (
            row[table.columns.get_loc("fair komi")],
            row[table.columns.get_loc("fair komi lo")],
            row[table.columns.get_loc("fair komi hi")],
        )
        # the interval as a segment, not as errors around the point: a percentile bootstrap
        # interval need not contain the estimate
        ax.plot([lo, hi], [i, i], color=COLOURS.get(r), lw=1.2, marker="|", ms=8)
        ax.plot([fk], [i], "o", color=COLOURS.get(r))
        ax.plot([DEFAULT_KOMI.get(r, np.nan)], [i], "x", color="black")
    names = [f"{r}  ({g})" if by else r for r, g in zip(table["ruleset"], labels)]
    ax.set_yticks(y, names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("komi (points); o = fair komi with 95% bootstrap interval, x = default komi")
    ax.set_title("Fair komi: Black's score rate (wins + draws/2) = 50%")
    ax.grid(alpha=0.3, axis="x")
    return fig


def length_histogram(
    hist: pd.DataFrame,
    by,
    column: str = "moves",
    bins: int = 60,
    xlabel: str = "moves per game (real + virtual)",
) -> Figure:
    """Step histograms (% of the group's games per bin) of a game-length column, one per group."""
    fig, ax = _figure(8, 4.5)
    lo, hi = (int(hist[column].min()), int(hist[column].max())) if len(hist) else (0, 1)
    width = max(1, int(np.ceil((hi - lo + 1) / bins)))  # whole moves per bin: no aliasing
    edges = np.arange(lo, hi + width + 1, width) - 0.5
    cols = by_columns(by)
    groups = hist.groupby(cols, sort=False, observed=True) if cols else [("all games", hist)]
    for name, sub in groups:
        counts, _ = np.histogram(sub[column], bins=edges, weights=sub["games"])
        share = counts / max(counts.sum(), 1) * 100
        label = " / ".join(map(str, name)) if isinstance(name, tuple) else str(name)
        ax.stairs(share, edges, label=label, lw=1.4)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"games (% per bin of {width} move{'s' if width > 1 else ''})")
    ax.set_title(f"Distribution of {column} per game")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig
