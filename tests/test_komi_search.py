"""``sim.komi.search``: the rounds of a komi search, decided from the results before them."""

import json
import math
import shutil
import sys
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute
import pytest

from sim import cli
from sim.config.file import load_config
from sim.dataset.check import check_run
from sim.dataset.manifest import read_manifest, write_manifest
from sim.dataset.read import read_games
from sim.errors import UserError
from sim.komi.search import (
    MIN_ENCLOSING,
    REACH,
    SPREAD,
    KomiSearch,
    Round,
    next_round,
    placed,
)
from sim.options import OptionError
from sim.run import runner
from tests.test_katago import FAKE as FAKE_KATAGO
from tests.test_referee import FAKE as FAKE_GTP

SEARCH = KomiSearch("chinese", precision=0.25, max_games=20_000, round_games=200)
POINTS = 81  # a 9x9 board's range: -81..81


def results(komis, margins_of) -> np.ndarray:
    """Black's (wins, draws, losses) at each komi, of the games whose margins ``margins_of``
    gives for that komi."""
    out = []
    for k in komis:
        m = np.asarray(margins_of(k))
        out.append([(m > k).sum(), (m == k).sum(), (m < k).sum()])
    return np.array(out)


def test_the_first_round_spreads_around_the_guess_or_the_start():
    """Around the run's komi, one shard (a probe: the next round goes where its games place
    the answer); around a ``start``, a whole round; in the board's range."""
    (probe,) = SEARCH.started(7.3, POINTS, 50).rounds
    assert probe.komis == tuple(7.0 + d for d in SPREAD) and probe.games == 50
    start = KomiSearch("chinese", start=24.6, max_games=1000, round_games=100)
    (first,) = start.started(7.5, POINTS, 50).rounds
    assert first.komis == tuple(24.5 + d for d in SPREAD) and math.isnan(first.fair)
    assert first.games == 100
    (edge,) = start.started(7.5, 25, 50).rounds
    assert edge.komis == (22.5, 23.5, 24.0, 24.5, 25.0)


def test_the_leads_place_the_komis_within_half_a_point_of_their_medians_interval():
    """Games that all lead by 25 (5x5 under perfect play): the half points within half a point
    of 25 on the board (25.5 is past it); leads spread around 9 give the half points around
    the median's 95% interval, which is narrower than the leads' own spread."""
    assert placed([25.0] * 100, 25) == (24.5, 25.0)
    assert placed([25.0] * 100, 49) == (24.5, 25.0, 25.5)
    leads = np.round(np.random.default_rng(0).normal(9, 4, 400))
    komis = placed(leads, 49)
    x = np.sort(leads)
    lo, hi = x[200 - int(0.98 * 20) - 1], x[200 + int(0.98 * 20) + 1]
    assert komis[0] >= lo - 0.5 and komis[-1] <= hi + 0.5 and 8.5 in komis and 9.5 in komis
    assert np.diff(komis).tolist() == [0.5] * (len(komis) - 1) and komis[-1] - komis[0] < 4
    assert max(placed(np.arange(-25, 26.0), 25)) - min(placed(np.arange(-25, 26.0), 25)) <= 5


def test_without_a_start_the_first_rounds_leads_place_the_second():
    """Black wins every game of the first round by 25: with no ``start`` the second round goes
    to the komis its leads place (not 1-8 points past the end); with a start it walks; a
    later unbracketed round walks too."""
    komis = [k + 7.5 for k in SPREAD]
    c = results(komis, lambda k: [25] * 20)
    leads = [25.0] * 140
    first = KomiSearch("chinese", precision=0.5, max_games=600, round_games=140)
    first = first.started(7.5, 25, 140)
    r = next_round(first, komis, c, leads, 25)
    assert r.komis == (24.5, 25.0) and r.fair == math.inf and r.games == 140
    walk = replace(first, start=7.5)
    assert next_round(walk, komis, c, leads, 25).komis == (10.5, 11.5, 13.5, 17.5)
    later = replace(first, rounds=first.rounds * 2)
    assert next_round(later, komis, c, leads * 2, 25).komis[0] == 10.5
    assert next_round(first, komis, c, [], 25).komis[0] == 10.5  # no lead: no score


