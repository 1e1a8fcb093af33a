"""What referees do from the desk page (its POST actions): pair and start the next round, enter and approve
corrections, withdraw a team, acknowledge alerts, resend a start, re-request results, and command a table
through the referee account's link (pause, resume, deal, penalty, correction). Every change leaves who, when and
why in the store; a bad request is refused with its reason, changing nothing."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from guandan import PENALTY_KINDS, SEATS

from ..adapters.referee_link import BrokerUnreachable, NoAnswer
from ..config import id_error
from ..controller.referee import CORRECTIONS
from ..display.server import Action, Response, json_response
from . import corrections as cor
from . import event as ev
from . import rounds
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
#: seconds the page's request waits for the table's answer
TABLE_COMMAND_WAIT_S = 10.0
MAX_REASON = 200


def _bad(exc: Exception, status: int = 400) -> Response:
    return json_response({"ok": False, "error": str(exc)}, status)


def _int(body: dict[str, Any], key: str) -> int:
    value = body.get(key)
    # exactly a whole number: int() took 1.7 as alert 1 (and true as 1), and 1e400 or 10^23 gave a 500
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise cor.CorrectionError(f"{key} 须为整数 must be a whole number, got {str(value)[:40]!r}")
    return value


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
        note(f"裁判 {body['by']} 编排第{round_no}轮 | referee {body['by']} paired round "
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

    done = {"/api/pair": pair, "/api/propose": propose, "/api/approve": approve, "/api/ack": ack,
            "/api/withdraw": withdraw,
            "/api/ack_misreads": ack_misreads, "/api/resend": resend, "/api/rerequest": rerequest,
            "/api/table-command": command_table}
    return {path: _named(action) for path, action in done.items()}


def _named(action: Action) -> Action:
    """An action only with the name of the referee doing it (``by``; with referees' own accounts, the login):
    the console lists who did what, and a script's request without one was logged as "referee ?"."""
    def named(body: dict[str, Any]) -> Response:
        if not str(body.get("by") or "").strip():
            return _bad(ValueError("需要裁判姓名 | by: the referee's name is needed (who does it)"))
        return action(body)
    return named
