"""The notebooks, the figures and the HTML report, on small runs written from hand-made rows."""

import argparse
import io
import json
import os
import re
import warnings

import nbformat
import pytest

from analysis import (
    ab_effect,
    cycles,
    disagreement,
    finishes_last,
    komi,
    komi_sweep,
    notebook_exec,
    plots,
    report,
    show,
)
from sim.errors import UserError
from tests.analysis_fixtures import (
    PLANTED_BAD_GAME,
    frame,
    rows_superko,
    two_runs,
    write_run,
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    return two_runs(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def built(runs, tmp_path_factory):
    """The report built once through the CLI entry point (every notebook executed)."""
    out = tmp_path_factory.mktemp("out") / "sub" / "report.html"
    rc = report.main(argparse.Namespace(run_dirs=[str(d) for d in runs], out=str(out)))
    assert rc == 0
    return out


@pytest.mark.parametrize("name", report.NOTEBOOKS)
def test_committed_notebooks_are_clean(name):
    raw = json.loads((report.NOTEBOOK_DIR / name).read_text(encoding="utf-8"))
    assert all("id" in c for c in raw["cells"]), "a cell without an id"
    nb = nbformat.read(report.NOTEBOOK_DIR / name, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), "outputs stored"
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and "RUN_DIRS" in params[0].source
    assert any(c.cell_type == "markdown" for c in nb.cells)


@pytest.mark.notebook
def test_report_is_one_self_contained_html(built):
    html = built.read_text(encoding="utf-8")
    images = re.findall(r'<img[^>]+src="data:image/png;base64,', html)
    assert len(images) >= 12  # every figure of the four notebooks, embedded
    assert "<script src=" not in html and 'src="http' not in html
    for title in (
        "Disagreement between rulesets",
        "Who finishes last",
        "The A/B effect and komi",
        "Superko and cycles",
        "Report timing",
    ):
        assert title in html
    assert "Traceback" not in html and "Error" not in re.sub(
        r"<style.*?</style>", "", html, flags=re.S
    )
    assert "1 game(s) fail the self-check" in html
    failing = html[html.index("<caption>Games failing the self-check</caption>") :]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", failing[: failing.index("</table>")])
    assert cells[:2] == ["superko-9", str(PLANTED_BAD_GAME)]  # run, game_id
    assert [p.name for p in built.parent.iterdir()] == ["report.html"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    assert built.stat().st_mode & 0o777 == 0o666 & ~umask  # not private like a temporary file


def test_bad_run_folder_is_a_user_error(tmp_path, runs):
    args = argparse.Namespace(run_dirs=[str(runs[0]), str(tmp_path)], out=None)
    with pytest.raises(UserError, match=f"{tmp_path}: not a jpdsim run folder"):
        report.main(args)
    with pytest.raises(UserError, match="no run folder"):
        report.build_report([])


def _never(*args, **kwargs):
    raise AssertionError("a notebook ran")


def test_bad_file_or_incomplete_run_stops_before_any_notebook(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "execute_notebook", _never)
    run = write_run(tmp_path, "r", rows_superko())
    bad = run / "games" / "part-00001.parquet"
    bad.write_bytes(b"PAR1 not parquet PAR1")
    with pytest.raises(UserError, match=f"{bad}: not a readable Parquet file"):
        report.build_report([run], tmp_path / "r.html")
    bad.unlink()
    with pytest.raises(UserError, match="run is incomplete: 1 of 2 shards missing"):
        report.build_report([run], tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_unwritable_out_stops_before_any_notebook(tmp_path, runs, monkeypatch):
    monkeypatch.setattr(report, "execute_notebook", _never)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(UserError, match=f"--out {blocker / 'r.html'}: "):
        report.build_report(runs, blocker / "r.html")
    with pytest.raises(UserError, match=f"--out {tmp_path}: is a folder"):
        report.build_report(runs, tmp_path)


def _quick(monkeypatch):
    """Replace notebook execution by a trivial executed notebook (for path and write tests)."""

    def fake(path, run_dirs, timeout=None, statistics=None):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {path.name}")])
        return nb

    monkeypatch.setattr(report, "execute_notebook", fake)


def test_default_path_and_timing(runs, monkeypatch, capsys):
    _quick(monkeypatch)
    path = report.build_report([str(runs[1]), str(runs[0])])
    assert path == runs[1].resolve() / "report.html" and path.is_file()
    printed = capsys.readouterr().out
    assert all(name in printed for name in report.NOTEBOOKS) and "total" in printed
    path.unlink()


def test_write_is_atomic(runs, tmp_path, monkeypatch):
    _quick(monkeypatch)
    out = tmp_path / "report.html"
    out.write_text("old report")

    def broken(nb):
        raise RuntimeError("export failed")

    monkeypatch.setattr(report, "to_html", broken)
    with pytest.raises(RuntimeError, match="export failed"):
        report.build_report(runs, out)
    assert out.read_text() == "old report" and [p.name for p in tmp_path.iterdir()] == [
        "report.html"
    ]


def _bad_notebook(folder, name="bad.ipynb"):
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# A notebook that fails"),
            nbformat.v4.new_code_cell("RUN_DIRS = []", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("from analysis import load\nassert RUN_DIRS, 'no runs'"),
            nbformat.v4.new_code_cell(
                "load.load_runs(RUN_DIRS, columns=['game_id'])\n"
                "raise KeyError('boom\\nsecond line')"
            ),
        ]
    )
    nbformat.write(nb, folder / name)


@pytest.mark.notebook
def test_failing_notebook_names_itself(runs, tmp_path, monkeypatch):
    _bad_notebook(tmp_path)
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path)
    with pytest.raises(
        notebook_exec.ReportError,
        match=re.escape(f"{tmp_path / 'bad.ipynb'}: cell 4 failed: KeyError: 'boom\\nsecond line'"),
    ):
        report.build_report(runs, tmp_path / "r.html", notebooks=["bad.ipynb"])
    assert not (tmp_path / "r.html").exists()


@pytest.mark.notebook
def test_failing_notebook_is_one_line_from_the_command(runs, tmp_path, monkeypatch, capsys):
    """`jpdsim report` where a notebook cell raises: one line on stderr, exit 2, no file."""
    from sim import cli

    _bad_notebook(tmp_path, report.NOTEBOOKS[0])
    monkeypatch.setattr(report, "NOTEBOOK_DIR", tmp_path)
    out = tmp_path / "out" / "r.html"
    rc = cli.main(["report", *map(str, runs), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.splitlines() == [
        f"jpdsim report: error: {tmp_path / report.NOTEBOOKS[0]}: cell 4 "
        f"failed: KeyError: 'boom\\nsecond line'"
    ]
    assert not out.exists() and not out.parent.exists()


def test_figures_and_tables_on_tiny_and_empty_data():
    df = frame(rows_superko() + [{"area_diff_jpd": 1, "ending": "cycle"}])
    empty = frame([{"area_diff_jpd": 3, "ending": "cycle"}])
    for data in (df, empty):
        d = disagreement.disagreement(data, by="board_size")
        figs = [
            plots.disagreement_heatmap(disagreement.disagreement_matrix(data)),
            plots.disagreement_directions(disagreement.disagreement(data)),
            plots.rate_by(d, "board_size", ["ruleset_1", "ruleset_2"]),
            plots.crosstab_heatmap(finishes_last.crosstab(data, normalize=True), "x"),
            plots.stacked_shares(
                finishes_last.relations(data, by="board_size"),
                "board_size",
                list(finishes_last.RELATIONS),
                "x",
            ),
            plots.ab_area_diff(ab_effect.area_diff_histogram(data)),
            plots.komi_curves(komi.komi_curves(data)),
            plots.komi_curves(komi.komi_curves(data, by="board_size"), by="board_size"),
            plots.fair_komi(komi.fair_komi(data, n_boot=10)),
            plots.sweep_curve(
                komi_sweep.sweep_curve(data), komi_sweep.fitted_fair_komi(data, n_boot=10)
            ),
            plots.length_histogram(cycles.length_histogram(data), by="repetition"),
        ]
        for fig in figs:
            ax = fig.axes[0]
            assert ax.get_xlabel() and (ax.get_ylabel() or ax.get_title())
            fig.savefig(__import__("io").BytesIO(), format="png")
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", show.table(d).to_html())
        assert any("%" in c for c in cells) == (data is df)  # rates only where there are games


def test_figures_on_awkward_real_world_shapes():
    """A wide spread of area differences (binned, no comb of hairlines), an A/B table whose
    bars need room for the legend, and a bootstrap interval that excludes its estimate."""
    wide = frame([{"area_diff_jpd": d} for d in (-81, -81, -3, 1, 7, 7, 9, 81, 81, 81, 361)])
    fig = plots.ab_area_diff(ab_effect.area_diff_histogram(wide))
    assert fig.axes[0].get_ylabel() == "games (% per bin of 6 points)"
    assert fig.axes[1].get_ylim()[1] >= 1.4 * 2  # two differing games at d = 7
    fk = komi.fair_komi(wide, n_boot=10)
    fk.loc[0, ["fair komi lo", "fair komi hi"]] = fk.loc[0, "fair komi"] + [0.5, 1.0]
    plots.fair_komi(fk).savefig(__import__("io").BytesIO(), format="png")


# --- the report on a real run played by the engine -------------------------------------------

REAL_CONFIG = """\
board_size = 5
games = 400
shard_size = 200
seed = 5
virtual_rate = 0.1
record_moves = "cycles"
"""


@pytest.fixture(scope="module")
def real_report(tmp_path_factory):
    """A small run played by `jpdsim run` (one worker) and its report by `jpdsim report`."""
    from sim import cli

    root = tmp_path_factory.mktemp("real")
    (root / "small.toml").write_text(REAL_CONFIG)
    run = root / "run"
    assert (
        cli.main(
            ["run", str(root / "small.toml"), "--out", str(run), "--workers", "1", "--no-progress"]
        )
        == 0
    )
    html = root / "report.html"
    assert cli.main(["report", str(run), "--out", str(html)]) == 0
    return run, html.read_text(encoding="utf-8")


@pytest.mark.notebook
def test_report_on_a_real_run(real_report):
    run, html = real_report
    body = re.sub(r"<style.*?</style>", "", html, flags=re.S)
    # 9 figures always; more where the data have them (disagreements, endings other than pause)
    assert len(re.findall(r'<img[^>]+src="data:image/png;base64,', html)) >= 9
    assert "<script src=" not in html and 'src="http' not in html
    for title in (
        "Disagreement between rulesets",
        "Who finishes last",
        "The A/B effect and komi",
        "Superko and cycles",
        "JPD self-check",
        "Report timing",
    ):
        assert title in body, title
    assert "<strong>400 games</strong> from 1 run(s)" in body
    assert "<strong>0 game(s) fail the self-check</strong>" in body
    # no error or warning output in any cell
    assert "application/vnd.jupyter.stderr" not in body  # stderr and error outputs
    assert "Traceback" not in body and "Warning" not in body
    assert str(run) in body and (run / "moves").is_dir()


@pytest.mark.notebook
def test_report_on_a_komi_sweep(built, tmp_path):
    """Runs at three komis: the fitted fair komi, its curve and the A/B effect per komi; runs
    at one komi: today's tables and a line saying what a sweep gives."""
    from tests.test_analysis_komi_sweep import sweep_runs

    one = built.read_text(encoding="utf-8")
    assert "A komi sweep (<code>komi_sweep</code> in the run config)" in one
    assert "Fitted fair komi per config" not in one and "A/B effect against komi" not in one
    runs = sweep_runs(tmp_path, (5.5, 7.5, 9.5), games=1000)
    nb = notebook_exec.execute_notebook(report.NOTEBOOK_DIR / "03_ab_komi.ipynb", runs)
    cells = {c.id: c for c in nb.cells}
    shown = json.dumps(cells["sweep-table"].outputs)
    assert "Fitted fair komi per config (configs played at several komis)" in shown
    assert "not bracketed" not in shown
    assert "image/png" in cells["sweep-curve"].outputs[0]["data"]
    assert "The A/B effect per komi of B版" in cells["ab-komi"].outputs[0]["data"]["text/html"]
    sections = [c.source.split("\n")[0] for c in report._shown(nb) if c.cell_type == "markdown"]
    assert "### The A/B effect against komi" in sections


@pytest.mark.notebook
def test_sections_that_show_nothing_are_left_out(built):
    html = built.read_text(encoding="utf-8")
    assert "Cycle positions" not in html  # no game from a setup position in these runs
    assert "One example game per position" not in html
    assert "JPD self-check" in html
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# Part"),
            nbformat.v4.new_markdown_cell("## Empty\n\nLead-in"),
            nbformat.v4.new_code_cell("x = 1"),
            nbformat.v4.new_markdown_cell("## Full"),
            nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output("stream", text="1")]),
            nbformat.v4.new_code_cell("y = 2"),
        ]
    )
    assert [c.source.split("\n")[0] for c in report._shown(nb)] == ["# Part", "## Full", "x"]