@pytest.mark.parametrize("lead, end, sign", [(30, 9.0, 1), (-30, 5.0, -1)])
def test_an_end_that_does_not_bracket_is_passed(lead, end, sign):
    """Black wins (loses) every game at every komi played: the next round goes past the
    highest (lowest) komi, 1 to 8 points further."""
    komis = [5.0, 7.0, 9.0]
    r = next_round(SEARCH, komis, results(komis, lambda k: [lead] * 50), (), POINTS)
    assert r.komis == tuple(end + sign * d for d in REACH)
    assert r.fair == sign * math.inf and not r.met


def test_a_bracketed_fit_plays_around_its_estimate_until_the_interval_is_narrow():
    """Margins spread around 9: first the two half points that enclose the estimate (two thirds
    of the games) and one on either side as far as the interval reaches; with many games
    there, the interval is narrow and the search stops."""
    rng = np.random.default_rng(0)
    komis = [7.0, 8.0, 9.5, 11.0]
    few = results(komis, lambda k: np.round(rng.normal(9, 4, 30)))
    r = next_round(SEARCH, komis, few, (), POINTS)
    assert not r.met and 7 <= r.fair <= 11
    low = math.floor(r.fair * 2) / 2
    reach = (r.komis[-1] - r.komis[0] - 0.5) / 2  # as far out as the interval reaches
    assert r.komis == (low - reach, low, low, low + 0.5, low + 0.5, low + 0.5 + reach)
    assert 0.5 <= reach <= min(max((r.hi - r.lo) / 2, 0.5), 4)
    many = [8.5, 9.0, 9.5]
    c = results(many, lambda k: np.round(rng.normal(9, 2, 4000)))
    done = next_round(SEARCH, many, c, (), POINTS)
    assert done.met and done.komis == () and (done.hi - done.lo) / 2 <= 0.25
    assert done.lo <= 9 <= done.hi


def test_the_search_does_not_stop_on_a_few_games_at_the_komis_around_its_estimate():
    """Perfect play's shares (Black wins every game below 9, draws every one at 9, loses every
    one above) give an interval of width 0 from any number of games: ten games at each of the
    komis enclosing the estimate are not enough to stop on, ``MIN_ENCLOSING`` are."""
    komis = [8.5, 9.0, 9.5]

    def counts(n):
        return np.array([[n, 0, 0], [0, n, 0], [0, 0, n]])

    few = next_round(SEARCH, komis, counts(10), (), POINTS)
    assert few.fair == few.lo == few.hi == 9.0 and not few.met and 9.0 in few.komis
    enough = next_round(SEARCH, komis, counts(MIN_ENCLOSING), (), POINTS)
    assert enough.fair == 9.0 and enough.met and enough.komis == ()


def test_at_the_boards_edge_the_komi_past_it_needs_no_games():
    """5x5 under perfect play: Black wins every game at 24.5 and draws every one at 25, the
    fair komi the board's 25 points; 25.5 is past the board (no game there can be drawn or
    won by Black), so ``MIN_ENCLOSING`` games at 25 are enough to stop on."""
    komis = [24.5, 25.0]
    few = next_round(SEARCH, komis, [[10, 0, 0], [0, 10, 0]], (), 25)
    assert few.fair == 25.0 and not few.met and few.komis == (24.5, 25.0, 25.0, 25.0, 25.0, 25.0)
    n = MIN_ENCLOSING
    enough = next_round(SEARCH, komis, [[n, 0, 0], [0, n, 0]], (), 25)
    assert enough.met and enough.komis == () and enough.fair == 25.0
    assert not next_round(SEARCH, komis, [[n, 0, 0], [0, n, 0]], (), 49).met


