"""``guandan-table run``, ``simulate`` and ``check-config``: the table daemon's commands (cli.md)."""

from __future__ import annotations

import argparse
import json
import logging
import math
import signal
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

from table_daemon.cli import UsageError
from table_daemon.cli_support import event_id, interrupt_on_term_and_hangup, number, table_id


def register(subparsers: Any) -> None:
    sim = subparsers.add_parser(
        "simulate",
        help="模拟整张牌桌 | run whole simulated tables (dealer, camera, buttons, four bots) over MQTT",
        description="模拟牌桌：模拟发牌机、摄像头、座位按钮和四个机器人，经 MQTT 发布。Runs whole simulated tables "
                    "and publishes everything over MQTT exactly as a real table does. Without --broker an "
                    "embedded broker is started and its URL printed on stderr.",
    )
    sim.add_argument("--broker", help="MQTT broker URL, mqtt://HOST:PORT (default: start an embedded one)")
    sim.add_argument("--table", type=table_id, default="T01", help="table id (桌号), default T01")
    sim.add_argument("--event", type=event_id, default="demo", help="event id (赛事), default demo")
    sim.add_argument("--profile", default="national",
                     help="rule profile (规则): a shipped name (default national) or a profile .toml file")
    group = sim.add_mutually_exclusive_group()
    group.add_argument("--deals", type=int, help="play N deals (打N副), default 1")
    group.add_argument("--match", action="store_true", help="play to the end of a match (打完一场)")
    sim.add_argument("--matches", type=int, default=1,
                     help="matches in a row at each table (0: a new one whenever one ends, until --duration)")
    sim.add_argument("--seed", type=int, default=None,
                     help="same seed, same deals and same plays (default: the table's number, so that tables run "
                          "as separate processes deal differently, as in one process)")
    sim.add_argument("--speed", type=number, default=1.0, help="time scale: 1 = real time, 10 = ten times faster, 0 = as fast as possible")
    sim.add_argument("--tables", type=int, default=1, help="number of tables in one process")
    sim.add_argument("--journal-dir", help="keep the tables' journals here (a rerun continues them)")
    sim.add_argument("--duration", type=number, help="stop after this many seconds")
    sim.add_argument("--await-desk", action="store_true",
                     help="等待记分台开赛: start no match; play the matches the event's desk starts (cmd/start_match) "
                          "until --duration or interrupted")
    sim.add_argument("--ca-file", help="CA certificate of a TLS broker (mqtts://): a hall's, signed by the event's CA")
    sim.add_argument("--broker-timeout", type=number, default=10.0,
                     help="seconds to wait for the broker before giving up (exit 1), default 10")
    sim.add_argument("--deal-file", help="复式 deal file (guandan-deals/1): the simulated dealers deal its boards; "
                                         "the tables' own matches play them in order (the first --deals N), one "
                                         "deal each, sealed until the desk releases them (rules §12)")
    sim.add_argument("--quiet", action="store_true", help="no per-deal progress on stderr")
    sim.add_argument("--direct", action="store_true",
                     help="read laid cards directly instead of through the simulated camera and card reader")
    sim.add_argument("--deck", metavar="DESIGN",
                     help="the simulated camera's deck design: 'held-out' (default: one the card reader never "
                          "trained on, by seed), a name of hardware/cameras/decks/, or 'builtin' (the designs it "
                          "trained on)")
    sim.add_argument("--reader", choices=("net", "glyphs"), default="net",
                     help="the card reader: the learned one (default) or the glyph rules")
    sim.set_defaults(handler=cmd_simulate)

    run = subparsers.add_parser("run", help="运行牌桌守护进程 | run the daemon of one real table",
                                description="Runs the daemon for one table from a TOML config.")
    run.add_argument("--config", required=True, help="table config (TOML)")
    run.add_argument("--log-level", default="INFO")
    run.set_defaults(handler=cmd_run)

    check = subparsers.add_parser("check-config", help="检查配置文件 | validate a table config",
                                  description="Validates a table config; names the bad key, file and line.")
    check.add_argument("file")
    check.set_defaults(handler=cmd_check_config)


