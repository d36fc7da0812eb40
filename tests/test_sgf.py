"""`jpdsim sgf`: the SGF of stored games parses, and its moves are the stored actions (or, when
they are not stored, the re-played ones); KM and RE follow the ruleset it names."""

import re
import sys
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest

from sim.cli import main as cli
from sim.commands import sgf
from sim.config.player import Player
from sim.config.rules import Rules
from sim.config.run import RunConfig
from sim.dataset.read import load_game, read_games
from sim.dataset.write import write_atomic
from sim.engine.game import Game
from sim.errors import UserError
from sim.run import runner
from sim.schema.coords import PASS, VIRTUAL, format_action, parse_action

CFG = RunConfig(
    name="sgfrun",
    games=40,
    rules=Rules(5, komi={"jpd_b": 2.5}),
    shard_size=20,
    seed=5,
    virtual_rate=0.2,
    record_moves="all",
)

FAKE_GTP = Path(__file__).parent / "data" / "fake_gtp.py"

_PROP = re.compile(r"\s*([A-Z]+)((?:\s*\[(?:[^\]\\]|\\.)*\])+)", re.S)
_VALUE = re.compile(r"\[((?:[^\]\\]|\\.)*)\]", re.S)


def parse(text: str) -> list[dict]:
    """A minimal SGF reader for one game without variations: a list of nodes, each a dict
    property -> list of (unescaped) values. Raises AssertionError on anything else."""
    text = text.strip()
    assert text.startswith("(") and text.endswith(")"), text[:20]
    body, nodes, pos = text[1:-1], [], 0
    while pos < len(body):
        if body[pos].isspace():
            pos += 1
            continue
        assert body[pos] == ";", f"expected a node at {pos}: {body[pos : pos + 20]!r}"
        pos += 1
        node = {}
        while m := _PROP.match(body, pos):
            values = [re.sub(r"\\(.)", r"\1", v) for v in _VALUE.findall(m.group(2))]
            assert m.group(1) not in node, f"property {m.group(1)} twice in a node"
            node[m.group(1)] = values
            pos = m.end()
        nodes.append(node)
    return nodes


def decode(node: dict, size: int) -> tuple[str, int]:
    (colour,) = [c for c in ("B", "W") if c in node]
    (value,) = node[colour]
    if value == "":
        return colour, {None: PASS, ("virtual",): VIRTUAL, ("declined",): "declined"}[
            tuple(node["JV"]) if "JV" in node else None
        ]
    assert len(value) == 2 and node.get("JV") is None
    x, y = (ord(c) - ord("a") for c in value)
    assert 0 <= x < size and 0 <= y < size
    return colour, y * size + x


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sgf") / "run"
    assert runner.run(CFG, out, workers=1).state.complete
    return out


def test_sgf_of_every_game_parses_to_its_moves(run_dir):
    table = read_games(run_dir).to_pylist()
    virtual = 0
    for row in table:
        game_id = row["game_id"]
        nodes = parse(sgf.stored_game_sgf(run_dir, game_id))
        root, moves = nodes[0], nodes[1:]
        assert root["FF"] == ["4"] and root["GM"] == ["1"] and root["SZ"] == ["5"]
        assert root["KM"] == ["2.5"] and root["PB"] == ["random"] and root["PW"] == ["random"]
        assert root["GC"][0].startswith("KM and RE: jpd_b; ")  # random players: B版
        assert root["RU"] == ["JPD; repetition=global_superko; suicide=multi"]
        result = re.fullmatch(r"([BW])\+(\d+(?:\.5)?)|(0)|(Void)", root["RE"][0])
        assert result, root["RE"]
        if result[4]:
            assert row["winner_jpd_b"] is None and row["ending"] in ("cycle", "move_limit")
        elif result[3]:
            assert row["winner_jpd_b"] == "draw" and row["margin_jpd_b"] == 0
        else:
            assert result[1] == row["winner_jpd_b"] and float(result[2]) == abs(row["margin_jpd_b"])
        assert f"game {game_id}" in root["GN"][0] and f"ending {row['ending']}" in root["GC"][0]
        actions = load_game(run_dir, game_id)[2]
        decoded = [decode(n, 5) for n in moves]
        assert [c for c, _ in decoded] == ["BW"[i % 2] for i in range(len(actions))]
        if decoded[-1][1] == "declined":  # the last action declined a pass and was not played
            assert row["ending"] == "four_virtual"
            assert format_action(actions[-1], 5) in moves[-1]["C"][0]
            decoded[-1] = (decoded[-1][0], actions[-1])
        assert [a for _, a in decoded] == actions
        virtual += actions.count(VIRTUAL)
    assert virtual > 0  # the virtual-move encoding was exercised


