"""``guandan-table demo`` (the first command of the README, via ``scripts/run``): the whole product on one
machine. An embedded broker, the scoring desk with its referee page and the display pages, and simulated
tables that play the matches the desk starts (``simulate --await-desk``), exactly as at an event. It prints
the addresses of the pages and the referee password, and the progress of every deal (deal, tricks, levels)
on the console; the same progress shows on the pages.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

from table_daemon.cli import UsageError
from table_daemon.cli_support import interrupt_on_term_and_hangup, number

TEAM_NAMES = ("红队 Red", "蓝队 Blue", "金队 Gold", "银队 Silver", "松队 Pine", "竹队 Bamboo", "梅队 Plum",
              "兰队 Orchid")


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "demo", help="演示：模拟牌桌、记分台与现场显示 | the whole product on one machine: simulated tables, desk, displays",
        description="Starts an embedded MQTT broker, the scoring desk (referee page and display pages) and "
                    "simulated tables that play the matches the desk starts; prints the pages' addresses.")
    demo.add_argument("--http", type=int, default=8080, help="port of the desk and display pages (default 8080; "
                                                              "0 or a busy port: any free one)")
    demo.add_argument("--host", default="127.0.0.1", help="address of the pages (default 127.0.0.1)")
    demo.add_argument("--tables", type=int, default=1, help="simulated tables (two pairs each), default 1")
    demo.add_argument("--speed", type=number, default=1.0,
                      help="time scale: 1 = a deal in about a minute, 0 = as fast as possible")
    demo.add_argument("--seed", type=int, default=1, help="same seed, same deals and same plays")
    demo.add_argument("--match-end", default="pass_a", help="pass_a | deals:N (as desk init)")
    demo.add_argument("--dir", type=Path, help="keep the demo's desk database and journals here (default: a new "
                                               "temporary folder)")
    demo.add_argument("--duration", type=number, help="stop after this many seconds")
    demo.add_argument("--direct", action="store_true", help="read laid cards without the simulated camera")
    demo.set_defaults(handler=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from table_daemon.adapters.broker import LocalBroker
    from table_daemon.adapters.mqtt_connection import parse_broker_url
    from table_daemon.adapters.referee_link import RefereeLink
    from table_daemon.cli_desk import match_end_arg
    from table_daemon.desk.event import pair_round
    from table_daemon.desk.service import Desk
    from table_daemon.desk.standings import Team
    from table_daemon.desk.store import Store, StoreError
    from table_daemon.desk.web import desk_server
    from table_daemon.simulate import run_simulation

    if not 1 <= args.tables <= len(TEAM_NAMES) // 2:
        raise UsageError(f"--tables must be between 1 and {len(TEAM_NAMES) // 2}")
    if args.speed < 0:
        raise UsageError("--speed must be 0 or more")
    match_end = match_end_arg(args.match_end)
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="guandan-demo-"))
    workdir.mkdir(parents=True, exist_ok=True)
    event, tables = "demo", [f"T{i + 1:02d}" for i in range(args.tables)]
    try:
        store = Store(workdir / "desk.sqlite")
    except StoreError as exc:  # a --dir holding another program's desk.sqlite: left as it is
        raise UsageError(f"--dir {workdir}: {exc}".replace("give --db the desk's own file",
                                                              "give --dir a folder of its own")) from None
    if store.event() is None:
        teams = [Team(i + 1, name, (f"{name.split()[0]}甲", f"{name.split()[0]}乙"), f"单位 Club {i // 2 + 1}")
                 for i, name in enumerate(TEAM_NAMES[:2 * args.tables])]
        store.set_up(event, teams, {"tables": tables, "match_end": match_end, "keep_units_apart": False})
        pair_round(store, 1)
    password_file = workdir / "referee-password"
    if not password_file.exists():
        password_file.write_text(secrets.token_urlsafe(9) + "\n")
        password_file.chmod(0o600)
    password = password_file.read_text().strip()
    broker = LocalBroker().start()
    desk = Desk(store, broker.url, event, say=say_line)
    # the referees' table commands from the desk page (pause, deal, penalty ...): the embedded broker has no
    # accounts, so the referee link is one more client of it
    referee_link = RefereeLink(parse_broker_url(broker.url), event)
    try:
        web = desk_server(store, desk.hub, args.http, args.host, password=password, desk=desk,
                          referee_link=referee_link)
    except OSError:  # the port is taken: any free one will do for a demo
        web = desk_server(store, desk.hub, 0, args.host, password=password, desk=desk, referee_link=referee_link)
    web.start()
    desk.start()
    referee_link.start()
    base = f"http://{args.host}:{web.port}"
    kept = "" if args.dir else "（临时文件夹，演示结束后保留 · a temporary folder, kept after the demo）"
    say_line(f"""
掼蛋演示 Guandan demo
  记分台 Desk (referees):   {base}/          用户名任意 any user name, 密码 password: {password}
  现场显示 Displays:         {base}/display/   积分榜 standings: {base}/standings   打印 print: {base}/print
  牌桌 Tables:               {"  ".join(f"{base}/display/{t}" for t in tables)}
  MQTT 代理 broker:          {broker.url}
  数据 files:                {workdir}{kept}
  Ctrl+C 结束 stops the demo.
""")
    interrupt_on_term_and_hangup()
    try:
        return run_simulation(broker=broker.url, table="T01" if args.tables == 1 else "T", event=event,
                              profile="national", deals=None, match=True, seed=args.seed, speed=args.speed,
                              tables=args.tables, journal_dir=str(workdir / "journals"), timeout=args.duration,
                              camera=not args.direct, await_desk=True)
    finally:
        referee_link.stop()
        desk.stop()
        web.stop()
        store.close()
        broker.close()
        say_line(f"演示已结束，数据保留在 {workdir}（--dir 可接着打）| demo stopped; its files are kept in {workdir} "
                 "(--dir DIR to go on with them)")


def say_line(text: str) -> None:
    """One line on the console, written in one piece: the desk's thread and the tables' would run two lines
    together ("... sent已连接 MQTT 代理") when print wrote a line and its newline apart."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
