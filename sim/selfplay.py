"""Batched self-play: one compiled call plays many games and fills one raw outcome row each.

``play_batch`` is the engine's front door for the runner: rules and players in, named
outcome columns (and, if asked, every game's actions) out.
"""

import numpy as np
import pyarrow as pa
from numba import njit

from sim.coords import AGREE, RESUME, format_action
from sim.engine.check import CONSISTENT, check_consistency, describe
from sim.engine.history import apply_action, reset
from sim.engine.outcome import R_REP_BANS, columns, outcome_arrays, outcome_row
from sim.engine.pause import open_pause, settle
from sim.engine.state import ACTIONS, BLACK, ENDING, PLAIN, ST, TO_MOVE, new_state
from sim.player import Player
from sim.players.capture import capture_move
from sim.players.kofight import kofight_move
from sim.players.mcts import mcts_move
from sim.players.params import CAPTURE, K_KIND, KOFIGHT, MCTS, PATTERN, kernel_parameters
from sim.players.pattern import pattern_move
from sim.players.random import random_move
from sim.players.stream import start_stream
from sim.players.tree import advance, dead_list, drop_trees, new_tree
from sim.rules import Rules
from sim.schema import RAW_FIELDS

_MOVES_BUFFER = 1 << 20  # actions recorded by one kernel call (it returns before overflowing)


@njit(cache=True, _nrt=False, inline="always")
def player_action(g, s, tree, rng, params, virtual_rate):
    """The action (bordered point, PASS, VIRTUAL or RESIGN) and ``judge`` verdict of the
    player to move in ``g``, whose row of ``sim.players.params`` is ``params``; a searching
    player searches on ``s`` and ``tree``. Play it with ``apply_action``, then
    ``advance(tree, action)`` when a player searches. Inlined: as a call in ``play_games``'
    loop it cost the light playouts 30% (``bench/throughput.py``)."""
    kind = params[K_KIND]
    if kind == CAPTURE:
        return capture_move(g, rng, virtual_rate)
    if kind == PATTERN:
        return pattern_move(g, rng, virtual_rate)
    if kind == MCTS:
        return mcts_move(g, s, tree, rng, params)
    if kind == KOFIGHT:
        return kofight_move(g, rng, virtual_rate, params)
    return random_move(g, rng, virtual_rate)


@njit(cache=True, _nrt=False)
def play_games(
    g,
    seed,
    game_ids,
    players,
    virtual_rate,
    rows,
    moves,
    offsets,
    setups,
    first,
    rng,
    fault,
    s,
    tree,
):
    """Play ``game_ids``, game i from the setup ``setups[i % k]`` (k rows of N*N colours; a
    row of zeros is the empty board) with colour ``first[i % k]`` to move, colour c with the
    player ``players[c - 1]`` (a row of ``sim.players.params``; searches on the state ``s`` and
    the trees ``tree``); raw outcomes into ``rows``. If
    ``moves`` is not empty, every action goes there (sim.coords encoding), game j at
    ``moves[offsets[j]:offsets[j+1]]``; the call stops early, returning the number of
    games played, when ``moves`` might not hold the next game. If ``fault`` (three words) is
    not empty, the state is checked after every action (``check_consistency``); the first
    problem stops the call with (code, point, action number) in ``fault``. ``rng`` (two words)
    is a work array: the kernel allocates nothing, so no reference counting runs in its
    loop."""
    record = moves.size > 0
    check = fault.size > 0
    cap = g.tab.shape[1]  # > the longest game
    pos = offsets[0]
    searching = players[0, K_KIND] == MCTS or players[1, K_KIND] == MCTS
    for j in range(game_ids.size):
        if record and pos + cap > moves.size:
            return j
        k = game_ids[j] % setups.shape[0]
        reset(g, setups[k], first[k])
        start_stream(rng, seed, game_ids[j])
        drop_trees(tree)
        while g.tab[ST, ENDING] == 0:
            action, code = player_action(
                g, s, tree, rng, players[g.tab[ST, TO_MOVE] - 1], virtual_rate
            )
            apply_action(g, action, code)
            if searching:
                advance(tree, action)
            if record:
                moves[pos] = action if action < 0 else g.pt[PLAIN, action]
                pos += 1
            if g.tab[ST, ENDING] != 0 and open_pause(g):
                pos = _settle_pause(g, tree, players, moves, pos)
            if check:
                problem, point = check_consistency(g)
                if problem != CONSISTENT:
                    fault[0], fault[1], fault[2] = problem, point, g.tab[ST, ACTIONS]
                    return j
        outcome_row(g, rows[j], True)
        offsets[j + 1] = pos
    return game_ids.size


@njit(cache=True, _nrt=False)
def _settle_pause(g, tree, players, moves, pos):
    """dead_stones = "agree", at a pause: both players name their dead stones
    (``sim.players.tree.dead_list``); equal lists are agreed and removed, different ones
    resume play (``sim.engine.pause``). The settlement goes into ``moves`` (if not empty)
    from ``pos`` on; returns the position after it."""
    k = dead_list(g, tree, 0, players[0, K_KIND] == MCTS)
    agreed = k == dead_list(g, tree, 1, players[1, K_KIND] == MCTS)
    for i in range(k):
        agreed = agreed and tree.dead[0, i] == tree.dead[1, i]
    settled = AGREE if agreed else RESUME
    settle(g, settled)
    record = moves.size > 0
    if record:
        moves[pos] = settled
        pos += 1
    for i in range(k if agreed else 0):
        settle(g, tree.dead[0, i])
        if record:
            moves[pos] = g.pt[PLAIN, tree.dead[0, i]]
            pos += 1
    return pos


