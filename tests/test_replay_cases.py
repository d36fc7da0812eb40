"""The golden `jpdsim replay` cases the project owns (``tests/data/replay_cases.jsonl``,
written by ``tests/data/make_replay_cases.py`` from the pure-Python reference):

(a) every case through the command: the whole JSON object (key order and value types
    included), or exit status 2 with the error line on stderr;
(b) the reference still reproduces every case, so a change to the reference or to the data
    shows;
(c) the file is exactly what the generator writes, so the data cannot drift from its specs.

The shared worked examples (``../shared/examples``) stay an extra check elsewhere."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from sim.schema.coords import parse_diagram
from sim.schema.tables import ENDINGS, OUTCOME_FIELDS, REPETITIONS, RULESETS
from tests.conftest import check_invariants, replay
from tests.data import make_replay_cases as generator
from tests.reference import RefGame

DATA = Path(__file__).with_name("data") / "replay_cases.jsonl"
CASES = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
IDS = [f"{i:02d} {c['title']}" for i, c in enumerate(CASES, 1)]
OUTPUT_KEYS = [*OUTCOME_FIELDS, "final_board", "legal_moves"]


def command_args(args, tmp_path):
    """The command line of a case's args (the setup diagram written to a file)."""
    line = [
        "--size",
        args["size"],
        "--repetition",
        args["repetition"],
        "--suicide",
        args["suicide"],
    ]
    if args.get("max_actions") is not None:
        line += ["--max-actions", args["max_actions"]]
    if args.get("dead_stones") is not None:
        line += ["--dead-stones", args["dead_stones"]]
    for ruleset, value in (args.get("komi") or {}).items():
        line += ["--komi", f"{ruleset}={value}"]
    if args.get("setup") is not None:
        path = tmp_path / "setup.txt"
        path.write_text("\n".join(args["setup"]) + "\n")
        line += ["--setup", path]
    return [*line, "--legal", *args["moves"]]


def assert_same_object(got, expected):
    """Equal, with the same keys in the same order and the same JSON types (1 is not 1.0)."""
    assert list(got) == OUTPUT_KEYS
    assert list(expected) == OUTPUT_KEYS
    wrong = {k: (got[k], expected[k]) for k in OUTPUT_KEYS if got[k] != expected[k]}
    assert not wrong, f"(got, expected): {wrong}"
    types = {
        k: (type(got[k]).__name__, type(expected[k]).__name__)
        for k in OUTPUT_KEYS
        if type(got[k]) is not type(expected[k])
    }
    assert not types, f"(got, expected) types: {types}"


# ---------------------------------------------------------------------------------------------
# (a) the command


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_through_the_command(capsys, tmp_path, case):
    status, out, err = replay(capsys, *command_args(case["args"], tmp_path))
    if "error" in case:
        assert (status, out, err) == (2, "", case["error"] + "\n")
        return
    assert (status, err) == (0, "")
    assert out.endswith("\n") and out.count("\n") == 1  # one JSON line
    assert_same_object(json.loads(out), case["output"])


def test_setup_without_liberty_is_a_command_error(capsys, tmp_path):
    """Not a case of the file (the error is not a move's): the command refuses the setup with
    one line and exit status 2; the reference refuses it too."""
    text = "XO.\nO..\n...\n"
    path = tmp_path / "setup.txt"
    path.write_text(text)
    assert replay(capsys, "--size", 3, "--setup", path, "A1") == (
        2,
        "",
        f"jpdsim replay: error: --setup {path}: setup stone at A3 has no liberty\n",
    )
    with pytest.raises(ValueError, match="no liberty"):
        RefGame(3, setup=parse_diagram(text, 3))


# ---------------------------------------------------------------------------------------------
# (b) the reference


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_reference_reproduces_the_case(case):
    result = generator.reference_result(case["args"])
    if "error" in case:
        assert result == {"error": case["error"]}
        return
    assert "output" in result, result
    assert_same_object(result["output"], case["output"])
    check_invariants(case["output"], generator.setup_cells(case["args"]))