def test_sgf_command(run_dir, tmp_path, capsys):
    out = tmp_path / "g3.sgf"
    assert cli(["sgf", str(run_dir), "3", "--out", str(out)]) == 0
    assert out.read_text() == sgf.stored_game_sgf(run_dir, 3)
    assert cli(["sgf", str(run_dir), "3"]) == 0
    assert capsys.readouterr().out == out.read_text()
    assert cli(["sgf", str(run_dir), "40"]) == 2
    assert "no game 40 (game ids are 0..39)" in capsys.readouterr().err


def test_a_game_without_stored_moves_is_replayed(run_dir, tmp_path, capsys):
    """A run that stored no moves gives the SGF of the same run with its moves stored."""
    out = tmp_path / "run"
    assert runner.run(replace(CFG, record_moves="none"), out, workers=1).state.complete
    assert load_game(out, 7)[2] is None
    for game_id in (0, 7, 39):
        made = parse(sgf.stored_game_sgf(out, game_id))
        stored = parse(sgf.stored_game_sgf(run_dir, game_id))
        assert made[1:] == stored[1:] and {**made[0], "DT": 0} == {**stored[0], "DT": 0}
    assert cli(["sgf", str(out), "7"]) == 0
    assert parse(capsys.readouterr().out)[1:] == parse(sgf.stored_game_sgf(run_dir, 7))[1:]
    # a row that its re-play does not give is refused
    part = read_games(out).slice(0, 20)
    counts = part["actions"].to_pylist()
    counts[7] += 1
    index = part.schema.get_field_index("actions")
    part = part.set_column(index, "actions", pa.array(counts, pa.int32()))
    write_atomic(part, out / "games" / "part-00000.parquet", out / "games" / ".tmp")
    with pytest.raises(
        UserError,
        match="game 7 has no stored moves, and its re-play differs .*"
        r"\(in actions\).*jpdsim replay --run",
    ):
        sgf.stored_game_sgf(out, 7)


def test_a_gtp_game_without_stored_moves_is_refused(tmp_path):
    white = Player("gtp", command=[sys.executable, str(FAKE_GTP), "pass"])
    cfg = RunConfig(name="gtp", games=2, rules=Rules(5), white=white, record_moves="none")
    assert runner.run(cfg, tmp_path / "run", workers=1).state.complete
    with pytest.raises(UserError, match="game 1 has no stored moves, and a program played it"):
        sgf.stored_game_sgf(tmp_path / "run", 1)


def test_km_and_re_follow_a_ruleset(run_dir, capsys):
    """--ruleset names the ruleset of KM and RE; by default the one the players play for."""
    row = read_games(run_dir).slice(3, 1).to_pylist()[0]
    assert cli(["sgf", str(run_dir), "3", "--ruleset", "jpd_a"]) == 0
    root = parse(capsys.readouterr().out)[0]
    assert root["KM"] == ["6.5"] and root["GC"][0].startswith("KM and RE: jpd_a; ")
    assert root["RE"] == [sgf._result(row["winner_jpd_a"], row["margin_jpd_a"])]
    with pytest.raises(SystemExit, match="2"):  # a usage error
        cli(["sgf", str(run_dir), "3", "--ruleset", "jpd_x"])
    assert "invalid choice: 'jpd_x'" in capsys.readouterr().err
    mcts = Player("mcts", play_for="japanese")
    assert sgf.default_ruleset(replace(CFG, white=mcts)) == "japanese"
    assert sgf.default_ruleset(replace(CFG, black=mcts, white=mcts)) == "japanese"
    assert sgf.default_ruleset(replace(CFG, black=Player("mcts"), white=mcts)) == "jpd_b"
    assert sgf.default_ruleset(CFG) == "jpd_b"


