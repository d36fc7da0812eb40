"""The files a user names.

Read (run and stress configs, setup diagrams): only regular files of at most ``MAX_BYTES``,
as UTF-8 with or without a byte-order mark (so that ``/dev/zero`` or a FIFO is an error, not a
MemoryError or a hang).

Written (``--out`` of ``jpdsim report`` and ``jpdsim sgf``): ``write_output``. A regular file,
or a path that does not exist yet, is replaced atomically (a temporary file beside it,
renamed once whole: an older file stays untouched when writing fails); a symbolic link is
followed to its target, which gets the same treatment (the link stays a link); a character
device or a FIFO (``/dev/stdout``, ``/dev/null``, a pipe) is written through, never replaced;
anything else (a folder, a socket, a block device) is refused."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
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


#: What ``output_target`` says about a path to write: replaced atomically, or written through.
REPLACE, THROUGH = "replace", "through"


def output_target(path: str | Path) -> tuple[Path, str]:
    """(where, how) to write ``path``: its symbolic links followed (``where``: the target, a
    path that may not exist yet), and ``REPLACE`` for a regular file or a new path,
    ``THROUGH`` for a character device or a FIFO. OSError for anything else (a folder, a
    socket, a block device) or a path that cannot be resolved (a loop of links)."""
    with contextlib.suppress(OSError):  # /dev/stdout, /dev/fd/N: the open file, not its name
        if stat.S_ISCHR(os.stat(path).st_mode) or stat.S_ISFIFO(os.stat(path).st_mode):
            return Path(path), THROUGH
    where = Path(os.path.realpath(path))
    try:
        mode = os.stat(where).st_mode
    except FileNotFoundError:
        if os.path.islink(where):  # realpath gave up on a loop of links
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP)) from None
        return where, REPLACE
    if stat.S_ISREG(mode):
        return where, REPLACE
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return where, THROUGH
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder")
    raise OSError(errno.EINVAL, "not a regular file, a character device or a FIFO")


def check_output(path: str | Path) -> Path | None:
    """Make the folders of ``path`` that are missing and try writing there now, so that an
    output that cannot be written is known before the work is done (OSError); returns the
    topmost folder made, to remove again if the work fails. A device or a FIFO is checked for
    permission only (opening a FIFO would wait for its reader)."""
    where, how = output_target(path)
    if how == THROUGH:
        if not os.access(where, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return None
    made = [p for p in (where.parent, *where.parent.parents) if not p.exists()]
    where.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=where.parent):
        pass
    return made[-1] if made else None


def write_output(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` as ``output_target`` says: a regular file or a new
    path atomically (a temporary file beside the link's target, renamed once whole, with the
    permissions of an ordinary new file), a character device or a FIFO through. OSError when
    it cannot be written."""
    where, how = output_target(path)
    if how == THROUGH:
        # no O_CREAT, no O_TRUNC: the device or FIFO as it is (what `> /dev/null` does)
        fd = os.open(where, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return
    write_text_atomic(where, text)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it to ``path`` once it is
    whole, with the permissions of an ordinary new file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
