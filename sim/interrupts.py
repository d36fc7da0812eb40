"""Ctrl-C and SIGTERM that are never lost.

Python's Ctrl-C raises KeyboardInterrupt wherever the main thread happens to be. While C
extensions load, that can be code whose errors are dropped (CPython ignores an exception
raised in a weakref callback, and some Cython modules discard errors as they set up), and the
command would go on as if no Ctrl-C had come, or print a traceback. Within ``handled``, the
signals raise and are remembered, and one that CPython drops is not printed; ``check`` raises
it again: after a module loads (``load``, which also unwraps a signal that a loading module
turned into another error) and once a second while a run waits for its workers. Within
``deferred``, a signal waits for the end of the block.
"""

import contextlib
import importlib
import os
import signal
import sys
import threading


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C."""


_raised: list[KeyboardInterrupt] = []  # by the handler and not yet handled


def _raise(signum, frame):
    exc = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    _raised.append(exc)
    raise exc


def in_main_thread() -> bool:
    """Whether signals can be handled here (Python runs their handlers in its main thread)."""
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def handled(signum: int):
    """Within: ``signum`` (SIGINT or SIGTERM) raises KeyboardInterrupt (``Terminated``) and is
    remembered, unless this is not the main thread or SIGINT is not Python's (an ignored
    Ctrl-C stays ignored)."""
    default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
    if not in_main_thread() or signal.getsignal(signum) is not default:
        yield
        return
    hook = sys.unraisablehook
    sys.unraisablehook = lambda u: None if u.exc_value in _raised else hook(u)
    signal.signal(signum, _raise)
    try:
        yield
    finally:
        signal.signal(signum, default)
        sys.unraisablehook = hook
        _raised.clear()


@contextlib.contextmanager
def deferred():
    """Within: a Ctrl-C or SIGTERM is held, then handled as it would have been once the block
    is done; for code that an exception must not stop half-way (starting a process or a
    thread: the child would wait for a message that never comes)."""
    if not in_main_thread():
        yield
        return
    held = []
    handlers = {
        signum: signal.signal(signum, lambda signum, frame: held.append(signum))
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    for signum in held[:1]:
        handler = handlers[signum]
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            os.kill(os.getpid(), signum)


def check() -> None:
    """Raise again a Ctrl-C or SIGTERM that was raised and not handled."""
    if _raised:
        raise _raised.pop()


def load(name: str):
    """``importlib.import_module(name)``, and a signal while it loads raised as the signal: also
    where the loading code dropped it, or turned it into another error (a RuntimeError that
    wraps it, from a class's ``__set_name__``; an ImportError, from a Cython module)."""
    try:
        module = importlib.import_module(name)
    except Exception as err:
        if isinstance(err.__cause__, KeyboardInterrupt):
            raise err.__cause__ from None
        check()
        raise
    check()
    return module


def forget() -> None:
    """Call where an interrupt is handled: ``check`` does not raise it again."""
    _raised.clear()