# ---------------------------------------------------------------------------------------------
# (c) the file and its generator


def test_file_is_what_the_generator_writes(tmp_path):
    out = tmp_path / "replay_cases.jsonl"
    assert generator.main(["--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == DATA.read_text(encoding="utf-8"), (
        "tests/data/replay_cases.jsonl is stale: run python -m tests.data.make_replay_cases"
    )


def test_generator_runs_by_path(tmp_path):
    out = tmp_path / "cases.jsonl"
    script = Path(generator.__file__)
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    assert done.stdout.strip() == f"{len(CASES)} cases -> {out}"
    assert out.read_bytes() == DATA.read_bytes()


def test_cases_are_well_formed():
    assert len({c["title"] for c in CASES}) == len(CASES)
    for c in CASES:
        assert list(c)[:3] == ["title", "rule", "args"] and len(c) == 4
        assert ("output" in c) != ("error" in c)
        assert c["rule"].startswith("docs/rules.md §")
        args = c["args"]
        assert list(args)[:5] == ["size", "moves", "setup", "repetition", "suicide"]
        assert set(args) <= {
            "size",
            "moves",
            "setup",
            "repetition",
            "suicide",
            "max_actions",
            "dead_stones",
            "komi",
        }
        assert set(args.get("komi") or {}) <= set(RULESETS)


def test_cases_cover_the_contract():
    """What the file must keep showing (so that trimming the specs cannot drop a rule)."""
    outputs = [c["output"] for c in CASES if "output" in c]
    errors = [c["error"] for c in CASES if "error" in c]
    reasons = Counter(e.split(": ", 1)[1] for e in errors)
    for reason in (
        "occupied",
        "suicide",
        "ko",
        "superko",
        "off board",
        "not a move",
        "game over (pause)",
        "game over (four_virtual)",
        "game over (cycle)",
        "game over (move_limit)",
    ):
        assert reasons[reason], reason
    # every ending a move list can reach (engine_error: a GTP program's fault, sim.play.referee)
    assert {o["ending"] for o in outputs} == {None, *ENDINGS} - {"engine_error"}
    for mode in REPETITIONS:  # every mode: a refused move and a played game
        assert any(c["args"]["repetition"] == mode and "error" in c for c in CASES), mode
        assert any(c["args"]["repetition"] == mode and "output" in c for c in CASES), mode
    for suicide in ("multi", "none"):
        assert any(c["args"]["suicide"] == suicide and "error" in c for c in CASES), suicide
    assert any(o["suicides_w"] or o["suicides_b"] for o in outputs)
    assert any(o["converted_passes"] for o in outputs)
    assert any(
        o["ending"] == "four_virtual"
        and o["actions"] > o["moves"] + o["passes"] - o["converted_passes"]
        for o in outputs
    )  # the declining action, not played
    assert any(o["moku_b"] < 0 for o in outputs) and any(o["moku_w"] < 0 for o in outputs)
    # who passed first and who finished last: the A版 point, the 唐宋版 point, both, neither
    triggers = {(o["first_pass_or_virtual_by"], o["last_real_move_by"]) for o in outputs}
    assert triggers >= {("W", "W"), ("B", "B"), ("W", "B"), ("B", "W")}
    assert any(o["winner_jpd_b"] == "draw" for o in outputs)
    assert any(o["area_diff_chinese"] != o["area_diff_jpd"] for o in outputs)
    assert any(o["territory_diff_japanese"] != o["area_diff_chinese"] for o in outputs)
    assert any(c["args"].get("max_actions") for c in CASES)
    assert any(c["args"].get("komi") for c in CASES)
    assert any(c["args"]["setup"] for c in CASES)
    assert {c["args"]["size"] for c in CASES} >= {2, 3, 4, 5, 7, 9}
