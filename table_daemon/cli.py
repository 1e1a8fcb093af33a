"""The ``guandan-table`` console script: one parser, subcommands contributed by one module per area.

Each module in ``COMMAND_MODULES`` defines ``register(subparsers) -> None``, adding its subcommand(s) with
``set_defaults(handler=fn)`` where ``fn(args) -> int`` returns the exit status. Modules are imported only if
present, so an area can land on its own. Contract: ``../shared/spec/cli.md`` (bad arguments exit 2 with a
one-line error on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import select
import sys
from collections.abc import Sequence
from typing import NoReturn

from table_daemon.cli_support import UsageError

COMMAND_MODULES: tuple[str, ...] = (
    "table_daemon.cli_rules",
    "table_daemon.cli_dealer",
    "table_daemon.cli_vision",
    "table_daemon.cli_table",
    "table_daemon.cli_desk",
    "table_daemon.cli_referee",
    "table_daemon.cli_demo",
)

__all__ = ["COMMAND_MODULES", "UsageError", "build_parser", "main"]


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line (cli.md) rather than after the whole usage block; the
    subcommands' parsers are of this class too (argparse makes them of their parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="guandan-table",
        description="Automatic Guandan (掼蛋) table: rules engine, dealer, card reader, table daemon, desk.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        if importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    if given and given[0].startswith("-") and given[0] not in ("-h", "--help"):
        # argparse would only say that COMMAND is missing, never naming the option it did not know
        parser.error(f"unrecognized argument {given[0]!r}: the command comes first (guandan-table COMMAND ...)")
    args = parser.parse_args(given)
    try:
        return int(args.handler(args) or 0)
    except UsageError as exc:
        print(f"guandan-table: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # a socket's or a child's pipe: not ours to hide
        return 141  # ``... | head -1``: the reader has what it wanted (as a shell reports a process ended by SIGPIPE)


def _stdout_closed() -> bool:
    """Whether standard output's reader has gone; if so it is pointed at /dev/null, so that the interpreter's
    last flush at exit prints no second traceback."""
    try:
        fd = sys.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        if not any(events & select.POLLERR for _, events in poller.poll(0)):  # a pipe's reader gone: POLLERR
            return False
        os.dup2(os.open(os.devnull, os.O_WRONLY), fd)
        return True
    except (OSError, ValueError, AttributeError):  # not a real file (an embedding caller's stream)
        return False


if __name__ == "__main__":
    sys.exit(main())
