"""The mcts player (``sim.players.mcts``): reproducible from (seed, game id), stronger than
the playout policies, stronger with more visits, resigning when told to, its tree reused
between moves, and its dead stones at a pause (dead_stones = "agree")."""

import dataclasses

import numpy as np
import pytest

from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.game import Game
from sim.engine.history import PASS
from sim.engine.outcome import outcome_row, row_margin
from sim.engine.state import BLACK, WHITE, new_state
from sim.play.selfplay import play_batch
from sim.players.expand import MIN_PRIOR
from sim.players.mcts import (
    EVEN_VISITS,
    SCORE_WEIGHT,
    _amaf,
    _select,
    best_edge,
    black_value,
    search,
)
from sim.players.params import kernel_parameters
from sim.players.stream import start_stream
from sim.players.tactics import liberties_after
from sim.players.tree import (
    ACT,
    CHILD,
    COUNT,
    FIRST,
    NUM,
    ROOT,
    advance,
    drop_trees,
    new_tree,
)
from sim.schema.coords import RESIGN
from sim.schema.tables import MAX_RESUMPTIONS, RAW_FIELDS, RULESETS
from tests.reference import RefGame

SMALL = Player("mcts", visits=64, playout="random")


def wins(columns, colour):
    return int((columns["winner_jpd_a"] == colour).sum())


def test_games_depend_on_seed_and_id_only():
    rules = Rules(5)
    whole, moves = play_batch(
        rules, seed=7, game_ids=np.arange(6), black=SMALL, white="pattern", record_moves=True
    )
    parts = [
        play_batch(rules, seed=7, game_ids=ids, black=SMALL, white="pattern", record_moves=True)
        for ids in ([4, 5], [0], [1, 2, 3])
    ]
    order = [4, 5, 0, 1, 2, 3]
    for name, values in whole.items():
        again = np.concatenate([cols[name] for cols, _ in parts])
        assert again.tolist() == values[order].tolist(), name
    assert [m.tolist() for _, ms in parts for m in ms] == [moves[i].tolist() for i in order]
    other, _ = play_batch(rules, seed=8, game_ids=np.arange(6), black=SMALL, white="pattern")
    assert other["actions"].tolist() != whole["actions"].tolist()


def test_an_exact_game_searches_on_keys_and_plays_the_same_games():
    """The search's copy of an exact game compares keys only (it logs no boards): the games
    are those of the hash-only mode (a copy that stayed exact wrote past its arrays)."""
    rules = Rules(5)
    runs = [
        play_batch(rules, seed=3, game_ids=np.arange(4), black=SMALL, white="pattern", exact=e)
        for e in (False, True)
    ]
    for name, values in runs[0][0].items():
        assert runs[1][0][name].tolist() == values.tolist(), name


@pytest.mark.slow
def test_search_beats_the_pattern_player_from_both_sides():
    rules = Rules(7)
    ids = np.arange(10)
    search = Player("mcts", visits=200, playout="random")
    as_black, _ = play_batch(rules, seed=1, game_ids=ids, black=search, white="pattern")
    as_white, _ = play_batch(rules, seed=1, game_ids=ids, black="pattern", white=search)
    assert wins(as_black, "B") >= 8 and wins(as_white, "W") >= 8
    assert wins(as_black, "B") + wins(as_white, "W") >= 17


@pytest.mark.slow
def test_search_beats_itself_without_rave():
    """At equal visits, RAVE (all moves as first, blended into the tree's values) wins most
    games against the plain search, from both sides, with the hand-set priors (the search it
    was measured on: with the learned ones docs/search.md, "Move priors: hand-set, learned,
    diamonds")."""
    rules, ids = Rules(7), np.arange(10)
    puct = {"visits": 100, "prior": "hand", "explore": 1, "prior_visits": 0}
    rave, plain = Player("mcts", **puct, rave=1000), Player("mcts", **puct, rave=0)
    as_black, _ = play_batch(rules, seed=4, game_ids=ids, black=rave, white=plain)
    as_white, _ = play_batch(rules, seed=4, game_ids=ids, black=plain, white=rave)
    assert wins(as_black, "B") + wins(as_white, "W") >= 14


