"""`jpdsim gtp`: the simulator's players as a GTP 2 engine on stdin/stdout (docs/gtp.md).

``--player SPEC`` is a kind (``random``, ``capture``, ``pattern``, ``mcts``) or the canonical
form ``Player.name`` prints, e.g. ``mcts(visits=400,playout=pattern,play_for=jpd_b)``; the
rule options are ``jpdsim replay``'s; ``--size`` is the board until ``boardsize`` changes it.
"""

import re
import sys

from sim.errors import UserError
from sim.schema.tables import NATIVE_PLAYERS

_SPEC = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*", re.DOTALL)
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


_FLAGS = {"true": True, "false": False}


def _value(text: str):
    """A parameter value: a flag (``true``/``false`` in any case: TOML's and the canonical
    name's), an int, a float, else the string."""
    if text.lower() in _FLAGS:
        return _FLAGS[text.lower()]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def player_table(spec: str) -> dict:
    """The config table of a player spec (``mcts(visits=400,playout=pattern)``): the kind
    and its parameters, flags as bools, numbers as int or float, the rest as strings;
    ValueError says what is malformed."""
    match = _SPEC.fullmatch(spec)
    if match is None:
        raise ValueError("expected KIND or KIND(KEY=VALUE,...)")
    kind, inner = match.groups()
    table = {"kind": kind}
    for item in (inner or "").split(","):
        if not item.strip():
            if inner and inner.strip():
                raise ValueError("an empty parameter")
            continue
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not _KEY.fullmatch(key) or not value:
            raise ValueError(f"{item.strip()!r} is not KEY=VALUE")
        if key in table:
            raise ValueError(f"{key} given twice")
        table[key] = _value(value)
    return table


def parse_player(spec: str):
    """The ``sim.config.player.Player`` of a ``--player`` spec: a player's canonical name as a run's
    rows give it (``Player.from_name``: a parameter it leaves out has its legacy value), else
    a kind with the parameters given (the others at their defaults); UserError naming the
    option."""
    from sim.config.player import Player
    from sim.options import OptionError

    try:
        table = player_table(spec)
        if table["kind"] not in NATIVE_PLAYERS:  # before its parameters: a program's are moot
            raise UserError(
                f"--player {spec}: kind: must be one of {', '.join(NATIVE_PLAYERS)} (the "
                f"simulator's own players; a program such as gtp or katago is not served), got "
                f"{table['kind']!r}"
            )
        try:
            return Player.from_name(spec)
        except OptionError:
            return Player.from_table(table)
    except OptionError as err:
        raise UserError(f"--player {spec}: {err.key}: {err.reason}") from None
    except ValueError as err:
        raise UserError(f"--player {spec}: {err}") from None


def main(args) -> int:
    player = parse_player(args.player)
    if not 0.0 <= args.virtual_rate <= 1.0:
        raise UserError(f"--virtual-rate {args.virtual_rate:g}: must be in 0..1")
    if not 0 <= args.seed < 2**64:
        raise UserError(f"--seed {args.seed}: must be in 0..2**64-1")
    from sim.commands.replay import rules_from_options
    from sim.gtp.server import GtpServer
    from sim.run.drivers import DRIVERS

    rules = rules_from_options(args)
    # before the first command: a GUI waits for its first answer, not for a compiler; the
    # referee's kernels, the simulator's players moved from Python as the server moves them
    DRIVERS["referee"].compile(dict(rules=rules, black=player, white=player, seed=0))
    server = GtpServer(
        player,
        rules,
        seed=args.seed,
        virtual_rate=args.virtual_rate,
        keep_max_actions=args.max_actions is not None,
        log=sys.stderr,
    )
    if hasattr(sys.stdin, "reconfigure"):  # a byte that is not UTF-8 is no crash
        sys.stdin.reconfigure(errors="replace")
    return server.serve(sys.stdin, sys.stdout)