def _load(path: str, warnings: list[str] | None = None) -> Any:
    from table_daemon.config import ConfigError
    from table_daemon.config_check import load_checked

    try:
        return load_checked(path, warnings)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def cmd_check_config(args: argparse.Namespace) -> int:
    warnings: list[str] = []  # devices absent here: the table would start and report them missing
    cfg = _load(args.file, warnings)
    print(json.dumps({"ok": True, "file": args.file, "table": cfg.table.id, "event": cfg.table.event,
                      "profile": cfg.table.profile, "broker": cfg.mqtt.url, "dealer": cfg.dealer.port,
                      "camera": cfg.camera.source, "pin_factory": cfg.panels.pin_factory or "default",
                      "warnings": warnings}, ensure_ascii=False))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from guandan import ProfileError
    from table_daemon.rules_ops_deal import resolve_profile
    from table_daemon.simulate import run_simulation

    if args.deals is not None and args.deals < 1:
        raise UsageError("--deals must be at least 1")
    if not 1 <= args.tables <= 500:
        raise UsageError("--tables must be between 1 and 500")
    if not (math.isfinite(args.speed) and args.speed >= 0):
        raise UsageError("--speed must be 0 or more")
    if not (math.isfinite(args.broker_timeout) and args.broker_timeout > 0):
        raise UsageError("--broker-timeout must be more than 0 seconds")
    if args.duration is not None and not (math.isfinite(args.duration) and args.duration > 0):
        raise UsageError("--duration must be more than 0 seconds")
    if args.journal_dir and Path(args.journal_dir).exists() and not Path(args.journal_dir).is_dir():
        raise UsageError(f"--journal-dir {args.journal_dir}: not a folder")
    if args.matches < 0 or (args.matches == 0 and not args.duration and not args.await_desk):
        raise UsageError("--matches must be 1 or more, or 0 with --duration")
    if args.broker is not None and not args.broker.startswith(("mqtt://", "mqtts://", "tcp://")):
        raise UsageError(f"--broker must be mqtt://HOST:PORT, got {args.broker!r}")
    if args.ca_file:
        from table_daemon.adapters.mqtt_connection import tls_files_problem

        problem = tls_files_problem(args.ca_file)
        if problem is not None:
            raise UsageError(f"--ca-file: {problem[1]}")
    try:
        resolve_profile(args.profile)
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    if args.deck is not None:
        from hardware.cameras.simulated import check_deck

        try:
            check_deck(args.deck)
        except ValueError as exc:
            raise UsageError(f"--deck: {exc}") from None
    deal_file = ""
    if args.deal_file:
        from firmware_bridge.deal import DealFileError, check_deal_file

        try:
            check_deal_file(args.deal_file)
        except DealFileError as exc:
            raise UsageError(f"--deal-file: {exc}") from None
        deal_file = str(Path(args.deal_file).resolve())
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    interrupt_on_term_and_hangup()
    return run_simulation(broker=args.broker, table=args.table, event=args.event, profile=args.profile,
                          deals=args.deals, match=args.match, seed=args.seed, speed=args.speed,
                          tables=args.tables, journal_dir=args.journal_dir, timeout=args.duration,
                          quiet=args.quiet, camera=not args.direct, matches=args.matches,
                          await_desk=args.await_desk, broker_timeout=args.broker_timeout, deck=args.deck,
                          reader=args.reader, ca_file=args.ca_file or "", deal_file=deal_file)



def cmd_run(args: argparse.Namespace) -> int:
    from table_daemon.runtime import build_table

    cfg = _load(args.config)
    logging.basicConfig(level=getattr(logging, str(args.log_level).upper(), logging.INFO), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    from table_daemon.adapters.journal import JournalError, journal_problem

    try:
        app = build_table(cfg)
    except JournalError as exc:  # said in one line (systemd's status shows it), never as a traceback
        print(f"guandan-table: {exc}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:  # met while replaying the journal
        print(f"guandan-table: journal {cfg.journal.path}: {journal_problem(exc)} [{exc}]", file=sys.stderr)
        return 1
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    app.start()
    print(f"牌桌 {cfg.table.id} 运行中 | table {cfg.table.id} running, broker {cfg.mqtt.url}", file=sys.stderr,
          flush=True)
    stop.wait()
    app.stop()
    return 0