def test_more_visits_play_stronger():
    rules = Rules(5)
    few, many = Player("mcts", visits=4, playout="random"), Player("mcts", visits=400)
    ids = np.arange(8)
    a, _ = play_batch(rules, seed=2, game_ids=ids, black=many, white=few)
    b, _ = play_batch(rules, seed=2, game_ids=ids, black=few, white=many)
    assert wins(a, "B") + wins(b, "W") >= 13


def test_a_lost_game_is_resigned():
    """White with komi -40 under the ruleset it plays for has lost before the first move: with
    resign_below it resigns at once, Black wins everywhere and no margin is computed."""
    rules = Rules(5, komi={"jpd_b": -40.0})
    white = Player("mcts", visits=64, play_for="jpd_b", resign_below=0.2)
    cols, moves = play_batch(
        rules, seed=3, game_ids=np.arange(3), black="random", white=white, record_moves=True
    )
    assert cols["ending"].tolist() == ["resign"] * 3
    assert all(m.tolist()[1:] == [RESIGN] for m in moves)
    for ruleset in ("jpd_a", "jpd_b", "chinese"):
        assert cols[f"winner_{ruleset}"].tolist() == ["B"] * 3
        assert np.isnan(cols[f"margin_{ruleset}"]).all()
    kept, _ = play_batch(
        rules,
        seed=3,
        game_ids=np.arange(3),
        black="random",
        white=Player("mcts", visits=64, play_for="jpd_b"),
    )
    assert "resign" not in kept["ending"].tolist()


def test_the_tree_follows_the_game():
    """``advance`` makes the child of the action taken the root, and drops a tree whose root
    has no such child."""
    rules = Rules(5)
    tree = new_tree(rules, 8, len(RAW_FIELDS))
    drop_trees(tree)
    assert tree.meta[:, ROOT].tolist() == [-1, -1]
    # a root (node 0) with two edges: a point whose child is node 1, and pass without a child
    tree.meta[0, ROOT] = 0
    tree.node[0, FIRST, 0], tree.node[0, COUNT, 0] = 0, 2
    tree.edge[0, ACT, :2] = [8, PASS]
    tree.edge[0, CHILD, :2] = [1, -1]
    advance(tree, 8)
    assert tree.meta[0, ROOT] == 1
    tree.meta[0, ROOT] = 0
    advance(tree, PASS)
    assert tree.meta[0, ROOT] == -1


def test_stopping_early_plays_the_full_searchs_move():
    """With ``stop_early`` a search ends once its most visited move cannot change in the
    simulations left: from the same random stream and a fresh tree it runs the first
    simulations of the full search, then plays the full search's move, in fewer simulations
    where one move stands out."""
    rules = Rules(7)
    _, moves = play_batch(rules, seed=6, game_ids=np.arange(4), record_moves=True)
    tree = new_tree(rules, 300, len(RAW_FIELDS), rave=True)
    sim, rng = new_state(rules, False), np.zeros(2, np.uint64)
    fewer = 0
    for i, game in enumerate(moves):
        g = Game(rules, exact=False)  # as the drivers that search keep it
        for k, action in enumerate(game.tolist()[1:-1]):
            g.play(action)
            if k % 3:
                continue
            found = {}
            for stop in (True, False):
                player = Player("mcts", visits=300, stop_early=stop)
                params = np.array(kernel_parameters(player, rules))
                start_stream(rng, i, k)
                drop_trees(tree)
                root = search(g.state, sim, tree, rng, params)
                t = g.to_move - BLACK
                e = best_edge(tree, t, root)
                first = tree.node[t, FIRST, root]
                used = tree.edge[t, NUM, first : first + tree.node[t, COUNT, root]].sum()
                found[stop] = (tree.edge[t, ACT, e], used)
            assert found[True][0] == found[False][0]
            assert found[False][1] == 300 and found[True][1] <= 300
            fewer += found[True][1] < 300
    assert fewer >= 5


