"""The small text files a user names (run and stress configs, setup diagrams): read only when
they are regular files of at most ``MAX_BYTES``, as UTF-8 with or without a byte-order mark
(so that ``/dev/zero`` or a FIFO is an error, not a MemoryError or a hang)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_BYTES = 1 << 20


def read_text(path: str | Path) -> str:
    """The text of ``path``; OSError if it cannot be opened, ValueError (a reason) if it is
    not a regular file, is larger than ``MAX_BYTES`` or is not UTF-8."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError("not a regular file")
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        byte = data[err.start]
        raise ValueError(f"not UTF-8 (byte 0x{byte:02x} at offset {err.start})") from None
