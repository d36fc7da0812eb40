"""`jpdsim replay`: play move lists (or a stored game) and print each outcome as JSON.

Contract (kept exactly; other tools script against it): one JSON object per game with every
outcome field, ``final_board`` and, with ``--legal``, ``legal_moves``; an illegal or malformed
move is ``move K (TOKEN): REASON`` on stderr and exit status 2.

``--from-file FILE``: one game per line, lines split on line feeds only (a carriage return
before one, form feeds and other Unicode spaces inside a line separate tokens), one output line
per input line; a game with a bad move, or a line that is not UTF-8, is an object
``{"error": ...}`` on its line (``move K (TOKEN): REASON``, ``line N: not UTF-8 ...``), and the
exit status is then 2.

``--run RUN_DIR --game GAME_ID`` re-plays a stored game instead (``sim.run.stored``) and prints
the comparison with its stored row as one JSON object: exit status 0 if it matches, 1 if not.
A program's game (gtp, katago) is re-played with the program only with ``--engine NAME=COMMAND``;
otherwise its stored moves are judged by the rules alone (the object says so).
"""

import json
import sys
from dataclasses import replace

from sim.config.rules import Rules
from sim.config.setups import Setup, load_setup
from sim.engine.game import Game
from sim.errors import UserError
from sim.options import OptionError
from sim.play.program import named_command
from sim.schema.coords import (
    MoveError,
    format_action,
    format_diagram,
    parse_action,
    split_tokens,
)