def test_rave_backs_up_the_moves_each_side_played_first():
    """All moves as first: at each node of the descent, every edge whose action the node's
    mover played first from that step on (in the tree or the playout) gets the simulation's
    value, the mover's; a point the other side took first, a pass, or an earlier move do
    not count; the scratch board of first movers is left clean."""
    tree = new_tree(Rules(5), 8, len(RAW_FIELDS), rave=True)
    a, b, c, d = 8, 9, 10, 16  # bordered points of 5x5
    # node 0 (Black to move): a, b, c, pass; node 1 (White): b, d
    tree.node[0, FIRST, :2], tree.node[0, COUNT, :2] = [0, 4], [4, 2]
    tree.edge[0, ACT, :6] = [a, b, c, PASS, b, d]
    # the simulation: Black a (node 0), White d (node 1), then the playout: Black b, White c
    moves = [(a, BLACK, 0), (d, WHITE, 1), (b, BLACK, -1), (c, WHITE, -1)]
    tree.seq[:, :4] = np.array(moves).T
    _amaf(tree, 0, BLACK, 2, 4, 0.75)  # Black's value 0.75
    assert tree.amaf_n[0, :6].tolist() == [1, 1, 0, 0, 0, 1]
    assert tree.amaf_w[0, :6].tolist() == [0.75, 0.75, 0, 0, 0, 0.25]
    assert not tree.first.any()


def _score(n, w, prior, amaf_n, amaf_w, fpu, visits, explore, rave, k):
    """docs/rules.md §11's selection score of one edge, written out."""
    even = EVEN_VISITS if k > 0 else 0.0
    won = np.sqrt(prior) * k if prior >= MIN_PRIOR else 0.0
    n_all = n + even + won
    q = (w + even / 2 + won) / n_all if n_all > 0 else fpu
    if rave > 0 and amaf_n > 0:
        b = amaf_n / (amaf_n + n_all + n_all * amaf_n / rave)
        q = (1 - b) * q + b * amaf_w / amaf_n
    return q + explore * prior * np.sqrt(max(visits, 1)) / (1 + n)


def test_the_selection_counts_the_prior_as_virtual_simulations():
    """The edge taken is the one with the highest score of docs/rules.md §11: with
    ``prior_visits`` k > 0 its value counts EVEN_VISITS simulations at 1/2 and sqrt(P) k won
    ones (none below MIN_PRIOR), in Q and in RAVE's weight; with k = 0, PUCT's first-play
    urgency. Random nodes, each rule against the formula written out."""
    rng = np.random.default_rng(7)
    tree = new_tree(Rules(5), 8, len(RAW_FIELDS), rave=True)
    taken = set()
    for trial in range(400):
        count = int(rng.integers(2, 9))
        prior = rng.dirichlet(np.ones(count)).astype(np.float32)
        if trial % 3 == 0:  # priors either side of MIN_PRIOR (below: the even prior alone)
            prior = rng.choice([0.0009, 0.0011], count).astype(np.float32)
        n = rng.integers(0, 40, count) * (rng.random(count) < 0.7)
        w = n * rng.random(count)
        amaf_n = rng.integers(0, 80, count) * (rng.random(count) < 0.6)
        amaf_w = amaf_n * rng.random(count)
        explore, rave = rng.choice([0.0, 0.3, 1.0]), rng.choice([0.0, 50.0, 1000.0])
        k = rng.choice([0.0, 7.5, 60.0, 2000.0])
        tree.node[0, FIRST, 0], tree.node[0, COUNT, 0] = 0, count
        tree.edge[0, NUM, :count], tree.wsum[0, :count], tree.prior[0, :count] = n, w, prior
        tree.won[0, :count] = np.where(prior >= MIN_PRIOR, np.sqrt(prior).astype(float) * k, 0)
        tree.amaf_n[0, :count], tree.amaf_w[0, :count] = amaf_n, amaf_w
        fpu = w.sum() / n.sum() if n.sum() > 0 else 0.5
        scores = [
            _score(n[e], w[e], prior[e], amaf_n[e], amaf_w[e], fpu, n.sum(), explore, rave, k)
            for e in range(count)
        ]
        assert _select(tree, 0, 0, explore, rave, k) == int(np.argmax(scores)), trial
        taken.add((k > 0, int(np.argmax(scores)) == int(np.argmax(prior))))
    assert taken == {(False, False), (False, True), (True, False), (True, True)}


