"""The HTML report: execute the analysis notebooks on some runs and write one self-contained
HTML file (figures embedded as base64 PNG, the CJK glyphs it uses as an embedded font
(``analysis.cjk``), code hidden, no external scripts).

``jpdsim report RUN_DIR... [--out FILE] [--scheduler ADDRESS]`` calls ``main``;
``build_report`` does the work. The statistics of the runs (``analysis.counts``) are computed
once, shard by shard, here or on a Dask cluster; then each notebook runs in its own kernel
started from the current interpreter, with the run folders and the statistics' file injected
after its cell tagged ``parameters`` (as papermill does). A ``jpdsim stress`` folder stands for
its runs. Sections that show nothing (no game from a setup position: no "Cycle positions")
are left out.

Every run is checked (``analysis.load.open_run``, i.e. ``sim.dataset.check.check_run``) before any
notebook runs: a folder that is not a run, a bad file in it, or an incomplete run stops the
report with a one-line ``UserError``. A notebook that fails stops it with a ``ReportError``
naming the notebook, the cell and the error (``main`` turns it into a ``UserError``, so the
command prints one line and exits non-zero); the HTML file is written only when every part
succeeded (``sim.files.write_output``: a regular file atomically, so that an older report
stays untouched; a device or a FIFO, such as ``/dev/stdout``, written through).

A notebook runs through ``analysis.notebook_exec``."""

from __future__ import annotations

import datetime as _dt
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter

from analysis import cjk, counts
from analysis.load import open_run
from analysis.notebook_exec import ReportError, execute_notebook
from analysis.runs import run_folders
from sim import interrupts
from sim.dataset.check import RunState
from sim.errors import UserError
from sim.files import check_output, write_output

NOTEBOOK_DIR = Path(__file__).resolve().parent / "notebooks"
#: The report's parts, in order.
NOTEBOOKS = (
    "01_disagreement.ipynb",
    "02_finishes_last.ipynb",
    "03_ab_komi.ipynb",
    "04_superko_cycles.ipynb",
    "05_players.ipynb",
)

# The lab template without its <script src=...> tags (require.js, MathJax, mermaid): the
# report must open offline and the notebooks need no JavaScript.
_TEMPLATE = "jpdsim_report.html.j2"
_TEMPLATE_SOURCE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}
<style type="text/css">
  body.jp-Notebook { max-width: 1180px; margin: 0 auto; padding: 1em 2em; }
  .jp-RenderedHTMLCommon table { font-size: 12px; margin-bottom: 0.6em; }
  .jp-RenderedHTMLCommon caption { caption-side: top; text-align: left; font-weight: 600; }
  .jp-OutputArea-output img { max-width: 100%; height: auto; }
  .jp-Cell { padding: 2px 0; }
