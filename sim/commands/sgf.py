"""`jpdsim sgf RUN_DIR GAME_ID [--ruleset NAME]`: one game of a run as SGF (FF[4], GM[1]).

The moves are the stored ones (the run's ``record_moves`` is ``"all"``, or ``"cycles"`` and the
game did not end by a pause or had repetition bans); a game whose moves were not stored is
re-played from (seed, game id) (``sim.run.stored``), and refused if its re-play differs from its
stored row. A game a program (gtp, katago) played cannot be re-played: it needs its stored moves.

What is written:

- root: ``FF[4] GM[1] CA[UTF-8] AP[jpdsim:VERSION] SZ[N]``; ``RU`` names the rules of play,
  e.g. ``RU[JPD; repetition=global_superko; suicide=multi]`` (SGF has no name for them);
  ``KM`` and ``RE`` are the komi and the result under one ruleset (``--ruleset``; default
  ``default_ruleset``), which ``GC`` names first: ``B+3.5``, ``W+0.5``, ``0`` (draw) or
  ``Void`` (no result: endings ``cycle`` and ``move_limit``); ``PB`` and ``PW`` are the players
  (canonical names); ``GN`` is ``<run name> game <id>``; ``DT`` the run's start date; ``GC``
  then lists the ending and the result under every ruleset.
- moves: one node per action, Black first, colours alternating. A point is two letters
  ``a``.. from the top-left (column, then row), as SGF counts them; a pass is an empty value
  ``B[]``; a pass that was later converted to a virtual move stays a pass, as in the record.
- a **virtual move** (a stone placed off the board) is written as a pass carrying the private
  property ``JV[virtual]``: ``;B[]JV[virtual]``. Other SGF tools skip the unknown property and
  read the move as a pass, which is what a virtual move is on the board.
- a **declining action that was not played** (docs/rules.md §4: declining a pass converts it
  into a virtual move first; when that conversion completes four virtual moves the game ends
  and the declining action, though counted, is not played) is written as a pass carrying
  ``JV[declined]`` and a comment naming the action, so the final board is the engine's.
- a **resignation** is no node: ``RE`` says it, ``B+R`` or ``W+R``.
- under ``dead_stones = "agree"`` (docs/rules.md §4) a pause's settlement is no node: a
  resumption is a comment on the second pass, ``C[resumed: ...]``; agreed dead stones are
  marked on the last node, ``MA`` (they are still on the board there), with a comment.
"""

from __future__ import annotations

import sys
from pathlib import Path

import sim
from sim.config.run import RunConfig
from sim.dataset.read import load_game
from sim.errors import UserError
from sim.files import write_output
from sim.schema.coords import AGREE, PASS, RESIGN, RESUME, VIRTUAL, format_action
from sim.schema.tables import RULESETS

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _text(value) -> str:
    """An SGF property value: backslash and ']' escaped."""
    return str(value).replace("\\", "\\\\").replace("]", "\\]")


def _point(action: int, size: int) -> str:
    y, x = divmod(action, size)
    return _LETTERS[x] + _LETTERS[y]


def _result(winner, margin) -> str:
    if winner is None:
        return "Void"
    if winner == "draw":
        return "0"
    if margin is None or margin != margin:  # NaN: a resignation
        return f"{winner}+R"
    return f"{winner}+{abs(margin):g}"


def default_ruleset(cfg: RunConfig) -> str:
    """The ruleset of ``KM`` and ``RE`` unless ``--ruleset`` names one: the ruleset the players
    play for (``play_for`` of mcts, gtp and katago players; one player playing for one is
    enough), else ``jpd_b`` (B版: the JPD area count less komi, with no extra point, which is
    what a program that reads the SGF counts)."""
    aims = {p.play_for for p in (cfg.black, cfg.white) if "play_for" in p.parameters}
    return aims.pop() if len(aims) == 1 else "jpd_b"


