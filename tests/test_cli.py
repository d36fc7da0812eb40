"""The `jpdsim` command as a newcomer meets it (--help, --version), and docs/findings/make.py,
which writes its figures outside the checkout unless asked to update the docs."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import sim
from sim.cli import main as cli
from tests import synthetic

ROOT = Path(__file__).resolve().parent.parent
MAKE = ROOT / "docs" / "findings" / "make.py"


def test_help_is_for_users_and_version(capsys):
    with pytest.raises(SystemExit, match="0"):
        cli(["--help"])
    text = capsys.readouterr().out
    assert "jpdsim run configs/quickstart.toml" in text and "--version" in text
    assert "Only light modules" not in text  # the module's docstring is for developers
    with pytest.raises(SystemExit, match="0"):
        cli(["--version"])
    assert capsys.readouterr().out == f"jpdsim {sim.__version__}\n"


def _make():
    spec = importlib.util.spec_from_file_location("findings_make", MAKE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_findings_figures_go_to_results_unless_the_docs_are_asked_for(
    tmp_path, monkeypatch, capsys
):
    run = synthetic.synthetic_run(tmp_path / "runs" / "r9", 3000, virtual_rate=0.0)
    tracked = {p: p.read_bytes() for p in MAKE.parent.glob("*.png")}
    monkeypatch.chdir(tmp_path)
    make = _make()
    make.main([str(run)])
    assert sorted(p.name for p in (tmp_path / "results" / "findings").iterdir()) == [
        "disagreement_9x9.png",
        "komi_curves.png",
    ]
    assert "## Fair komi" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in MAKE.parent.glob("*.png")} == tracked
    make.main([str(run), "--out", str(tmp_path / "figs")])
    assert (tmp_path / "figs" / "komi_curves.png").exists()
    # --update-docs writes into docs/findings (not run here: it would change tracked files)
    monkeypatch.setattr(make, "DOCS", tmp_path / "docs")
    make.main([str(run), "--update-docs"])
    assert (tmp_path / "docs" / "disagreement_9x9.png").exists()
    done = subprocess.run(
        [sys.executable, str(MAKE), "--update-docs", "--out", "x", str(run)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "not allowed with argument" in done.stderr