@pytest.mark.parametrize("doubt", [False, True])
@pytest.mark.parametrize("pending", [False, True])
def test_each_edge_gets_its_won_virtual_simulations_where_it_is_made(doubt, pending):
    """``expand`` gives each edge sqrt(P) k won virtual simulations, none where its prior P
    is below MIN_PRIOR (edges of both kinds among the root's of a search on 7x7), and with
    ``doubt_passes`` none to the pass and the virtual move of a root whose mover has not been
    offered a pause (``pending``: the opponent just passed)."""
    rules = Rules(7)
    _, moves = play_batch(rules, seed=6, game_ids=np.arange(1), record_moves=True)
    g = Game(rules, exact=False)
    for action in moves[0].tolist()[1:21]:
        g.play(action)
    if pending:
        g.play(PASS)
    tree = new_tree(rules, 200, len(RAW_FIELDS), rave=True)
    player = Player("mcts", visits=200, prior_visits=37.5, doubt_passes=doubt)
    params = np.array(kernel_parameters(player, rules))
    root = search(g.state, new_state(rules, False), tree, np.zeros(2, np.uint64), params)
    t = g.to_move - BLACK
    first, count = tree.node[t, FIRST, root], tree.node[t, COUNT, root]
    edges = slice(first, first + count)
    prior, won = tree.prior[t, edges], tree.won[t, edges]
    expected = np.where(prior < MIN_PRIOR, 0.0, np.sqrt(prior).astype(np.float64) * 37.5)
    given_up = tree.edge[t, ACT, edges] < 0  # pass and virtual
    assert given_up.sum() == 2 and (prior[given_up] >= MIN_PRIOR).all()
    assert (prior < MIN_PRIOR).any() and (prior >= MIN_PRIOR).any()
    if doubt and not pending:
        expected[given_up] = 0.0
    assert np.array_equal(won, expected)


def test_suicides_are_left_out_or_get_no_won_virtual_simulations():
    """With ``avoid_suicides`` (the default) a root has no edge that is a suicide (its chain
    left without a liberty: ``liberties_after``) and every other edge of the search without
    it; without it, with ``doubt_passes``, a suicide's edge has no won virtual simulations,
    every other real move its sqrt(P) k (roots of random 7x7 games late enough to hold
    suicides, under multi-stone suicide)."""
    rules = Rules(7, suicide="multi")
    _, moves = play_batch(rules, seed=11, game_ids=np.arange(6), record_moves=True)
    tree = new_tree(rules, 16, len(RAW_FIELDS), rave=True)
    avoiding = np.array(kernel_parameters(Player("mcts", visits=16), rules))
    keeping = np.array(kernel_parameters(Player("mcts", visits=16, avoid_suicides=False), rules))
    sim, suicides = new_state(rules, False), 0

    def root_edges(g, params):
        drop_trees(tree)
        root = search(g.state, sim, tree, np.zeros(2, np.uint64), params)
        t = g.to_move - BLACK
        first, count = tree.node[t, FIRST, root], tree.node[t, COUNT, root]
        edges = slice(first, first + count)
        return tree.edge[t, ACT, edges].copy(), tree.prior[t, edges].copy(), tree.won[t, edges]

    for actions in moves:
        g = Game(rules, exact=False)
        for k, action in enumerate(actions.tolist()[1:-1]):
            if g.play(action) is not None or k < 40 or k % 5 or g.ending:
                continue
            c = g.to_move
            kept, prior, won = root_edges(g, keeping)
            suicide = np.array([a >= 0 and liberties_after(g.state, a, c)[0] == 0 for a in kept])
            counted = (kept >= 0) & (prior >= MIN_PRIOR)
            suicides += (suicide & counted).sum()
            expected = np.where(suicide, 0.0, np.sqrt(prior).astype(np.float64) * 60.0)
            assert np.array_equal(won[counted], expected[counted])
            left, _, _ = root_edges(g, avoiding)
            assert left.tolist() == kept[~suicide].tolist()
    assert suicides >= 3


