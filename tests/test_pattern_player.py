"""The pattern player (docs/rules.md §11): each step of its priority order on a hand-made
position, the pattern table, the self-atari rule and its nakade exception against an
independent Python version, and whole games under every repetition mode and suicide option
in which every choice is checked."""

import itertools
from collections import Counter

import numpy as np
import pytest

from sim.config.rules import Rules
from sim.engine.state import BLACK, INTERIOR, LAST_POINT, PLAIN, ST, WHITE, slot
from sim.play.selfplay import play_batch
from sim.players import pattern as P
from sim.players import shapes as S
from sim.players.random import random_move
from sim.players.stream import start_stream
from sim.players.tactics import MANY, bad_self_atari, liberties_after
from sim.schema.coords import PASS, VIRTUAL, format_action, parse_action
from sim.schema.tables import REPETITIONS, SUICIDES
from tests.conftest import new_game
from tests.conftest import numba_game as Game


def rng(game_id=0):
    state = np.zeros(2, np.uint64)
    start_stream(state, 7, game_id)
    return state


def vertex(game, bordered):
    return format_action(int(game.state.pt[PLAIN, bordered]), game.size) if bordered >= 0 else None


def choices(diagram, moves, seeds=range(200)):
    """Counter of (vertex, step) chosen by the pattern player over ``seeds``."""
    out = Counter()
    for seed in seeds:
        game = new_game(Game, diagram=diagram, moves=moves)
        action, verdict, step = P.pattern_choice(game.state, rng(seed), 0.0)
        assert verdict == 0
        out[vertex(game, action) if action >= 0 else int(action), int(step)] += 1
    return out


# ---- an independent Python model of the board --------------------------------------------


def around_points(i, n):
    """The on-board orthogonal neighbours of the plain point ``i``."""
    y, x = divmod(i, n)
    return [(y + dy) * n + x + dx for dy, dx in ((-1, 0), (0, -1), (0, 1), (1, 0))
            if 0 <= y + dy < n and 0 <= x + dx < n]  # fmt: skip


def chain(board, n, i):
    seen, todo = {i}, [i]
    while todo:
        for j in around_points(todo.pop(), n):
            if board[j] == board[i] and j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def liberties(board, n, stones):
    return {j for s in stones for j in around_points(s, n) if board[j] == 0}


def after_move(board, n, i, c):
    """(board after ``c`` plays at ``i`` with its captures, stones captured); a suicide stays."""
    new = list(board)
    new[i] = c
    captured = 0
    for j in around_points(i, n):
        if new[j] == 3 - c:
            group = chain(new, n, j)
            if not liberties(new, n, group):
                captured += len(group)
                for s in group:
                    new[s] = 0
    return new, captured


def canonical(cells):
    """A polyomino up to rotations and reflections."""
    forms = []
    for sy, sx, swap in itertools.product((1, -1), (1, -1), (False, True)):
        pts = [((x, y) if swap else (y, x)) for y, x in cells]
        pts = [(sy * y, sx * x) for y, x in pts]
        my, mx = min(y for y, _ in pts), min(x for _, x in pts)
        forms.append(tuple(sorted((y - my, x - mx) for y, x in pts)))
    return min(forms)


KILLING_SHAPES = {
    canonical(shape)
    for shape in (
        [(0, 0), (0, 1)],  # two
        [(0, 0), (0, 1), (0, 2)],  # straight three
        [(0, 0), (0, 1), (1, 0)],  # bent three
        [(0, 0), (0, 1), (1, 0), (1, 1)],  # square four
        [(0, 0), (0, 1), (0, 2), (1, 1)],  # pyramid (T) four
        [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)],  # bulky five
        [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)],  # crossed five
    )
}


def python_bad_self_atari(board, n, i, c):
    """docs/rules.md §11, step 4, from scratch: a chain of 2+ stones left with fewer than two
    liberties, except one liberty, no capture, at most 5 stones, the liberty's neighbours all
    in the chain or the opponent's, and a killing shape."""
    new, captured = after_move(board, n, i, c)
    group = chain(new, n, i)
    libs = liberties(new, n, group)
    if len(group) < 2 or len(libs) >= 2:
        return False
    if not libs or captured or len(group) > 5:
        return True
    (lib,) = libs
    if any(j not in group and new[j] != 3 - c for j in around_points(lib, n)):
        return True
    return canonical([divmod(s, n) for s in group]) not in KILLING_SHAPES


