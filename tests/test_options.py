"""The checks of option values (``sim.options``), the one error type they raise, and the value
types that check themselves with them: ``Rules`` (its komi read only), ``KomiSweep``,
``RunConfig``."""

import dataclasses
import math
import pickle

import pytest

from sim import options
from sim.config.player import Player
from sim.config.rules import MAX_SWEEP, KomiSweep, Rules
from sim.config.run import RunConfig
from sim.options import OptionError
from sim.schema.tables import DEFAULT_KOMI


def test_one_error_type_carries_the_key_and_the_reason():
    err = OptionError("komi.jpd_a", "must be a finite number, got inf")
    assert (err.key, err.reason) == ("komi.jpd_a", "must be a finite number, got inf")
    assert str(err) == "komi.jpd_a: must be a finite number, got inf"
    assert isinstance(err, ValueError)


def test_the_errors_a_worker_raises_reach_the_parent_whole():
    """A process pool or a Dask worker sends its error pickled: it must come back as raised
    (without ``__reduce__`` unpickling fails and the pool reports a broken process)."""
    from sim.katago.engine import FileFault

    for err in (
        OptionError("players.black.explore", "must be in 0..100, got 120"),
        FileFault("model", "no such file: x.bin.gz"),
    ):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err) and back.key == err.key


@pytest.mark.parametrize(
    "check, value, message",
    [
        (lambda v: options.integer("n", v, 1, 1_000_000), 0, "n: must be in 1..1,000,000, got 0"),
        (lambda v: options.integer("n", v, 1, 9), True, "n: must be an integer, got True"),
        (lambda v: options.integer("n", v, 1, 9), 5.0, "n: must be an integer, got 5.0"),
        (lambda v: options.number("t", v, 0.1, 3600), 0, "t: must be in 0.1..3,600, got 0"),
        (lambda v: options.number("k", v, -1000, 1000), math.nan, "k: must be in -1,000..1,000"),
        (lambda v: options.number("r", v, 0, 0.5), "1", "r: must be a number, got '1'"),
        (lambda v: options.number("r", v, 0, 0.5), False, "r: must be a number, got False"),
        (lambda v: options.number("k", v), math.inf, "k: must be a finite number, got inf"),
        (lambda v: options.number("k", v), "6.5", "k: must be a finite number, got '6.5'"),
        (lambda v: options.choice("c", v, ("a", "b")), "x", "c: must be one of a, b; got 'x'"),
        (lambda v: options.choice("c", v, ("a", "b")), 1, "c: must be one of a, b; got 1"),
        (lambda v: options.flag("f", v), 1, "f: must be true or false, got 1"),
        (lambda v: options.folder_name("name", v), "a b", "name: must be a folder-safe name"),
        (lambda v: options.folder_name("name", v), "x" * 101, "name: must be a folder-safe name"),
    ],
)
def test_a_bad_value_names_its_key_and_says_what_is_wrong(check, value, message):
    with pytest.raises(OptionError) as err:
        check(value)
    assert str(err.value).startswith(message), str(err.value)


def test_good_values_come_back_numbers_as_floats():
    assert options.integer("n", 7, 1, 9) == 7
    assert options.number("x", 1, 0, 1) == 1.0 and isinstance(options.number("x", 1, 0, 1), float)
    assert options.number("k", -1e300) == -1e300
    assert options.choice("c", "b", ("a", "b")) == "b"
    assert options.flag("f", False) is False
    assert options.folder_name("name", "run-1.a_b") == "run-1.a_b"


