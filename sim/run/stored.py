"""Re-playing a stored game from its id alone (``jpdsim replay --run RUN_DIR --game GAME_ID``;
``jpdsim sgf`` takes the re-played actions of a game whose moves were not stored).

The run's config comes from its ``manifest.json``; ``sim.run.shard.play_table`` plays the one
game id, and every column of the stored row (and the stored action sequence, when the run
recorded this game's moves) is compared with the new result. Since a game depends only on
(seed, game id), any difference means the engine changed (or the file was altered) since the
run was written. A game a program (gtp, katago) played is judged from its stored moves by the rules
alone unless the command line names the program's command (``replay_loaded``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from sim.dataset.check import RunState
from sim.dataset.read import load_game
from sim.dataset.write import games_table
from sim.errors import UserError
from sim.options import OptionError
from sim.run.shard import play_table
from sim.schema.tables import GAME_SCHEMA, RAW_FIELDS


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def replay_loaded(state: RunState, row: dict, stored_actions, commands: dict | None = None):
    """Re-play the game of ``row``, loaded with ``load_game``: (its re-played actions, the
    comparison ``{"game_id", "matches", "differences"}``); differences maps a column to
    ``{"stored": x, "replayed": y}``; the key ``action_list`` (when the run stored this game's
    moves) gives both lengths and the index of the first differing action.

    A game a program played (gtp, katago) is re-played with the program only when ``commands``
    (from ``--engine NAME=COMMAND``) names the command of each program by its name: the
    command a run folder names is never started. Otherwise its stored moves are judged by the rules
    alone (``_judged``), and the comparison says so (``engine_rerun``,
    ``note``)."""
    cfg, game_id = state.config, row["game_id"]
    commands = commands or {}
    gtp = {c: p for c, p in (("black", cfg.black), ("white", cfg.white)) if p.is_program}
    names = sorted({p.label for p in gtp.values()})
    kinds = sorted({p.kind for p in gtp.values()}) or ["gtp"]
    for name in commands:
        if name not in names:
            raise UserError(
                f"--engine {name}=...: {state.run_dir} has no {' or '.join(kinds)} player named "
                f"{name!r} (its {' and '.join(kinds)} players: {', '.join(names) or 'none'})"
            )
    ids = np.array([game_id])
    extra = {}
    if gtp and not set(names) <= set(commands):
        got = stored_actions
        table, extra = _judged(state, row, stored_actions, names)
    else:
        players = {}
        for c, p in gtp.items():
            try:
                players[c] = replace(p, command=commands[p.label])
            except OptionError as err:
                raise UserError(f"--engine {p.label}=...: {err}") from None
        table, moves = play_table(cfg, ids, True, players)
        got = [int(a) for a in moves[0]]
        extra = {"engine_rerun": True} if gtp else {}
    replayed = row if table is None else table.to_pylist()[0]
    differences = {
        name: {"stored": row[name], "replayed": replayed[name]}
        for name in GAME_SCHEMA.names
        if not _same(row[name], replayed[name])
    }
    if stored_actions is not None and got != stored_actions:
        first = next(
            (i for i, (x, y) in enumerate(zip(stored_actions, got)) if x != y),
            min(len(got), len(stored_actions)),
        )
        differences["action_list"] = {
            "stored": len(stored_actions),
            "replayed": len(got),
            "first_difference_at": first,
        }
    differences.update(extra.pop("differences", {}))
    result = {"game_id": game_id, "matches": not differences, "differences": differences}
    return got, {**result, **extra}


def _judged(state: RunState, row: dict, actions, names: list[str]):
    """A program's game's stored moves judged by the rules alone, no program run: (its table
    row, or None when a stored move is illegal; what the comparison adds). What only the
    programs could tell is taken from the row: an ``engine_error`` ending, ``engine_illegal``."""
    from sim.engine.game import Game  # the engine (numba) only to re-play
    from sim.play.referee import raw_outcome
    from sim.play.selfplay import batch_columns

    where = f"{state.run_dir}: game {row['game_id']}"
    if actions is None:
        raise UserError(
            f"{where} has no stored moves (record_moves = {state.config.record_moves!r}); "
            f"--engine NAME=COMMAND re-plays it with the program"
        )
    note = (
        f"the program{'s' * (len(names) > 1)} ({', '.join(names)}) not re-run: the stored "
        f"moves were judged by the rules alone (engine_illegal and an engine_error ending "
        f"taken from the row); --engine NAME=COMMAND re-runs a program"
    )
    extra = {"engine_rerun": False, "note": note}
    cfg = state.config.game_config(row["game_id"])
    game = Game(cfg.rules, exact=False)
    for k, action in enumerate(actions, 1):
        reason = game.play(action)
        if reason is not None:
            illegal = f"stored action {k} ({action}): {reason}"
            extra["differences"] = {"action_list": {"illegal": illegal}}
            return None, extra
    raw = np.zeros((1, len(RAW_FIELDS)), np.int64)
    raw_outcome(game, raw[0], row["ending"] == "engine_error")
    illegal = np.array([row["engine_illegal"]], np.int32)
    columns = batch_columns(raw, cfg.rules, illegal, np.full(1, None, object), True)
    return games_table(cfg, np.array([row["game_id"]]), columns), extra


def replay_stored(run_dir: str | Path, game_id: int, commands: dict | None = None) -> dict:
    """The comparison of a stored game with its re-play (``replay_loaded``, ``commands`` as
    there); UserError if the run or the game is not there."""
    return replay_loaded(*load_game(run_dir, game_id), commands)[1]
