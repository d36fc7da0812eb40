"""The reference engine reproduces every worked example of tests/data/examples/replay.jsonl
(computed by an independent implementation of the rules, docs/rules.md): every outcome field,
the final board, the legal moves, or the error line of an illegal move."""

import pytest

from sim.schema.coords import format_action, format_diagram, parse_action, parse_diagram
from sim.schema.tables import OUTCOME_FIELDS
from tests.conftest import EXAMPLE_CASES as CASES
from tests.reference import RefGame


def replay(args):
    """Play an example's moves; return (game, None) or (game, the error line)."""
    size = args["size"]
    setup = args.get("setup")
    if isinstance(setup, str):
        setup = parse_diagram(setup, size)
    elif isinstance(setup, list) and setup and isinstance(setup[0], str):
        setup = parse_diagram("\n".join(setup), size)
    game = RefGame(
        size,
        repetition=args.get("repetition", "global_superko"),
        suicide=args.get("suicide", "multi"),
        max_actions=args.get("max_actions"),
        setup=setup,
    )
    for k, token in enumerate(args["moves"], 1):
        reason = game.play(parse_action(token, size))
        if reason is not None:
            return game, f"move {k} ({token}): {reason}"
    return game, None


@pytest.mark.parametrize("case", CASES, ids=[c["title"] for c in CASES])
def test_example(case):
    game, error = replay(case["args"])
    if "error" in case:
        assert error == case["error"]
        return
    assert error is None
    expected = case["output"]
    size = case["args"]["size"]
    got = game.outcome()
    got["final_board"] = format_diagram(game.board(), size)
    got["legal_moves"] = sorted(format_action(p, size) for p in game.legal_moves())
    for field in OUTCOME_FIELDS:
        assert field in expected, f"example lacks {field}"
    mismatches = {
        k: (got.get(k, "<missing>"), v) for k, v in expected.items() if got.get(k, "<missing>") != v
    }
    assert not mismatches, f"(reference, example): {mismatches}"
    # JSON-ready: the same types as the example (int vs float vs str vs None)
    for k, v in expected.items():
        assert type(got[k]) is type(v), (k, type(got[k]), type(v))