def rules_from_options(args) -> Rules:
    """The rules of the command line (``--rules`` preset, the rule options, ``--komi``)."""
    komi = {}
    for pair in args.komi:
        name, sep, value = pair.partition("=")
        try:
            komi[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise UserError(f"--komi {pair}: expected RULESET=NUMBER")
    given = {
        "repetition": args.repetition,
        "suicide": args.suicide,
        "max_actions": args.max_actions,
        "dead_stones": args.dead_stones,
        "komi": komi,
    }
    try:
        return Rules.preset(
            args.rules, args.size, **{k: v for k, v in given.items() if v is not None}
        )
    except OptionError as err:
        option = (
            "--komi " + err.key[5:]
            if err.key.startswith("komi.")
            else "--size"
            if err.key == "board_size"
            else "--" + err.key.replace("_", "-")
        )
        raise UserError(f"{option}: {err.reason}") from None


def _setup(args) -> Setup | None:
    """The ``--setup`` position (a diagram file or a corpus name), ``--to-move`` applied; its
    size is ``--size`` when that is not given."""
    if args.setup is None:
        if args.to_move == "white":
            raise UserError("--to-move white: White moves first only from a --setup position")
        return None
    try:
        setup = load_setup(args.setup)
    except ValueError as err:
        raise UserError(f"--setup {args.setup}: {err}") from None
    if args.size is None:
        args.size = setup.size
    elif setup.size != args.size:
        raise UserError(
            f"--setup {args.setup}: a {setup.size}x{setup.size} diagram, --size is {args.size}"
        )
    return setup if args.to_move is None else replace(setup, to_move=args.to_move)


def _new_game(rules: Rules, setup: Setup | None, spec: str | None) -> Game:
    if setup is None:
        return Game(rules)
    try:
        return Game(rules, setup.cells, to_move=setup.first)
    except ValueError as err:
        raise UserError(f"--setup {spec}: {err}") from None


def play_tokens(tokens, args, game: Game) -> dict:
    """Play one game's tokens on ``game``; the output object, or
    ValueError('move K (TOKEN): REASON')."""
    for k, token in enumerate(tokens, 1):
        try:
            reason = game.play(parse_action(token, args.size))
        except MoveError as err:
            reason = str(err)
        if reason:
            raise ValueError(f"move {k} ({token}): {reason}")
    out = game.outcome()
    out["final_board"] = format_diagram(game.board(), args.size)
    if args.legal:
        out["legal_moves"] = sorted(format_action(p, args.size) for p in game.legal_moves())
    return out


def _stored(args) -> int:
    """Print the comparison of a stored game with its re-play; 0 if they match, 1 if not."""
    if args.run is None or args.game is None or args.moves or args.from_file:
        raise UserError("--run and --game go together, without moves or --from-file")
    commands = dict(named_command("--engine", pair) for pair in args.engine)
    from sim.run.stored import replay_stored  # the dataset layer (pyarrow) only for stored games

    result = replay_stored(args.run, args.game, commands)
    print(json.dumps(result))
    return 0 if result["matches"] else 1


def main(args) -> int:
    if args.engine and args.run is None:
        raise UserError("--engine goes with --run and --game")
    if args.run is not None or args.game is not None:
        return _stored(args)
    setup = _setup(args)
    if args.size is None:
        raise UserError("--size is required (or a --setup that gives it)")
    rules = rules_from_options(args)
    game = _new_game(rules, setup, args.setup)  # the first game checks the setup
    if args.from_file is None:
        try:
            out = play_tokens(split_tokens(" ".join(args.moves)), args, game)
        except ValueError as err:
            print(err, file=sys.stderr)
            return 2
        print(json.dumps(out))
        return 0
    if args.moves:
        raise UserError("give MOVES or --from-file, not both")
    status = 0
    with _open(args.from_file) as f:
        lines = _Lines(f)
        while lines.more():
            tokens = _tokens(lines.pieces(), lines.number)
            try:
                new = game if lines.number == 1 else _new_game(rules, setup, args.setup)
                try:
                    out = play_tokens(tokens, args, new)
                except ValueError:
                    for _ in tokens:  # the rest of the line, unplayed: a UTF-8 error comes first
                        pass
                    raise
            except ValueError as err:
                out, status = {"error": str(err)}, 2
            print(json.dumps(out))
    return status


def _open(path: str):
    try:
        return open(path, "rb")
    except OSError as err:
        raise UserError(f"--from-file {path}: {err.strerror}") from None


#: Bytes read at a time from --from-file: memory follows what is played, not the line's length.
CHUNK = 1 << 16
_BOM = b"\xef\xbb\xbf"


class _Lines:
    """The lines of a binary file, split on line feeds alone, each read in pieces (``pieces``)
    so that a line is never held whole; a UTF-8 byte-order mark at the start of the file is
    left out."""

    def __init__(self, f):
        self.f, self.buf, self.number, self.eof = f, b"", 0, False

    def _fill(self) -> bool:
        if not self.buf and not self.eof:
            self.buf = self.f.read(CHUNK)
            self.eof = not self.buf
        return bool(self.buf)

    def more(self) -> bool:
        """Whether another line follows (then ``pieces`` reads it)."""
        if self.number == 0:
            while len(self.buf) < len(_BOM) and not self.eof:  # a pipe may give bytes one by one
                more = self.f.read(CHUNK)
                self.eof = not more
                self.buf += more
            self.buf = self.buf.removeprefix(_BOM)
        return self._fill()

    def pieces(self):
        """The bytes of the next line in pieces, up to its line feed (which is consumed; to be
        read to the end before the next line; ``number`` is its number from now on)."""
        self.number += 1
        return self._pieces()

    def _pieces(self):
        while self._fill():
            end = self.buf.find(b"\n")
            if end >= 0:
                piece, self.buf = self.buf[:end], self.buf[end + 1 :]
                yield piece
                return
            piece, self.buf = self.buf, b""
            yield piece


def _last_separator(text: str) -> int:
    """The index of the last comma or space (``str.split``'s) in ``text``, or -1."""
    for j in range(len(text) - 1, -1, -1):
        if text[j] == "," or text[j].isspace():
            return j
    return -1


def _tokens(pieces, number: int):
    """The move tokens of one line from its pieces (``split_tokens``), one at a time; ValueError
    ``line N: not UTF-8 (byte 0xBB at column C)``, after reading the line to its end, where it
    is not UTF-8."""
    pending, column, word = b"", 0, []  # an unfinished character, its column, a token's start
    error = None  # (column, byte) of the first byte that is not UTF-8
    for piece in pieces:
        if error is not None:
            continue  # to the end of the line
        data = pending + piece
        try:
            text, pending = data.decode("utf-8"), b""
        except UnicodeDecodeError as err:
            if err.reason != "unexpected end of data":
                error = (column + err.start, data[err.start])
                continue
            text, pending = data[: err.start].decode("utf-8"), data[err.start :]
        column += len(data) - len(pending)
        cut = _last_separator(text)
        if cut < 0:
            word.append(text)
            continue
        yield from split_tokens("".join(word) + text[: cut + 1])
        word = [text[cut + 1 :]]
    if pending and error is None:
        error = (column, pending[0])
    if error is not None:
        raise ValueError(
            f"line {number}: not UTF-8 (byte 0x{error[1]:02x} at column {error[0] + 1})"
        )
    yield from split_tokens("".join(word))
