"""The mcts player (``sim.players.mcts``): reproducible from (seed, game id), stronger than
the playout policies, stronger with more visits, resigning when told to, its tree reused
between moves, and its dead stones at a pause (dead_stones = "agree")."""

import numpy as np

from sim.coords import RESIGN
from sim.engine.game import Game
from sim.engine.history import PASS
from sim.engine.outcome import outcome_row, row_margin
from sim.player import Player
from sim.players.tree import ACT, CHILD, COUNT, FIRST, ROOT, advance, drop_trees, new_tree
from sim.rules import Rules
from sim.schema import MAX_RESUMPTIONS, RAW_FIELDS, RULESETS
from sim.selfplay import play_batch
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


def test_search_beats_the_pattern_player_from_both_sides():
    rules = Rules(7)
    ids = np.arange(10)
    search = Player("mcts", visits=200, playout="random")
    as_black, _ = play_batch(rules, seed=1, game_ids=ids, black=search, white="pattern")
    as_white, _ = play_batch(rules, seed=1, game_ids=ids, black="pattern", white=search)
    assert wins(as_black, "B") >= 9 and wins(as_white, "W") >= 9


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


def test_dead_stones_agreed_and_disputed_match_the_reference():
    """dead_stones = "agree": searching players name the same dead stones (removed, lost by
    their owner) or different ones (play resumes; the cap of 3 resumptions is in the replay
    cases).
    Against the pattern player, which names none, every list with a stone is a dispute. Each
    game is re-played in the reference, markers and dead stones included."""
    rules = Rules(7, dead_stones="agree")
    search = Player("mcts", visits=64, playout="random", play_for="jpd_b")
    agreed, _ = play_batch(rules, seed=3, game_ids=np.arange(10), black=search, white=search)
    assert (agreed["dead_b"] + agreed["dead_w"] > 0).sum() >= 2
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
