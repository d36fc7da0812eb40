"""The learned move priors (sim/players/prior.py): each feature and the diamond's far points
against a Python count on positions of random and pattern games, the pattern classes'
symmetry, the diamonds' hash table, the weights files, and the search with learned priors
(reproducible, and playing its own moves: the engine against the reference covers its
legality under every rule, tests/test_engine_vs_reference.py)."""

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

from sim.cli import main as cli
from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.state import BLACK, INTERIOR, PENDING_PASS, ST, WHITE, new_state
from sim.play.selfplay import play_batch
from sim.players import prior
from sim.players import shapes as S
from sim.players.ladder import new_line
from tests.conftest import numba_game as Game
from tests.reference import place
from tests.test_ladder import python_ladder_caught
from tests.test_pattern_player import (
    after_move,
    chain,
    code_of,
    liberties,
    own_eye,
    python_bad_self_atari,
)

LEARN_PRIOR = Path(__file__).resolve().parents[1] / "tools" / "learn_prior.py"


def python_features(board, n, i, c, last, own):
    """``move_features`` from scratch: (code, capture, save, atari, self-atari, distance to
    the opponent's and own last moves, line), each feature by its name in ``FEATURES`` or
    None."""
    neighbours = [j for j in range(n * n) if abs(j // n - i // n) + abs(j % n - i % n) == 1]

    def biggest(colour, libs_wanted):
        sizes = [0]
        for j in neighbours:
            if board[j] == colour:
                group = chain(board, n, j)
                libs = liberties(board, n, group)
                if i in libs and len(libs) == libs_wanted:
                    sizes.append(len(group))
        return max(sizes)

    def named(base, size):
        return None if size == 0 else f"{base}_{'1' if size == 1 else 'many'}"

    captured = biggest(3 - c, 1)
    saved = biggest(c, 1)
    new, _ = after_move(board, n, i, c)
    if saved and len(liberties(new, n, chain(new, n, i))) < 2:
        saved = 0
    self_atari = python_bad_self_atari(board, n, i, c)
    runners = [
        j for j in neighbours if board[j] == c and liberties(board, n, chain(board, n, j)) == {i}
    ]
    if saved and python_ladder_caught(board, n, runners[0]):
        saved, self_atari = 0, True  # a save caught in a ladder anyway

    def near(base, point):
        if point is None:
            return None
        dy, dx = abs(point // n - i // n), abs(point % n - i % n)
        d = min(max(dx + dy + max(dx, dy), 2), 8)
        return f"{base}_{'far' if d == 8 else d}"

    y, x = divmod(i, n)
    line = 1 + min(y, x, n - 1 - y, n - 1 - x)
    return (
        code_of(board, n, i, BLACK),
        named("capture", captured),
        named("save", saved),
        named("atari", biggest(3 - c, 2)),
        "self_atari" if self_atari else None,
        near("last", last),
        near("own", own),
        f"line_{line}" if line <= 4 else None,
    )


def far_of(board, n, i):
    """The code of the points ``prior.FAR`` from ``i`` in board colours (edge 3)."""
    y, x = divmod(i, n)
    code = 0
    for k, (dy, dx) in enumerate(prior.FAR):
        a, b = y + dy, x + dx
        code |= (board[a * n + b] if 0 <= a < n and 0 <= b < n else 3) << (2 * k)
    return code


def test_features_against_a_python_count():
    n = 7
    board_, line = new_state(Rules(n), False), new_line()
    for policy in ("random", "pattern"):
        _, moves = play_batch(
            Rules(n), seed=5, game_ids=np.arange(6), black=policy, white=policy, record_moves=True
        )
        for actions in moves:
            game = Game(n)
            last = {BLACK: None, WHITE: None}
            for k, action in enumerate(actions.tolist()):
                if k % 5 == 3:
                    board = game.board()
                    for i in (i for i in range(n * n) if board[i] == 0):
                        for c in (BLACK, WHITE):
                            p = game.state.pt[INTERIOR, i]
                            got = prior.move_features(game.state, p, c, board_, line, True)
                            names = [None if f < 0 else prior.FEATURES[f] for f in got[1:]]
                            want = python_features(board, n, i, c, last[3 - c], last[c])
                            assert (int(got[0]), *names) == want, (k, i, c)
                        far = prior.far_code(game.state.pt, p, n + 2)
                        assert far == far_of(board, n, i), (k, i)
                if 0 <= action < n * n:
                    last[game.to_move] = action
                assert game.play(action) is None


def test_candidates_are_the_legal_moves_that_fill_no_own_eye():
    """``is_candidate``: the legal moves that fill no own eye; without ``suicides`` also none
    that the pure-Python reference (``tests.reference.place``) finds removing its own group
    (6x6 pattern and random games, under multi-stone suicide)."""
    n, suicides = 6, 0
    for black in ("pattern", "random"):
        _, moves = play_batch(
            Rules(n), seed=2, game_ids=np.arange(3), black=black, white=black,
            record_moves=True,
        )  # fmt: skip
        for actions in moves:
            game = Game(n)
            for action in actions.tolist():
                board, c = game.board(), game.to_move
                legal = set(game.legal_moves())
                want = {i for i in legal if not own_eye(board, n, i, c)}
                suicide = {i for i in want if place(n, board, i, c)[2] > 0}
                suicides += len(suicide)
                pending = game.state.tab[ST, PENDING_PASS]
                for searched, expected in ((True, want), (False, want - suicide)):
                    got = {
                        i
                        for i in range(n * n)
                        if board[i] == 0
                        and prior.is_candidate(
                            game.state, game.state.pt[INTERIOR, i], c, pending, searched
                        )
                    }
                    assert got == expected
                assert game.play(action) is None
    assert suicides >= 3


def test_pattern_classes_are_the_symmetries_of_the_square():
    canon = prior.canonical(np.arange(prior.CODES))
    rows = ("XO.", "X..", ".O.")
    codes = {canon[S.codes(s)[0]] for s in S._symmetries(rows)}
    assert len(codes) == 1
    assert len(set(canon.tolist())) < prior.CODES // 6  # about an eighth: few codes symmetric
    assert (canon <= np.arange(prior.CODES)).all()


def test_diamond_classes_are_the_symmetries_of_the_diamond():
    """A diamond drawn as rows, turned and mirrored, has one class; ``variants`` lists the
    8 turns of a code, its class the least of them."""
    rows = ("..X..", ".XO#.", "O...#", ".#..X", "..O..")  # the middle row 2, column 2

    def code(rows):
        values = {".": 0, "X": 1, "O": 2, "#": 3}
        return sum(values[rows[2 + r][2 + c]] << (2 * k) for k, (r, c) in enumerate(prior.DIAMOND))

    turns = [rows]
    for _ in range(3):
        turns.append(tuple("".join(turns[-1][4 - c][r] for c in range(5)) for r in range(5)))
    shapes = turns + [tuple(r[::-1] for r in s) for s in turns]
    codes = np.array([code(s) for s in shapes])
    assert len(set(codes.tolist())) == 8  # this diamond has no symmetry of its own
    assert set(prior.canonical(codes, prior.DIAMOND).tolist()) == {codes.min()}
    assert set(prior.variants(codes[:1], prior.DIAMOND)[:, 0].tolist()) == set(codes.tolist())


def test_diamond_table_finds_every_turn_for_both_movers_and_nothing_else():
    rng = np.random.default_rng(1)
    diamonds = np.unique(prior.canonical(rng.integers(0, 4**12, 300), prior.DIAMOND))
    weights = rng.normal(size=len(diamonds))
    keys, values = prior.diamond_table(diamonds, weights, prior.table_size(len(diamonds)))
    for d, w in zip(diamonds, weights):
        for turned in prior.variants([d], prior.DIAMOND)[:, 0]:
            assert prior.diamond_weight(keys[0], values[0], turned) == w
            swapped = S.colours_swapped(int(turned), len(prior.DIAMOND))
            assert prior.diamond_weight(keys[1], values[1], swapped) == w
    others = rng.integers(0, 4**12, 2000)
    others = others[~np.isin(prior.canonical(others, prior.DIAMOND), diamonds)]
    assert len(others) > 1000
    assert all(prior.diamond_weight(keys[0], values[0], c) == 0.0 for c in others)


def test_weights_read_in_board_colours_for_both_movers():
    for kind in prior.WEIGHTS:
        pattern, features, diamonds, weights = prior.load(kind)
        assert pattern.shape == (2, prior.CODES) and features.shape == (len(prior.FEATURES),)
        rng = np.random.default_rng(0)
        for code in rng.integers(0, prior.CODES, 200):
            assert pattern[1, code] == pattern[0, S.colours_swapped(int(code))]
        assert np.isfinite(pattern).all() and np.isfinite(features).all()
        assert (diamonds == prior.canonical(diamonds, prior.DIAMOND)).all()
        assert len(diamonds) == len(weights) and (len(diamonds) > 0) == (kind == "diamond")


def test_a_moves_weight_adds_its_diamonds():
    """``move_weight`` with the diamond prior's table is its weight without the table plus the
    weight of the move's diamond class (in the mover's colours), 0 for a class not learned."""
    n = 9
    pattern, features, diamonds, weights = prior.load("diamond")
    keys, values = prior.diamond_table(diamonds, weights, prior.table_size(len(diamonds)))
    none = np.full((2, 1), -1, np.int64), np.zeros((2, 1))
    board_, line = new_state(Rules(n), False), new_line()
    _, moves = play_batch(
        Rules(n), seed=4, game_ids=np.arange(2), black="pattern", white="pattern",
        record_moves=True,
    )  # fmt: skip
    found = 0
    for actions in moves:
        game = Game(n)
        for k, action in enumerate(actions.tolist()):
            if k % 7 == 2:
                board = game.board()
                for i in (i for i in range(n * n) if board[i] == 0):
                    p = game.state.pt[INTERIOR, i]
                    for c in (BLACK, WHITE):
                        args = (game.state, p, c, pattern, features)
                        with_table = prior.move_weight(*args, keys, values, board_, line, True)
                        plain = prior.move_weight(*args, *none, board_, line, True)
                        code = code_of(board, n, i, c) + prior.CODES * far_of(board, n, i)
                        if c == WHITE:  # far_of in board colours: the mover's own stones 1
                            code = code % prior.CODES + prior.CODES * S.colours_swapped(
                                code // prior.CODES, 4
                            )
                        cls = prior.canonical([code], prior.DIAMOND)[0]
                        j = np.searchsorted(diamonds, cls)
                        want = weights[j] if j < len(diamonds) and diamonds[j] == cls else 0.0
                        found += want != 0.0
                        assert with_table == plain + want, (k, i, c)
            assert game.play(action) is None
    assert found > 100


def test_the_search_with_learned_priors_is_reproducible_and_differs():
    rules = Rules(5)
    learned = Player("mcts", visits=40, prior="learned")
    runs = [
        play_batch(rules, seed=3, game_ids=ids, black=learned, white="pattern")[0]["actions"]
        for ids in (np.arange(4), np.arange(4))
    ]
    assert runs[0].tolist() == runs[1].tolist()
    hand = play_batch(
        rules,
        seed=3,
        game_ids=np.arange(4),
        black=Player("mcts", visits=40, prior="hand"),
        white="pattern",
    )[0]["actions"]
    assert hand.tolist() != runs[0].tolist()
    diamond = Player("mcts", visits=40, prior="diamond")
    again = [
        play_batch(rules, seed=3, game_ids=ids, black=diamond, white="pattern")[0]["actions"]
        for ids in (np.arange(4), np.arange(4))
    ]
    assert again[0].tolist() == again[1].tolist() != runs[0].tolist()


def test_learn_prior_fits_its_teacher_and_writes_weights_the_search_reads(
    tmp_path, monkeypatch, capsys
):
    """``tools/learn_prior.py --diamond`` on pattern self-play, every move stored: the prior it
    learns predicts the held-out games' moves better than a uniform choice, and its file holds
    diamond classes, as ``prior.load`` reads them."""
    config = tmp_path / "teacher.toml"
    config.write_text(
        'board_size = 7\ngames = 40\nshard_size = 20\nseed = 5\nrecord_moves = "all"\n'
        '[players]\nblack = "pattern"\nwhite = "pattern"\n'
    )
    assert cli(["run", str(config), "--workers", "1", "--out", str(tmp_path / "run")]) == 0
    spec = importlib.util.spec_from_file_location("learn_prior", LEARN_PRIOR)
    learn = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "learn_prior", learn)  # numba's cache finds it by name
    spec.loader.exec_module(learn)
    out = tmp_path / "weights.npz"
    learn.main([str(tmp_path / "run"), "--diamond", "2", "--steps", "200", "--out", str(out)])
    printed = capsys.readouterr().out
    top1 = {
        m[1]: float(m[2])
        for m in re.finditer(r"held out, +(\w[\w -]*?) prior: top-1 ([\d.]+)%", printed)
    }
    assert top1["learned"] > 3 * top1["uniform"] > 0, printed
    monkeypatch.setitem(prior.WEIGHTS, "diamond", out)
    prior.load.cache_clear()
    try:
        pattern, features, diamonds, weights = prior.load("diamond")
        assert len(diamonds) > 50 and (diamonds == prior.canonical(diamonds, prior.DIAMOND)).all()
        assert np.abs(weights).max() > 0.1 and np.isfinite(pattern).all()
    finally:
        prior.load.cache_clear()