</style>
{{ resources.cjk_css }}
{%- endblock extra_css -%}
"""


def check_runs(run_dirs: Sequence[str | Path]) -> list[RunState]:
    """The runs of the folders (a ``jpdsim stress`` folder: its runs), each checked
    (``analysis.load.open_run``: a whole, complete run); UserError names the first that is
    not."""
    if not run_dirs:
        raise UserError("no run folder given")
    return [open_run(Path(d).resolve()) for d in run_folders(run_dirs)]


def _shows_nothing(cells: list) -> bool:
    """Code cells, all without output."""
    code = [c for c in cells if c.cell_type == "code"]
    return bool(code) and not any(c.get("outputs") for c in code)


def _shown(nb: nbformat.NotebookNode) -> list:
    """The cells of a part that show something: code cells with outputs, and markdown cells
    unless all the code cells they introduce (up to the next markdown cell) show nothing;
    injected parameters left out."""
    cells = [
        c for c in nb.cells if "injected-parameters" not in c.get("metadata", {}).get("tags", [])
    ]
    out = []
    for i, c in enumerate(cells):
        if c.cell_type == "code":
            if c.get("outputs"):
                out.append(c)
            continue
        end = next((j for j in range(i + 1, len(cells)) if cells[j].cell_type != "code"), None)
        if not _shows_nothing(cells[i + 1 : end]):
            out.append(c)
    return out


def _merge(
    parts: list[tuple[str, nbformat.NotebookNode, float]], run_dirs: list[Path], total: float
) -> nbformat.NotebookNode:
    """One notebook: a title cell, every part's cells that show something (``_shown``), a
    timing table (``parts`` may hold a step without a notebook: None)."""
    runs = "\n".join(f"- `{d}`" for d in run_dirs)
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    titles = []
    notebooks = [(name, nb) for name, nb, _ in parts if nb is not None]
    for name, nb in notebooks:
        first = next((c.source for c in nb.cells if c.cell_type == "markdown"), name)
        titles.append(first.splitlines()[0].lstrip("# ").strip())
    contents = "\n".join(f"{i}. {t}" for i, t in enumerate(titles, 1))
    head = nbformat.v4.new_markdown_cell(
        f"# jpdsim report\n\nRuns:\n\n{runs}\n\nWritten {now}. Parts:\n\n{contents}"
    )
    cells = [head]
    for k, (_, nb) in enumerate(notebooks, 1):
        for c in _shown(nb):
            c = nbformat.from_dict(dict(c))
            c.id = f"p{k}-{c.get('id') or len(cells)}"
            cells.append(c)
    rows = "\n".join(f"| {name} | {sec:.1f} |" for name, _, sec in parts)
    cells.append(
        nbformat.v4.new_markdown_cell(
            f"## Report timing\n\n| part | seconds |\n|---|---:|\n{rows}\n| total | {total:.1f} |"
        )
    )
    merged = nbformat.v4.new_notebook(cells=cells)
    merged.metadata = dict(notebooks[0][1].metadata) if notebooks else {}
    merged.metadata["title"] = "jpdsim report"
    return merged


def to_html(nb: nbformat.NotebookNode) -> str:
    """Self-contained HTML of an executed notebook, code cells hidden."""
    exporter = HTMLExporter(
        template_name="lab",
        template_file=_TEMPLATE,
        extra_loaders=[DictLoader({_TEMPLATE: _TEMPLATE_SOURCE})],
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
    )
    html, _ = exporter.from_notebook_node(nb, resources={"cjk_css": cjk.css()})
    return html


def _prepare_out(out: Path) -> Path | None:
    """Make the folder of ``out`` and try writing there now (``sim.files.check_output``), so
    that a report that cannot be written is known before any notebook runs (UserError);
    returns the topmost folder made, to remove again if the report fails."""
    try:
        return check_output(out)
    except OSError as err:
        raise UserError(f"--out {out}: {err.strerror or err}") from None


def _progress(line: str) -> None:
    """A progress line on stdout; a closed stdout (``| head``) does not stop the report."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        pass


def build_report(
    run_dirs: list,
    out: str | Path | None = None,
    notebooks: Sequence[str] = NOTEBOOKS,
    timeout: int | None = None,
    scheduler: str | None = None,
) -> Path:
    """Compute the statistics of ``run_dirs`` (on the Dask cluster at ``scheduler``, if
    given), execute the notebooks on them and write one HTML file (default
    ``<first run dir>/report.html``), atomically; print each part's time; return the path.
    Raises UserError for a folder that is not a whole run or an output that cannot be
    written, ReportError if a notebook fails (then nothing is left behind)."""
    states = check_runs(run_dirs)
    dirs = [Path(s.run_dir) for s in states]
    out = Path(out) if out is not None else dirs[0] / "report.html"
    made = _prepare_out(out)
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="jpdsim-report-") as tmp:
            data = counts.of_runs(states, scheduler=scheduler)
            statistics = Path(tmp) / "statistics.pickle"
            data.save(statistics)
            seconds = time.perf_counter() - started
            where = f" on {scheduler}" if scheduler else ""
            _progress(f"report: statistics of {data.games:,} games{where} {seconds:.1f} s")
            parts = [("statistics", None, seconds)]
            for name in notebooks:
                t0 = time.perf_counter()
                nb = execute_notebook(NOTEBOOK_DIR / name, dirs, timeout, statistics)
                seconds = time.perf_counter() - t0
                _progress(f"report: {name} {seconds:.1f} s")
                parts.append((name, nb, seconds))
        t0 = time.perf_counter()
        merged = _merge(parts, dirs, time.perf_counter() - started)
        html = to_html(merged)
        try:
            write_output(out, html)
        except OSError as err:
            raise UserError(f"--out {out}: cannot write ({err.strerror or err})") from None
    except BaseException:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
        raise
    _progress(
        f"report: HTML {time.perf_counter() - t0:.1f} s; "
        f"total {time.perf_counter() - started:.1f} s -> {out}"
    )
    return out


def main(args) -> int:
    """CLI entry (``jpdsim report``): args.run_dirs (list of str), args.out (str or None),
    args.scheduler (str or None). Bad runs and failed notebooks raise UserError (one line;
    ``sim.cli`` prints it and exits 2). SIGTERM stops it as Ctrl-C does, the kernel shut
    down and nothing half-written left (``sim.cli``: one line, exit status 143; Ctrl-C 130)."""
    with interrupts.handled(signal.SIGTERM):
        try:
            build_report(list(args.run_dirs), args.out, scheduler=getattr(args, "scheduler", None))
        except ReportError as err:
            raise UserError(str(err)) from None
    return 0