def test_rave_is_reproducible_and_changes_the_search():
    """RAVE's statistics and its record of a simulation only exist for a player that uses
    them; its games depend on (seed, game id) alone, and differ from the plain search's."""
    rules = Rules(5)
    rave = Player("mcts", visits=64, playout="random", rave=100)
    plain_tree = new_tree(rules, 8, len(RAW_FIELDS))
    assert plain_tree.amaf_n.shape == (2, 0) and plain_tree.seq.shape == (3, 0)
    ids = np.arange(4)
    one, m1 = play_batch(
        rules, seed=5, game_ids=ids, black=rave, white="pattern", record_moves=True
    )
    two, m2 = play_batch(
        rules, seed=5, game_ids=ids[::-1], black=rave, white="pattern", record_moves=True
    )
    assert [m.tolist() for m in m1] == [m.tolist() for m in m2[::-1]]
    plain, m3 = play_batch(
        rules, seed=5, game_ids=ids, black=SMALL, white="pattern", record_moves=True
    )
    assert [m.tolist() for m in m1] != [m.tolist() for m in m3]


def test_dead_stones_agreed_and_disputed_match_the_reference():
    """dead_stones = "agree": searching players name the same dead stones (removed, lost by
    their owner) or different ones (play resumes; the cap of 3 resumptions is in the replay
    cases).
    Against the pattern player, which names none, every list with a stone is a dispute. Each
    game is re-played in the reference, markers and dead stones included."""
    rules = Rules(7, dead_stones="agree")
    search = Player("mcts", visits=64, playout="random", play_for="jpd_b")
    # passes trusted: this search pauses more often with dead stones on the board
    trusting = dataclasses.replace(search, doubt_passes=False)
    agreed, _ = play_batch(rules, seed=3, game_ids=np.arange(40), black=trusting, white=trusting)
    assert (agreed["dead_b"] + agreed["dead_w"] > 0).sum() >= 3
    disputed, moves = play_batch(
        rules, seed=7, game_ids=np.arange(10), black=search, white="pattern", record_moves=True
    )
    assert 1 <= disputed["resumptions"].max() <= MAX_RESUMPTIONS
    assert (disputed["dead_b"] + disputed["dead_w"]).sum() == 0
    for j, actions in enumerate(moves):
        ref = RefGame(7, dead_stones="agree")
        for action in actions.tolist():
            assert ref.play(action) is None
        expected = ref.outcome()
        assert {k: disputed[k][j] for k in ("dead_b", "dead_w", "resumptions", "ending")} == {
            k: expected[k] for k in ("dead_b", "dead_w", "resumptions", "ending")
        }
        assert disputed["area_diff_jpd"][j] == expected["area_diff_jpd"]


def test_the_search_values_a_game_by_the_rows_margin():
    """``row_margin`` (the margin the search plays for, in the kernels) is the margin of the
    rows (``outcome.rulings``) under every ruleset, from the row the search writes (no literal
    count), on games that exercise each ruleset's
    point (virtual moves, passes first by either side)."""
    rules = Rules(6, komi={"jpd_a": 2.5, "jpd_b": -3.0, "jpd_tangsong": 0.5, "japanese": 4.0})
    _, moves = play_batch(
        rules, seed=4, game_ids=np.arange(40), virtual_rate=0.1, record_moves=True
    )
    row = np.zeros(len(RAW_FIELDS), np.int64)
    for actions in moves:
        game = Game(rules)
        for action in actions.tolist():
            game.play(action)
        outcome_row(game.state, row, False)  # as the search scores a playout
        expected = game.outcome()
        for r, ruleset in enumerate(RULESETS):
            assert row_margin(row, r, rules.komi[ruleset]) == expected[f"margin_{ruleset}"]