@pytest.mark.notebook
def test_cjk_text_comes_with_its_font(built):
    from fontTools.ttLib import TTFont

    from analysis import cjk

    chars = cjk.characters()
    assert set("计枰点版唐宋") <= set(chars)
    cmap = TTFont(cjk.FONT).getBestCmap()
    assert [c for c in chars if ord(c) not in cmap] == []  # else: python -m analysis.cjk FONT
    html = built.read_text(encoding="utf-8")
    assert f'@font-face {{ font-family: "{cjk.CSS_FAMILY}"; src: url(data:font/ttf;base64,' in html
    assert "A版" in html and "唐宋版" in html
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns of each glyph its fonts lack
        fig = plots.ab_area_diff(ab_effect.area_diff_histogram(frame(rows_superko())))
        fig.savefig(io.BytesIO(), format="png")
    assert "版" in fig.axes[1].get_title()


@pytest.mark.notebook
@pytest.mark.parametrize("name", report.NOTEBOOKS)
def test_notebooks_run_as_shipped(runs, name, monkeypatch):
    """Without injected parameters a notebook reads $JPDSIM_RUNS (else results/quickstart)."""
    monkeypatch.setenv("JPDSIM_RUNS", os.pathsep.join(map(str, runs)))
    nb = notebook_exec.execute_notebook(report.NOTEBOOK_DIR / name, None)
    shown = json.dumps([o for c in nb.cells for o in c.get("outputs", [])])
    assert "**20 games** from 2 run(s)." in shown


@pytest.mark.notebook
def test_a_notebook_without_runs_says_what_to_run(tmp_path, monkeypatch):
    monkeypatch.setenv("JPDSIM_RUNS", str(tmp_path / "quickstart"))
    with pytest.raises(
        notebook_exec.ReportError, match=r"`jpdsim run configs/quickstart.toml` writes"
    ):
        notebook_exec.execute_notebook(report.NOTEBOOK_DIR / report.NOTEBOOKS[0], None)