def test_the_search_stops_at_its_budget_and_says_the_precision_was_not_met():
    komis = [8.0, 10.0]
    c = results(komis, lambda k: [6, 12] * 10)  # half the games either way: an open interval
    small = KomiSearch("jpd_a", precision=0.25, max_games=100, round_games=20)
    played = replace(small, rounds=(Round((8.0, 10.0), 100),))  # its 100 games played
    assert next_round(small, komis, c, (), POINTS).komis  # with games to spare: a round
    r = next_round(played, komis, c, (), POINTS)
    assert r.komis == () and not r.met and math.isfinite(r.fair)


def test_a_round_is_a_function_of_the_results_before_it():
    komis = [8.0, 9.0, 10.0]
    c = np.array([[30, 0, 10], [12, 10, 18], [5, 0, 35]])
    assert next_round(SEARCH, komis, c, (), POINTS) == next_round(SEARCH, komis, c, (), POINTS)


def test_a_simulated_search_finds_the_fair_komi_to_its_precision():
    """Whole-point margins around 9 (sd 3), the first guess 7, no start: in 20 searches, each
    brackets 9 and stops with a half-width of at most 0.25 well within its budget, and the
    95% interval holds 9 in most (it stops when narrow: in 300 such searches it held 9 in
    89% of them, 92% from ``start = 7``)."""
    held = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        search = SEARCH.started(7.0, POINTS, 50)
        counts, leads, r = {}, [], search.rounds[0]
        while r.komis:
            per = np.bincount(np.arange(r.games) % len(r.komis), minlength=len(r.komis))
            for k, n in zip(r.komis, per):
                x = np.round(rng.normal(9, 3, n))
                counts[k] = counts.get(k, 0) + results([k], lambda k, x=x: x)[0]
                leads.extend(x)
            ks = sorted(counts)
            r = next_round(search, ks, [counts[k] for k in ks], leads, POINTS)
            search = replace(search, rounds=(*search.rounds, r))
        assert r.met and (r.hi - r.lo) / 2 <= 0.25 and search.games < SEARCH.max_games / 2
        held += r.lo <= 9 <= r.hi
    assert held >= 16


@pytest.mark.parametrize(
    "table, message",
    [
        ({"ruleset": "chinese", "values": [1]}, r"komi_search\.values: unknown"),
        ({"precision": 0.5}, r"komi_search\.ruleset: missing"),
        ({"ruleset": "go"}, r"komi_search\.ruleset"),
        ({"ruleset": "chinese", "precision": 0}, r"komi_search\.precision"),
        ({"ruleset": "chinese", "max_games": 100, "round_games": 200}, r"komi_search\.max_games"),
        ({"ruleset": "chinese", "start": 5000}, r"komi_search\.start"),
        ([1, 2], r"komi_search: must be a table"),
    ],
)
def test_a_bad_search_is_one_line_naming_its_key(table, message):
    with pytest.raises(OptionError, match=message):
        KomiSearch.from_table(table)


def test_a_search_reads_back_from_its_dict():
    s = KomiSearch("jpd_b", precision=0.5, max_games=3000, round_games=300, start=6.5)
    s = s.started(7.5, POINTS, 100)
    assert KomiSearch.from_table(s.to_dict(), stored=True) == s
    assert "start" not in KomiSearch("jpd_b").to_dict()
    with pytest.raises(OptionError, match=r"komi_search\.rounds: unknown"):  # a run's, not a user's
        KomiSearch.from_table(s.to_dict())
    old = s.to_dict()
    del old["rounds"][0]["games"]  # as jpdsim wrote a round before rounds had sizes
    with pytest.raises(OptionError, match=r"komi_search\.rounds: a round without 'games'"):
        KomiSearch.from_table(old, stored=True)


# --- a run with a komi search ----------------------------------------------------------------

