"""The one exception for bad input as the user sees it (a value's own check raises
``sim.options.OptionError``, which whoever read the value turns into a ``UserError``)."""


class UserError(Exception):
    """Bad input: the message is one line that names the problem and the place."""


def one_line(text, limit: int = 300) -> str:
    """``text`` (an exception, say) folded onto one line of at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