def test_the_rules_komi_is_read_only_and_the_rules_hash():
    rules = Rules(9, komi={"jpd_b": 0.5})
    with pytest.raises(TypeError):
        rules.komi["jpd_b"] = 1.0
    assert (
        rules.komi == {**DEFAULT_KOMI, "jpd_b": 0.5}
        and {**DEFAULT_KOMI, "jpd_b": 0.5} == rules.komi
    )
    assert repr(rules.komi) == repr({**DEFAULT_KOMI, "jpd_b": 0.5})
    assert rules.to_dict()["komi"] == {**DEFAULT_KOMI, "jpd_b": 0.5}
    same = Rules(9, komi={"jpd_b": 0.5})
    assert hash(same) == hash(rules) and len({rules, same, Rules(9)}) == 2
    assert pickle.loads(pickle.dumps(rules)) == rules
    assert rules.with_(komi={**rules.komi, "chinese": 1}).komi["chinese"] == 1.0


@pytest.mark.parametrize(
    "ruleset, values, key, reason",
    [
        ("korean", (7.5,), "komi_sweep.ruleset", "must be one of jpd_a, "),
        ("jpd_b", (), "komi_sweep.values", f"must be a list of 1..{MAX_SWEEP} komis"),
        ("jpd_b", tuple(range(MAX_SWEEP + 1)), "komi_sweep.values", "must be a list of 1.."),
        ("jpd_b", 7.5, "komi_sweep.values", "must be a list of 1.."),
        ("jpd_b", (7.5, math.inf), "komi_sweep.values", "every komi must be in -1,000..1,000"),
        ("jpd_b", (7.5, "8"), "komi_sweep.values", "every komi must be a number"),
        ("jpd_b", (7, 7.0), "komi_sweep.values", "7 is there twice"),
    ],
)
def test_a_komi_sweep_checks_itself(ruleset, values, key, reason):
    with pytest.raises(OptionError) as err:
        KomiSweep(ruleset, values)
    assert err.value.key == key and err.value.reason.startswith(reason), str(err.value)


def test_a_komi_sweep_keeps_its_values_as_floats():
    sweep = KomiSweep("jpd_b", [6, 7.5])
    assert sweep.values == (6.0, 7.5) and all(isinstance(v, float) for v in sweep.values)
    assert KomiSweep.from_table(sweep.to_dict()) == sweep
    assert len(KomiSweep("jpd_b", tuple(range(MAX_SWEEP))).values) == MAX_SWEEP


@pytest.mark.parametrize(
    "changes, key, reason",
    [
        ({"name": "a/b"}, "name", "must be a folder-safe name"),
        ({"games": 0}, "games", "must be in 1..281,474,976,710,656, got 0"),
        ({"games": 10**9, "shard_size": 1}, "games", "1,000,000,000 games make"),
        ({"seed": -1}, "seed", "must be in 0..9,223,372,036,854,775,807"),
        ({"virtual_rate": 2}, "virtual_rate", "must be in 0..1, got 2"),
        ({"record_moves": "some"}, "record_moves", "must be one of none, cycles, all"),
        ({"black": "random"}, "players.black", "must be a sim.config.player.Player"),
        ({"rules": {"board_size": 9}}, "rules", "must be a sim.config.rules.Rules"),
        (
            {"komi_sweep": {"ruleset": "jpd_b"}},
            "komi_sweep",
            "must be a sim.config.rules.KomiSweep",
        ),
        (
            {
                "komi_sweep": KomiSweep("jpd_b", (7.5,)),
                "white": Player("gtp", command="g", komi_to_engine=7),
            },
            "players.white.komi_to_engine",
            "a komi sweep tells every player",
        ),
    ],
)
def test_a_run_config_checks_itself(changes, key, reason):
    cfg = RunConfig("x", 5, Rules(9))
    with pytest.raises(OptionError) as err:
        dataclasses.replace(cfg, **changes)
    assert err.value.key == key and err.value.reason.startswith(reason), str(err.value)


def test_a_run_config_resolves_its_values():
    cfg = RunConfig("x", 5, Rules(9), virtual_rate=1)
    assert cfg.virtual_rate == 1.0 and isinstance(cfg.virtual_rate, float)
    assert cfg.record_moves == "none"
    assert RunConfig("x", 5, Rules(9), black=Player("gtp", command="g")).record_moves == "all"
