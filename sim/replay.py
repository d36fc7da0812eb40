"""`jpdsim replay`: play move lists (or a stored game) and print each outcome as JSON.

Contract (kept exactly; other tools script against it): one JSON object per game with every
outcome field, ``final_board`` and, with ``--legal``, ``legal_moves``; an illegal or malformed
move is ``move K (TOKEN): REASON`` on stderr and exit status 2.
"""

import json
import sys
from pathlib import Path

from sim.coords import MoveError, format_action, format_diagram, parse_action, parse_diagram, split_tokens
from sim.errors import UserError
from sim.engine.game import Game, check_rules
from sim.schema import resolve_komi


def _komi(pairs: list[str]) -> dict:
    komi = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        try:
            if not sep:
                raise ValueError("expected RULESET=VALUE")
            komi[name.strip()] = float(value)
            resolve_komi(komi)
        except ValueError as err:
            raise UserError(f"--komi {pair}: {err}") from None
    return resolve_komi(komi)


def _setup(path: str | None, size: int):
    if path is None:
        return None
    try:
        return parse_diagram(Path(path).read_text(), size)
    except OSError as err:
        raise UserError(f"--setup {path}: {err.strerror}") from None
    except ValueError as err:
        raise UserError(f"--setup {path}: {err}") from None


def play_tokens(tokens, args, setup, komi) -> dict:
    """Play one game's tokens; the output object, or ValueError('move K (TOKEN): REASON')."""
    game = Game(args.size, args.repetition, args.suicide, args.max_actions, setup)
    for k, token in enumerate(tokens, 1):
        try:
            reason = game.play(parse_action(token, args.size))
        except MoveError as err:
            reason = str(err)
        if reason:
            raise ValueError(f"move {k} ({token}): {reason}")
    out = game.outcome(komi)
    out["final_board"] = format_diagram(game.board(), args.size)
    if args.legal:
        out["legal_moves"] = sorted(format_action(p, args.size) for p in game.legal_moves())
    return out


def main(args) -> int:
    if args.run is not None or args.game is not None:
        if args.run is None or args.game is None or args.moves or args.from_file:
            raise UserError("--run and --game go together, without moves or --from-file")
        from sim.stored import main as replay_stored
        return replay_stored(args)
    if args.size is None:
        raise UserError("--size is required")
    try:
        check_rules(args.size, args.repetition, args.suicide, args.max_actions)
    except ValueError as err:
        raise UserError(str(err)) from None
    setup, komi = _setup(args.setup, args.size), _komi(args.komi)
    if setup is not None:
        try:
            Game(args.size, setup=setup)
        except ValueError as err:
            raise UserError(f"--setup {args.setup}: {err}") from None
    if args.from_file is None:
        try:
            out = play_tokens(split_tokens(" ".join(args.moves)), args, setup, komi)
        except ValueError as err:
            print(err, file=sys.stderr)
            return 2
        print(json.dumps(out))
        return 0
    if args.moves:
        raise UserError("give MOVES or --from-file, not both")
    try:
        lines = Path(args.from_file).read_text().splitlines()
    except OSError as err:
        raise UserError(f"--from-file {args.from_file}: {err.strerror}") from None
    status = 0
    for line in lines:
        try:
            out = play_tokens(split_tokens(line), args, setup, komi)
        except ValueError as err:
            out, status = {"error": str(err)}, 2
        print(json.dumps(out))
    return status
