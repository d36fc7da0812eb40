"""Run configs: defaults, overrides, and one clear line per mistake (naming the key and file)."""

import dataclasses
import json
from pathlib import Path

import pytest

from sim.commands.stress import load_stress
from sim.config.file import config_from_dict, load_config
from sim.config.player import Player
from sim.config.rules import Rules
from sim.config.run import RunConfig
from sim.config.setups import corpus_names
from sim.errors import UserError
from sim.options import OptionError
from sim.schema.tables import DEFAULT_KOMI

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def write(tmp_path, text, name="exp.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_defaults_are_resolved(tmp_path):
    cfg = load_config(write(tmp_path, "board_size = 7\ngames = 25\n[komi]\nchinese = 5.5\n"))
    assert cfg.name == "exp"
    assert cfg.rules == Rules(7, komi={"chinese": 5.5})
    assert cfg.rules.max_actions == 8 * 7 * 7
    assert cfg.rules.komi == {**DEFAULT_KOMI, "chinese": 5.5}
    assert (cfg.shard_size, cfg.seed, cfg.record_moves) == (10_000, 0, "none")
    assert (cfg.black, cfg.white, cfg.rules.repetition, cfg.rules.suicide) == (
        Player(),
        Player(),
        "global_superko",
        "multi",
    )
    assert isinstance(cfg.virtual_rate, float)


def test_smallest_board_takes_the_default_komi(tmp_path):
    # the default komi (6.5 / 7.5) is more than the 4 points of a 2x2 board: still a komi
    assert load_config(write(tmp_path, "board_size = 2\ngames = 5\n")).rules.komi == DEFAULT_KOMI


def test_a_preset_with_overrides(tmp_path):
    cfg = load_config(
        write(tmp_path, "rules = 'japanese'\nboard_size = 9\ngames = 5\nsuicide = 'multi'\n")
    )
    assert cfg.rules == Rules.preset("japanese", 9, suicide="multi")
    assert (cfg.rules.repetition, cfg.rules.suicide) == ("basic_ko", "multi")
    assert config_from_dict(cfg.to_dict(), "manifest") == cfg  # resolved: no preset needed


def test_overrides_and_shards(tmp_path):
    cfg = load_config(
        write(tmp_path, "board_size = 5\ngames = 10\nshard_size = 4\nseed = 3\n"), games=11, seed=9
    )
    assert (cfg.games, cfg.seed, cfg.n_shards) == (11, 9, 3)
    assert [list(cfg.shard_range(i)) for i in range(3)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10]]


