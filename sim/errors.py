"""The one exception for bad input."""


class UserError(Exception):
    """Bad input: the message is one line that names the problem and the place."""
