"""``guandan-table desk`` run form and ``desk display``: the long-running desk and the display server on its own.

Split from ``cli_desk`` (which keeps the argument registration) so that what runs until interrupted, and the
checks made before it starts (the referee login, ``--referee-broker-user`` and its files, ``--ca-file``,
``--commentary-delay``), live apart from the one-shot actions on the event database in ``cli_desk_event``.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_desk_event import open_store
from .cli_support import UsageError

if TYPE_CHECKING:
    from .adapters.referee_link import RefereeLink
    from .display.referees import Referees


def _password(path: Path) -> str:
    try:
        password = path.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    if len(password) < 8:
        raise UsageError(f"{path}: 裁判密码至少 8 个字符 | the referee password must have at least 8 characters")
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
    # never created here: a mistyped --db ran as an empty event of 0 teams that looked healthy (desk init makes
    # the database; a standby desk's is set up by the same desk init as the first desk's)
    store = open_store(args.db)
    if store.event() is None or not store.teams():
        store.close()
        raise UsageError(f"记分台数据库 {args.db} 尚未设置赛事 | no event is set up in the desk database {args.db} "
                         "(set it up with `guandan-table desk init`)")
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