def test_frozen_and_roundtrip():
    cfg = RunConfig(name="x", games=5, rules=Rules(9), virtual_rate=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.games = 6
    assert config_from_dict(cfg.to_dict(), "manifest") == cfg
    with pytest.raises(OptionError, match="^games: must be in 1..281,474,976,710,656, got 0$"):
        dataclasses.replace(cfg, games=0)


@pytest.mark.parametrize(
    "text, key, words",
    [
        ("board_size = 5\ngames = 10\nboardsize = 5\n", "boardsize", "unknown key"),
        ("board_size = 5\ngames = '10'\n", "games", "must be an integer"),
        ("board_size = 5\ngames = 10.0\n", "games", "must be an integer"),
        ("board_size = 5\ngames = true\n", "games", "must be an integer"),
        ("board_size = 26\ngames = 10\n", "board_size", "2..25"),
        ("board_size = 5\ngames = 0\n", "games", "must be in 1.."),
        ("board_size = 5\ngames = 10\nvirtual_rate = 1.5\n", "virtual_rate", "0..1"),
        ("board_size = 5\ngames = 10\nvirtual_rate = 'high'\n", "virtual_rate", "must be a number"),
        ("board_size = 5\ngames = 10\nseed = -1\n", "seed", "must be in 0.."),
        ("board_size = 5\ngames = 10\nmax_actions = 0\n", "max_actions", "must be in 1.."),
        ("board_size = 5\ngames = 10\nshard_size = 0\n", "shard_size", "must be in 1.."),
        ("board_size = 5\ngames = 10\nrepetition = 'superko'\n", "repetition", "global_superko"),
        ("board_size = 5\ngames = 10\nsuicide = 'single'\n", "suicide", "must be one of"),
        (
            "board_size = 5\ngames = 10\npolicy_b = 'mcts'\n",
            "policy_b",
            "replaced by [players.black]",
        ),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'mcts9'\n",
            "players.black.kind",
            "one of",
        ),
        (
            "board_size = 5\ngames = 10\n[players.white]\nvisits = 9\n",
            "players.white.visits",
            "unknown",
        ),
        (
            "board_size = 5\ngames = 10\n[players.white]\nkind = 'mcts'\nvisits = 0\n",
            "players.white.visits",
            "must be in 1..",
        ),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'mcts'\nplay_for = 'jpd'\n",
            "players.black.play_for",
            "jpd_a",
        ),
        ("board_size = 5\ngames = 10\n[players.red]\nkind = 'random'\n", "players.red", "unknown"),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'gtp'\n",
            "players.black.command",
            "needs the command",
        ),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'gtp'\ncommand = 'a \"b'\n",
            "players.black.command",
            "cannot be split",
        ),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'gtp'\ncommand = ['x', 1]\n",
            "players.black.command",
            "list of strings",
        ),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'gtp'\ncommand = 'x'\n"
            "genmove_timeout = 0\n",
            "players.black.genmove_timeout",
            "must be in 0.1..",
        ),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'gtp'\ncommand = 'x'\n"
            "visits = 9\n",
            "players.black.visits",
            "unknown for kind 'gtp'",
        ),
        (
            "board_size = 5\ngames = 10\n[players.black]\nkind = 'gtp'\ncommand = 'x'\n"
            "name = 'a,b'\n",
            "players.black.name",
            "without",
        ),
        ("board_size = 5\ngames = 10\nplayers = 3\n", "players", "must be a table"),
        ("board_size = 5\ngames = 10\nrecord_moves = 'some'\n", "record_moves", "cycles"),
        ("board_size = 5\ngames = 10\nname = 'a b'\n", "name", "folder-safe"),
        ("board_size = 5\ngames = 10\n[komi]\nkorean = 6.5\n", "komi.korean", "unknown ruleset"),
        ("board_size = 5\ngames = 10\nrules = 'korean'\n", "rules", "must be one of jpd, "),
        ("board_size = 5\ngames = 10\ndead_stones = 'some'\n", "dead_stones", "all_alive"),
        (
            "board_size = 5\ngames = 10\n[komi]\njpd_a = '6.5'\n",
            "komi.jpd_a",
            "must be a finite number",
        ),
        ("board_size = 5\ngames = 10\n[komi]\njpd_a = nan\n", "komi.jpd_a", "finite number"),
        ("board_size = 5\ngames = 10\nkomi = 6.5\n", "komi", "table"),
        ("games = 10\n", "board_size", "missing"),
    ],
)
def test_config_errors_name_key_and_file(tmp_path, text, key, words):
    path = write(tmp_path, text)
    with pytest.raises(UserError) as err:
        load_config(path)
    msg = str(err.value)
    assert str(path) in msg and f"key '{key}'" in msg and words in msg, msg
    assert "\n" not in msg


def test_toml_syntax_and_missing_file(tmp_path):
    path = write(tmp_path, "board_size = 5\ngames = = 10\n")
    with pytest.raises(UserError, match=r"exp\.toml: TOML syntax error: .*line 2"):
        load_config(path)
    with pytest.raises(UserError, match="no such config file"):
        load_config(tmp_path / "nope.toml")


def test_override_errors_name_the_option(tmp_path):
    path = write(tmp_path, "board_size = 5\ngames = 10\n")
    with pytest.raises(UserError, match="option --games: key 'games'"):
        load_config(path, games=0)
    with pytest.raises(UserError, match="option --seed: key 'seed'"):
        load_config(path, seed=-5)