SEARCH_RUN = """
board_size = 5
rules = "chinese"
shard_size = 70
komi_search = { ruleset = "chinese", precision = 1.5, max_games = 700, round_games = 140 }
komi = { chinese = -20.5 }
"""


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    """A komi search of random 5x5 games from a guess far from their fair komi (about 3: its
    first round does not bracket it, so its second is placed by the first's leads), played by
    one worker: (its folder, its rows)."""
    root = tmp_path_factory.mktemp("search")
    (root / "search.toml").write_text(SEARCH_RUN)
    result = runner.run(load_config(root / "search.toml"), root / "one", workers=1)
    assert result.state.complete and not result.failures
    return root, read_games(root / "one")


@pytest.mark.slow
def test_a_search_plays_rounds_until_its_interval_is_narrow(searched, capsys):
    """Every round's komis follow from the rows before it; the manifest keeps each round and
    the fit before it; the search ended, and ``jpdsim komi`` says how and at which komis."""
    root, table = searched
    cfg = check_run(root / "one").config
    search = cfg.komi_search
    assert search.ended and cfg.games == table.num_rows == search.games <= 700
    assert not math.isfinite(search.rounds[1].fair) and min(search.rounds[1].komis) > -15
    ids = table.column("game_id").to_numpy()
    assert (table.column("komi_chinese").to_numpy() == search.komi_of(ids)).all()
    for k in range(1, len(search.rounds)):  # each round: decided from the rows before it
        played = replace(search, rounds=search.rounds[:k])
        rows = table.filter(pa.compute.less(table.column("game_id"), played.games))
        winners = rows.column("winner_chinese").to_pylist()
        komis = rows.column("komi_chinese").to_numpy()
        values = sorted(set(komis[[w is not None for w in winners]]))
        counts = [
            [
                sum(1 for w, x in zip(winners, komis) if x == v and w == o)
                for o in ("B", "draw", "W")
            ]
            for v in values
        ]
        margins = rows.column("margin_chinese").to_numpy(zero_copy_only=False)
        leads = (margins + komis)[~np.isnan(margins)]
        again = next_round(played, values, counts, leads, 25)
        assert again.komis == search.rounds[k].komis
    stored = read_manifest(root / "one")["config"]["komi_search"]["rounds"]
    assert [r["komis"] for r in stored] == [list(r.komis) for r in search.rounds]
    assert cli.main(["komi", str(root / "one")]) == 0
    out = capsys.readouterr().out
    assert f"komi search of {root / 'one'} (chinese, 95% interval within ±1.5): " in out
    assert "games per komi: " in out


