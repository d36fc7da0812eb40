"""Shared test machinery: the ``Game`` fixture (every golden test runs on the reference engine
and on the numba engine), game builders from ASCII diagrams and GTP tokens, and the outcome
invariants that every finished or unfinished game must satisfy."""

import functools
import json
from pathlib import Path

import pytest

from sim.cli import main as cli
from sim.schema.coords import format_action, parse_action, parse_diagram
from sim.schema.tables import OUTCOME_FIELDS, RULESETS

ENGINES = ["reference", "numba", "numba-hash-only"]

#: The lanes whose tests are slow too (``pytest -n 2 -m 'not slow'``, the fast lane, leaves
#: them out): a test that plays GNU Go or a real KataGo (``JPD_KATAGO``), or executes the
#: notebooks. Every lane is a mark at its tests (registered in pyproject.toml, which has
#: pytest refuse an unregistered one); ``pytest --durations=40`` finds the tests that take
#: over a second, for the ``slow`` mark. README's test command runs every lane.
SLOW_TOO = ("gnugo", "katago", "notebook")


def pytest_collection_modifyitems(config, items):
    """Mark each test of a lane in ``SLOW_TOO`` slow too."""
    for item in items:
        if any(item.get_closest_marker(lane) for lane in SLOW_TOO):
            item.add_marker("slow")


#: The worked examples of the `jpdsim replay` contract (a copy of the project's shared
#: examples, tests/data/examples/README.md).
EXAMPLES = Path(__file__).resolve().parent / "data" / "examples" / "replay.jsonl"
#: Outcome fields added after shared/examples was written, with their value in its games (no
#: dead stones agreed, no resumption: dead_stones = "agree" came with the mcts player).
ADDED_SINCE_EXAMPLES = {"dead_b": 0, "dead_w": 0, "resumptions": 0}


def _with_added_fields(case: dict) -> dict:
    """An example case whose output has the added fields too, in the order of the output."""
    if "output" not in case:
        return case
    out = {**case["output"], **ADDED_SINCE_EXAMPLES}
    order = [*OUTCOME_FIELDS, "final_board", "legal_moves"]
    return {**case, "output": {k: out[k] for k in order if k in out}}


EXAMPLE_CASES = [
    _with_added_fields(json.loads(line))
    for line in EXAMPLES.read_text(encoding="utf-8").splitlines()
    if line.strip()
]


#: A small run: 120 5x5 games in 4 shards, virtual moves, every game's moves stored.
SMALL_RUN = """\
board_size = 5
games = 120
shard_size = 30
seed = 11
virtual_rate = 0.1
record_moves = "all"
"""


@pytest.fixture
def model(tmp_path) -> Path:
    """A KataGo network file (the fake KataGo, tests/data/fake_katago.py, only checks that it
    is there)."""
    path = tmp_path / "net.bin.gz"
    path.write_bytes(b"not a network")
    return path


@pytest.fixture(scope="module")
def config_file(tmp_path_factory):
    """SMALL_RUN as a config file (one per test module)."""
    path = tmp_path_factory.mktemp("cfg") / "small.toml"
    path.write_text(SMALL_RUN)
    return path


@pytest.fixture(params=ENGINES)
def Game(request):
    """The game class of one engine: ``tests.reference.RefGame``, or ``sim.engine.game.Game`` in
    exact
    mode or in the hash-only mode of the batched runs."""
    if request.param == "reference":
        from tests.reference import RefGame

        return RefGame
    return functools.partial(numba_game, exact=request.param == "numba")


def numba_game(size, setup=None, exact=True, to_move=1, **rules):
    """``sim.engine.game.Game`` with the reference's signature: the rule options as keywords."""
    from sim.config.rules import Rules
    from sim.engine.game import Game

    return Game(Rules(size, **rules), setup, exact, to_move)


def setup_of(diagram, size):
    """A setup colour list from an ASCII diagram (None for no diagram)."""
    return None if diagram is None else parse_diagram(diagram, size)


def new_game(Game, size=None, diagram=None, moves=(), **options):
    """A game of ``Game`` from an optional ASCII diagram (top row first; the size is taken
    from it when not given) with ``moves`` (GTP tokens, a space-separated string or a list)
    played; every move must be legal."""
    if size is None:
        size = len([line for line in diagram.splitlines() if line.strip()])
    game = Game(size, setup=setup_of(diagram, size), **options)
    play(game, moves)
    return game


def try_moves(game, moves):
    """Play GTP tokens until one is refused; return None or ``move K (TOKEN): REASON``."""
    if isinstance(moves, str):
        moves = moves.split()
    size = game_size(game)
    for k, token in enumerate(moves, 1):
        reason = game.play(parse_action(token, size))
        if reason is not None:
            return f"move {k} ({token}): {reason}"
    return None


def play(game, moves):
    """Play GTP tokens that must all be legal."""
    error = try_moves(game, moves)
    assert error is None, error


def reason(game, token):
    """The answer of ``game.play`` to one GTP token (None: played)."""
    return game.play(parse_action(token, game_size(game)))


def game_size(game):
    return int(round(len(game.board()) ** 0.5))


def legal(game):
    """The legal real moves as a sorted list of GTP vertices (plain string sort)."""
    size = game_size(game)
    return sorted(format_action(p, size) for p in game.legal_moves())