def test_the_score_utility_values_the_margin_around_its_centre():
    """With ``score_utility`` u the value of a finished game is ``(1 - u) v + u (1/2 +
    atan((margin - centre) / N) / π)``, ``v`` the value without it (win, plus the small
    score term); its margin is the row's; an unscored game (move cap) is worth 1/2 to
    both."""
    rules = Rules(5, komi={"chinese": 0.5})
    _, moves = play_batch(rules, seed=3, game_ids=np.arange(12), record_moves=True)
    row = np.zeros(len(RAW_FIELDS), np.int64)
    seen = set()
    for actions in moves:
        game = Game(rules)
        for action in actions.tolist():
            game.play(action)
        plain = kernel_parameters(Player("mcts", play_for="chinese", score_utility=0), rules)
        margin = game.outcome()["margin_chinese"]
        win = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
        v = (1 - SCORE_WEIGHT) * win + SCORE_WEIGHT * (0.5 + np.clip(margin / 25, -1, 1) / 2)
        value, m, scored = black_value(game.state, row, np.array(plain), 0.0)
        assert scored and m == margin and value == pytest.approx(v)
        for u in (0.3, 1.0):
            scoring = Player("mcts", play_for="chinese", score_utility=u)
            params = np.array(kernel_parameters(scoring, rules))
            for centre in (-7.0, 0.0, margin, 9.5):
                value, m, _ = black_value(game.state, row, params, centre)
                dynamic = 0.5 + np.arctan((margin - centre) / 5) / np.pi
                assert value == pytest.approx((1 - u) * v + u * dynamic)
                seen.add(np.sign(margin - centre))
    assert seen == {-1.0, 0.0, 1.0}
    capped = Game(Rules(5, max_actions=4))
    for _ in range(4):
        assert capped.play(capped.legal_moves()[0]) is None
    assert capped.outcome()["ending"] == "move_limit"
    params = np.array(kernel_parameters(Player("mcts", score_utility=0.5), Rules(5)))
    assert black_value(capped.state, row, params, 3.0) == (0.5, 0.0, False)


def test_a_player_with_the_score_utility_names_it_and_plays_reproducibly():
    """``score_utility`` 0 is the search before it (left out of the name); another weight,
    the default 0.3 among them, is in the name, read back, and its games are a function of
    (seed, game id)."""
    assert "score_utility" not in Player("mcts", score_utility=0).name
    assert ",score_utility=0.3," in Player("mcts").name
    scored = Player("mcts", visits=64, score_utility=0.25)
    assert ",score_utility=0.25," in scored.name
    assert Player.from_name(scored.name) == scored
    rules = Rules(5)
    whole, _ = play_batch(rules, seed=2, game_ids=np.arange(4), black=scored, white=SMALL)
    part, _ = play_batch(rules, seed=2, game_ids=np.arange(2, 4), black=scored, white=SMALL)
    assert whole["actions"][2:].tolist() == part["actions"].tolist()


def test_tactics_change_the_search_and_stay_reproducible():
    """With ``tactics`` (ladders read in the priors and playouts, nakade played in the
    playouts) the search's games differ from those without, and each depends on (seed, game
    id) alone."""
    rules, ids = Rules(7), np.arange(3)
    games = {}
    for tactics in (True, False):
        p = Player("mcts", visits=150, tactics=tactics)
        _, moves = play_batch(rules, seed=8, game_ids=ids, black=p, white=p, record_moves=True)
        _, again = play_batch(
            rules, seed=8, game_ids=ids[::-1], black=p, white=p, record_moves=True
        )
        assert [m.tolist() for m in moves] == [m.tolist() for m in again[::-1]]
        games[tactics] = [m.tolist() for m in moves]
    assert games[True] != games[False]