def own_eye(board, n, i, c):
    """The random player's eye (docs/rules.md §11)."""
    y, x = divmod(i, n)
    if any(board[j] != c for j in around_points(i, n)):
        return False
    edge = len(around_points(i, n)) < 4
    diagonals = [(y + dy, x + dx) for dy in (-1, 1) for dx in (-1, 1)]
    enemies = sum(board[a * n + b] == 3 - c for a, b in diagonals if 0 <= a < n and 0 <= b < n)
    return enemies < (1 if edge else 2)


def code_of(board, n, i, c):
    """The 8-neighbourhood code of ``i`` seen by ``c`` (EMPTY 0, own 1, other 2, edge 3)."""
    y, x = divmod(i, n)
    code = 0
    for k, (dy, dx) in enumerate(S.AROUND):
        a, b = y + dy, x + dx
        if not (0 <= a < n and 0 <= b < n):
            v = 3
        else:
            v = board[a * n + b]
            v = 0 if v == 0 else (1 if v == c else 2)
        code |= v << (2 * k)
    return code


# ---- the pattern table --------------------------------------------------------------------


def code_from_rows(rows):
    """The code of a 3x3 neighbourhood written as rows (X the mover, O the other, # edge)."""
    value = {".": 0, "X": 1, "O": 2, "#": 3}
    return sum(value[rows[1 + dy][1 + dx]] << (2 * k) for k, (dy, dx) in enumerate(S.AROUND))


def test_table_holds_the_documented_patterns():
    assert S.TABLE.dtype == np.uint8 and S.TABLE.size == 4**8 // 8
    assert S.matches(code_from_rows(["XO.", "...", "..."]))  # non-cutting hane
    assert S.matches(code_from_rows(["OX.", "...", "..."]))  # ... colour swapped
    assert S.matches(code_from_rows(["...", "...", ".OX"]))  # ... turned upside down, mirrored
    assert S.matches(code_from_rows(["XO#", "O.X", "###"]))  # cut1 (peeped) in a corner
    assert S.matches(code_from_rows(["X.#", "O.#", "###"]))  # edge chase, in a corner
    assert not S.matches(code_from_rows(["...", "...", "..."]))
    assert not S.matches(code_from_rows(["XXX", "X.X", "XXX"]))
    assert not S.matches(code_from_rows(["X..", "...", "..O"]))  # stones far apart
    # one-sided (MoGo's marked stone): the thin hane for the mover only
    assert S.matches(code_from_rows(["XOO", "...", "..."]))
    assert not S.matches(code_from_rows(["OXX", "...", "..."]))


def test_table_is_closed_under_the_symmetries_of_the_square():
    match = np.unpackbits(S.TABLE, bitorder="little").astype(bool)
    codes = np.nonzero(match)[0]
    cells = [[(c >> (2 * k)) & 3 for k in range(8)] for c in codes]
    position = {d: k for k, d in enumerate(S.AROUND)}
    for transform in (lambda y, x: (x, -y), lambda y, x: (y, -x)):  # a quarter turn, a mirror
        perm = [position[transform(*d)] for d in S.AROUND]
        moved = [sum(v[k] << (2 * perm[k]) for k in range(8)) for v in cells]
        assert match[moved].all()


def test_table_never_matches_an_own_eye():
    """No neighbourhood that can occur on a board (the edge: none, a side or a corner) of a
    point that is the mover's eye (the random player's definition) is in the table."""
    edges = [
        {d for d in S.AROUND if (dy and d[0] == dy) or (dx and d[1] == dx)}
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
    ]  # fmt: skip (0: no edge that way)
    orthogonal = [S.AROUND.index(d) for d in ((-1, 0), (0, -1), (0, 1), (1, 0))]
    seen = 0
    for code in np.nonzero(np.unpackbits(S.TABLE, bitorder="little"))[0]:
        values = [(code >> (2 * k)) & 3 for k in range(8)]
        if {d for d, v in zip(S.AROUND, values) if v == 3} not in edges:
            continue  # cannot occur on a board
        seen += 1
        if all(values[k] in (1, 3) for k in orthogonal):  # then a false eye (e.g. sagari)
            enemies = sum(values[k] == 2 for k in range(8) if k not in orthogonal)
            assert enemies >= (1 if any(values[k] == 3 for k in orthogonal) else 2), code
    assert seen > 1000


# ---- each step on a hand-made position (Black to move) -------------------------------------

ATARI_AND_CAPTURE = """
    O.....
    ......
    ..OO..
    .OXX..
    ..O...
    ......
    """  # then B6 (White A6 in atari) and D2 (Black C3-D3 in atari)


def test_capture_beats_save():
    assert choices(ATARI_AND_CAPTURE, "B6 D2", range(20)) == {("A5", P.STEP_CAPTURE): 20}


