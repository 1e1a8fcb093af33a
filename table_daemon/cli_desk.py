"""``guandan-table desk``: the scoring desk (记分台) and its sub-actions for scripts and referees.

Run form: ``guandan-table desk --broker URL --event ID --db FILE [--http PORT]`` runs the desk until
interrupted. Sub-actions: ``init`` (event from a CSV of registered pairs), ``pair`` (pair the next round),
``standings`` (JSON or CSV), ``correct`` (a referee's change, void or penalty, with who and why), and
``display`` (a display server on its own, without a desk).
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli import UsageError
from .cli_support import event_id, topic_prefix

if TYPE_CHECKING:
    from .adapters.referee_link import RefereeLink
    from .display.referees import Referees


def _port(text: str) -> int:
    """``--http``: a TCP port, 0 for any free one (a port beyond 65535 made ``bind`` raise a traceback)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} must be from 0 to 65535 (0: any free port)")
    return port


def _points(text: str) -> float:
    """``--match-points``/``--level-points``: a finite number (nan or inf would make the standings invalid
    JSON, ``NaN``/``-Infinity``, for every reader from then on)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    desk = subparsers.add_parser(
        "desk", help="scoring desk 记分台: results, pairings, standings, live displays",
        description="记分台 Scoring desk. Run form: desk --broker URL --event ID --db FILE [--http PORT].")
    desk.add_argument("--broker", help="MQTT broker, mqtt://HOST:PORT")
    desk.add_argument("--event", type=event_id, help="event id 赛事编号")
    desk.add_argument("--db", help="SQLite file of the desk 记分数据库")
    desk.add_argument("--http", type=_port, default=None, help="serve the desk and display pages on this port")
    desk.add_argument("--host", default="127.0.0.1", help="address for --http (default 127.0.0.1)")
    desk.add_argument("--public-url", metavar="URL",
                      help="address spectators' phones open (the overview's link and QR code), e.g. "
                           "http://hall.example:8080; default: the address the screen itself used")
    desk.add_argument("--prefix", type=topic_prefix, default="guandan/v1", help="topic prefix (default guandan/v1)")
    desk.add_argument("--no-shared", action="store_true", help="plain subscriptions instead of $share")
    desk.add_argument("--ca-file", help="CA certificate of a TLS broker (mqtts://, wss://)")
    desk.add_argument("--standby", metavar="NAME",
                      help="备用记分台 stand by as second desk NAME: copy what the desk counts, take over when "
                           "the first desk's status goes offline")
    desk.add_argument("--referee-password-file", type=Path, metavar="FILE",
                      help="file holding the referee password: the desk page (--http) is behind it and referees "
                           "work from it (pair, start, correct, acknowledge); without it the page is read-only")
    desk.add_argument("--referee-accounts", type=Path, metavar="FILE",
                      help="referees' own accounts instead (desk referee adds one): each logs in as themself, "
                           "so a correction's second referee is a second account, not a second name typed")
    desk.add_argument("--referee-broker-user", metavar="NAME",
                      help="牌桌指令 the broker's referee account (deploy/mosquitto/guandan.acl: referee): the page "
                           "then commands tables (pause, resume, deal, penalty, correction); the desk's own account "
                           "may only start matches")
    desk.add_argument("--referee-broker-password-file", type=Path, metavar="FILE",
                      help="file holding that account's broker password")
    desk.add_argument("--referee-key-file", type=Path, metavar="KEY",
                      help="the referees' signing key, when the tables check signatures (table.referee_key_file)")
    desk.set_defaults(handler=run_desk)
    actions = desk.add_subparsers(dest="desk_action", metavar="ACTION")

    ref = actions.add_parser("referee", help="add a referee's own account (or a new password) 裁判账号",
                             description="Adds a referee's account to an accounts file for desk --referee-accounts. "
                                         "The password is asked (twice) on a terminal, else read from the first "
                                         "line of standard input; the file keeps only its salted hash.")
    ref.add_argument("--accounts", type=Path, required=True, metavar="FILE")
    ref.add_argument("--name", required=True, help="the referee's name, as the desk will show it 裁判姓名")
    ref.set_defaults(handler=run_referee)

    init = actions.add_parser("init", help="set up the event from a CSV of registered pairs 报名表")
    init.add_argument("--db", required=True)
    init.add_argument("--event", required=True, type=event_id)
    init.add_argument("--pairs", required=True, help="CSV: team,player1,player2,unit (队名,队员1,队员2,单位)")
    init.add_argument("--profile", default="national", help="rule profile sent to the tables")
    init.add_argument("--scoring", default="standard",
                      choices=("standard", "three_point", "level_value", "one_to_three"))
    init.add_argument("--match-end", default="pass_a",
                      help="pass_a | deals:N | time:MINUTES | time_or_deals:MINUTES:N")
    init.add_argument("--duplicate", action="store_true", help="复式 duplicate event: compare boards")
    init.add_argument("--units-together", action="store_true", help="不回避: do not keep same-unit pairs apart")
    init.add_argument("--tables", help="table ids in order, comma separated, one for each match of a round "
                                       "(default T01, T02, ...)")
    init.add_argument("--lot-seed", help="seed of the lots (default: drawn at random and recorded)")
    init.add_argument("--deal-file", help="复式 deal file (guandan-deals/1) the tables deal from")
    init.add_argument("--boards", help="boards of the deal file each match plays, e.g. 1-8 or 1,3,5")
    init.add_argument("--timezone", default="Asia/Shanghai",
                      help="time zone the desk shows times in 时区 (default Asia/Shanghai)")
    init.set_defaults(handler=run_init)

    pair = actions.add_parser("pair", help="pair the next round 编排 (sent to the tables by the running desk)")
    pair.add_argument("--db", required=True)
    pair.add_argument("--round", type=int, required=True)
    pair.add_argument("--method", choices=("swiss", "round_robin", "knockout"),
                      help="积分编排 swiss (default), round_robin 循环, knockout 淘汰 (with play-offs)")
    pair.set_defaults(handler=run_pair)

    stand = actions.add_parser("standings", help="print the standings 成绩")
    stand.add_argument("--db", required=True)
    stand.add_argument("--format", choices=("json", "csv"), default="json")
    stand.set_defaults(handler=run_standings)

    cor = actions.add_parser("correct", help="referee: change or void a result, or apply a penalty 更正")
    cor.add_argument("--db", required=True)
    cor.add_argument("--by", required=True, help="who makes the change 裁判")
    cor.add_argument("--reason", required=True, help="why 原因")
    cor.add_argument("--round", type=int)
    cor.add_argument("--table")
    cor.add_argument("--result", help="a deal record's result id (to void or restore one deal)")
    cor.add_argument("--team", help="team name or id (for --penalty)")
    cor.add_argument("--void", action="store_true")
    cor.add_argument("--restore", action="store_true", help="count a voided deal again")
    cor.add_argument("--levels", help="final levels, e.g. NS=A+,EW=5")
    cor.add_argument("--winner", choices=("NS", "EW", "draw"))
    cor.add_argument("--walkover", action="store_true")
    cor.add_argument("--penalty", choices=("violation", "deduct"))
    cor.add_argument("--match-points", type=_points, default=0.0, help="场分 taken off")
    cor.add_argument("--level-points", type=_points, default=0.0, help="级差分 taken off")
    cor.set_defaults(handler=run_correct)

    disp = actions.add_parser("display", help="display server on its own 现场显示 (no desk)")
    disp.add_argument("--broker", required=True)
    disp.add_argument("--event", required=True, type=event_id)
    disp.add_argument("--http", type=_port, required=True)
    disp.add_argument("--host", default="127.0.0.1")
    disp.add_argument("--prefix", type=topic_prefix, default="guandan/v1")
    disp.add_argument("--ca-file", help="CA certificate of a TLS broker (mqtts://, wss://)")
    disp.add_argument("--public-url", metavar="URL",
                      help="address spectators' phones open (the hall screen's link and QR code), e.g. "
                           "http://hall.example:8080; default: the address the screen itself used")
    disp.add_argument("--commentary-delay", type=float, metavar="SECONDS",
                      help="解说视图 add the commentators' view of the hands, this many seconds late, at "
                           "/commentary/TABLE (needs --referee-password-file and a broker user allowed private/#)")
    disp.add_argument("--referee-password-file", type=Path, metavar="FILE",
                      help="file holding the referee password that opens the commentary view")
    disp.add_argument("--referee-accounts", type=Path, metavar="FILE",
                      help="referees' own accounts (desk referee) instead of one shared password")
    disp.set_defaults(handler=run_display)


def _store(path: str | None, *, create: bool = False) -> Any:
    from .desk.store import Store, StoreError

    if not path:
        raise UsageError("--db FILE is required")
    if not create and not Path(path).is_file():
        raise UsageError(f"no desk database at {path} (create one with `guandan-table desk init`)")
    try:
        return Store(path)
    except StoreError as exc:
        raise UsageError(str(exc)) from exc


def _password(path: Path) -> str:
    try:
        password = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    if len(password) < 8:
        raise UsageError(f"{path}: the referee password must have at least 8 characters")
    return password


def _referees(args: argparse.Namespace) -> Referees | None:
    """Who may work from the desk page: the shared password, the referees' own accounts, or nobody."""
    from .display.referees import AccountsError, Referees

    if args.referee_accounts and args.referee_password_file:
        raise UsageError("--referee-accounts or --referee-password-file, not both")
    if args.referee_accounts:
        try:
            return Referees.with_accounts(args.referee_accounts)
        except AccountsError as exc:
            raise UsageError(str(exc)) from None
    if args.referee_password_file:
        return Referees.with_password(_password(args.referee_password_file))
    return None


