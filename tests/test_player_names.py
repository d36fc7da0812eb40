"""A player's canonical name (``Player.name``, what rows record) read back by
``Player.from_name``: the exact inverse, for every kind, and one clear error for a string that
is no player's name or the name of more than one."""

import pytest

from sim.config.player import LEGACY, Player
from sim.options import OptionError
from sim.schema.tables import PLAYERS

#: A command with what a shell quotes, and the characters of the name's own syntax.
ODD_COMMAND = ["/opt/my engine/run", "--mode=gtp,fast", "it's", '"q"', "(a)", "x)", "b,visits=3"]

SAMPLES = [
    Player(),
    Player("capture"),
    Player("pattern"),
    Player("mcts"),
    Player("mcts", visits=16, rave=0),  # a LEGACY value: left out of the name
    Player(
        "mcts",
        visits=7,
        playout="random",
        play_for="chinese",
        resign_below=0.125,
        explore=0.3,
        rave=2.5,
        stop_early=True,
        prior="learned",
        score_utility=0.35,
        prior_visits=12.5,
    ),
    Player("mcts", visits=16, explore=1, prior_visits=0),  # the PUCT search: no prior_visits
    Player("mcts", visits=16, prior="learned"),  # the late night of 2026-12-04
    Player("mcts", visits=16, tactics=False),  # the search of the afternoon of 2026-12-04
    Player("mcts", visits=16, score_utility=0, doubt_passes=False, avoid_suicides=False),  # evening
    Player("mcts", visits=16, avoid_suicides=False),  # the night's
    Player("kofight"),
    Player("kofight", threat_rate=0.2, playout="random"),
    Player("gtp", command="gnugo --mode gtp --level 1"),
    Player(
        "gtp",
        command=ODD_COMMAND,
        label="odd engine",
        komi_to_engine=-3.5,
        genmove_timeout=0.5,
        play_for="jpd_b",
    ),
    Player("gtp", command=["a,b", "c"], label="ab", startup_timeout=5, command_timeout=2),
    Player("katago", command="katago analysis", model="/nets/b18.bin.gz"),
    Player(
        "katago",
        command=ODD_COMMAND,
        model="m,odd (1).gz",
        config="/c/a b.cfg",
        visits=2,
        sample_moves=30,
        in_flight=4,
        move_timeout=9,
    ),
]


def test_every_kind_has_samples():
    assert {p.kind for p in SAMPLES} == set(PLAYERS)


@pytest.mark.parametrize("player", SAMPLES, ids=lambda p: p.name)
def test_a_name_reads_back_as_its_player(player):
    back = Player.from_name(player.name)
    assert back.name == player.name
    not_named = ("startup_timeout", "command_timeout", "move_timeout", "in_flight")
    assert back == Player(**{**vars(player), **{k: getattr(Player(), k) for k in not_named}})


def test_a_legacy_parameter_left_out_takes_its_legacy_value():
    assert set(LEGACY) == {
        "rave",
        "stop_early",
        "sample_moves",
        "prior",
        "score_utility",
        "prior_visits",
        "tactics",
        "doubt_passes",
        "avoid_suicides",
    }
    plain = "mcts(visits=16,playout=pattern,play_for=jpd_a,resign_below=0,explore=1)"
    assert Player.from_name(plain).rave == 0.0 != Player("mcts").rave
    assert Player.from_name(plain).prior == "hand"
    assert Player.from_name(plain).score_utility == 0.0 != Player("mcts").score_utility
    assert Player.from_name(plain).prior_visits == 0.0 != Player("mcts").prior_visits
    assert not Player.from_name(plain).tactics and Player("mcts").tactics
    assert not Player.from_name(plain).doubt_passes and Player("mcts").doubt_passes
    assert not Player.from_name(plain).avoid_suicides and Player("mcts").avoid_suicides
    learned = Player("mcts", visits=16, prior="learned")
    assert learned.name.endswith(
        ",prior=learned,score_utility=0.3,prior_visits=60,tactics=True,doubt_passes=True,"
        "avoid_suicides=True)"
    )
    assert Player.from_name(learned.name) == learned
    katago = Player.from_name(Player("katago", command="k", model="m").name)
    assert katago.sample_moves == 0 and katago.visits == 1000 and katago.config is None


@pytest.mark.parametrize(
    "name, words",
    [
        ("alphago", "'alphago' is not KIND or KIND(KEY=VALUE,...) of a kind of random, "),
        ("random()", "that player is named 'random'"),
        ("mcts", "that player is named 'mcts(visits=1000,playout=pattern,"),
        ("mcts(visits=1000,play_for=jpd_a,playout=pattern)", "(play_for: must be one of jpd_a, "),
        ("mcts(strength=9)", "mcts's parameters are, in order, visits, playout, play_for, "),
        (
            "mcts(visits=0,playout=pattern,play_for=jpd_a,resign_below=0,explore=1)",
            "(visits: must be in 1..100,000, got 0)",
        ),
        (
            "mcts(visits=many,playout=pattern,play_for=jpd_a,resign_below=0,explore=1)",
            "(visits: cannot be read from 'many')",
        ),
        (
            "mcts(visits=016,playout=pattern,play_for=jpd_a,resign_below=0,explore=1)",
            "that player is named 'mcts(visits=16,",
        ),
        (
            "mcts(visits=16,playout=pattern,play_for=jpd_a,resign_below=0,explore=1,rave=0)",
            "that player is named 'mcts(visits=16,playout=pattern,play_for=jpd_a,resign_below=0,"
            "explore=1)'",
        ),
        (3, "3 is not KIND"),
    ],
)
def test_a_string_that_is_no_players_name_says_why(name, words):
    with pytest.raises(OptionError) as err:
        Player.from_name(name)
    assert err.value.key == "player" and words in err.value.reason, err.value.reason


def test_a_name_two_players_share_means_the_one_with_more_parameters():
    """A model file named ``m,config=c`` without a config, and the model ``m`` with the config
    ``c``, have one name: it is read as the second. Two readings with as many parameters (a
    command ``a,model=b`` with the model ``c``, the command ``a`` with the model
    ``b,model=c``) cannot be told apart."""
    odd = Player("katago", command="k", model="m,config=c")
    plain = Player("katago", command="k", model="m", config="c")
    assert odd.name == plain.name and Player.from_name(odd.name) == plain
    one = Player("katago", command=["a,model=b"], label="a", model="c")
    other = Player("katago", command=["a"], model="b,model=c")
    assert one.name == other.name
    with pytest.raises(OptionError, match="is the name of 2 players"):
        Player.from_name(one.name)


def test_a_programs_default_name_is_checked_as_a_given_one():
    """A program's name defaults to its file name, which the canonical string shows as it
    shows a given one: without , ( ) = (else the string would not read back)."""
    assert Player("gtp", command="/usr/games/gnugo --mode gtp").label == "gnugo"
    with pytest.raises(OptionError, match=r"^name: must be a string without , \( \) =, got 'a,b'"):
        Player("gtp", command=["/opt/a,b", "-x"])
    assert Player("gtp", command=["/opt/a,b"], label="ab").name.startswith("gtp(name=ab,")