STRESS_CONFIGS = ("stress.toml",)  # jpdsim stress configs (sim.commands.stress)


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.toml")), ids=lambda p: p.name)
def test_shipped_configs_load(path):
    if path.name in STRESS_CONFIGS:
        runs = load_stress(path)
        assert len(runs) == 20 * len(corpus_names()) and all(r.setup for r in runs)
        assert sum(r.games for r in runs) >= 50_000 * 20 * len(corpus_names())
        return
    cfg = load_config(path)
    assert cfg.name == path.stem


def test_shipped_configs_exist():
    names = {p.name for p in CONFIGS.glob("*.toml")}
    assert {"quickstart.toml", "19x19.toml", "superko_stress.toml"} <= names
    stress = load_config(CONFIGS / "superko_stress.toml")
    assert (
        stress.virtual_rate > 0 and stress.record_moves == "cycles" and stress.rules.board_size <= 9
    )


def test_players_tables(tmp_path):
    text = (
        "board_size = 9\ngames = 4\n[players.black]\nkind = 'mcts'\nvisits = 200\n"
        "play_for = 'jpd_b'\n[players.white]\nkind = 'pattern'\n"
    )
    cfg = load_config(write(tmp_path, text))
    assert cfg.black == Player("mcts", visits=200, play_for="jpd_b")
    assert cfg.white == Player("pattern")
    assert cfg.black.name == (
        "mcts(visits=200,playout=pattern,play_for=jpd_b,resign_below=0,explore=0,rave=1000,"
        "prior=diamond,score_utility=0.3,prior_visits=60,tactics=True,doubt_passes=True,"
        "avoid_suicides=True)"
    )
    assert cfg.white.name == "pattern"
    assert cfg.to_dict()["players"] == {
        "black": {
            "kind": "mcts",
            "visits": 200,
            "playout": "pattern",
            "play_for": "jpd_b",
            "resign_below": 0.0,
            "explore": 0.0,
            "rave": 1000.0,
            "stop_early": False,
            "prior": "diamond",
            "score_utility": 0.3,
            "prior_visits": 60.0,
            "tactics": True,
            "doubt_passes": True,
            "avoid_suicides": True,
        },
        "white": {"kind": "pattern"},
    }
    assert config_from_dict(cfg.to_dict(), "again") == cfg
    short = load_config(
        write(tmp_path, "board_size = 9\ngames = 4\n[players]\nwhite = 'capture'\n")
    )
    assert (short.black, short.white) == (Player(), Player("capture"))


def test_gtp_player_tables(tmp_path):
    """A gtp player: its command split as a shell would, its name from the program by
    default, every game's moves stored unless the config says otherwise."""
    text = (
        "board_size = 9\ngames = 4\n[players.black]\nkind = 'gtp'\n"
        "command = 'gnugo --mode gtp --level 1'\nkomi_to_engine = 5.5\n"
    )
    cfg = load_config(write(tmp_path, text))
    assert cfg.engines and not load_config(write(tmp_path, "board_size = 5\ngames = 4\n")).engines
    assert cfg.black.command == ("gnugo", "--mode", "gtp", "--level", "1")
    assert cfg.black.name == (
        "gtp(name=gnugo,command=gnugo --mode gtp --level 1,genmove_timeout=30,"
        "komi_to_engine=5.5,play_for=jpd_a)"
    )
    assert cfg.record_moves == "all"
    assert cfg.to_dict()["players"]["black"]["command"] == [
        "gnugo",
        "--mode",
        "gtp",
        "--level",
        "1",
    ]
    assert config_from_dict(cfg.to_dict(), "again") == cfg
    listed = load_config(
        write(
            tmp_path,
            "board_size = 9\ngames = 4\nrecord_moves = 'none'\n[players.white]\nkind = 'gtp'\n"
            "name = 'gg'\ncommand = ['/opt/my engine/run', '-x']\n",
        )
    )
    assert listed.white.command == ("/opt/my engine/run", "-x") and listed.record_moves == "none"
    assert listed.white.name.startswith("gtp(name=gg,command='/opt/my engine/run' -x,")


