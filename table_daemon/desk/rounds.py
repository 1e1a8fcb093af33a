"""A round at the tables, as plain data: which result counts for which pairing, and where each table's match
stands (sent, accepted, playing, paused, finished, result in). Pure functions; the running desk hands in its rows.

A result counts only for the match a table accepted from the desk: its id names the table it came from, its
match number is a round paired at that table, and the table accepted that round's ``start_match``. Our tables
say which start a result was played under (``start``: the start's id, null for a match the table started on
its own), and a result that names another start never counts; a table that does not say (mqtt-api.md does not
require it) is taken at its reply. Anything else is kept and listed as not counted, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: the states of a table's match in the current round, in order, with their words for the desk page (``paused``:
#: the table's live state says a referee paused the match)
STEPS = {
    "waiting": "待发送 waiting to send",
    "sent": "已发送 sent",
    "busy": "牌桌忙，等待重试 table busy, retrying",
    "accepted": "已接受 accepted",
    "playing": "进行中 playing",
    "paused": "暂停中 paused by a referee",
    "finished": "已结束 finished",
    "result_in": "成绩已收 result in",
}
PLAYING_PHASES = ("idle", "dealing", "tribute", "playing", "deal_over", "paused")
#: a table's live ``phase`` in the referees' words (Chinese first)
PHASE_WORDS = {"dealing": "发牌中 dealing", "tribute": "进贡 tribute", "playing": "出牌中 playing",
               "paused": "暂停 paused", "idle": "空闲 idle", "deal_over": "本副结束 deal over",
               "match_over": "比赛结束 match over"}


def phase_words(phase: Any) -> str:
    """A live phase in words; an unknown one as it came, no phase as ""."""
    if phase in (None, ""):
        return ""
    return PHASE_WORDS.get(str(phase), str(phase))


#: a table's devices (its ``status``' ``devices``) and their states in words
DEVICE_NAMES = {"dealer": "发牌机 dealer", "camera": "摄像头 camera", "panels": "座位面板 panels"}
DEVICE_STATES = {"ok": "正常 ok", "idle": "空闲 idle", "ready": "就绪 ready", "dealing": "发牌中 dealing",
                 "missing": "未找到 missing", "fault": "故障 fault", "lost": "失去连接 lost",
                 "none": "未配置 not configured"}


def device_words(devices: Any) -> list[str]:
    """Each device of a table's status in Chinese and English, ``发牌机 dealer：故障 fault (no reply)``; a
    device or state this desk does not know is shown as it came."""
    if not isinstance(devices, dict):
        return []
    out = []
    for name, device in devices.items():
        state = device.get("state") if isinstance(device, dict) else device
        error = device.get("error") if isinstance(device, dict) else None
        out.append(f"{DEVICE_NAMES.get(str(name), str(name))}：{DEVICE_STATES.get(str(state), str(state or '?'))}"
                   + (f" ({error})" if error else ""))
    return out


def start_id(event: str, table: str, round_no: int) -> str:
    """The id of the desk's ``start_match`` for round ``round_no`` at ``table`` (echoed in results)."""
    return f"{event}/{table}/m{round_no}/start"


def parse_start_id(value: Any) -> tuple[str, int] | None:
    """(table, round) of a start id, or None when it is not one."""
    try:
        _, table, match, tail = str(value).rsplit("/", 3)
        if tail != "start" or not match.startswith("m"):
            return None
        return table, int(match[1:])
    except ValueError:
        return None


#: a result that does not say which start it was played under
UNSAID = object()


def why_not_counted(event: str, table: str, rid: str, match: int | None, start: Any,
                    pairing: Mapping[str, Any] | None) -> str | None:
    """None when the result counts for ``pairing`` (round ``match`` at ``table``), else the reason, in Chinese
    and English. ``start`` is the result's ``start`` field, or UNSAID."""
    prefix = f"{event}/{table}/"
    if not rid.startswith(prefix):
        return (f"不计分：成绩编号 {rid!r} 不属于发来它的牌桌 {table} | not counted: the id {rid!r} does not name "
                f"the table {table} it came from")
    if match is None:
        return f"不计分：成绩没有场次 | not counted: result {rid} has no match number"
    if pairing is None or pairing.get("ew") is None:
        return (f"不计分：第 {match} 轮在 {table} 没有编排 | not counted: round {match} has no match at table "
                f"{table}")
    wanted = start_id(event, table, match)
    if start is UNSAID:
        if pairing.get("accepted_at"):
            return None
        return (f"不计分：牌桌未接受第 {match} 轮的开赛 | not counted: table {table} has not accepted the desk's start "
                f"of round {match}")
    if start != wanted:
        got = "none" if start in (None, "") else repr(start)
        return (f"不计分：这场不是记分台开的（开赛编号 {got}） | not counted: the table did not play it as the desk's "
                f"match (start {got}, expected {wanted!r})")
    return None