def game_sgf(row: dict, actions: list[int], manifest: dict, ruleset: str, setup=None) -> str:
    """The SGF text of one game from its stored row, its actions, the run's manifest, the
    ruleset of ``KM`` and ``RE`` and its ``sim.config.setups.Setup`` (None: the empty board)."""
    size = row["board_size"]
    setup_props = ""  # the setup's stones (AB, AW) and the player to move first (PL)
    if setup is not None:
        for prop, colour in (("AB", 1), ("AW", 2)):
            points = [f"[{_point(p, size)}]" for p, c in enumerate(setup.cells) if c == colour]
            setup_props += prop + "".join(points) if points else ""
        setup_props += f"PL[{'BW'[setup.first - 1]}]"
    started = str(manifest.get("started") or "")[:10]
    results = "; ".join(f"{r} {_result(row[f'winner_{r}'], row[f'margin_{r}'])}" for r in RULESETS)
    root = [
        ("FF", "4"),
        ("GM", "1"),
        ("CA", "UTF-8"),
        ("AP", f"jpdsim:{sim.__version__}"),
        ("SZ", size),
        ("RU", f"JPD; repetition={row['repetition']}; suicide={row['suicide']}"),
        ("KM", f"{row[f'komi_{ruleset}']:g}"),
        ("PB", row["player_b"]),
        ("PW", row["player_w"]),
        ("RE", _result(row[f"winner_{ruleset}"], row[f"margin_{ruleset}"])),
        ("GN", f"{manifest.get('name', '')} game {row['game_id']}"),
        *([("DT", started)] if started else []),
        (
            "GC",
            f"KM and RE: {ruleset}; ending {row['ending']}; seed {row['seed']}; "
            f"game id {row['game_id']}; results: {results}",
        ),
    ]
    nodes = [";" + "".join(f"{k}[{_text(v)}]" for k, v in root)]
    nodes[0] += setup_props
    shift = 0 if setup is None else setup.first - 1  # White first: White's turns are even
    # every action but a pass is a move, and so is a converted pass: one fewer moves than that
    # means the last action declined a pass and was not played
    if actions and actions[-1] == RESIGN:
        actions = actions[:-1]
    dead = actions[actions.index(AGREE) + 1 :] if AGREE in actions else []
    actions = actions[: len(actions) - len(dead) - (AGREE in actions)]
    resumed = {i - 1 - k for k, i in enumerate(i for i, a in enumerate(actions) if a == RESUME)}
    actions = [a for a in actions if a != RESUME]
    unplayed = sum(a != PASS for a in actions) + row["converted_passes"] == row["moves"] + 1
    for i, action in enumerate(actions):
        colour = "BW"[(i + shift) % 2]
        if unplayed and i == len(actions) - 1:
            nodes.append(
                f";{colour}[]JV[declined]C[{colour} declined the pass with "
                f"{format_action(action, size)}; the conversion ended the game]"
            )
        elif action == PASS:
            note = "C[resumed: the two passes became virtual moves]" if i in resumed else ""
            nodes.append(f";{colour}[]{note}")
        elif action == VIRTUAL:
            nodes.append(f";{colour}[]JV[virtual]")

        elif 0 <= action < size * size:
            nodes.append(f";{colour}[{_point(action, size)}]")
        else:
            raise UserError(
                f"game {row['game_id']}: stored action {i + 1} ({action}) is not "
                f"a move on a {size}x{size} board"
            )
    if dead:
        points = "".join(f"[{_point(p, size)}]" for p in dead)
        names = " ".join(format_action(p, size) for p in dead)
        nodes[-1] += f"MA{points}C[agreed dead stones, removed: {names}]"
    lines, line = [], "("
    for node in nodes:  # keep lines short for people who read the file
        if len(line) + len(node) > 78 and line != "(":
            lines.append(line)
            line = ""
        line += node
    lines.append(line + ")")
    return "\n".join(lines) + "\n"


def stored_game_sgf(run_dir: str | Path, game_id: int, ruleset: str | None = None) -> str:
    """The SGF of a game of a run, ``KM`` and ``RE`` under ``ruleset`` (None:
    ``default_ruleset``); UserError if the run or the game is not there, or if its moves are
    not stored and cannot be re-played."""
    state, row, actions = load_game(run_dir, game_id)
    if actions is None:
        actions = _replayed_actions(state, row)
    setup = next((x for x in state.config.setup if x.name == row["setup"]), None)
    ruleset = ruleset or default_ruleset(state.config)
    return game_sgf(row, actions, state.manifest, ruleset, setup)


def _replayed_actions(state, row: dict) -> list[int]:
    """The actions of a game whose moves were not stored, re-played from (seed, game id)."""
    where = f"{state.run_dir}: game {row['game_id']}"
    if state.config.engines:
        raise UserError(
            f"{where} has no stored moves, and a program played it: its moves cannot be "
            f're-played (record_moves = "all", the default with a gtp player, stores them)'
        )
    from sim.run.stored import replay_loaded  # the engine (numba) only to re-play

    actions, result = replay_loaded(state, row, None)
    if not result["matches"]:
        raise UserError(
            f"{where} has no stored moves, and its re-play differs from its stored row (in "
            f"{', '.join(result['differences'])}): the engine changed since the run was "
            f"written (`jpdsim replay --run {state.run_dir} --game {row['game_id']}` shows how)"
        )
    return actions


def main(args) -> int:
    text = stored_game_sgf(args.run_dir, args.game_id, args.ruleset)
    if args.out:
        try:  # a regular file atomically, a device or a FIFO written through (sim.files)
            write_output(args.out, text)
        except OSError as err:
            raise UserError(f"--out {args.out}: {err.strerror or err}") from None
    else:
        sys.stdout.write(text)
    return 0
