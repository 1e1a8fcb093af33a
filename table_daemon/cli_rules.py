"""``guandan-table rules``: the rules engine on the command line (batch, classify, replay), per cli.md."""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from guandan import PROFILES, GuandanError, classify, parse_cards, parse_level
from table_daemon.cli import UsageError
from table_daemon.rules_ops import PLAY_OPS, Op
from table_daemon.safe_json import JsonLimitError, loads

#: one ``rules batch`` line (a deal's worth of hands and plays is a few KB)
MAX_LINE_BYTES = 256 * 1024
#: a deal record for ``rules replay`` (a long deal with referee actions is well under 100 KB)
MAX_RECORD_BYTES = 4 << 20

DEFAULT_PROFILE = "national"


def _deal_ops() -> dict[str, Op]:
    """settle / tribute / return_ok come from the deal-flow module when it is installed."""
    if importlib.util.find_spec("table_daemon.rules_ops_deal") is None:
        return {}
    from table_daemon.rules_ops_deal import DEAL_OPS

    return dict(DEAL_OPS)


def answer_line(text: str, ops: dict[str, Op], default_profile: str) -> dict[str, Any]:
    """The answer to one batch line; never raises for bad input.

    A blank line is answered too (cli.md: exactly one answer per input line), and so is a line whose bytes
    were not UTF-8 (:func:`_stdin_lines` hands them on as surrogate escapes)."""
    if not text.strip():
        return {"error": "empty line"}
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return {"error": "line is not UTF-8 text"}
    try:
        line = loads(text, max_bytes=MAX_LINE_BYTES)
    except JsonLimitError as exc:
        return {"error": str(exc)}
    if not isinstance(line, dict):
        return {"error": "each line must be a JSON object"}
    op = line.get("op")
    handler = ops.get(op) if isinstance(op, str) else None
    if handler is None:
        return {"error": f"unknown op {op!r} (known: {', '.join(sorted(ops))})"}
    line.setdefault("profile", default_profile)
    try:
        _check_line_profile(line["profile"])  # every op, not only those that use it (cli.md)
        return handler(line)
    except (GuandanError, ValueError, KeyError, TypeError, OverflowError, RecursionError) as exc:
        return {"error": str(exc)[:500] or exc.__class__.__name__}


def _check_line_profile(name: Any) -> None:
    """Raise for a ``"profile"`` that names no profile, whichever op the line asks for: classify, beats and plays
    do not depend on the profile, but a line naming one that does not exist is still a bad line."""
    if importlib.util.find_spec("table_daemon.rules_ops_deal") is None:
        if name is not None and (not isinstance(name, str) or name not in PROFILES):
            raise ValueError(f"unknown profile {name!r} (known: {', '.join(PROFILES)})")
        return
    from table_daemon.rules_ops_deal import resolve_profile

    resolve_profile(name)


def run_batch(stdin: TextIO, stdout: TextIO, default_profile: str) -> int:
    """Answer every line of ``stdin``, in order, with one JSON line each (blank lines included: cli.md)."""
    ops = dict(PLAY_OPS) | _deal_ops()
    for number, raw in enumerate(stdin):
        if number == 0:
            raw = raw.removeprefix("\ufeff")  # a file saved by Windows Notepad starts with a byte-order mark
        stdout.write(json.dumps(answer_line(raw, ops, default_profile), ensure_ascii=False) + "\n")
        stdout.flush()
    return 0


def _check_profile(name: str) -> None:
    """Refuse a bad ``--profile`` before reading any line (cli.md "Every command": a bad argument or file is
    one line on stderr and exit 2), as ``simulate --profile`` does; a bad ``"profile"`` inside a line stays
    that line's error."""
    if importlib.util.find_spec("table_daemon.rules_ops_deal") is None:
        if name not in PROFILES:
            raise UsageError(f"--profile: unknown profile {name!r} (known: {', '.join(PROFILES)})")
        return
    from table_daemon.rules_ops_deal import resolve_profile

    try:
        resolve_profile(name)
    except GuandanError as exc:
        raise UsageError("--profile: " + " ".join(str(exc).split())) from None


def _stdin_lines() -> TextIO:
    """Standard input as UTF-8 lines split at ``\\n`` only, whatever the locale, with bytes that are not UTF-8
    kept as surrogate escapes so that such a line gets its own error instead of ending the run."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:  # already text (a test's StringIO)
        return sys.stdin
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape", newline="\n")


def _cmd_batch(args: argparse.Namespace) -> int:
    _check_profile(args.profile)
    return run_batch(_stdin_lines(), sys.stdout, args.profile)


def _cmd_classify(args: argparse.Namespace) -> int:
    try:
        level = parse_level(args.level)
        cards = parse_cards(args.cards)
        readings = classify(cards, level)
    except GuandanError as exc:
        raise UsageError(str(exc)) from exc
    print(json.dumps({"readings": [r.to_json() for r in readings]}))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("table_daemon.rules_ops_deal") is None:
        print(json.dumps({"error": "replay is not available in this build"}))
        return 1
    from table_daemon.rules_ops_deal import replay_file

    try:
        size = Path(args.file).stat().st_size
        if size > MAX_RECORD_BYTES:
            raise UsageError(f"{args.file}: {size} bytes is too large for a deal record (at most {MAX_RECORD_BYTES})")
        record = loads(Path(args.file).read_text(encoding="utf-8-sig"), max_bytes=MAX_RECORD_BYTES)
        if not isinstance(record, dict):  # not a deal record at all: a bad file (cli.md), not a failed replay
            raise UsageError(f"{args.file} is not a deal record: a JSON object is, not {type(record).__name__}")
        answer = replay_file(args.file)
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{args.file} is not UTF-8 text") from exc
    except JsonLimitError as exc:
        raise UsageError(f"{args.file} is not a JSON deal record: {exc}") from exc
    print(json.dumps(answer, ensure_ascii=False))
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rules = subparsers.add_parser("rules", help="the rules engine: classify plays, batch queries, replay records")
    sub = rules.add_subparsers(dest="rules_command", metavar="ACTION")
    sub.required = True
    batch = sub.add_parser("batch", help="answer JSON lines on stdin (classify, beats, plays, settle, ...)")
    batch.add_argument("--profile", default=DEFAULT_PROFILE, help="rule profile for lines that name none")
    batch.set_defaults(handler=_cmd_batch)
    cls = sub.add_parser("classify", help="every reading of one set of cards")
    cls.add_argument("--level", required=True, help="level being played: 2..9, T (or 10), J, Q, K, A")
    cls.add_argument("cards", nargs="+", metavar="CARD", help="card codes such as H2 ST SB HR")
    cls.set_defaults(handler=_cmd_classify)
    rep = sub.add_parser("replay", help="check a guandan-deal/1 record action by action")
    rep.add_argument("file", metavar="FILE")
    rep.set_defaults(handler=_cmd_replay)
