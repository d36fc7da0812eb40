"""Batched self-play: one compiled call plays many games and fills one raw outcome row each.

``play_batch`` is the engine's front door for the runner: rules and players in, named
outcome columns (and, if asked, every game's actions) out. ``play_rows`` plays the games and
returns the kernel's raw rows. The kernel is ``sim.play.batch``'s, compiled for what the players
need (``sim.config.pairing.kernel_variant``).
"""

import numpy as np
import pyarrow as pa

from sim.config.player import Player
from sim.config.rules import Rules
from sim.engine.check import CONSISTENT, describe
from sim.engine.history import reset
from sim.engine.outcome import R_REP_BANS, columns, outcome_arrays
from sim.engine.state import BLACK, new_state
from sim.play.batch import play_games
from sim.play.native import NativePlayers
from sim.schema.coords import format_action
from sim.schema.tables import RAW_FIELDS

_MOVES_BUFFER = 1 << 20  # actions recorded by one kernel call (it returns before overflowing)


def play_batch(rules: Rules, *, arrow=False, **games):
    """Play ``games`` (the keywords of ``play_rows``) under ``rules`` (``sim.config.rules.Rules``).
    Returns (columns, moves): every outcome field of ``sim.schema.tables`` plus ``repetition_bans``,
    ``engine_illegal`` and ``setup`` (the setup's name, None for the empty board) as numpy
    arrays (Arrow arrays with ``arrow``: what the runner writes), and None or one int16 action
    array per game."""
    rows, moves = play_rows(rules, **games)
    setups = games.get("setups", ())
    names = np.array([x.name for x in setups] if setups else [None], object)
    ids = np.asarray(games["game_ids"], np.int64)
    illegal = np.zeros(ids.size, np.int32)  # no engine here (``sim.play.referee``)
    return batch_columns(rows, rules, illegal, names[ids % len(names)], arrow), moves


def play_rows(
    rules: Rules,
    *,
    seed,
    game_ids,
    black: Player | str = "random",
    white: Player | str = "random",
    virtual_rate=0.0,
    setups=(),
    record_moves=False,
    check=False,
    exact=False,
):
    """Play the games ``game_ids`` of a run under ``rules``, ``black`` against ``white``
    (``sim.config.player.Player``s, or a kind for short), game i from ``setups[i % k]``
    (``sim.config.setups.Setup``s; none: the empty board); each game depends only on ``seed``, its
    id and its setup. ``check``: a debug option, the engine state is checked after every
    action (``sim.engine.check``; an inconsistency raises RuntimeError). ``exact``: the
    repetition rule compares whole positions on a key match (docs/rules.md §10; runs compare
    keys only, ``bench/exact_vs_hash.py`` shows that it makes no difference).

    Returns the games as the kernel leaves them: raw outcome rows (``sim.schema.tables.RAW_FIELDS``)
    and None or one int16 action array per game."""
    if not isinstance(rules, Rules):
        raise TypeError(f"the rules must be a sim.config.rules.Rules, not {type(rules).__name__}")
    black, white = (p if isinstance(p, Player) else Player(p) for p in (black, white))
    if black.is_program or white.is_program:
        raise ValueError("a program plays through sim.play.referee or sim.katago.driver")
    native = NativePlayers(rules, black, white, virtual_rate)
    params = None if native.variant == "light" else native.params
    size = rules.board_size
    ids = np.ascontiguousarray(game_ids, dtype=np.int64)
    g = new_state(rules, exact)
    rows = np.zeros((ids.size, len(RAW_FIELDS)), np.int64)
    offsets = np.zeros(ids.size + 1, np.int64)
    chunks = []
    done = 0
    starts, first = _starts(g, setups, size)
    fault = np.zeros(3, np.int64) if check else None
    while done < ids.size:
        buffer = np.empty(max(_MOVES_BUFFER, 4 * g.tab.shape[1]) if record_moves else 0, np.int16)
        offsets[done] = 0
        played = play_games(
            g,
            np.uint64(seed),
            ids[done:],
            params,
            native.virtual_rate,
            rows[done:],
            buffer,
            offsets[done:],
            starts,
            first,
            native.rng,
            fault,
            native.sim,
            native.tree,
            native.dead,
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
    return rows, (chunks if record_moves else None)


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
