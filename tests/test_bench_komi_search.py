"""bench/komi_search.py's model of a komi-aware player: games at a komi drawn from the shares
of the modelled komi nearest to it of the same kind."""

import functools
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import numpy as np

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "komi_search.py"
spec = importlib.util.spec_from_file_location("bench_komi_search", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def modelled(komis, wdl, points=49):
    """A model (``bench.model``) of Black's (wins, draws, losses) ``wdl`` at each komi: its
    games, each won by a point, drawn or lost by a point."""
    komi = np.repeat(np.repeat(komis, 3), np.ravel(wdl)).astype(np.float64)
    result = np.repeat(np.tile([0, 1, 2], len(komis)), np.ravel(wdl))
    return komi, result, komi + 1 - result, points


def test_a_komi_takes_the_nearest_modelled_komi_of_its_kind():
    # Black always wins at 8.5, always draws at 9, always loses at 9.5
    model = modelled([8.5, 9.0, 9.5], [[5, 0, 0], [0, 5, 0], [0, 0, 5]])
    rng = np.random.default_rng(0)
    komis, per = [6.5, 8.5, 9.0, 12.0, 9.5, 20.5], [3, 4, 5, 6, 7, 8]
    c, leads = bench.model_counts(model, komis, per, rng)
    # 6.5 -> 8.5 (the nearest half komi), 12 -> 9 (the only whole one), 20.5 -> 9.5
    assert c.tolist() == [[3, 0, 0], [4, 0, 0], [0, 5, 0], [0, 6, 0], [0, 0, 7], [0, 0, 8]]
    # a game's lead is the one played at the modelled komi, not at the komi asked for
    assert leads.tolist() == [9.5] * 7 + [9.0] * 11 + [8.5] * 15


def test_a_search_on_a_steep_model_finds_its_fair_komi():
    model = modelled([8.5, 9.0, 9.5], [[90, 0, 10], [20, 60, 20], [10, 0, 90]])
    play = functools.partial(bench.model_counts, model)
    for start in (9.0, None):
        games, last = bench.search_games(play, 0.25, np.random.default_rng(1), 49, 9.0, start, 70)
        assert last.met and 8.75 <= last.fair <= 9.25 and games % 70 == (0 if start else 40)


def test_a_search_without_a_start_goes_where_the_first_rounds_leads_place_it():
    """Komi-blind games lead by 25 (5x5 solved): from 7.5 the walk needs rounds at 10.5-17.5
    and 18.5-25 before it brackets; without a start the second round is at 24.5 and 25."""
    pool = np.full(1000, 25.0)
    play = functools.partial(bench.counts, pool)
    rounds = []

    def recording(komis, per, rng):
        rounds.append(tuple(komis))
        return play(komis, per, rng)

    bench.search_games(recording, 0.5, np.random.default_rng(4), 25, 7.5, None, 70)
    assert rounds[1] == (24.5, 25.0)  # 25.5 is past the board: the lead is at most 25
    rounds.clear()
    bench.search_games(recording, 0.5, np.random.default_rng(4), 25, 7.5, 7.5, 70)
    assert rounds[1] == (10.5, 11.5, 13.5, 17.5) and rounds[2][-1] == 25.0  # the board's end


def test_a_grid_of_half_komis_reads_the_crossing_past_the_whole_komi():
    # Black always wins at komi 8.5 or less and loses at 9.5 or more; at 9 it draws 60%, loses
    # 40%: the crossing is 8.5 + 0.5 * 0.5 / 0.7, where a line from 8.5 to 9.5 says 9
    wdl = [[50, 0, 0], [50, 0, 0], [0, 30, 20], [0, 0, 50], [0, 0, 50]]
    play = functools.partial(bench.model_counts, modelled([8.0, 8.5, 9.0, 9.5, 10.0], wdl))
    games, half = bench.grid_games(play, 9.0, 0.25, np.random.default_rng(2))
    assert games == 60 and half.fair == half.lo == half.hi == 9.0  # sure, and wrong
    games, both = bench.grid_games(play, 9.0, 0.25, np.random.default_rng(2), step=0.5)
    assert both.lo <= 8.5 + 0.5 * 0.5 / 0.7 <= both.hi and (both.hi - both.lo) / 2 <= 0.25


def test_a_grid_grows_by_its_games_at_a_time():
    wdl = [[90, 0, 10], [60, 0, 40], [20, 40, 40], [40, 0, 60], [10, 0, 90]]
    model = modelled([8.0, 8.5, 9.0, 9.5, 10.0], wdl)
    for grow, per_step in ((22, 22), (60, 55), (5, 11)):  # 11 komis: at least a game each
        steps = []

        def play(komis, per, rng, steps=steps):
            steps.append(sum(per))
            return bench.model_counts(model, komis, per, rng)

        games, _ = bench.grid_games(play, 9.0, 0.25, np.random.default_rng(3), 0.5, grow)
        assert set(steps) == {per_step} and games == per_step * len(steps)


def test_a_grid_played_once_is_judged_at_its_games_not_at_the_first_narrow_look(monkeypatch):
    # the half-widths of two trials' fits after each growth of 22 games: trial 0 is within
    # 0.25 only after 44 games, trial 1 from 66 on; looked at on the way, both stop
    half_widths = iter([1.0, 1.0, 0.1, 1.0, 1.0, 0.1, 1.0, 0.1, 1.0, 0.1])  # level by level
    monkeypatch.setattr(bench, "CAP", 110)

    def fit(komis, c):
        w = next(half_widths)
        return SimpleNamespace(fair=9.0, lo=9.0 - w, hi=9.0 + w)

    monkeypatch.setattr(bench, "fit", fit)

    def play(komis, per, rng):
        return np.array([[n, 0, 0] for n in per], np.int64), np.zeros(sum(per))

    out = bench.fixed_grid(play, 9.0, 0.25, None, 2, (0.5, 1.0), step=0.5, grow=22)
    assert out == {0.5: (44, 2), 1.0: None}  # never both at once: a sweep of any size misses