@pytest.mark.slow
def test_a_searchs_rows_do_not_depend_on_workers_or_a_resume(searched):
    """Two workers give the same rows; a search killed after its second round (its manifest
    with two rounds, the later shards gone) resumes to the same rows."""
    root, table = searched
    runner.run(load_config(root / "search.toml"), root / "two", workers=2)
    assert read_games(root / "two").equals(table)
    shutil.copytree(root / "one", root / "killed")
    manifest = read_manifest(root / "killed")
    search = manifest["config"]["komi_search"]
    search["rounds"] = search["rounds"][:2]
    games = sum(r["games"] for r in search["rounds"])
    manifest["config"]["games"] = manifest["games"] = games
    write_manifest(root / "killed", manifest)
    for part in sorted((root / "killed" / "games").iterdir())[games // 70 :]:
        part.unlink()
    with pytest.raises(UserError, match="its komi search has rounds still to play"):
        check_run(root / "killed").require_complete()
    runner.run(load_config(root / "search.toml"), root / "killed", workers=1, resume=True)
    assert read_games(root / "killed").equals(table)


_BIG = {"max_games = 700": "max_games = 100000000", "shard_size = 70": "shard_size = 14"}


@pytest.mark.parametrize(
    "changes, extra, message",
    [
        ({}, "games = 100\n", r"key 'games': a komi_search decides its games"),
        ({"shard_size = 70": "shard_size = 60"}, "", r"round_games': must be whole shards"),
        (
            {},
            'komi_sweep = { ruleset = "chinese", values = [6.5] }\n',
            r"a komi_sweep or a komi_search, not both",
        ),
        (
            {**_BIG, "round_games = 140": "round_games = 14"},
            "",
            r"komi_search.max_games': .* more than 1,000,000 shards",
        ),
        (
            {},
            '[players.black]\nkind = "gtp"\ncommand = "gnugo"\nkomi_to_engine = 7.5\n',
            r"komi_to_engine': a komi search tells every player",
        ),
    ],
)
def test_a_search_config_refuses_what_it_cannot_follow(tmp_path, changes, extra, message):
    """Games of its own, rounds of part shards, a sweep beside it, more shards than a run may
    have, a fixed komi told to a program: each one line naming the key."""
    text = SEARCH_RUN
    for old, new in changes.items():
        text = text.replace(old, new)
    (tmp_path / "c.toml").write_text(text + extra)
    with pytest.raises(UserError, match=message):
        load_config(tmp_path / "c.toml")


def test_a_search_decides_its_games_elsewhere_too(tmp_path):
    """--games, a stress config: refused in one line; the advice to complete a search has no
    --games."""
    from sim.commands.stress import stress_runs
    from sim.dataset.advice import resume_command

    (tmp_path / "c.toml").write_text(SEARCH_RUN)
    with pytest.raises(UserError, match=r"option --games: key 'games': a komi_search decides"):
        load_config(tmp_path / "c.toml", games=1000)
    with pytest.raises(UserError, match=r"key 'komi_search': a stress config plays fixed games"):
        stress_runs({"games": 10, "komi_search": {"ruleset": "chinese"}}, "s.toml")
    advice = resume_command("R", load_config(tmp_path / "c.toml"))
    assert advice == "`jpdsim run CONFIG --out R --seed 0 --resume`"


def test_a_search_without_any_result_ends():
    """No game had a result under the ruleset (every game hit the move cap): nothing to steer
    by, so the search ends rather than playing its first round again and again."""
    r = next_round(SEARCH, [], np.zeros((0, 3)), (), POINTS)
    assert r.komis == () and not r.met


def test_games_per_komi_count_what_komi_of_plays():
    s = KomiSearch("chinese", max_games=1000, round_games=70).started(7.5, POINTS, 35)
    s = replace(
        s,
        rounds=(*s.rounds, next_round(s, [5.5, 9.5], [[9, 0, 1], [1, 0, 9]], (), POINTS)),
    )
    for setups in (1, 3):
        komis, n = np.unique(s.komi_of(np.arange(s.games), setups), return_counts=True)
        assert s.games_per_komi(setups) == dict(zip(komis.tolist(), n.tolist()))


def test_a_round_katago_cannot_play_ends_the_search(monkeypatch):
    """KataGo takes komis in -150..150: a round that would go past ends the search there,
    saying why, and adds no games."""
    from sim.config.player import Player
    from sim.config.rules import Rules
    from sim.config.run import RunConfig
    from sim.run import search as run_search
    from sim.run.search import _unplayable

    kata = Player("katago", command=["katago"], model="net.bin.gz", play_for="chinese")
    search = KomiSearch("chinese", max_games=1000, round_games=100, start=145)
    cfg = RunConfig("k", 0, Rules(19), shard_size=100, black=kata, komi_search=search)
    assert _unplayable(cfg) is None
    far = cfg.with_round(Round((145.0, 149.0, 157.0)))
    assert "KataGo takes a whole or half komi in -150..150" in _unplayable(far)
    komis = np.array(cfg.komi_search.rounds[0].komis)  # Black wins every game: past 147
    won = (komis, np.tile([[20, 0, 0]], (len(komis), 1)), np.empty(0))
    monkeypatch.setattr(run_search, "results", lambda cfg, run_dir: won)
    ended = run_search.next_config(cfg, "unused")
    last = ended.komi_search.rounds[-1]
    assert last.komis == () and "-150..150" in last.stop and ended.games == cfg.games == 100


def _player(kind: str, tmp_path) -> str:
    """A ``[players.black]`` table of ``kind`` (the programs: the fakes of their tests)."""
    if kind == "gtp":
        return f"kind = 'gtp'\ncommand = {json.dumps([sys.executable, str(FAKE_GTP), 'pass'])}\n"
    if kind == "katago":
        (tmp_path / "net.bin.gz").write_bytes(b"not a network")
        command = json.dumps([sys.executable, str(FAKE_KATAGO), "play"])
        return f"kind = 'katago'\ncommand = {command}\nmodel = '{tmp_path / 'net.bin.gz'}'\n"
    return f"kind = '{kind}'\n" + ("visits = 16\n" if kind == "mcts" else "")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["random", "pattern", "mcts", "gtp", "katago"])
