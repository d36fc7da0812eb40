"""Runs from a position (``setup``, ``to_move``: sim.config.setups, docs/rules.md §9) and the
kofight player: config keys and their errors, games from setups (White first included) against the
reference move by move, the rows' ``setup`` column, a run end to end with replay and SGF."""

import json

import numpy as np
import pytest

from sim.cli import main as cli
from sim.config.file import config_from_dict
from sim.config.player import Player
from sim.config.rules import Rules
from sim.config.setups import corpus_names, load_setup, make_setup, read_setup
from sim.errors import UserError
from sim.play.selfplay import play_batch
from sim.schema.coords import VIRTUAL, parse_action
from tests.conftest import replay_with_reference

#: A ko on 4x4: Black C3 takes the White stone B3; White B3 would take back C3 at once.
KO = make_setup(
    "ko",
    """
    . X O .
    X O . O
    . X O .
    . . . .
    """,
)
#: Another 4x4 position, White to move: its stone B2 is in atari.
ATARI = make_setup(
    "atari",
    """
    . . . .
    . X . .
    X O X .
    . . . .
    """,
    "white",
)


def cfg(**keys):
    return config_from_dict({"games": 4, **keys}, "run.toml", default_name="t")


def test_setup_file_header_and_config_keys(tmp_path):
    path = tmp_path / "atari.txt"
    path.write_text(
        "# name: my_atari\n# to_move: white\n# shows: a stone in atari\n" + ATARI.diagram()
    )
    c = cfg(setup=str(path))
    assert c.rules.board_size == 4  # the setup's size when board_size is not given
    assert c.setup == (read_setup(path.read_text(), "x"),)
    assert c.setup[0].name == "my_atari" and c.setup[0].to_move == "white"
    assert c.setup[0].cells == ATARI.cells
    c = cfg(setup=[str(path), KO.to_dict()], to_move="black")  # to_move overrides the header
    assert [(x.name, x.to_move) for x in c.setup] == [("my_atari", "black"), ("ko", "black")]
    assert config_from_dict(c.to_dict(), "manifest") == c  # the manifest's form reads back


@pytest.mark.parametrize(
    "keys, message",
    [
        ({"setup": "no_such_position"}, "key 'setup' ('no_such_position'): 'no_such_position' is"),
        ({"setup": {"name": "a", "diagram": "X.\n.", "to_move": "white"}}, "diagram row 2 has 1"),
        ({"setup": {"name": "a"}}, "a setup table needs name and diagram"),
        (
            {"setup": {"name": "a", "diagram": "..\n..", "colour": 1}},
            "unknown key 'colour' (diagram, name",
        ),
        ({"setup": [KO.to_dict(), KO.to_dict()]}, "two setups are named 'ko'"),
        ({"setup": KO.to_dict(), "board_size": 5}, "'ko' is not a 5x5 sim.config.setups.Setup"),
        ({"setup": KO.to_dict(), "to_move": "red"}, "key 'to_move': must be black or white"),
        ({"board_size": 5, "to_move": "white"}, "White moves first only from a setup"),
        (
            {"setup": KO.to_dict(), "players": {"black": {"kind": "gtp", "command": "gnugo"}}},
            "gtp and katago players start from the empty board",
        ),
    ],
)
def test_bad_setup_keys(keys, message):
    with pytest.raises(UserError, match="^run.toml: ") as err:
        cfg(**keys)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_bad_header_line(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("# name: p\n# colour: white\n..\n..\n")
    with pytest.raises(UserError, match="line 2: a header line is '# key: value'"):
        cfg(setup=str(path))


def test_a_setup_group_without_liberty_stops_the_run_before_its_folder(tmp_path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text('games = 2\n[setup]\nname = "dead"\ndiagram = "XO\\nO."\n')
    assert cli(["run", str(config), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "setup dead: setup stone at A2 has no liberty" in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("repetition", ["global_superko", "no_result", "board_superko"])
@pytest.mark.parametrize("player", [Player("kofight"), Player("random")])
def test_games_from_setups_match_the_reference(repetition, player):
    rules = Rules(4, repetition, max_actions=60)
    cols, moves = play_batch(
        rules,
        seed=5,
        game_ids=np.arange(24),
        black=player,
        white=player,
        virtual_rate=0.05,
        setups=(KO, ATARI),
        record_moves=True,
        check=True,
    )
    assert list(cols["setup"]) == ["ko", "atari"] * 12  # game i from setup i mod 2
    for j, actions in enumerate(moves):
        setup = (KO, ATARI)[j % 2]
        out = replay_with_reference(
            rules, actions.tolist(), f"game {j}", list(setup.cells), setup.first
        )
        assert out["ending"] == cols["ending"][j] and out["moves"] == cols["moves"][j]


def first_actions(rules, threat_rate, games=20):
    kofight = Player("kofight", threat_rate=threat_rate)
    cols, moves = play_batch(
        rules,
        seed=1,
        game_ids=np.arange(games),
        black=kofight,
        white=kofight,
        setups=(KO,),
        record_moves=True,
    )
    return cols, moves


@pytest.mark.parametrize("repetition", ["global_superko", "basic_ko", "board_superko"])
def test_kofight_takes_the_ko_then_threatens_where_the_retake_is_banned(repetition):
    c3, b3 = parse_action("C3", 4), parse_action("B3", 4)
    rules = Rules(4, repetition, max_actions=2)
    cols, moves = first_actions(rules, 1.0)
    # Black takes the ko (the only cycle capture); the retake at B3 is banned at once in
    # every mode: White plays the threat, a virtual move; the banned retake counts once
    assert all(m.tolist() == [c3, VIRTUAL] for m in moves)
    assert list(cols["repetition_bans"]) == [1] * len(moves)
    cols, moves = first_actions(rules, 0.0)
    assert all(m[0] == c3 and m[1] not in (VIRTUAL, b3) for m in moves)


@pytest.mark.slow
def test_run_from_setups_replays_and_exports_sgf(tmp_path, capsys):
    for setup in (KO, ATARI):
        (tmp_path / f"{setup.name}.txt").write_text(
            f"# to_move: {setup.to_move}\n{setup.diagram()}"
        )
    config = tmp_path / "ko.toml"
    config.write_text(
        'games = 12\nshard_size = 5\nseed = 3\nrecord_moves = "all"\n'
        f'setup = ["{tmp_path / "ko.txt"}", "{tmp_path / "atari.txt"}"]\n'
        '[players.black]\nkind = "kofight"\n[players.white]\nkind = "kofight"\n'
    )
    out = tmp_path / "run"
    assert cli(["run", str(config), "--out", str(out), "--no-progress", "--workers", "2"]) == 0
    capsys.readouterr()
    assert cli(["replay", "--run", str(out), "--game", "7"]) == 0
    assert json.loads(capsys.readouterr().out)["matches"]
    assert cli(["sgf", str(out), "7"]) == 0
    sgf = capsys.readouterr().out
    assert "AB[bb][ac][cc]AW[bc]PL[W]" in sgf.replace("\n", "")  # ATARI (game 7), White first
    assert ";W[" in sgf.split("PL[W]")[1][:8]


def test_corpus_positions_load():
    names = corpus_names()
    assert names
    for name in names:
        setup = load_setup(name)
        assert setup.name == name and setup.source and setup.shows
