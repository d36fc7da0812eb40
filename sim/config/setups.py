"""Setup positions: the boards a run's games may start from (docs/rules.md §9), read from diagram
files or from the cycle corpus shipped in ``sim/corpus/`` (docs/corpus.md).

A diagram file is a short header of ``# key: value`` lines (``name``, ``to_move``,
``source``, ``shows``), then the board in the ASCII form of ``sim.schema.coords.parse_diagram``
(``X`` Black, ``O`` White, ``.`` empty; top row first).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sim.errors import quoted
from sim.files import read_text
from sim.schema.coords import format_diagram, parse_diagram

CORPUS = Path(__file__).parents[1] / "corpus"  # sim/corpus
TO_MOVE = ("black", "white")
HEADER_KEYS = ("name", "to_move", "source", "shows")


@dataclass(frozen=True)
class Setup:
    """One start position: its name (the ``setup`` column of a row), its N*N colours and the
    colour to move first; ``source`` and ``shows`` describe a corpus position."""

    name: str
    cells: tuple[int, ...]
    to_move: str = "black"
    source: str = ""
    shows: str = ""

    @property
    def first(self) -> int:
        """The colour code of ``to_move`` (1 Black, 2 White, as in the setup's cells)."""
        return 1 + TO_MOVE.index(self.to_move)

    @property
    def size(self) -> int:
        return round(len(self.cells) ** 0.5)

    def diagram(self) -> str:
        return "\n".join(" ".join(row) for row in format_diagram(self.cells, self.size))

    def to_dict(self) -> dict:
        """The form a run config takes inline (and manifest.json stores)."""
        out = {"name": self.name, "to_move": self.to_move, "diagram": self.diagram()}
        return {**out, **{k: getattr(self, k) for k in ("source", "shows") if getattr(self, k)}}


def corpus_names() -> list[str]:
    """The names of the corpus positions, sorted."""
    return sorted(p.stem for p in CORPUS.glob("*.txt"))


def read_setup(text: str, default_name: str) -> Setup:
    """A Setup from a diagram file's text; ValueError names the faulty line or key."""
    header, rows = {}, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            key, sep, value = line[1:].partition(":")
            key = key.strip()
            if not sep or key not in HEADER_KEYS:
                raise ValueError(
                    f"line {number}: a header line is '# key: value' with key one of "
                    f"{', '.join(HEADER_KEYS)}"
                )
            header[key] = value.strip()
        elif line.strip():
            rows.append(line)
    return make_setup(
        header.get("name", default_name),
        "\n".join(rows),
        header.get("to_move", "black"),
        header.get("source", ""),
        header.get("shows", ""),
    )


def make_setup(name, diagram, to_move="black", source="", shows="") -> Setup:
    """A Setup from its parts (the diagram's row count is the board size); ValueError says
    what is wrong."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a setup's name must be a non-empty string, got {quoted(name)}")
    if to_move not in TO_MOVE:
        raise ValueError(f"to_move must be black or white, got {quoted(to_move)}")
    if not isinstance(diagram, str):
        raise ValueError(f"a diagram must be a string of rows, got {quoted(diagram)}")
    if not isinstance(source, str) or not isinstance(shows, str):
        raise ValueError("a setup's source and shows are strings")
    size = len([line for line in diagram.splitlines() if line.strip()])
    if not 2 <= size <= 25:
        raise ValueError(f"a diagram has 2..25 rows, got {size}")
    return Setup(name, tuple(parse_diagram(diagram, size)), to_move, source, shows)


def load_setup(spec) -> Setup:
    """A Setup from a run config's ``setup`` entry: a corpus name, a diagram file's path, or
    a table with ``name``, ``diagram`` and optional ``to_move``, ``source``, ``shows``;
    ValueError says what is wrong."""
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - {"diagram", *HEADER_KEYS})
        if unknown:
            raise ValueError(f"unknown key {unknown[0]!r} (diagram, {', '.join(HEADER_KEYS)})")
        if "name" not in spec or "diagram" not in spec:
            raise ValueError("a setup table needs name and diagram")
        extra = {k: spec[k] for k in ("source", "shows") if k in spec}
        return make_setup(spec["name"], spec["diagram"], spec.get("to_move", "black"), **extra)
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"must be a corpus name, a file or a table, got {quoted(spec)}")
    path = CORPUS / f"{spec}.txt" if spec in corpus_names() else Path(spec)
    try:
        text = read_text(path)
    except OSError as err:
        known = ", ".join(corpus_names())
        raise ValueError(
            f"{quoted(spec, chars=1024)} is neither a corpus position ({known}) nor a readable "
            f"file ({err.strerror})"
        ) from None
    except ValueError as err:
        raise ValueError(f"{spec!r}: {err}") from None  # a path that opened: short
    return read_setup(text, path.stem)