def test_parameters_added_later_keep_older_runs_as_they_were(tmp_path, capsys):
    """A player's parameter added after runs were stored (``sim.config.player.LEGACY``: RAVE, the
    early stop, KataGo's sampled openings, the learned priors, the priors as virtual
    simulations, the tactics, the score utility, doubted passes) is left out of the name at
    the value that plays as before, so the rows of older runs keep their players' names; a
    stored config (a manifest) that lacks it plays with that value, a new config with the
    default; resuming an older run with a new config that differs there is refused, naming
    the key."""
    from analysis.load import load_runs
    from sim.cli import main as cli

    old = {"kind": "mcts", "visits": 16}
    stored = Player.from_table(old, stored=True)
    assert (stored.rave, stored.stop_early, stored.prior) == (0.0, False, "hand")
    assert Player.from_table(old).rave == Player().rave > 0 and not Player().stop_early
    plain = "mcts(visits=16,playout=pattern,play_for=jpd_a,resign_below=0,explore=1)"
    # before the night of 2026-12-04 (suicides: before 23:50 that night)
    evening = {"score_utility": 0, "doubt_passes": False, "avoid_suicides": False}
    first = {"visits": 16, "explore": 1, "prior_visits": 0, "tactics": False, **evening}  # PUCT
    assert Player("mcts", **first, rave=0, prior="hand").name == plain
    assert Player("mcts", **first, rave=300, prior="hand").name == plain[:-1] + ",rave=300)"
    stopping = Player("mcts", **first, rave=0, stop_early=True, prior="hand")
    assert stopping.name == plain[:-1] + ",stop_early=True)"
    assert Player("mcts", **first, rave=0, prior="learned").name == plain[:-1] + ",prior=learned)"
    assert Player("mcts", **first, rave=0).name == plain[:-1] + ",prior=diamond)"
    virtual = Player("mcts", visits=16, explore=1, rave=0, prior="hand", tactics=False, **evening)
    assert virtual.name == plain[:-1] + ",prior_visits=60)"
    assert Player("mcts", **{**first, "tactics": True}, rave=0, prior="hand").name == (
        plain[:-1] + ",tactics=True)"
    )
    doubting = Player("mcts", **{**first, "doubt_passes": True}, rave=0, prior="hand")
    assert doubting.name == plain[:-1] + ",doubt_passes=True)"
    avoiding = Player("mcts", **{**first, "avoid_suicides": True}, rave=0, prior="hand")
    assert avoiding.name == plain[:-1] + ",avoid_suicides=True)"
    text = (
        "board_size = 5\ngames = 2\nshard_size = 1\n[players.black]\nkind = 'mcts'\nvisits = 16\n"
        "explore = 1\n"
    )
    config, out = tmp_path / "c.toml", tmp_path / "run"
    legacy = (
        "stop_early = false\nprior = 'hand'\nprior_visits = 0\ntactics = false\n"
        "score_utility = 0\ndoubt_passes = false\navoid_suicides = false\n"
    )
    config.write_text(text + "rave = 0\n" + legacy)
    run = ["run", str(config), "--out", str(out), "--no-progress", "--workers", "1"]
    assert cli(run) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    legacy_keys = ("rave", "stop_early", "prior", "prior_visits", "tactics", "doubt_passes")
    for key in (*legacy_keys, "avoid_suicides"):
        del manifest["config"]["players"]["black"][key]
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert load_runs([out])["player_b"].astype(str).unique().tolist() == [plain]
    assert cli([*run, "--resume"]) == 0
    config.write_text(text + legacy)  # RAVE
    capsys.readouterr()
    assert cli([*run, "--resume"]) == 2
    assert "rave" in capsys.readouterr().err


def test_a_programs_games_keep_their_moves_unless_told_otherwise():
    """A run in which a program plays stores every move by default (its games replay only
    from them), whether the config comes from a file or is built in Python; a choice made
    explicitly is kept."""
    gtp = Player("gtp", command="gnugo --mode gtp")
    assert RunConfig("a", 2, Rules(9), black=gtp).record_moves == "all"
    assert RunConfig("b", 2, Rules(9)).record_moves == "none"
    assert RunConfig("c", 2, Rules(9), black=gtp, record_moves="cycles").record_moves == "cycles"
    table = {"board_size": 9, "games": 2, "players": {"white": gtp.to_dict()}}
    assert config_from_dict(table, "t", "t").record_moves == "all"