def _secret(path: Path, option: str) -> str:
    """The first line's worth of a password or key file, refused in one line when unreadable or empty."""
    try:
        text = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{option} {path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    if not text:
        raise UsageError(f"{option} {path}: empty")
    return text


def _referee_link(args: argparse.Namespace, referees: Referees | None) -> RefereeLink | None:
    """The referee account's link for the page's table commands, or None without ``--referee-broker-user``.

    Checked before the desk starts, each problem in one line: the password file and key file read, the
    account's name one the tables answer, and a page to send from (``--http`` with the referee login). A
    standby desk's page is read-only: it sends nothing, and says so."""
    from .adapters.consumer_link import parse_broker
    from .adapters.mqtt_connection import TlsFilesError
    from .adapters.referee_link import RefereeLink

    if args.referee_broker_user is None:
        for option, value in (("--referee-broker-password-file", args.referee_broker_password_file),
                              ("--referee-key-file", args.referee_key_file)):
            if value is not None:
                raise UsageError(f"{option} needs --referee-broker-user (the referee account's name)")
        return None
    if args.referee_broker_password_file is None:
        raise UsageError("--referee-broker-user needs --referee-broker-password-file (that account's password)")
    password = _secret(args.referee_broker_password_file, "--referee-broker-password-file")
    key = _secret(args.referee_key_file, "--referee-key-file").encode("utf-8") if args.referee_key_file else None
    if args.standby:
        print("desk: 备用记分台只读，不发牌桌指令 a standby desk's page is read-only: --referee-broker-user not used",
              file=sys.stderr)
        return None
    if args.http is None or referees is None:
        raise UsageError("--referee-broker-user: table commands are sent from the desk page, which needs --http "
                         "PORT and the referee login (--referee-password-file or --referee-accounts)")
    try:
        return RefereeLink(parse_broker(args.broker), args.event, user=args.referee_broker_user, password=password,
                           key=key, prefix=args.prefix, ca_file=args.ca_file, name="desk referee 记分台裁判指令")
    except TlsFilesError as exc:
        raise UsageError(f"--ca-file: {exc.message}") from None
    except ValueError as exc:
        raise UsageError(f"--referee-broker-user: {exc}") from None


def run_referee(args: argparse.Namespace) -> int:
    from getpass import getpass

    from .display.referees import AccountsError, add_account

    if sys.stdin.isatty():
        password = getpass(f"{args.name} 的密码 password: ")
        if getpass("再输一次 again: ") != password:
            raise UsageError("the two passwords differ 两次密码不同")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    try:
        new = add_account(args.accounts, args.name, password)
    except AccountsError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps({"ok": True, "file": str(args.accounts), "name": args.name.strip(), "new": new},
                     ensure_ascii=False))
    return 0


