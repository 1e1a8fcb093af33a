"""The desk's web pages and JSON, added to the display server: the referees' desk page (standings, the current
round at each table, alerts, corrections, results not counted), CSV exports and a printable page.

With a referee password the desk page and all of its JSON are behind it (HTTP basic), and referees work from
the page: pair and start the next round, enter a correction and approve another referee's, resend a start,
ask the tables for their unacknowledged results, acknowledge alerts. Every change leaves who, when and why
in the store. Without a password the page is read-only. The displays (``/display/``) stay public. Times are
shown in the event's time zone.

With the referee account's broker credentials (``desk --referee-broker-user``: a
:class:`~table_daemon.adapters.referee_link.RefereeLink`) referees also command a table from its row: pause,
resume, deal (again, after the dealer gave up), a penalty, a correction (``/api/table-command``). The desk's
own account may only start matches, so without them the page offers no table commands and says why.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

from guandan import PENALTY_KINDS, SEATS

from ..adapters.referee_link import BrokerUnreachable, NoAnswer
from ..config import id_error
from ..controller.referee import CORRECTIONS
from ..display.hub import Hub
from ..display.referees import Referees
from ..display.server import Action, Response, Route, WebServer, json_response
from . import alerts as al
from . import corrections as cor
from . import event as ev
from . import export, ledger, rounds
from .clock import local, local_at, zone_name
from .points import board_result_ns
from .store import Store, StoreError

if TYPE_CHECKING:
    from ..adapters.referee_link import RefereeLink
    from .service import Desk

#: why the page offers no table commands: the desk was started without the referee account's credentials
NO_TABLE_COMMANDS = ("牌桌指令需要裁判账号 table commands need the referee account: --referee-broker-user NAME "
                     "--referee-broker-password-file FILE [--referee-key-file KEY]")
#: the commands a referee sends a table from the page, the fields each takes, and their words
TABLE_COMMANDS: dict[str, tuple[str, ...]] = {
    "pause": ("reason",), "resume": (), "start_deal": ("board",), "penalty": ("kind", "team", "seat", "reason"),
    "correct": ("action", "seat", "reason")}
COMMAND_WORDS = {"pause": "暂停 pause", "resume": "继续 resume", "start_deal": "发牌 deal",
                 "penalty": "判罚 penalty", "correct": "更正 correction"}
CORRECTION_WORDS = {"undo_last": "撤销上一步 undo the last action", "take_back": "收回重出 take back a play",
                    "skip_turn": "停止本次出牌 skip the turn", "skip_trick": "停止一圈出牌权 skip the rest of the trick",
                    "redo_tribute": "重新进贡 redo the tribute", "void_deal": "本副作废 void the deal"}
#: a referee's correction (a stored row's ``action``) in words
ACTION_WORDS = {"change": "更正成绩 change", "void": "作废 void", "restore": "恢复 restore",
                "penalty": "判罚 penalty", "withdraw": "退赛 withdraw", "reinstate": "恢复参赛 reinstate"}
#: seconds the page's request waits for the table's answer
TABLE_COMMAND_WAIT_S = 10.0
MAX_REASON = 200


def _page(name: str) -> Response:
    return 200, "text/html; charset=utf-8", resources.files("table_daemon.desk").joinpath(name).read_bytes()


def board_results(store: Store, round_no: int) -> dict[str, list[dict[str, int]]]:
    """The duplicate boards each table has played in round ``round_no``, from the full deal records the desk
    holds (sealed from the hall until released): per table, in board order, ``board`` and ``result_ns`` (the
    NS cards' result, rules §12). Empty outside a duplicate event."""
    if not store.settings().get("duplicate"):
        return {}
    out: dict[str, list[dict[str, int]]] = {}
    for row in store.results("deal", match=round_no):
        rec = row["payload"]
        if not isinstance(rec, dict) or rec.get("board") is None:
            continue
        result = rec.get("result") or {}
        out.setdefault(str(row["tbl"]), []).append(
            {"board": int(rec["board"]), "result_ns": board_result_ns(result.get("winner"), int(result.get("up") or 0))})
    return {table: sorted(plays, key=lambda p: p["board"]) for table, plays in out.items()}


def tables_view(store: Store, hub: Hub, link: Callable[[], dict[str, Any]] | None = None,
                halls: Callable[[], list[dict[str, Any]]] | None = None,
                report: dict[str, Any] | None = None,
                boards: dict[str, list[dict[str, int]]] | None = None) -> dict[str, Any]:
    """Each table: online, devices, phase, level, the current round's match and where it stands, results
    still awaited, journal backlog, recent alerts; and ``broker``, whether the desk itself reaches the broker
    (``link``: its link's state; while it does not, every table's status on the page is as last heard);
    ``report``: the standings report, when the caller has it already; ``boards``: the round's
    ``board_results``, likewise. A sealed match (duplicate boards) publishes no levels: its ``match`` lists the
    boards played and their results instead, from the records only the desk and referees read."""
    report = report if report is not None else ev.standings_report(store)
    tz = store.settings().get("timezone")
    live = hub.snapshot(brief=True)["tables"]
    statuses = store.statuses()
    round_no = store.last_round()
    current = {p["tbl"]: p for p in store.pairings(round_no) if p["ew"] is not None}
    waiting = {(p["round"], p["table"]) for p in report["pending"]}  # no result yet, nor a referee's entry
    names = {t.id: t.name for t in store.teams()}
    match_results = {r["tbl"]: r["payload"] for r in store.results("match", match=round_no)}
    boards = boards if boards is not None else board_results(store, round_no)
    out = []
    for name in sorted(set(live) | set(statuses) | set(current)):
        tab = live.get(name, {})
        state = tab.get("state") or {}
        status = tab.get("status") or statuses.get(name, {})
        health = tab.get("health") or {}
        pairing = current.get(name)
        row: dict[str, Any] = {
            "table": name, "online": bool(status.get("online", False)), "devices": status.get("devices"),
            "device_words": rounds.device_words(status.get("devices")),
            "phase": state.get("phase"), "phase_words": rounds.phase_words(state.get("phase")),
            "level": state.get("level"), "levels": state.get("levels"),
            "deal": state.get("deal"), "deals_played": state.get("deals_played"),
            "pending": [p for p in report["pending"] if p["table"] == name],
            "journal_backlog": health.get("journal_backlog", health.get("pending_results")),
            # what the table's latest health report says is wrong (SD card, power, heat, devices, journal), named
            "problems": [al.type_words(code) for code in health.get("problems") or [] if isinstance(code, str)],
            "alerts": [al.describe(a, tz) for a in store.alerts(name, limit=5)],
        }
        if pairing is not None:
            row["match"] = {"round": round_no, "ns": names.get(pairing["ns"]), "ew": names.get(pairing["ew"]),
                            **rounds.progress(pairing, tab, (round_no, name) not in waiting, str(store.event()),
                                              offline=status.get("online") is False)}
            for key in ("sent_at", "accepted_at"):
                row["match"][key] = local(row["match"][key], tz)
            row["match"]["ruling"] = rounds.ruling_words(match_results.get(name))
            if name in boards:
                row["match"]["boards"] = boards[name]
        out.append(row)
    broker = dict(link()) if link is not None else None
    if broker is not None and broker.get("away_since") is not None:
        broker["away_since_local"] = local_at(float(broker["away_since"]), tz)
    hall_links = [{**h, "since_local": local_at(float(h["since"]), tz)} for h in (halls() if halls else [])]
    return {"version": report["version"], "round": round_no, "tables": out, "broker": broker, "halls": hall_links}


def correction_words(row: dict[str, Any], names: dict[int, str]) -> dict[str, str]:
    """A stored correction's action and target in words for the page: ``第1轮 T04 round 1``, ``副 deal ID``,
    ``队 NAME team``; anything else as it is stored."""
    action, target = str(row.get("action") or ""), row.get("target") or {}
    said = ACTION_WORDS.get(action, action)
    if action == "void" and "id" in target:
        said = "本副作废 void the deal"
    elif action == "restore" and "id" in target:
        said = "恢复此副 restore the deal"
    if "round" in target and "table" in target:
        where = f"第{target['round']}轮 {target['table']} round {target['round']}"
    elif "id" in target:
        where = f"副 deal {target['id']}"
    elif "team" in target:
        team = target["team"]
        where = f"队 {names.get(int(team), '?')} team {team}" if str(team).isdigit() else f"队 team {team}"
    else:
        where = json.dumps(target, ensure_ascii=False)
    return {"action_words": said, "target_words": where}


def results_view(store: Store, *, public: bool = False) -> dict[tuple[int, str], dict[str, Any]]:
    """Each counted match's result by (round, table), as the standings count it (``ledger.tally``: a
    referee's correction over the table's result), with the referees' ruling words from its match result;
    ``public``: only what the hall may see (``event.public_inputs``)."""
    with store.lock:
        pairings, results, corrections = store.pairings(), store.results(), store.corrections()
        if public:
            results, corrections = ev.public_inputs(pairings, results, corrections)
        outcomes = ledger.tally(store.teams(), pairings, results, corrections)[0]
    payloads = {(r["match"], r["tbl"]): r["payload"] for r in results if r["kind"] == "match"}
    return export.match_results(outcomes, payloads)


def _bad(exc: Exception, status: int = 400) -> Response:
    return json_response({"ok": False, "error": str(exc)}, status)


def _int(body: dict[str, Any], key: str) -> int:
    value = body.get(key)
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise cor.CorrectionError(f"{key} 须为整数 must be a whole number, got {value!r}") from None


def table_command(body: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(table, command, fields) of a page's ``/api/table-command`` request, checked before it goes out: a known
    command, a table id a topic can hold, only the fields that command takes, each a value the table accepts
    (the table checks again; this says it to the referee before a command is spent). Raises ValueError."""
    command = str(body.get("command") or "")
    if command not in TABLE_COMMANDS:
        raise ValueError(f"未知的牌桌指令 unknown table command {command!r} (one of {', '.join(TABLE_COMMANDS)})")
    table = str(body.get("table") or "")
    error = id_error("table id", table)
    if error is not None:
        raise ValueError(error)
    given = body.get("fields") or {}
    if not isinstance(given, dict):
        raise ValueError("fields 须为对象 must be a JSON object")
    fields = {k: v for k, v in given.items() if v not in (None, "")}  # a form's empty choice is no choice
    extra = sorted(set(fields) - set(TABLE_COMMANDS[command]))
    if extra:
        raise ValueError(f"{command} 不接受 does not take {', '.join(map(repr, extra))}")
    if not isinstance(fields.get("reason", ""), str) or len(fields.get("reason", "")) > MAX_REASON:
        raise ValueError(f"原因 reason: text of at most {MAX_REASON} characters")
    if "board" in fields and (not isinstance(fields["board"], int) or isinstance(fields["board"], bool)
                              or fields["board"] < 1):
        raise ValueError(f"board 须为正整数 must be a whole number from 1, got {fields['board']!r}")
    if fields.get("seat", "S") not in SEATS:
        raise ValueError(f"座位 seat must be one of {', '.join(SEATS)}, got {fields['seat']!r}")
    if command == "penalty":
        if fields.get("kind") not in PENALTY_KINDS:
            raise ValueError(f"判罚 penalty kind must be one of {', '.join(PENALTY_KINDS)}, got {fields.get('kind')!r}")
        if ("team" in fields) == ("seat" in fields):
            raise ValueError("判罚需要一队或一个座位 a penalty names a team (NS, EW) or a seat, not both")
        if fields.get("team", "NS") not in ("NS", "EW"):
            raise ValueError(f"队 team must be NS or EW, got {fields['team']!r}")
    if command == "correct":
        if fields.get("action") not in CORRECTIONS:
            raise ValueError(f"更正 correction must be one of {', '.join(CORRECTIONS)}, got {fields.get('action')!r}")
        if fields["action"] == "skip_trick" and "seat" not in fields:
            raise ValueError("本墩不出需要座位 skip_trick needs the seat")
    return table, command, {k: fields[k] for k in TABLE_COMMANDS[command] if k in fields}


def actions(store: Store, desk: Desk | None, referee_link: RefereeLink | None = None) -> dict[str, Action]:
    """The referees' POST actions (JSON in, ``{"ok": ...}`` out); each one done is also a line on the desk's
    console, with who did it. ``referee_link``: the referee account's link, for the table commands (None: the
    page's table commands are refused, saying why)."""

    def note(text: str) -> None:
        if desk is not None:
            desk.note(text)

    def pair(body: dict[str, Any]) -> Response:
        try:
            top = body.get("top")
            if top is not None and (not isinstance(top, int) or isinstance(top, bool)):
                raise ev.EventError(f"出线队数须为整数 | top must be a whole number, got {top!r}")
            rows = ev.pair_round(store, store.last_round() + 1, body.get("method") or None, top=top)
        except ev.EventError as exc:
            return _bad(exc, 409)
        round_no = rows[0]["round"] if rows else None
        note(f"裁判 {body.get('by') or '?'} 编排第{round_no}轮 | referee {body.get('by') or '?'} paired round "
             f"{round_no} ({len(rows)} rows)")
        if desk is not None:
            desk.send_pairings()
        return json_response({"ok": True, "round": round_no, "tables": len(rows)})

    def playing(body: dict[str, Any]) -> str | None:
        """Why a match cannot be corrected yet: its table, online, says it is still playing it (a correction
        would stand over the result the table is about to send, and the round would read as finished)."""
        try:
            round_no, table = _int(body, "round"), str(body.get("table") or "")
        except cor.CorrectionError:
            return None
        if desk is None or not table:
            return None
        tab = desk.hub.snapshot(table)["tables"].get(table) or {}
        state, status = tab.get("state") or {}, tab.get("status") or {}
        if status.get("online") is False or state.get("start") != rounds.start_id(str(store.event()), table, round_no):
            return None
        if state.get("phase") in rounds.PLAYING_PHASES and state.get("match_active", True):
            return (f"第{round_no}轮 {table} 仍在进行（第{state.get('deal')}副）：等牌桌交成绩，或先在牌桌上结束本场 | "
                    f"table {table} is still playing round {round_no} (deal {state.get('deal')}): wait for its "
                    "result, or end the match at the table first")
        return None

    def propose(body: dict[str, Any]) -> Response:
        busy = playing(body)
        if busy is not None:
            return _bad(ValueError(busy), 409)
        try:
            winner = body.get("winner")
            n = cor.propose_match(store, str(body.get("by") or ""), str(body.get("reason") or ""),
                                  _int(body, "round"), str(body.get("table") or ""),
                                  levels=body.get("levels"), winner=None if winner in ("draw", "") else winner,
                                  void=bool(body.get("void")), walkover=bool(body.get("walkover")))
        except cor.CorrectionError as exc:
            return _bad(exc)
        note(f"裁判 {body.get('by')} 录入更正 #{n}（第{body.get('round')}轮 {body.get('table')}），待批准 | referee "
             f"{body.get('by')} entered correction #{n} (round {body.get('round')}, {body.get('table')}): "
             f"{body.get('reason')}")
        return json_response({"ok": True, "proposal": n})

    def withdraw(body: dict[str, Any]) -> Response:
        """A team leaves the event (退赛) or is reinstated: immediate (the page asks first), with who and why."""
        who, why = str(body.get("by") or "").strip(), str(body.get("reason") or "").strip()[:MAX_REASON]
        back = bool(body.get("reinstate"))
        if not who or not why:
            return _bad(ValueError("请填写裁判姓名和原因 the referee's name and a reason are needed"))
        try:
            n = cor.withdraw(store, who, why, str(body.get("team") or ""), reinstate=back)
        except cor.CorrectionError as exc:
            return _bad(exc)
        pending = cor.unplayed(store, str(body.get("team") or ""))
        note(f"裁判 {who} {'恢复参赛' if back else '判定退赛'} {body.get('team')} | referee {who} "
             f"{'reinstated' if back else 'withdrew'} {body.get('team')}: {why}")
        left = [f"第{p['round']}轮 {p['table']} round {p['round']}" for p in pending]
        return json_response({"ok": True, "correction": n, "version": store.revision,
                              "unplayed": left})

    def approve(body: dict[str, Any]) -> Response:
        try:
            number: int | None = _int(body, "n")
        except cor.CorrectionError:
            number = None
        found = next((p for p in store.proposals() if p["n"] == number), None)
        busy = playing(found["payload"]) if found else None
        if busy is not None:
            return _bad(ValueError(busy), 409)
        try:
            n = cor.approve(store, _int(body, "n"), str(body.get("by") or ""))
        except cor.CorrectionError as exc:
            return _bad(exc)
        note(f"裁判 {body.get('by')} 批准更正 | referee {body.get('by')} approved correction #{body.get('n')} "
             f"(standings version {store.revision})")
        return json_response({"ok": True, "correction": n, "version": store.revision})

    def ack(body: dict[str, Any]) -> Response:
        try:
            store.ack_alert(_int(body, "n"), str(body.get("by") or ""))
        except (StoreError, cor.CorrectionError) as exc:
            return _bad(exc)
        note(f"裁判 {body.get('by')} 确认警报 #{body.get('n')} | referee {body.get('by')} acknowledged alert "
             f"#{body.get('n')}")
        return json_response({"ok": True})

    def ack_misreads(body: dict[str, Any]) -> Response:
        """Every open ``misread`` at once: they ask a player to lay the cards again, never a foul, and a busy
        day makes many; a foul is still acknowledged one by one."""
        try:
            count = store.ack_alerts_of("misread", str(body.get("by") or ""))
        except StoreError as exc:
            return _bad(exc)
        note(f"裁判 {body.get('by')} 确认全部 {count} 条识别不确定 | referee {body.get('by')} acknowledged {count} "
             "misread alerts")
        return json_response({"ok": True, "acknowledged": count})

    def resend(body: dict[str, Any]) -> Response:
        if desk is None:
            return _bad(ValueError("记分台未连接 the desk is not running"), 409)
        table = str(body.get("table") or "")
        if not desk.resend_start(table, str(body.get("by") or "")):
            return _bad(ValueError(f"本轮在 {table} 没有比赛 no match at {table!r} in this round"), 404)
        return json_response({"ok": True})

    def rerequest(body: dict[str, Any]) -> Response:
        if desk is None:
            return _bad(ValueError("记分台未连接 the desk is not running"), 409)
        desk.rerequest_results(str(body.get("by") or ""))
        return json_response({"ok": True})

    def command_table(body: dict[str, Any]) -> Response:
        """A referee's command to one table, sent as the referee account with a fresh id; the answer is the
        table's (obeyed, or its reason for refusing, Chinese and English), after at most 10 s."""
        try:
            table, command, fields = table_command(body)
        except ValueError as exc:
            return _bad(exc)
        who = str(body.get("by") or "").strip()
        if not who:
            return _bad(ValueError("请填写裁判姓名 enter the referee's name first (by)"))
        if referee_link is None:
            return _bad(ValueError(NO_TABLE_COMMANDS), 409)
        ruling = f"desk-{uuid.uuid4().hex[:12]}"
        words = COMMAND_WORDS[command]
        detail = ", ".join(f"{k} {v}" for k, v in fields.items())
        head = (f"{table} 裁判 {who} {words}{f'（{detail}）' if detail else ''} | referee {who} sent {command} "
                f"to {table}{f' ({detail})' if detail else ''}, id {ruling}")
        try:
            answer = referee_link.send(table, command, {"id": ruling, **fields}, TABLE_COMMAND_WAIT_S)
        except (BrokerUnreachable, NoAnswer) as exc:
            note(f"{head}: {exc}")
            return _bad(exc, 503 if isinstance(exc, BrokerUnreachable) else 504)
        out = {"table": table, "command": command, "id": ruling, "answer": answer}
        if not answer.get("ok"):
            error = f"牌桌 {table} 拒绝{words} | table {table} refused {command}: {answer.get('error')}"
            note(f"{head}: 拒绝 refused: {answer.get('error')}")
            return json_response({"ok": False, "error": error, **out}, 409)
        note(f"{head}: 已执行 obeyed{' (已执行过 already obeyed)' if answer.get('duplicate') else ''}")
        return json_response({"ok": True, "duplicate": bool(answer.get("duplicate")), **out})

    return {"/api/pair": pair, "/api/propose": propose, "/api/approve": approve, "/api/ack": ack,
            "/api/withdraw": withdraw,
            "/api/ack_misreads": ack_misreads, "/api/resend": resend, "/api/rerequest": rerequest,
            "/api/table-command": command_table}


def routes(store: Store, hub: Hub, *, referee: bool = False,
           link: Callable[[], dict[str, Any]] | None = None,
           table_commands_off: str | None = NO_TABLE_COMMANDS,
           halls: Callable[[], list[dict[str, Any]]] | None = None, public: bool = False) -> dict[str, Route]:
    """The desk's GET routes. ``referee``: the page offers the referees' actions; ``table_commands_off``: why it
    offers no table commands (None: it does, through the referee account); ``public``: anyone may open the page
    (no referee password), so in a duplicate event it shows only what the hall may see (rules §12): no result
    of a board the desk has not released, no board results per table, no cards an alert saw."""
    sealed = public and bool(store.settings().get("duplicate"))
    def tz() -> str:
        return zone_name(store.settings().get("timezone"))

    counted: dict[int, dict[tuple[int, str], dict[str, Any]]] = {}  # results_view by the store's revision
    played: dict[int, dict[str, list[dict[str, int]]]] = {}  # the round's board_results, likewise
    standings = ev.LatestStandings(store, public=sealed)

    def pairings() -> list[dict[str, Any]]:
        teams = store.teams()
        revision = store.revision  # every page refresh asks; the tally is redone only when something changed
        if revision not in counted:
            counted.clear()
            counted[revision] = results_view(store, public=sealed)
        return export.pairing_rows(store.pairings(), {t.id: t.name for t in teams}, {t.id: t.unit for t in teams},
                                   counted[revision])

    def boards_played() -> dict[str, list[dict[str, int]]]:
        revision = store.revision  # the full records of a round, decoded again only when something changed
        if revision not in played:
            played.clear()
            played[revision] = {} if sealed else board_results(store, store.last_round())
        return played[revision]

    def corrections() -> list[dict[str, Any]]:
        names = {t.id: t.name for t in store.teams()}
        rows = store.corrections()
        if sealed:
            with store.lock:
                rows = ev.public_inputs(store.pairings(), store.results(), rows)[1]
        return [{**r, **correction_words(r, names)} for r in with_local(rows, "at")]

    def csv(text: str) -> Response:
        return 200, "text/csv; charset=utf-8", ("\ufeff" + text).encode()

    def alert_list(q: dict[str, str]) -> Response:
        rows = [al.describe(a, tz()) for a in store.alerts(q.get("table") or None, limit=200)]
        if sealed:  # a sealed board's cards stay with the referees
            rows = [{**r, "seen": None} for r in rows]
        return json_response([r for r in rows if not r["acked_at"]] if q.get("open") else rows)

    def evidence(rest: str, q: dict[str, str]) -> Response:
        found = store.alert(int(rest)) if rest.isdigit() else None
        image = al.picture(found) if found else None
        if image is None:
            return 404, "text/plain; charset=utf-8", "no picture 无图片".encode()
        return 200, "image/jpeg", image

    def with_local(rows: list[dict[str, Any]], *keys: str) -> list[dict[str, Any]]:
        zone = tz()
        return [{**r, **{f"{k}_local": local(r.get(k), zone) for k in keys}} for r in rows]

    def info() -> dict[str, Any]:
        commands = referee and table_commands_off is None
        return {"event": store.event(), "timezone": tz(), "round": store.last_round(), "referee": referee,
                "teams": len(store.teams()), "table_commands": commands,
                "table_commands_off": table_commands_off if referee and not commands else None,
                **({"penalty_kinds": list(rounds.PENALTY_WORDS.items()),
                    "corrections": list(CORRECTION_WORDS.items())} if commands else {})}

    page: Callable[[str, dict[str, str]], Response] = lambda rest, q: _page("desk.html")  # noqa: E731
    return {
        "/": page,
        "/desk": page,
        "/api/desk": lambda rest, q: json_response(info()),
        "/api/standings": lambda rest, q: json_response(standings()),
        "/api/knockout": lambda rest, q: json_response(export.knockout_lines(standings())),
        "/api/pairings": lambda rest, q: json_response(pairings()),
        "/api/tables": lambda rest, q: json_response(tables_view(store, hub, link, halls, standings(),
                                                                 boards_played())),
        "/api/alerts": lambda rest, q: alert_list(q),
        "/api/evidence/": evidence,
        "/api/corrections": lambda rest, q: json_response(corrections()),
        "/api/proposals": lambda rest, q: json_response(with_local(store.proposals(), "at", "approved_at")),
        "/api/rejects": lambda rest, q: json_response(with_local(store.rejects()[-100:], "received_at")),
        "/export/standings.csv": lambda rest, q: csv(export.standings_csv(standings())),
        "/export/pairings.csv": lambda rest, q: csv(export.pairings_csv(pairings())),
        "/print": lambda rest, q: (200, "text/html; charset=utf-8",
                                   export.print_page(standings(), pairings(),
                                                     q.get("tz") or tz()).encode()),
    }


def desk_server(store: Store, hub: Hub, port: int = 0, host: str = "127.0.0.1", *, password: str | None = None,
                desk: Desk | None = None, public_url: str | None = None,
                referees: Referees | None = None, read_only: bool = False,
                referee_link: RefereeLink | None = None) -> WebServer:
    """The web server of a running desk: the display routes plus the desk's own, behind the referees when
    ``password`` or ``referees`` (their own accounts) is given, with the referees' actions unless ``read_only``
    (a standby desk: it keeps a copy, and referees act on the desk that is counting); ``public_url``: the
    address the overview gives spectators' phones; ``referee_link``: the referee account's link, for the
    table commands (pause, resume, deal, penalty, correction; never on a read-only page)."""
    if referees is None and password is not None:
        referees = Referees.with_password(password)
    if read_only:
        referee_link = None
    own = routes(store, hub, referee=referees is not None and not read_only, public=referees is None,
                 link=desk.link.link_state if desk is not None else None,
                 halls=getattr(desk, "halls", None),
                 table_commands_off=None if referee_link is not None else NO_TABLE_COMMANDS)
    if referees is None:
        own.pop("/api/evidence/")  # camera pictures only for referees
        return WebServer(hub, port, host, extra=own, public_url=public_url)
    return WebServer(hub, port, host, protected=own, referees=referees,
                     actions={} if read_only else actions(store, desk, referee_link), public_url=public_url)
