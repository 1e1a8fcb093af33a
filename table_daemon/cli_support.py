"""Small shared pieces of the command line: the usage error every subcommand raises for bad input, the
argument types of event and table ids and topic prefixes (the table config's own rules), and the signals that
end a run as Ctrl+C does."""

from __future__ import annotations

import argparse
import math
import signal


class UsageError(Exception):
    """A bad argument or input file: reported on one line of stderr, exit status 2."""


def event_id(text: str) -> str:
    """An event id as a table's config allows it (``config.id_error``): it is a level of every topic, so with
    ``a+b`` or ``a/b`` no message would reach its tables."""
    return _checked_id("event id", text)


def table_id(text: str) -> str:
    """A table id as a table's config allows it (``config.id_error``)."""
    return _checked_id("table id", text)


def topic_prefix(text: str) -> str:
    """A topic prefix as a table's config allows it (``config.prefix_error``)."""
    from .config import prefix_error  # lazy: the table config is not small to import

    error = prefix_error(text)
    if error is not None:
        raise argparse.ArgumentTypeError(error)
    return text


def number(text: str) -> float:
    """A finite number (seconds, a speed, millimetres): ``float`` alone takes ``nan`` and ``inf``, and a NaN
    timeout made the dealer command report no answer, then an identity."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _checked_id(what: str, text: str) -> str:
    from .config import id_error

    error = id_error(what, text)
    if error is not None:
        raise argparse.ArgumentTypeError(error)
    return text


def interrupt_on_term_and_hangup() -> None:
    """SIGTERM (``kill``, systemd) and SIGHUP (a closed terminal) end the run as Ctrl+C does, by
    KeyboardInterrupt in the main thread: the tables and the desk stop first, then the embedded broker."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt
