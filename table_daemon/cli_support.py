"""Small shared pieces of the command line: the usage error every subcommand raises for bad input, and the
signals that end a run as Ctrl+C does."""

from __future__ import annotations

import signal


class UsageError(Exception):
    """A bad argument or input file: reported on one line of stderr, exit status 2."""


def interrupt_on_term_and_hangup() -> None:
    """SIGTERM (``kill``, systemd) and SIGHUP (a closed terminal) end the run as Ctrl+C does, by
    KeyboardInterrupt in the main thread: the tables and the desk stop first, then the embedded broker."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt
