"""Commands from MQTT (mqtt-api.md): every command gets a reply ``{"ok", "error"}``; a malformed or
unauthorised one is refused with a reason and changes nothing. Referee commands (``correct``, ``penalty``)
must carry the ``role`` the table was configured to trust (the broker's ACL is the first gate) and, when the
table has a referee key, the referees' signature (:mod:`.auth`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from guandan import SEATS, GuandanError, Reading
from guandan import actions as act
from guandan import deal as engine

from .auth import check_signature
from .dealing import start_deal
from .match import start_match
from .model import Command, Reply
from .play import declare, report, shift_turn_clock
from .referee import correct, penalty
from .state import Phase, TableState
from .steps import try_act
from .tribute import choose as choose_tribute
from .views import publish_state, seats_asked

REFEREE_COMMANDS = frozenset({"correct", "penalty"})
#: how many referee command ids a table remembers to obey each once (a day's rulings at one table are far fewer)
REMEMBERED_IDS = 1000


def handle_command(c: TableState, cmd: Command) -> None:
    handler = HANDLERS.get(cmd.name)
    if cmd.error:
        error: str | None = cmd.error
    elif handler is None:
        error = f"unknown command {cmd.name[:60]!r} (known: {', '.join(sorted(HANDLERS))})"
    elif cmd.name in REFEREE_COMMANDS and cmd.payload.get("role") != c.referee_role:
        error = f"{cmd.name} needs the {c.referee_role!r} role (裁判权限)"
    elif cmd.name in REFEREE_COMMANDS and _command_id(cmd) in c.referee_ids:
        # the same ruling again (a QoS 1 redelivery, a referee's retry after no reply): obeyed once, answered again
        c.effect(Reply(cmd.token, True, None, {"id": cmd.payload.get("id"), "duplicate": True}))
        return
    else:
        nonce = None
        if cmd.name in REFEREE_COMMANDS and c.referee_key:
            error, nonce = check_signature(c.referee_key, c.table, cmd.name, cmd.payload, c.referee_nonces)
        if nonce is not None or not (cmd.name in REFEREE_COMMANDS and c.referee_key):
            try:
                error = handler(c, cmd.payload)
            except (GuandanError, KeyError, TypeError, ValueError) as exc:
                error = f"bad {cmd.name} command: {exc}"
            if error is None and nonce is not None:
                c.referee_nonces.add(nonce)
            if error is None and cmd.name in REFEREE_COMMANDS and _command_id(cmd):
                c.referee_ids = (*c.referee_ids[-(REMEMBERED_IDS - 1):], _command_id(cmd))
    c.effect(Reply(cmd.token, error is None, in_chinese_too(cmd.name, error),
                   {"id": cmd.payload.get("id")} if cmd.payload else None))


#: each command's name as a referee says it, for a refusal whose reason is in English only
COMMAND_ZH = {"start_match": "开赛", "start_deal": "发牌", "pause": "暂停", "resume": "继续", "declare": "声明牌型",
              "pass": "过牌", "report": "报牌", "correct": "更正", "penalty": "判罚", "resync": "重发状态"}


def in_chinese_too(name: str, error: str | None) -> str | None:
    """A refusal as a referee reads it: a reason with no Chinese in it gets the command's refusal in Chinese
    first (``过牌指令被拒绝 | bad pass command: seat must be ...``); the English detail stays for the tool's author."""
    if error is None or any("\u4e00" <= ch <= "\u9fff" for ch in error):
        return error
    return f"{COMMAND_ZH.get(name, '')}指令被拒绝 | {error}"


def _command_id(cmd: Command) -> str:
    """A referee command's ``id`` ("" for none): one id is one ruling, however often it arrives."""
    value = cmd.payload.get("id") if isinstance(cmd.payload, dict) else None
    return f"{cmd.name}:{value}" if isinstance(value, str | int) and not isinstance(value, bool) and value != "" \
        else ""


def _seat(payload: dict[str, Any]) -> str:
    seat = payload.get("seat")
    if seat not in SEATS:
        raise ValueError(f"seat must be one of S, E, N, W, got {seat!r}")
    return str(seat)


def _start_deal(c: TableState, p: dict[str, Any]) -> str | None:
    board = p.get("board")
    if board is not None and not isinstance(board, int):
        return "牌号须为整数 | board must be an integer"
    return start_deal(c, board)


def _pause(c: TableState, p: dict[str, Any]) -> str | None:
    if c.phase == Phase.PAUSED:
        return "已暂停 | already paused"
    if not c.match_active:
        # nothing to hold: a table paused between matches refused the desk's next start as "a deal in progress"
        return "无进行中的比赛，无需暂停 | nothing to pause: no match in play at this table"
    c.paused_from, c.phase, c.paused_at = c.phase, Phase.PAUSED, c.now
    c.set_turn(None, "wait")  # nobody is asked to act while the referee holds the table (lamps off, seats told)
    c.emit("paused", reason=p.get("reason"))
    publish_state(c)
    return None


def _resume(c: TableState, p: dict[str, Any]) -> str | None:
    if c.phase != Phase.PAUSED:
        return "未暂停 | not paused"
    c.phase, c.paused_from = c.paused_from or Phase.IDLE, None
    shift_turn_clock(c, c.now - c.paused_at)  # the turn timer does not run while paused
    asked, what = seats_asked(c)
    c.set_turn(asked or None, what)  # the seats the deal waits on are asked again, lamps lit, as before the pause
    c.emit("resumed")
    publish_state(c)
    return None


def _declare(c: TableState, p: dict[str, Any]) -> str | None:
    """``declare``: the reading of an ambiguous play, or (``"tribute_from": SEAT``) 上游's pick of a tribute
    card under ``winner_chooses``: the card laid by that seat."""
    if "tribute_from" in p:
        return choose_tribute(c, _seat(p), p["tribute_from"], how="command")
    return declare(c, _seat(p), Reading.from_json(p.get("reading")))


def _pass(c: TableState, p: dict[str, Any]) -> str | None:
    seat = _seat(p)
    d = c.deal
    if d is None or d.state is None or d.state.phase != engine.PLAYING:
        return "没有进行中的牌局 | no deal in play"
    if c.phase == Phase.PAUSED:  # as the seat's pass button does nothing then: refused, never a foul
        return "牌桌已暂停，恢复后再过牌 | the table is paused: pass after it resumes"
    return try_act(c, act.pass_turn(seat), {"command": "pass"})  # the seat's own pass (a screen): a foul as a button's


def _report(c: TableState, p: dict[str, Any]) -> str | None:
    return report(c, _seat(p), by_command=True)


def _resync(c: TableState, p: dict[str, Any]) -> str | None:
    publish_state(c)
    return None


def _start_match(c: TableState, p: dict[str, Any]) -> str | None:
    return start_match(c, p)


HANDLERS: dict[str, Callable[[TableState, dict[str, Any]], str | None]] = {
    "start_match": _start_match, "start_deal": _start_deal, "pause": _pause, "resume": _resume,
    "declare": _declare, "pass": _pass, "report": _report, "correct": correct, "penalty": penalty,
    "resync": _resync,
}
