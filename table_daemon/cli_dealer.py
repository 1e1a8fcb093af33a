"""``guandan-table dealer --port URL identify|selftest|deal``: talk to a real or simulated dealer.

Output contract: ``shared/spec/cli.md``. stdout carries JSON lines only; link notices (cable out,
reconnected) and the deal's commitment, published before the first card, go to stderr.
Exit status: 0 when the command ran (a fouled deal included: its summary says why), 1 when the dealer
cannot be reached or cannot do what was asked (self-test failed included), 2 for a bad argument or file
(a device path that does not exist or is not a serial device included).

A deal whose link gives up once the dealer has answered (no reply after every retransmission, link lost) is a
fouled deal, not a crash: the cards dealt so far have been printed as they came, and the summary says
``"ok": false`` with ``"fouled": "link: ..."``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from firmware_bridge import (
    CardRecord,
    DealerError,
    DealerUrlError,
    DealFileError,
    DealOutcome,
    DealPlan,
    DeviceInfo,
    LinkError,
    Notice,
    check_deal_file,
    load_deal_file,
    new_deal,
)
from firmware_bridge.client import DealerClient
from guandan import SEATS
from hardware.dealers import open_dealer

from .cli import UsageError
from .cli_support import number

_NOTICE_TEXT = {
    "connected": "已连接 / connected",
    "disconnected": "链路断开，正在重连 / link down, reconnecting",
    "link_lost": "发牌机无响应 / dealer silent",
    "link_up": "发牌机恢复响应 / dealer answering again",
    "identified": "已识别 / identified",
    "boot_changed": "发牌机已重启 / dealer rebooted",
}


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _say(text: str) -> None:
    print(f"dealer: {text}", file=sys.stderr, flush=True)


def _on_notice(notice: Notice) -> None:
    _say(f"{_NOTICE_TEXT.get(notice.kind, notice.kind)}: {notice.detail}")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "dealer",
        help="发牌机 / the automatic shuffler-dealer: identify, self-test, deal",
        description=(
            "与发牌机通信（真实串口或 sim:// 模拟机）/ Talk to the dealer on a serial port (/dev/ttyACM0) or a "
            "simulated one (sim://?speed=0&corrupt=0.01&drop=0.02&jam=0.05&seed=7). Exit 0 when the command ran "
            "(a fouled deal included), 1 when the dealer cannot be reached or cannot do it, 2 for bad arguments."
        ),
    )
    parser.add_argument("--port", required=True, metavar="URL", help="串口或 sim:// / device path or sim://...")
    parser.add_argument(
        "--timeout", type=number, default=20.0, metavar="S",
        help="等待发牌机应答的秒数 / seconds to wait for the dealer to answer (default 20)",
    )
    actions = parser.add_subparsers(dest="dealer_action", metavar="ACTION")
    actions.required = True
    actions.add_parser("identify", help="身份信息 / print the dealer's identity as JSON")
    actions.add_parser("selftest", help="自检 / run the dealer's self-test")
    deal = actions.add_parser(
        "deal",
        help="发一副牌 / deal a fresh CSPRNG deal (or a board of a deal file)",
        description=(
            "发牌：每张牌一行 JSON，最后一行为总结 / Deal: one JSON line per card, then the summary line. "
            "ok only when every seat got 27 cards and every card appears exactly twice; otherwise fouled "
            "(发牌错误，重发) with a reason."
        ),
    )
    deal.add_argument("--deal-file", metavar="FILE", help="guandan-deals/1 牌局文件 / deal file (复式 duplicate)")
    deal.add_argument("--board", type=int, metavar="N", help="牌局号 / board number in --deal-file")
    deal.add_argument(
        "--deal-timeout", type=number, default=300.0, metavar="S",
        help="整副牌的最长秒数 / give up (foul) after S seconds (default 300)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if getattr(args, "deal_timeout", 1.0) <= 0:
        raise UsageError("--deal-timeout must be positive")
    port = Path(args.port) if "://" not in args.port else None
    if port is not None and port.is_absolute() and not port.exists():  # cli.md: a bad argument exits 2
        raise UsageError(f"dealer port {args.port} does not exist (没有这个串口; e.g. /dev/ttyACM0, or sim://)")
    if port is not None and port.exists() and not port.is_char_device():
        raise UsageError(f"dealer port {args.port} is not a serial device (不是串口; e.g. /dev/ttyACM0, or sim://)")
    plan = None
    if args.dealer_action == "deal":
        if args.board is not None and not args.deal_file:
            raise UsageError("--board needs --deal-file")
        if args.deal_file:
            try:
                check_deal_file(args.deal_file)  # the whole file, so a board written twice is said
                plan = load_deal_file(args.deal_file, args.board)
            except DealFileError as exc:
                raise UsageError(str(exc)) from None
    try:
        client = open_dealer(args.port, on_notice=_on_notice, command_timeout=args.timeout)
    except DealerUrlError as exc:
        raise UsageError(str(exc)) from None
    try:
        return _act(client, args, plan)
    except (LinkError, DealerError) as exc:
        print(f"guandan-table: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # the interpreter flushes stdout at exit
        return 1
    finally:
        client.close()


def _act(client: DealerClient, args: argparse.Namespace, plan: DealPlan | None) -> int:
    if args.dealer_action == "deal":
        return _deal(client, args, plan)
    info = client.identify()
    if args.dealer_action == "identify":
        _emit(info.to_json())
        return 0
    report = client.self_test()
    _emit(report)
    return 0 if report["ok"] else 1


def _deal(client: DealerClient, args: argparse.Namespace, plan: DealPlan | None) -> int:
    """Deal, printing each card as it comes, then the summary; a link that gives up fouls the deal."""
    started = time.monotonic()
    retransmits_before = client.retransmits
    cards: list[CardRecord] = []
    try:
        info = client.identify()
    except LinkError as exc:
        if client.runner.identity is None:
            raise  # it never answered: the dealer cannot be reached (exit 1)
        info = DeviceInfo.from_identity(client.runner.identity)
        outcome = _given_up(exc, client, info, None, cards, started, retransmits_before)
    else:
        if plan is None and info.deals_to_plan:
            plan = new_deal(board=1)
        elif plan is not None and not info.deals_to_plan:
            raise DealerError("this dealer cannot deal to a plan, so it cannot deal a board of a deal file")
        if plan is not None:
            _say(f"承诺 / commitment {plan.commitment} (board {plan.board})")

        def on_card(record: CardRecord) -> None:
            cards.append(record)
            _emit(record.to_json())  # as it is dealt (flushed), not at the end

        try:
            outcome = client.deal(plan, on_card=on_card, timeout=args.deal_timeout)
        except (LinkError, DealerError) as exc:
            outcome = _given_up(exc, client, info, plan, cards, started, retransmits_before)
    _emit(outcome.summary())
    if outcome.fouled:
        _say(f"发牌错误，请重新发牌 / fouled, re-deal: {outcome.fouled}")
    return 0


def _given_up(
    exc: Exception, client: DealerClient, info: DeviceInfo, plan: DealPlan | None, cards: list[CardRecord],
    started: float, retransmits_before: int,
) -> DealOutcome:
    """The outcome of a deal the link gave up on: fouled, with the cards that came before it did."""
    if isinstance(exc, LinkError):
        reason = f"link: the dealer stopped answering ({exc})"
    else:
        reason = f"dealer: {exc}"
    hands: dict[str, list[str | None]] = {seat: [] for seat in SEATS}
    for record in cards:
        if record.seat in hands:
            hands[record.seat].append(record.card)
    return DealOutcome(
        ok=False, fouled=reason, hands=hands, cards=list(cards), faces_verified=info.reads_faces,
        commitment=plan.commitment if plan is not None else None,
        deal_line=plan.deal_line() if plan is not None else None,
        board=plan.board if plan is not None else None, boot_id=info.boot_id,
        retransmits=client.retransmits - retransmits_before, seconds=time.monotonic() - started,
    )
