"""The one exception for bad input as the user sees it (a value's own check raises
``sim.options.OptionError``, which whoever read the value turns into a ``UserError``)."""

import errno
import itertools
import resource


class UserError(Exception):
    """Bad input: the message is one line that names the problem and the place."""


def one_line(text, limit: int = 300) -> str:
    """``text`` (an exception, say) folded onto one line of at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def quoted(value, items: int = 5, chars: int = 60) -> str:
    """``repr(value)`` as an error message quotes a user's value, bounded: a list, tuple or
    table shows its first ``items`` entries and how many more there are, a string its first
    ``chars`` characters and how many more (``[1, 2, 3, 4, 5, ... (9,995 more)]``)."""
    if isinstance(value, str):
        more = len(value) - chars
        return repr(value) if more <= 0 else f"{value[:chars]!r}... ({more:,} more characters)"
    if isinstance(value, dict):
        first = itertools.islice(value.items(), items)
        entries = [f"{quoted(k, items, chars)}: {quoted(v, items, chars)}" for k, v in first]
        left, right = "{}"
    elif isinstance(value, (list, tuple)):
        entries = [quoted(v, items, chars) for v in value[:items]]
        left, right = "()" if isinstance(value, tuple) else "[]"
    else:
        return repr(value)
    if len(value) > items:
        entries.append(f"... ({len(value) - items:,} more)")
    elif isinstance(value, tuple) and len(value) == 1:
        return f"({entries[0]},)"
    return left + ", ".join(entries) + right


def limit_error(err: BaseException) -> UserError | None:
    """The one line for ``err`` when it is a limit of this process reached, naming the limit:
    open files (``ulimit -n``), or memory (``ulimit -v``: a MemoryError, a library that could
    not be mapped, a thread that could not start); None for any other error."""
    chain = []
    while err is not None and len(chain) < 10:
        chain.append(err)
        err = err.__cause__ or err.__context__
    if any(isinstance(e, OSError) and e.errno == errno.EMFILE for e in chain):
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return UserError(
            f"too many open files: a process may have {soft:,} open here (ulimit -n); raise "
            f"the limit (ulimit -n 4096) or use fewer --workers"
        )
    if not any(
        isinstance(e, MemoryError)
        or (isinstance(e, OSError) and e.errno == errno.ENOMEM)
        or "failed to map segment" in str(e)  # the dynamic loader's words for ENOMEM
        or (isinstance(e, RuntimeError) and "can't start new thread" in str(e))
        for e in chain
    ):
        return None
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft == resource.RLIM_INFINITY:
        return UserError("out of memory")
    return UserError(
        f"out of memory: a process may use {soft / 2**20:,.0f} MiB of address space here "
        f"(ulimit -v); raise the limit (ulimit -v unlimited)"
    )