#: what a match of the round waits for while its table is offline (its retained status says so)
OFFLINE = "牌桌离线（成绩在牌桌日志中等待）table offline (its results wait in its journal)"
#: what a match waits for while its table is offline and has not taken the round's start yet
OFFLINE_NOT_STARTED = "牌桌离线，开赛待送达 | table offline: the round's start waits for it"


def progress(pairing: Mapping[str, Any], live: Mapping[str, Any] | None, result_in: bool,
             event: str, *, offline: bool = False) -> dict[str, Any]:
    """Where one pairing's match stands, from the stored pairing, the table's live public state and whether its
    match result is counted: ``step`` (a key of STEPS), its words, and what it waits for (the table's last
    refusal, or the table itself when it is ``offline``: a start sent to it is not refused, only unanswered)."""
    state = (live or {}).get("state") or {}
    ours = state.get("start") == start_id(event, str(pairing["tbl"]), int(pairing["round"]))
    if result_in:
        step = "result_in"
    elif ours and state.get("phase") == "match_over":
        step = "finished"
    elif ours and state.get("phase") == "paused" and state.get("match_active", True):
        step = "paused"
    elif ours and state.get("phase") in PLAYING_PHASES and state.get("match_active", True):
        step = "playing"
    elif pairing.get("accepted_at"):
        step = "accepted"
    elif pairing.get("last_error"):
        step = "busy"
    elif pairing.get("sent_at"):
        step = "sent"
    else:
        step = "waiting"
    waits = pairing.get("last_error") if step in ("sent", "busy") else None
    if offline and step not in ("result_in", "finished"):
        waits = OFFLINE if step in ("accepted", "playing", "paused") else OFFLINE_NOT_STARTED
    out: dict[str, Any] = {"step": step, "words": STEPS[step], "attempts": int(pairing.get("attempts") or 0),
                           "refused": waits, "offline": offline,
                           "sent_at": pairing.get("sent_at"), "accepted_at": pairing.get("accepted_at")}
    if ours:
        out["deals_played"] = state.get("deals_played")
        out["levels"] = state.get("levels")  # None while the match is sealed (duplicate boards)
        out["deal"] = state.get("deal")
        out["board"] = state.get("board")
    return out


#: the penalty kinds of rules §11 (seed 003) in the referees' words
PENALTY_WORDS = {"verbal_warning": "口头警告 verbal warning", "warning": "警告 warning", "violation": "记违例 violation",
                 "level_down": "降级 level down", "level_up_opponent": "对方升级 opponent up",
                 "forfeit": "判负 forfeit", "suspension": "停赛 suspension"}


def ruling_words(result: Mapping[str, Any] | None) -> str:
    """What a match result says the referees ruled at the table: a forfeit that decided it, and each team's
    penalties (the match result lists them); "" when there were none. The desk page shows it on the round's row,
    so a match won with level scores that do not say why reads why."""
    if not result:
        return ""
    parts: list[str] = []
    reason = str(result.get("reason") or "")
    if reason.startswith("forfeit"):
        parts.append(f"判负结束 ended by forfeit ({reason.removeprefix('forfeit').strip(' ()') or '?'})")
    listed = result.get("penalties")
    if isinstance(listed, Mapping):
        for team in ("NS", "EW"):
            counts = listed.get(team)
            if isinstance(counts, Mapping) and counts:
                said = ", ".join(f"{PENALTY_WORDS.get(str(k), str(k))} {n}" for k, n in counts.items())
                parts.append(f"{team} 判罚 penalties: {said}")
    return " · ".join(parts)
