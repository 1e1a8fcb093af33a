"""Small shared pieces of the command line: the usage error every subcommand raises for bad input."""

from __future__ import annotations


class UsageError(Exception):
    """A bad argument or input file: reported on one line of stderr, exit status 2."""
