"""The checks of option values and their one error type.

A run config's keys (``sim.config.run``), a player's parameters (``sim.config.player``) and the
rules of play (``sim.config.rules``) are checked here: each checker returns the value (a number as a
float) or raises an ``OptionError`` naming the option. Whoever reads the options turns that into one
line naming the place: ``sim.config.file`` prefixes the file and the table (``key
'players.black.visits'``), the commands name their option (``--komi jpd_a``).
"""

from __future__ import annotations

import math
import re

from sim.errors import quoted

_FOLDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class OptionError(ValueError):
    """A bad option: ``key`` names it (dotted inside a table: ``komi.jpd_a``), ``reason`` says
    what is wrong; ``str`` is ``"<key>: <reason>"``."""

    def __init__(self, key: str, reason: str):
        super().__init__(f"{key}: {reason}")
        self.key, self.reason = key, reason

    def __reduce__(self):  # pickled whole: a worker's error reaches the parent as raised
        return type(self), (self.key, self.reason)

    def within(self, table: str) -> OptionError:
        """The same error with its key inside ``table`` (``players.black`` + ``visits``)."""
        return OptionError(f"{table}.{self.key}", self.reason)


def _bound(x) -> str:
    """A limit as a message shows it: a whole number with thousands separators, else ``%g``."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def integer(key: str, value, lo: int, hi: int) -> int:
    """``value``, an integer (not a bool) in ``lo..hi``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(key, f"must be an integer, got {quoted(value)}")
    if not lo <= value <= hi:
        raise OptionError(key, f"must be in {_bound(lo)}..{_bound(hi)}, got {quoted(value)}")
    return value


def number(key: str, value, lo: float = -math.inf, hi: float = math.inf) -> float:
    """``value`` as a float: a finite number (not a bool), in ``lo..hi`` where they are
    given."""
    bounded = math.isfinite(lo) or math.isfinite(hi)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise OptionError(
            key, f"must be {'a' if bounded else 'a finite'} number, got {quoted(value)}"
        )
    if not (math.isfinite(value) and lo <= value <= hi):
        limits = f"in {_bound(lo)}..{_bound(hi)}" if bounded else "a finite number"
        raise OptionError(key, f"must be {limits}, got {quoted(value)}")
    return float(value)


def choice(key: str, value, choices) -> str:
    """``value``, one of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise OptionError(key, f"must be one of {', '.join(choices)}; got {quoted(value)}")
    return value


def flag(key: str, value) -> bool:
    """``value``, a bool."""
    if not isinstance(value, bool):
        raise OptionError(key, f"must be true or false, got {quoted(value)}")
    return value


def folder_name(key: str, value) -> str:
    """``value``, a name that is safe as a folder name."""
    if not isinstance(value, str) or not _FOLDER_NAME.fullmatch(value):
        raise OptionError(
            key,
            f"must be a folder-safe name (letters, digits, '.', '_', '-'; at most 100), "
            f"got {quoted(value)}",
        )
    return value