def test_save_extends_a_chain_in_atari_to_two_liberties_or_more():
    position = ATARI_AND_CAPTURE.replace("O.....", "......", 1)
    assert choices(position, "F6 D2", range(20)) == {("E3", P.STEP_SAVE): 20}


NO_ESCAPE = """
    ......
    ......
    ......
    ......
    ..O.O.
    .OXX..
    """  # then D2: the Black pair C1-D1 in atari; E1 would leave it one liberty (F1)


def test_save_that_leaves_one_liberty_is_not_taken():
    chosen = choices(NO_ESCAPE, "F6 D2", range(300))
    assert {step for _, step in chosen} == {P.STEP_RANDOM}
    assert "E1" not in {v for v, _ in chosen}  # nor later: a self-atari of three stones


def test_save_by_capturing_a_neighbour_in_atari():
    position = NO_ESCAPE.replace("..O.O.", ".XO.O.")  # B2: White B1 in atari, liberty A1
    assert choices(position, "F6 D2", range(20)) == {("A1", P.STEP_SAVE): 20}


def test_save_takes_the_largest_chain_first():
    position = """
    ......
    ......
    ...O..
    OX.XXO
    .O.OO.
    ......
    """  # then White C3 puts B3 (one stone, liberty B4) and D3-E3 (two, E4) in atari
    assert choices(position, "F6 C3", range(20)) == {("E4", P.STEP_SAVE): 20}


HANE = """
    ......
    ......
    ..X...
    ......
    ......
    ......
    """  # then F1 and White D4 next to the Black C4


def test_pattern_move_is_drawn_among_the_matching_points_only():
    game = new_game(Game, diagram=HANE, moves="F1 D4")
    board, n = game.board(), game.size
    last = parse_action("D4", n)
    y, x = divmod(last, n)
    empty = [(y + dy) * n + x + dx for dy, dx in S.AROUND]
    matching = {format_action(i, n) for i in empty if S.matches(code_of(board, n, i, BLACK))}
    assert matching == {"C3", "C5", "D3", "D5"}  # hane, and the opponent's hane
    chosen = choices(HANE, "F1 D4", range(400))
    assert {v for v, _ in chosen} == matching
    assert {step for _, step in chosen} == {P.STEP_PATTERN}
    assert min(chosen.values()) > 60  # about uniform (100 each)


SEKI = """
    .X.O.
    XXXOO
    XXXOO
    XXXOO
    XXXOO
    """


def test_no_self_atari_in_seki_pass_instead():
    """Black's only move that is neither an own eye (A5) nor illegal (E5) is C5, a self-atari
    of 13 stones: the random player plays it, the pattern player passes."""
    for seed in range(20):
        game = new_game(Game, diagram=SEKI)
        assert vertex(game, random_move(game.state, rng(seed), 0.0)[0]) == "C5"
        game = new_game(Game, diagram=SEKI)
        assert P.pattern_choice(game.state, rng(seed), 0.0) == (PASS, 0, P.STEP_RANDOM)


@pytest.mark.parametrize(
    "diagram, move, bad",
    [
        # the square four of the corner: three stones in it, their liberty enclosed (nakade)
        ("OOO.. / XXO.. / ..O..", "B1", False),
        ("OOO.. / XXO.. / ..O..", "A1", False),
        # two stones whose one liberty (C1) opens on the empty D1: refused
        (".OO.. / OX.O. / .O...", "C2", True),
        # the square of 4 (liberty C1 enclosed): a killing shape
        ("OO... / XXO.. / X..O.", "B1", False),
        # the straight four along the edge: not a killing shape
        ("..... / OOOOO / XXX..", "D1", True),
        # the T of 4 (the pyramid): killing; the L of 4 in the same place: not
        ("..O.. / .OXOO / O.XX.", "B1", False),
        ("..O.. / .OXOO / O.XX.", "E1", True),
        # a suicide of two stones (legal under suicide = "multi"): refused
        ("..... / OO... / X.O..", "B1", True),
        # one stone in atari (a throw-in): never refused
        ("O.... / .O... / ..O..", "B1", False),
        # a big chain extending into atari: refused
        ("..... / OOOO. / XXXX.", "E1", True),
    ],
)
def test_self_atari_rule_and_its_nakade_exception(diagram, move, bad):
    rows = ["....."] * (5 - diagram.count("/") - 1) + diagram.replace(" ", "").split("/")
    game = new_game(Game, diagram="\n".join(rows))
    p = parse_action(move, 5)
    assert bool(bad_self_atari(game.state, game.state.pt[INTERIOR, p], BLACK)) == bad
    assert python_bad_self_atari(game.board(), 5, p, BLACK) == bad