def _ca_file(path: str | None) -> None:
    """Refuse a ``--ca-file`` that cannot be read as CA certificates, naming it: the MQTT client would raise
    a traceback (the desk) or an error without the file's name (the display) when it loads it."""
    import ssl

    if path is None:
        return
    try:
        ssl.create_default_context().load_verify_locations(cafile=path)
    except ssl.SSLError as exc:  # before OSError: an SSLError is one
        raise UsageError(f"--ca-file {path}: no CA certificate (PEM) in it ({exc.reason or exc})") from None
    except OSError as exc:
        raise UsageError(f"--ca-file {path}: cannot read it: {exc.strerror or exc}") from None


def _wait_for_signal() -> None:
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    done.wait()


def run_desk(args: argparse.Namespace) -> int:
    import logging

    from .adapters.consumer_link import LinkError, parse_broker
    from .adapters.mqtt_connection import redacted
    from .desk.service import Desk
    from .desk.standby import Standby
    from .desk.web import desk_server

    logging.basicConfig(level=logging.WARNING, format="desk: %(levelname)s %(message)s")
    if not args.broker or not args.event:
        raise UsageError("the desk needs --broker URL --event ID --db FILE (or an action: init, pair, ...)")
    try:
        parse_broker(args.broker)
    except LinkError as exc:
        raise UsageError(str(exc)) from exc
    _ca_file(args.ca_file)
    referees = _referees(args)
    referee_link = _referee_link(args, referees)
    store = _store(args.db, create=True)
    try:
        if args.standby:
            desk: Any = Standby(store, args.broker, args.event, instance=args.standby, prefix=args.prefix,
                                ca_file=args.ca_file)
        else:
            desk = Desk(store, args.broker, args.event, prefix=args.prefix, shared=not args.no_shared,
                        ca_file=args.ca_file, say=lambda text: print(text, file=sys.stderr, flush=True))
    except (LinkError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    hub = desk.copy.hub if args.standby else desk.hub
    try:
        # a standby desk serves the pages read-only: referees act on the desk that is counting
        web = (desk_server(store, hub, args.http, args.host, referees=referees,
                           desk=None if args.standby else desk, public_url=args.public_url,
                           read_only=bool(args.standby), referee_link=referee_link)
               if args.http is not None else None)
    except OSError as exc:
        raise UsageError(f"无法在端口 {args.http} 提供网页 cannot serve the desk pages on {args.host}:{args.http}: "
                         f"{exc.strerror or exc}") from exc
    if web:
        web.start()
        mode = ("read-only 只读 (no --referee-password-file or --referee-accounts)" if referees is None else
                f"referee accounts 裁判账号: {', '.join(referees.accounts)}" if referees.named else
                "referee password 裁判密码")
        print(f"desk: pages at http://{args.host}:{web.port}/ ({mode}; displays at /display/)", file=sys.stderr,
              flush=True)
        if referees is not None and not args.standby:
            print("desk: 牌桌指令 table commands " + (
                f"as broker user {args.referee_broker_user}{', signed' if args.referee_key_file else ''}"
                if referee_link is not None else "off: they need --referee-broker-user and its password file"),
                file=sys.stderr, flush=True)
    if referee_link is not None:
        referee_link.start()
    desk.start()
    print(f"desk: event {args.event} on {redacted(args.broker)}", file=sys.stderr)
    try:
        _wait_for_signal()
    finally:
        desk.stop()
        if referee_link is not None:
            referee_link.stop()
        if web:
            web.stop()
        store.close()
    return 0


def match_end_arg(text: str) -> dict[str, Any]:
    """``--match-end`` as the ``match_end`` of ``start_match`` (also read by ``demo``).

    Deals and minutes are held to the limits the table's ``start_match`` holds them to (``MAX_DEALS``,
    ``MAX_MINUTES``): a match end every table would refuse is said here, not after the event is set up."""
    from .controller.match import MAX_DEALS, MAX_MINUTES

    parts = text.split(":")
    end: dict[str, Any] | None = None
    try:
        if parts[0] == "pass_a" and len(parts) == 1:
            end = {"method": "pass_a"}
        elif parts[0] == "deals" and len(parts) == 2:
            end = {"method": "deals", "deals": int(parts[1])}
        elif parts[0] == "time" and len(parts) == 2:
            end = {"method": "time", "minutes": int(parts[1])}
        elif parts[0] == "time_or_deals" and len(parts) == 3:
            end = {"method": "time_or_deals", "minutes": int(parts[1]), "deals": int(parts[2])}
    except ValueError:
        pass
    if end is None:
        raise UsageError(f"--match-end {text!r}: use pass_a, deals:N, time:MINUTES or time_or_deals:MINUTES:N")
    if not 1 <= end.get("deals", 1) <= MAX_DEALS:
        raise UsageError(f"--match-end {text!r}: a match plays 1 to {MAX_DEALS} deals")
    if not 1 <= end.get("minutes", 1) <= MAX_MINUTES:
        raise UsageError(f"--match-end {text!r}: a match lasts 1 to {MAX_MINUTES} minutes")
    return end


def _check_deal_file(path: str, boards: list[int] | None) -> None:
    """The deal file the tables will deal from, when the desk's machine has it too: every board readable and
    once, and every board a match plays in it. The tables read their own copy (``check-config`` checks it
    there), so a file the desk does not have is said, not refused."""
    from firmware_bridge.deal import DealFileError, check_deal_file

    if not Path(path).exists():
        print(f"desk init: --deal-file {path} 不在本机，无法检查；请在每张牌桌上用 check-config 检查 | is not on this "
              "machine and was not checked: check it at each table with check-config", file=sys.stderr)
        return
    try:
        held = set(check_deal_file(path))
    except DealFileError as exc:
        raise UsageError(f"--deal-file: {exc}") from None
    missing = sorted(set(boards or []) - held)
    if missing:
        raise UsageError(f"--boards: board(s) {', '.join(map(str, missing[:10]))} are not in {path}")


def _boards(text: str) -> list[int]:
    """``--boards`` (``1-8``, ``1,3,5``) as a list, at most the ``MAX_BOARDS`` a table's ``start_match`` takes;
    counted range by range, so that ``1-100000000`` is refused at once instead of filling the memory."""
    from .controller.match import MAX_BOARDS

    out: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        try:
            lo, hi = int(first), int(last or first)
        except ValueError:
            raise UsageError(f"--boards {text!r}: write board numbers like 1-8 or 1,3,5") from None
        if lo < 1:
            raise UsageError(f"--boards {text!r}: board numbers start at 1")
        if hi < lo:
            raise UsageError(f"--boards {text!r}: {part.strip()!r} runs backwards (write {hi}-{lo})")
        if len(out) + hi - lo + 1 > MAX_BOARDS:
            raise UsageError(f"--boards {text!r}: a match plays at most {MAX_BOARDS} boards")
        out.extend(range(lo, hi + 1))
    return out


def run_init(args: argparse.Namespace) -> int:
    from .desk import clock
    from .desk.event import EventError, read_pairs_csv, tables_error, too_few_tables
    from .desk.store import StoreError

    try:
        teams = read_pairs_csv(args.pairs)
    except EventError as exc:
        raise UsageError(str(exc)) from exc
    settings: dict[str, Any] = {"profile": args.profile, "scoring": args.scoring, "duplicate": args.duplicate,
                                "keep_units_apart": not args.units_together,
                                "match_end": match_end_arg(args.match_end)}
    if args.deal_file:
        settings["deal_file"] = args.deal_file
    if args.boards is not None:
        settings["boards"] = _boards(args.boards)
    if args.deal_file:
        _check_deal_file(args.deal_file, settings.get("boards"))
    try:
        settings["timezone"] = clock.zone(args.timezone).key
    except clock.ClockError as exc:
        raise UsageError(f"--timezone: {exc}") from exc
    if args.tables is not None:
        # checked here, where the list can still be fixed: once a round is paired the event's tables are fixed
        tables = [t.strip() for t in args.tables.split(",")]
        error = tables_error(tables) or too_few_tables(tables, len(teams) // 2)
        if error is not None:
            raise UsageError(f"--tables {args.tables!r}: {error}")
        settings["tables"] = tables
    store = _store(args.db, create=True)
    try:
        store.set_up(args.event, teams, settings, args.lot_seed)
    except StoreError as exc:
        raise UsageError(str(exc)) from exc
    print(json.dumps({"event": args.event, "teams": len(teams), "lot_seed": store.meta("lot_seed"),
                      "settings": store.settings()}, ensure_ascii=False))
    return 0


def run_pair(args: argparse.Namespace) -> int:
    from .desk import export
    from .desk.event import EventError, pair_round

    store = _store(args.db)
    try:
        rows = pair_round(store, args.round, args.method)
    except EventError as exc:
        raise UsageError(str(exc)) from exc
    teams = store.teams()
    paired = export.pairing_rows(rows, {t.id: t.name for t in teams}, {t.id: t.unit for t in teams})
    for row in paired:
        print(json.dumps(row, ensure_ascii=False))
    if store.settings().get("keep_units_apart"):
        for row in paired:
            if row["same_unit"]:
                print(f"注意：{row['table']} {row['ns_name']} 对 {row['ew_name']} 同属 {row['same_unit']}，本轮无法回避 | "
                      f"note: {row['table']} pairs two teams of {row['same_unit']}; no pairing this round kept "
                      "them apart without a rematch or a point's difference", file=sys.stderr)
    return 0


def run_standings(args: argparse.Namespace) -> int:
    from .desk import export
    from .desk.event import standings_report

    report = standings_report(_store(args.db))
    if args.format == "csv":
        sys.stdout.write(export.standings_csv(report))
    else:
        print(json.dumps(report, ensure_ascii=False))
    return 0


def run_correct(args: argparse.Namespace) -> int:
    from .desk.corrections import CorrectionError, correction_from_args

    store = _store(args.db)
    try:
        n = correction_from_args(store, args)
    except CorrectionError as exc:
        raise UsageError(str(exc)) from exc
    print(json.dumps({"correction": n, "version": store.revision}))
    return 0


def run_display(args: argparse.Namespace) -> int:
    import logging

    from .adapters.consumer_link import LinkError
    from .display.service import DisplayService

    logging.basicConfig(level=logging.WARNING, format="display: %(levelname)s %(message)s")
    _ca_file(args.ca_file)
    referees = None
    if args.commentary_delay is not None:
        if not 0 <= args.commentary_delay <= 3600:
            raise UsageError("--commentary-delay must be between 0 and 3600 seconds")
        referees = _referees(args)
        if referees is None:
            raise UsageError("--commentary-delay needs --referee-password-file or --referee-accounts")
    try:
        service = DisplayService(args.broker, args.event, prefix=args.prefix, port=args.http, host=args.host,
                                 ca_file=args.ca_file, commentary_delay=args.commentary_delay,
                                 referees=referees, public_url=args.public_url)
    except (LinkError, OSError) as exc:
        raise UsageError(str(exc)) from exc
    service.start()
    print(f"display: http://{args.host}:{service.web.port}/display/", file=sys.stderr)
    if referees is not None:
        print(f"commentary (解说视图, {args.commentary_delay:g} s late, "
              f"{'referee accounts' if referees.named else 'referee password'}): "
              f"http://{args.host}:{service.web.port}/commentary/TABLE", file=sys.stderr)
    try:
        _wait_for_signal()
    finally:
        service.stop()
    return 0