def diagram(game):
    """The current board as a diagram string (rows joined by newlines)."""
    size = game_size(game)
    letters = ".XO"
    cells = game.board()
    return "\n".join(
        "".join(letters[c] for c in cells[y * size : (y + 1) * size]) for y in range(size)
    )


def board_of(text):
    """A diagram string normalised to the form ``diagram`` returns."""
    return "\n".join(line.replace(" ", "") for line in text.splitlines() if line.strip())


def check_invariants(out, setup=None, to_move=1):
    """Invariants of every outcome (``setup``: the setup colour list or None; ``to_move``: who
    moved first from it):
    JPD area totals sum to N²; equal-stones result == area result with the A-version point;
    stones played (+ setup stones) == stones on the board + stones lost; simple counter sums."""
    n2 = out["board_size"] ** 2
    setup_b = setup.count(1) if setup else 0
    setup_w = setup.count(2) if setup else 0
    assert out["area_b_jpd"] + out["area_w_jpd"] == n2
    assert out["area_diff_jpd"] == out["area_b_jpd"] - out["area_w_jpd"]
    assert (
        out["stones_b"]
        + out["stones_w"]
        + out["territory_b_jpd"]
        + out["territory_w_jpd"]
        + out["public_points"]
        == n2
    )
    a_point = 1 if out["first_pass_or_virtual_by"] == "W" else 0
    assert out["equal_stones_diff"] == out["area_diff_jpd"] - a_point
    assert out["real_moves_b"] + setup_b == out["stones_b"] + out["stones_lost_b"]
    assert out["real_moves_w"] + setup_w == out["stones_w"] + out["stones_lost_w"]
    assert (
        out["moves"]
        == out["real_moves_b"]
        + out["real_moves_w"]
        + out["virtual_moves_b"]
        + out["virtual_moves_w"]
    )
    s_b = out["real_moves_b"] + out["virtual_moves_b"] + (to_move == 2)  # White first: §1 parity
    s_w = out["real_moves_w"] + out["virtual_moves_w"]
    assert s_b - s_w in (0, 1)
    assert out["balanced_moves"] == 2 * s_w
    assert out["prisoners_b"] == out["stones_lost_w"] and out["prisoners_w"] == out["stones_lost_b"]
    assert out["converted_passes"] <= out["passes"]
    # every action is a move or a pass, a converted pass both; one more action only when the
    # declining action of a pass ended the game by completing four virtual moves, unplayed,
    # or when the last action was a resignation
    unplayed = out["actions"] - (out["moves"] + out["passes"] - out["converted_passes"])
    assert unplayed == 0 or (unplayed == 1 and out["ending"] in ("four_virtual", "resign"))
    if out["ending"] == "resign":
        assert {out[f"winner_{r}"] for r in RULESETS} in ({"B"}, {"W"})
        assert all(out[f"margin_{r}"] is None for r in RULESETS)
    assert out["suicides_b"] <= out["stones_lost_b"] and out["suicides_w"] <= out["stones_lost_w"]
    if out["public_points"] == 0:  # then JPD components are Tromp-Taylor regions
        assert out["area_diff_chinese"] == out["area_diff_jpd"]


def replay_with_reference(rules, actions, where, setup=None, to_move=1, legal=True):
    """Play ``actions`` (``sim.schema.coords`` encoding) from ``setup`` under ``rules``
    (``sim.config.rules.Rules``) in ``sim.engine.game.Game`` (exact mode) and in
    ``tests.reference.RefGame``, comparing the legal moves before (if ``legal``) and the board
    after every action and checking the engine's state; returns the reference's outcome, which
    must equal the engine's and satisfy ``check_invariants``. ``where`` starts every assertion
    message."""
    from sim.engine.game import Game
    from tests.reference import RefGame

    ref = RefGame(
        rules.board_size,
        rules.repetition,
        rules.suicide,
        rules.max_actions,
        setup=setup,
        dead_stones=rules.dead_stones,
        to_move=to_move,
    )
    eng = Game(rules, setup, to_move=to_move)
    for k, action in enumerate(actions):
        at = f"{where} action {k}"
        assert not legal or eng.legal_moves() == ref.legal_moves(), at
        assert ref.play(action) is None, at
        assert eng.play(action) is None, at
        assert eng.check() is None, at
        assert eng.board() == ref.board(), at
    assert eng.ending is not None and eng.ending == ref.ending, where
    expected = ref.outcome(komi=rules.komi)
    assert eng.outcome() == expected, where
    check_invariants(expected, setup, to_move)
    return expected


def replay(capsys, *args):
    """Run `jpdsim replay ARGS`: (exit status, stdout, stderr)."""
    try:
        status = cli(["replay", *map(str, args)])
    except SystemExit as exit_:  # a usage error of argparse
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def without_compile_notes(err: str) -> str:
    """A command's stderr without the compile step's two notes, which it prints the first
    time a kind of game is played with these kernel sources (``sim.run.drivers.Driver.compile``):
    which test plays a kind first depends on the order and the cache."""
    notes = ("compiling the kernels for ", "compiled in ")
    return "".join(line for line in err.splitlines(True) if not line.startswith(notes))