def test_every_player_kinds_first_round_places_the_second(kind, tmp_path):
    """Whatever plays Black against a program that passes (KataGo: against itself), a search
    with no start whose first round does not bracket the fair komi (Black fills the board:
    every game won by 25, or, passing too, lost by the komi) plays its second round at the
    komis that the first round's leads (from their rows) place, in the board's range."""
    passes = f"kind = 'gtp'\ncommand = {json.dumps([sys.executable, str(FAKE_GTP), 'pass'])}\n"
    white = _player(kind, tmp_path) if kind == "katago" else passes
    (tmp_path / "c.toml").write_text(
        "board_size = 5\nshard_size = 7\n"
        'komi_search = { ruleset = "chinese", precision = 0.5, max_games = 28, round_games = 14 }\n'
        f"[players.black]\n{_player(kind, tmp_path)}[players.white]\n{white}"
    )
    result = runner.run(load_config(tmp_path / "c.toml"), tmp_path / "run", workers=1)
    assert result.state.complete and not result.failures
    search = check_run(tmp_path / "run").config.komi_search
    rows = read_games(tmp_path / "run").slice(0, 7)  # the first round: one shard
    margins = rows.column("margin_chinese").to_numpy(zero_copy_only=False)
    leads = margins + rows.column("komi_chinese").to_numpy()
    assert not math.isfinite(search.rounds[1].fair) and not np.isnan(margins).any()
    assert search.rounds[1].komis == placed(leads, 25)
    if kind != "katago":
        assert search.rounds[1].komis == ((-0.5, 0.0, 0.5) if kind == "gtp" else (24.5, 25.0))
    assert search.rounds[-1].stop == "max_games reached" and search.games == 21


def test_a_start_the_board_cannot_reach_is_refused(tmp_path):
    (tmp_path / "c.toml").write_text(
        SEARCH_RUN.replace("round_games = 140", "round_games = 140, start = 1000")
    )
    with pytest.raises(
        UserError,
        match=r"komi_search.start': 1000 is past what a 5x5 board can "
        r"decide: a score difference lies in -25..25",
    ):
        load_config(tmp_path / "c.toml")


def test_a_search_with_no_result_says_so_everywhere(tmp_path, capsys):
    """Every game stopped by the move cap (``max_actions = 1``): the search ends after its
    first round, and its summary and ``jpdsim komi`` say why (not "max_games")."""
    (tmp_path / "c.toml").write_text("max_actions = 1\n" + SEARCH_RUN)
    out = tmp_path / "run"
    assert cli.main(["run", str(tmp_path / "c.toml"), "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert cli.main(["komi", str(out)]) == 0
    again = capsys.readouterr().out
    for text in (printed, again):
        assert "not met: no game with a result (70 games in 1 rounds; max_games 700)" in text
        assert "max_games reached" not in text
    assert "komi search ended (no game with a result)" in (out / "run.log").read_text()
