"""Actions and coordinates.

An action is an int: ``PASS`` (-1), ``VIRTUAL`` (-2), ``RESIGN`` (-3), or a point
``y * N + x`` with ``x`` the column (0 = ``A``) and ``y`` the row counted from the *top* (0 =
the first line of a diagram). At a pause under ``dead_stones = "agree"`` (docs/rules.md §4):
``AGREE`` (-4, the lists are equal; the points that follow are the dead stones) or ``RESUME``
(-5, they differ: play resumes).
Text uses GTP vertices: letters ``A``..``Z`` skipping ``I``, row 1 at the bottom.
"""

PASS = -1
VIRTUAL = -2
RESIGN = -3
AGREE = -4
RESUME = -5
SPECIAL = {"PASS": PASS, "VIRTUAL": VIRTUAL, "RESIGN": RESIGN, "AGREE": AGREE, "RESUME": RESUME}
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # no I
MIN_SIZE, MAX_SIZE = 2, 25
STONE_LETTERS = {".": 0, "X": 1, "O": 2}
LETTER_OF = ".XO"


class MoveError(ValueError):
    """A token that is not a move on this board; ``str`` is the one-word reason."""


def parse_action(token: str, size: int) -> int:
    """Turn a move token (``C3``, ``pass``, ``virtual``, ``resign``, ``agree``, ``resume``; any
    case; ASCII letters and digits only) into an action."""
    t = token.strip()
    if not t.isascii():  # no fullwidth or Arabic-Indic digits, no letters that upper() to ASCII
        raise MoveError("not a move")
    t = t.upper()
    if t in SPECIAL:
        return SPECIAL[t]
    if len(t) < 2 or t[0] not in COLUMNS or not t[1:].isdigit():
        raise MoveError("not a move")
    digits = t[1:].lstrip("0")
    x, row = COLUMNS.index(t[0]), int(digits) if 0 < len(digits) <= 2 else 0  # longer: off board
    if x >= size or not 1 <= row <= size:
        raise MoveError("off board")
    return (size - row) * size + x


def format_action(action: int, size: int) -> str:
    """The token of an action: a GTP vertex or the lower-case name of a special action."""
    if action < 0:
        return next(name.lower() for name, a in SPECIAL.items() if a == action)
    y, x = divmod(action, size)
    return f"{COLUMNS[x]}{size - y}"


def split_tokens(text: str) -> list[str]:
    """Move tokens separated by spaces and/or commas."""
    return text.replace(",", " ").split()


def parse_diagram(text: str, size: int) -> list[int]:
    """An ASCII diagram (top row first, ``X`` Black, ``O`` White, ``.`` empty, spaces ignored)
    as a flat list of colours 0/1/2 in point order; ``ValueError`` names the faulty line."""
    rows = [line.replace(" ", "").replace("\t", "") for line in text.splitlines()]
    rows = [r for r in rows if r]
    if len(rows) != size:
        raise ValueError(f"diagram has {len(rows)} rows, board size is {size}")
    cells = []
    for i, row in enumerate(rows, 1):
        if len(row) != size:
            raise ValueError(f"diagram row {i} has {len(row)} points, board size is {size}")
        bad = sorted(set(row) - set(STONE_LETTERS))
        if bad:
            raise ValueError(f"diagram row {i} has letter {bad[0]!r}; use X, O or .")
        cells.extend(STONE_LETTERS[c] for c in row)
    return cells


def format_diagram(cells, size: int) -> list[str]:
    """Rows of a flat colour list, top row first, in the letters of ``parse_diagram``."""
    return ["".join(LETTER_OF[c] for c in cells[y * size : (y + 1) * size]) for y in range(size)]
