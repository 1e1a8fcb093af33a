"""``guandan-table desk`` actions on the event's database: ``init``, ``pair``, ``standings``, ``correct``, and
``referee`` (a referee's own account).

Split from ``cli_desk`` (which keeps the argument registration) so that the one-shot actions scripts and
referees run against the desk database, and their argument checks (``--match-end``, ``--boards``,
``--deal-file``), live apart from the long-running desk and display in ``cli_desk_run``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .cli_support import UsageError


def open_store(path: str | None, *, create: bool = False) -> Any:
    """The desk's SQLite store at ``--db``, refused in one line when missing or empty (unless ``create``: only
    ``desk init`` makes one), unreadable, or another kind of database (a table's journal ...: left unchanged)."""
    from .desk.store import Store, StoreError

    if not path:
        raise UsageError("--db FILE is required")
    if not create and not Path(path).is_file():
        raise UsageError(f"no desk database at {path} (create one with `guandan-table desk init`)")
    try:
        return Store(path, create=create)
    except StoreError as exc:
        raise UsageError(str(exc)) from exc


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


def _match_end_of(text: str | None, boards: list[int] | None) -> dict[str, Any]:
    """``--match-end``, by default pass A, or with ``--boards`` as many deals as boards: a match of boards that
    went on past its last board dealt that board again, and the desk scored it again. A match end that does not
    play each board once is refused (the tables refuse it too)."""
    if text is None:
        return {"method": "deals", "deals": len(boards)} if boards else {"method": "pass_a"}
    end = match_end_arg(text)
    if boards and (end["method"] not in ("deals", "time_or_deals") or end.get("deals") != len(boards)):
        raise UsageError(f"--match-end {text!r}: a match of {len(boards)} boards plays {len(boards)} deals, each board "
                         f"once (leave --match-end out, or deals:{len(boards)} or time_or_deals:MINUTES:{len(boards)})")
    return end


def _profile_arg(value: str) -> str | dict[str, Any]:
    """``desk init --profile``: a shipped profile's name, sent to the tables as it is, or a profile file (TOML,
    ``base`` and settings), checked here and sent as its settings (mqtt-api.md: a NAME or {settings}). A name the
    tables do not know had every table refuse every start of the event, retried for ever."""
    import tomllib

    from guandan import PROFILES, ProfileError, profile_from_toml

    if value in PROFILES:
        return value
    if not value.endswith(".toml"):
        raise UsageError(f"--profile {value!r}: no such profile (shipped: {', '.join(PROFILES)}; or a .toml file)")
    from .text_files import NotUtf8Error, utf8_text

    try:
        text = utf8_text(value)
        profile_from_toml(text, source=value, default_name=Path(value).stem)
        settings: dict[str, Any] = tomllib.loads(text)
    except OSError as exc:
        raise UsageError(f"--profile {value}: cannot read it ({exc.strerror or exc})") from None
    except NotUtf8Error as exc:
        raise UsageError(f"--profile {value}: {exc}") from None
    except (ProfileError, tomllib.TOMLDecodeError, ValueError) as exc:
        raise UsageError(f"--profile {str(exc).splitlines()[0]}") from None
    settings.setdefault("name", Path(value).stem)
    return settings


def run_init(args: argparse.Namespace) -> int:
    from .desk import clock
    from .desk.event import (
        EventError,
        default_seating,
        namesakes,
        read_pairs_csv,
        tables_error,
        too_few_tables,
    )
    from .desk.store import StoreError

    try:
        teams = read_pairs_csv(args.pairs)
    except EventError as exc:
        raise UsageError(str(exc)) from exc
    boards = _boards(args.boards) if args.boards is not None else None
    if boards is not None and not args.deal_file:
        # boards without the file they come from: nothing could check them (here, at desk pair, or at a table,
        # which confirms a start's deal file by name), and a table with another file would deal other hands
        raise UsageError(f"--boards {args.boards!r} needs --deal-file (复式牌例文件 the deal file the tables deal "
                         "those boards from)")
    settings: dict[str, Any] = {"profile": _profile_arg(args.profile), "scoring": args.scoring,
                                "duplicate": args.duplicate,
                                "keep_units_apart": not args.units_together,
                                "match_end": _match_end_of(args.match_end, boards)}
    settings["seating"] = args.seating or default_seating(settings["profile"])
    if args.deal_file:
        settings["deal_file"] = args.deal_file
    if boards is not None:
        settings["boards"] = boards
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
    store = open_store(args.db, create=True)
    try:
        store.set_up(args.event, teams, settings, args.lot_seed)
    except StoreError as exc:
        raise UsageError(str(exc)) from exc
    warnings = namesakes(teams)  # said once the event is set up: a refusal stays one line (cli.md)
    for warning in warnings:
        print(f"guandan-table: {warning}", file=sys.stderr)
    print(json.dumps({"event": args.event, "teams": len(teams), "lot_seed": store.meta("lot_seed"),
                      "settings": store.settings(), "warnings": warnings}, ensure_ascii=False))
    return 0


def run_pair(args: argparse.Namespace) -> int:
    from .desk import export
    from .desk.event import EventError, pair_round

    store = open_store(args.db)
    try:
        rows = pair_round(store, args.round, args.method, top=args.top)
    except EventError as exc:
        raise UsageError(str(exc)) from exc
    teams = store.teams()
    paired = export.pairing_rows(rows, {t.id: t.name for t in teams}, {t.id: t.unit for t in teams})
    for row in paired:
        print(json.dumps(row, ensure_ascii=False))
    seeds = store.meta("knockout_seeds")
    if args.top is not None and isinstance(seeds, list) and len(seeds) < args.top:  # said, not refused: "all"
        print(f"注意：--top {args.top}，但仅 {len(seeds)} 队仍在比赛中，全部出线 | note: --top {args.top}, but only "
              f"{len(seeds)} teams are still in the event: all of them qualify", file=sys.stderr)
    if store.settings().get("keep_units_apart") and rows and rows[0]["method"] == "swiss":  # only Swiss can choose
        for row in paired:
            if row["same_unit"]:
                print(f"注意：{row['table']} {row['ns_name']} 对 {row['ew_name']} 同属 {row['same_unit']}，本轮无法回避 | "
                      f"note: {row['table']} pairs two teams of {row['same_unit']}; no pairing this round kept "
                      "them apart without a rematch or a point's difference", file=sys.stderr)
    return 0


def run_standings(args: argparse.Namespace) -> int:
    from .desk import export
    from .desk.event import standings_report

    report = standings_report(open_store(args.db))
    if args.format == "csv":
        sys.stdout.write(export.standings_csv(report))
    else:
        print(json.dumps(report, ensure_ascii=False))
    return 0


def run_correct(args: argparse.Namespace) -> int:
    from .desk.corrections import CorrectionError, correction_from_args

    store = open_store(args.db)
    try:
        n = correction_from_args(store, args)
    except CorrectionError as exc:
        raise UsageError(str(exc)) from exc
    print(json.dumps({"correction": n, "version": store.revision}))
    if args.withdraw:
        _say_unplayed(store, args.team)
    return 0


def _say_unplayed(store: Any, team: str) -> None:
    """After a withdrawal: a match of the team already paired but without a result is the referees' to enter."""
    from .desk.corrections import unplayed

    ids = {t.id for t in store.teams() if str(team) in (str(t.id), t.name)}
    for p in unplayed(store, team):
        side = "EW" if p["ns"] in ids else "NS"
        print(f"第{p['round']}轮 {p['table']} 尚无成绩：请录入 | round {p['round']} at {p['table']} has no result yet: "
              f"enter it, e.g. desk correct --round {p['round']} --table {p['table']} --winner {side} "
              f"--walkover --by ... --reason ...",
              file=sys.stderr)
