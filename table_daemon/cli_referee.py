"""``guandan-table referee``: one referee command to one table over MQTT (mqtt-api.md "Commands"), and the
table's answer.

Why a command of its own: the desk may only start matches (its broker account writes ``cmd/start_match``
alone), so pausing a table, a penalty, a correction or dealing again after the dealer gave up are the referee
account's. The command goes with ``role`` and an ``id`` (a repeated id is the same ruling: the table obeys it
once), signed when the table checks signatures (``--key-file``, ``table.referee_key_file``), and the answer comes
on the referee's own reply topic ``{prefix}/replies/{user}/{event}/{table}``. Exit status: 0 when the table
obeyed, 1 when it refused (its reason on stderr) or did not answer, 2 for bad arguments or a broker that cannot
be reached. The sending and waiting is :class:`~table_daemon.adapters.referee_link.RefereeLink`'s, shared with the
desk page's table commands.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from guandan import PENALTY_KINDS, SEATS
from table_daemon.cli_support import UsageError, event_id, number, table_id, topic_prefix
from table_daemon.controller.referee import CORRECTIONS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ref = subparsers.add_parser(
        "referee", help="裁判指令 a referee's command to one table: pause, resume, start-deal, penalty, correct",
        description="裁判指令 A referee's command to one table over MQTT, as the referee account; prints the "
                    "table's answer. Exit 0: obeyed; 1: refused or no answer; 2: bad arguments or no broker.")
    ref.add_argument("--broker", required=True, help="MQTT broker, mqtt://HOST:PORT or mqtts://HOST:PORT")
    ref.add_argument("--event", required=True, type=event_id, help="event id 赛事编号")
    ref.add_argument("--table", required=True, type=table_id, help="table id 桌号, e.g. T07")
    ref.add_argument("--prefix", type=topic_prefix, default="guandan/v1", help="topic prefix (default guandan/v1)")
    ref.add_argument("--user", default=None,
                     help="broker account (default: the --broker URL's user, else referee)")
    ref.add_argument("--password-file", type=Path, help="file holding the account's broker password")
    ref.add_argument("--ca-file", help="CA certificate of a TLS broker (mqtts://)")
    ref.add_argument("--key-file", type=Path,
                     help="the referees' signing key, when the table checks signatures (table.referee_key_file)")
    ref.add_argument("--role", default="referee", help="the role the table trusts (table.referee_role)")
    ref.add_argument("--id", dest="command_id",
                     help="the ruling's id (default: a new one); sent again with the same id, it is obeyed once")
    ref.add_argument("--timeout", type=number, default=10.0, help="seconds to wait for the answer (default 10)")
    actions = ref.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    pause = actions.add_parser("pause", help="暂停 hold the table (turn lamps off, timers stopped)")
    pause.add_argument("--reason", default="")
    actions.add_parser("resume", help="继续 play on")
    deal = actions.add_parser("start-deal", help="发牌 deal (again), e.g. after the dealer stopped redealing")
    deal.add_argument("--board", type=int, help="board of the event's deal file")
    pen = actions.add_parser("penalty", help="判罚 a penalty (rules §11), escalated by the table")
    pen.add_argument("--kind", required=True, choices=PENALTY_KINDS)
    who = pen.add_mutually_exclusive_group(required=True)
    who.add_argument("--team", choices=("NS", "EW"))
    who.add_argument("--seat", choices=SEATS)
    pen.add_argument("--reason", default="")
    cor = actions.add_parser("correct", help="更正 undo or correct the play at the table")
    cor.add_argument("--action", dest="correction", required=True, choices=CORRECTIONS)
    cor.add_argument("--seat", choices=SEATS)
    cor.add_argument("--reason", default="")
    for name, words in (("pass", "过 a seat's pass (过牌)"), ("report", "报牌 a 10-card report made by voice")):
        seat = actions.add_parser(name, help=words)
        seat.add_argument("--seat", required=True, choices=SEATS)
    actions.add_parser("resync", help="the table publishes its state now")
    ref.set_defaults(handler=run_referee)


def command_of(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The command's name and payload (before signing) from the arguments."""
    body: dict[str, Any] = {"role": args.role, "id": args.command_id or f"ref-{uuid.uuid4().hex[:12]}"}
    if args.action == "pause" and args.reason:
        body["reason"] = args.reason
    elif args.action == "start-deal" and args.board is not None:
        body["board"] = args.board
    elif args.action == "penalty":
        body.update({"kind": args.kind, "reason": args.reason},
                    **({"team": args.team} if args.team else {"seat": args.seat}))
    elif args.action == "correct":
        body.update({"action": args.correction, "reason": args.reason}, **({"seat": args.seat} if args.seat else {}))
    elif args.action in ("pass", "report"):
        body["seat"] = args.seat
    return args.action.replace("-", "_"), body


def run_referee(args: argparse.Namespace) -> int:
    """Send the command through a :class:`~table_daemon.adapters.referee_link.RefereeLink`, print the answer."""
    from table_daemon.adapters.mqtt_connection import TlsFilesError, parse_broker_url
    from table_daemon.adapters.referee_link import BrokerUnreachable, NoAnswer, RefereeLink

    try:
        address = parse_broker_url(args.broker)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.timeout <= 0:
        raise UsageError("--timeout must be more than 0 seconds")
    if args.user is not None and address.username and args.user != address.username:
        raise UsageError(f"--user {args.user} and the --broker URL's user {address.username}: give one")
    user = args.user or address.username or "referee"
    password = _read(args.password_file, "--password-file") if args.password_file else None
    name, body = command_of(args)
    key = None
    if args.key_file is not None:
        key = _read(args.key_file, "--key-file").encode("utf-8")
        if not key:
            raise UsageError(f"--key-file {args.key_file}: empty")
    try:
        link = RefereeLink(address, args.event, user=user,
                           password=password if password is not None else address.password, key=key,
                           role=args.role, prefix=args.prefix, ca_file=args.ca_file, name=f"referee → {args.table}")
    except TlsFilesError as exc:
        raise UsageError(f"--ca-file: {exc.message}") from None
    except ValueError as exc:
        raise UsageError(f"--user: {exc}") from None
    with _quiet_connection():
        link.start()
        try:
            if not link.wait_connected(args.timeout):
                raise UsageError(str(link.unreachable()))
            answer = link.send(args.table, name, body, args.timeout)
        except BrokerUnreachable as exc:  # lost between the connect and the send
            raise UsageError(str(exc)) from None
        except NoAnswer as exc:
            print(f"guandan-table: {exc}", file=sys.stderr)
            return 1
        finally:
            link.stop()
    print(json.dumps({"table": args.table, "command": name, "id": body.get("id"), **answer}, ensure_ascii=False))
    if not answer.get("ok"):
        print(f"guandan-table: 牌桌 {args.table} 拒绝 refused {name}: {answer.get('error')}", file=sys.stderr)
        return 1
    return 0


class _BelowError(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR


@contextlib.contextmanager
def _quiet_connection() -> Iterator[None]:
    """Hold back the connection's retry notices ("try 1 failed, retrying in 1 s", "connected after 2 failed
    tries") while this one command runs: the outcome is said once, in one line (cli.md: a broker that cannot be
    reached is one line on stderr, exit 2), and its reason is the connection's last one."""
    logger = logging.getLogger("table_daemon.adapters.mqtt_connection")
    quiet = _BelowError()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def _read(path: Path, option: str) -> str:
    try:
        return path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{option} {path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