def test_sgf_text_of_a_made_up_game():
    row = {
        "game_id": 9,
        "board_size": 3,
        "repetition": "basic_ko",
        "suicide": "none",
        "komi_jpd_b": 7.5,
        "player_b": "ran]dom",
        "player_w": "random",
        "seed": 1,
        "ending": "pause",
        "winner_jpd_b": "W",
        "margin_jpd_b": -4.0,
        "moves": 3,
        "converted_passes": 0,
    }
    row.update({f"winner_{r}": "draw" for r in ("jpd_a", "jpd_tangsong", "chinese", "japanese")})
    row.update({f"margin_{r}": 0.0 for r in ("jpd_a", "jpd_tangsong", "chinese", "japanese")})
    text = sgf.game_sgf(
        row, [0, 8, VIRTUAL, PASS, PASS], {"name": "x", "started": "2026-01-02T03"}, "jpd_b"
    )
    nodes = parse(text)
    assert (
        nodes[0]["RE"] == ["W+4"]
        and nodes[0]["PB"] == ["ran]dom"]
        and nodes[0]["DT"] == ["2026-01-02"]
    )
    assert nodes[1:] == [
        {"B": ["aa"]},
        {"W": ["cc"]},
        {"B": [""], "JV": ["virtual"]},
        {"W": [""]},
        {"B": [""]},
    ]
    with pytest.raises(UserError, match="not a move"):
        sgf.game_sgf(row, [9], {}, "jpd_b")


def test_a_declining_action_that_ended_the_game_is_not_a_stone():
    """C3, three virtual moves, Black passes, White declines with D4: the conversion is the
    fourth virtual move at this board, so the game ends and D4 is not played (docs/rules.md §4)."""
    tokens = "C3 virtual virtual virtual pass D4".split()
    game = Game(Rules(5))
    for token in tokens:
        assert game.play(parse_action(token, 5)) is None
    row = {
        **game.outcome(),
        "game_id": 1,
        "komi_jpd_b": 7.5,
        "player_b": "random",
        "player_w": "random",
        "seed": 0,
    }
    assert row["ending"] == "four_virtual" and row["actions"] == 6 and row["moves"] == 5
    nodes = parse(sgf.game_sgf(row, [parse_action(t, 5) for t in tokens], {}, "jpd_b"))
    assert nodes[-1]["W"] == [""] and nodes[-1]["JV"] == ["declined"]
    assert "D4" in nodes[-1]["C"][0]
    assert nodes[1] == {"B": ["cc"]} and nodes[5] == {"B": [""]}


def test_settled_pauses_and_a_resignation_are_no_nodes():
    """dead_stones = "agree": a resumption is a comment on the second pass, agreed dead stones
    are marked on the last node (docs/rules.md §4); a resignation is the result only."""
    tokens = "C3 D4 pass pass resume B2 pass pass agree D4".split()
    game = Game(Rules(5, dead_stones="agree"))
    for token in tokens:
        assert game.play(parse_action(token, 5)) is None
    row = {**game.outcome(), "game_id": 2, "komi_jpd_b": 7.5, "seed": 0}
    row.update(player_b="mcts", player_w="mcts")
    assert (row["dead_w"], row["resumptions"]) == (1, 1)
    nodes = parse(sgf.game_sgf(row, [parse_action(t, 5) for t in tokens], {}, "jpd_b"))
    assert [n.get("B", n.get("W")) for n in nodes[1:]] == [
        ["cc"],
        ["db"],
        [""],
        [""],
        ["bd"],
        [""],
        [""],
    ]
    assert nodes[4]["C"][0].startswith("resumed") and nodes[5] == {"B": ["bd"]}
    assert nodes[-1]["MA"] == ["db"] and "D4" in nodes[-1]["C"][0]
    resigned = Game(Rules(5))
    for token in ("C3", "resign"):
        resigned.play(parse_action(token, 5))
    row = {**resigned.outcome(), "game_id": 3, "komi_jpd_b": 7.5, "seed": 0}
    row.update(player_b="random", player_w="random")
    nodes = parse(sgf.game_sgf(row, [parse_action(t, 5) for t in ("C3", "resign")], {}, "jpd_b"))
    assert nodes[0]["RE"] == ["B+R"] and nodes[1:] == [{"B": ["cc"]}]