def test_liberties_after_a_move_against_a_python_count():
    """liberties_after on every empty point, for both colours, of positions of random and
    pattern games, against a flood fill of the board after the move."""
    rules = Rules(7)
    for policy in ("random", "pattern"):
        _, moves = play_batch(
            rules, seed=3, game_ids=np.arange(6), black=policy, white=policy,
            record_moves=True,
        )  # fmt: skip
        for actions in moves:
            game = Game(7)
            for k, action in enumerate(actions.tolist()):
                assert game.play(action) is None
                if k % 7:
                    continue
                board = game.board()
                for i in (i for i in range(49) if board[i] == 0):
                    for c in (BLACK, WHITE):
                        new, captured = after_move(board, 7, i, c)
                        group = chain(new, 7, i)
                        libs = liberties(new, 7, group)
                        got = liberties_after(game.state, game.state.pt[INTERIOR, i], c)
                        count, lib, stones, captures = (int(v) for v in got)
                        assert count == min(len(libs), MANY)
                        if count < MANY:
                            assert stones == len(group) and captures == (captured > 0)
                        if count == 1:
                            assert game.state.pt[PLAIN, lib] == next(iter(libs))


# ---- whole games ----------------------------------------------------------------------------


def neighbours8(i, n):
    y, x = divmod(i, n)
    return {(y + dy) * n + x + dx for dy, dx in S.AROUND if 0 <= y + dy < n and 0 <= x + dx < n}


@pytest.mark.parametrize("suicide", SUICIDES)
@pytest.mark.parametrize("repetition", REPETITIONS)
def test_every_choice_of_whole_games(repetition, suicide):
    """Games of pattern against pattern and against random on 7x7 (with virtual moves): every
    action the player chooses is legal, and what each step promises holds: a capture captures,
    a save leaves the chain two liberties or more, a pattern move is around the opponent's last
    move and matches, no pattern or random move is an own eye or a refused self-atari (checked
    from scratch), and the player passes only when every legal move is one of those."""
    n = 7
    steps = Counter()
    for game_id in range(4):
        game = Game(n, repetition=repetition, suicide=suicide)
        stream = rng(game_id)
        while game.ending is None:
            c = game.to_move
            if c == WHITE and game_id % 2:
                action = random_move(game.state, stream, 0.05)[0]
                assert game.play(action if action < 0 else game.state.pt[PLAIN, action]) is None
                continue
            last = int(game.state.tab[ST, slot(LAST_POINT, 3 - c)])
            board = game.board()
            action, verdict, step = (int(v) for v in P.pattern_choice(game.state, stream, 0.05))
            steps[step] += 1
            plain = action if action < 0 else int(game.state.pt[PLAIN, action])
            legal = set(game.legal_moves())
            assert game.play(plain) is None
            if plain == VIRTUAL:
                assert step == P.STEP_VIRTUAL
                continue
            if plain == PASS:
                assert step == P.STEP_RANDOM
                assert all(
                    own_eye(board, n, i, c) or python_bad_self_atari(board, n, i, c) for i in legal
                )
                continue
            assert plain in legal
            new, captured = after_move(board, n, plain, c)
            libs = liberties(new, n, chain(new, n, plain))
            if step == P.STEP_CAPTURE:
                assert captured > 0
            elif step == P.STEP_SAVE:
                assert captured > 0 or len(libs) >= 2
            else:
                assert not own_eye(board, n, plain, c)
                assert not python_bad_self_atari(board, n, plain, c)
                if step == P.STEP_PATTERN:
                    assert plain in neighbours8(int(game.state.pt[PLAIN, last]), n)
                    assert S.matches(code_of(board, n, plain, c))
    assert steps[P.STEP_PATTERN] > 0 and steps[P.STEP_RANDOM] > 0


def test_same_seed_and_id_same_game():
    rules = Rules(9, "situational_superko", "none")
    kwargs = dict(black="pattern", white="random", virtual_rate=0.02, record_moves=True)
    cols, moves = play_batch(rules, seed=11, game_ids=np.arange(12), **kwargs)
    again, moves_again = play_batch(rules, seed=11, game_ids=np.arange(12), **kwargs)
    alone, moves_alone = play_batch(rules, seed=11, game_ids=np.array([7, 3]), **kwargs)
    assert all((cols[k] == again[k]).all() for k in cols)
    assert all((a == b).all() for a, b in zip(moves, moves_again))
    assert (moves_alone[0] == moves[7]).all() and (moves_alone[1] == moves[3]).all()
    other, _ = play_batch(rules, seed=12, game_ids=np.arange(12), **kwargs)
    assert any((cols[k] != other[k]).any() for k in cols)