def play_batch(
    rules: Rules,
    *,
    seed,
    game_ids,
    black: Player | str = "random",
    white: Player | str = "random",
    virtual_rate=0.0,
    setups=(),
    record_moves=False,
    arrow=False,
    check=False,
    exact=False,
):
    """Play the games ``game_ids`` of a run under ``rules`` (``sim.rules.Rules``), ``black``
    against ``white`` (``sim.player.Player``s, or a kind for short), game i from
    ``setups[i % k]`` (``sim.setups.Setup``s; none: the empty board); each game depends only on
    ``seed``, its id and its setup. ``check``: a debug option, the engine state is
    checked after every action (``sim.engine.check``; an inconsistency raises RuntimeError).
    ``exact``: the repetition rule compares whole positions on a key match (docs/rules.md §10;
    runs compare keys only, ``bench/exact_vs_hash.py`` shows that it makes no difference).

    Returns (columns, moves): every outcome field of ``sim.schema`` plus ``repetition_bans``,
    ``engine_illegal`` and ``setup`` (the setup's name, None for the empty board) as numpy
    arrays (Arrow arrays with ``arrow``: what the runner writes), and None or one int16 action
    array per game."""
    if not isinstance(rules, Rules):
        raise TypeError(f"play_batch takes a sim.rules.Rules, not {type(rules).__name__}")
    black, white = (p if isinstance(p, Player) else Player(p) for p in (black, white))
    if "gtp" in (black.kind, white.kind):
        raise ValueError("gtp players play through sim.referee.play_refereed")
    if not 0.0 <= virtual_rate <= 1.0:
        raise ValueError(f"virtual_rate must be in [0, 1], not {virtual_rate}")
    size = rules.board_size
    players = np.array([kernel_parameters(p, rules) for p in (black, white)], np.float64)
    tree = new_tree(
        rules, max(p.visits if p.searches else 0 for p in (black, white)), len(RAW_FIELDS)
    )
    ids = np.ascontiguousarray(game_ids, dtype=np.int64)
    g, s = new_state(rules, exact), new_state(rules, False)
    rows = np.zeros((ids.size, len(RAW_FIELDS)), np.int64)
    offsets = np.zeros(ids.size + 1, np.int64)
    chunks = []
    done = 0
    starts, first = _starts(g, setups, size)
    rng = np.zeros(2, np.uint64)
    fault = np.zeros(3 if check else 0, np.int64)
    while done < ids.size:
        buffer = np.empty(max(_MOVES_BUFFER, 4 * g.tab.shape[1]) if record_moves else 0, np.int16)
        offsets[done] = 0
        played = play_games(
            g,
            np.uint64(seed),
            ids[done:],
            players,
            float(virtual_rate),
            rows[done:],
            buffer,
            offsets[done:],
            starts,
            first,
            rng,
            fault,
            s,
            tree,
        )
        if check and fault[0] != CONSISTENT:
            problem, point, action = fault
            raise RuntimeError(
                f"engine state inconsistent after action {action} of game "
                f"{ids[done + played]}: {describe(g, problem, point)}"
            )
        if record_moves:
            chunks += [buffer[offsets[j] : offsets[j + 1]] for j in range(done, done + played)]
        done += played
    names = np.array([x.name for x in setups] if setups else [None], object)[ids % len(first)]
    illegal = np.zeros(ids.size, np.int32)  # no engine here (``sim.referee``)
    return batch_columns(rows, rules, illegal, names, arrow), (chunks if record_moves else None)


def batch_columns(rows, rules, engine_illegal, setup_names, arrow):
    """The columns of a batch from its raw rows: every outcome field, ``repetition_bans``,
    ``engine_illegal`` and ``setup`` (numpy arrays, or Arrow arrays with ``arrow``)."""
    cols = (outcome_arrays if arrow else columns)(rows, rules)
    extra = {
        "repetition_bans": rows[:, R_REP_BANS].astype(np.int32),
        "engine_illegal": engine_illegal,
        "setup": setup_names,
    }
    for name, values in extra.items():
        cols[name] = pa.array(values, pa.string() if name == "setup" else None) if arrow else values
    return cols


def _starts(g, setups, size):
    """The kernel's form of ``setups``: (k x N*N colours, k first movers); ValueError names a
    setup that does not fit the board or has a group without liberty."""
    if not setups:
        return np.zeros((1, size * size), np.int8), np.array([BLACK], np.int64)
    starts = np.zeros((len(setups), size * size), np.int8)
    first = np.array([x.first for x in setups], np.int64)
    for k, x in enumerate(setups):
        if x.size != size:
            raise ValueError(f"setup {x.name} is a {x.size}x{x.size} position, not {size}x{size}")
        starts[k] = x.cells
        bad = reset(g, starts[k], first[k])
        if bad >= 0:
            raise ValueError(
                f"setup {x.name}: the stone at {format_action(bad, size)} has no liberty"
            )
    return starts, first
