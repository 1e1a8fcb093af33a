"""Commands from MQTT (mqtt-api.md): every command gets a reply ``{"ok", "error"}``; a malformed or
unauthorised one is refused with a reason and changes nothing. Referee commands (``correct``, ``penalty``)
must carry the ``role`` the table was configured to trust (the broker's ACL is the first gate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from table_daemon.guandan import actions as act
from table_daemon.guandan import deal as engine
from table_daemon.guandan.cards import SEATS, team_of
from table_daemon.guandan.errors import GuandanError
from table_daemon.guandan.levels import ACE
from table_daemon.guandan.readings import Reading

from . import flow, match
from .model import Command, Reply

if TYPE_CHECKING:
    from .table import TableController

REFEREE_COMMANDS = frozenset({"correct", "penalty"})
PENALTY_KINDS = ("verbal_warning", "warning", "violation", "level_down", "level_up_opponent", "forfeit",
                 "suspension")
CORRECTIONS = ("undo_last", "take_back", "skip_turn", "skip_trick", "redo_tribute", "void_deal")


def handle_command(c: TableController, cmd: Command) -> None:
    handler = HANDLERS.get(cmd.name)
    if cmd.error:
        error: str | None = cmd.error
    elif handler is None:
        error = f"unknown command {cmd.name!r} (known: {', '.join(sorted(HANDLERS))})"
    elif cmd.name in REFEREE_COMMANDS and cmd.payload.get("role") != c.referee_role:
        error = f"{cmd.name} needs the {c.referee_role!r} role (裁判权限)"
    else:
        try:
            error = handler(c, cmd.payload)
        except (GuandanError, KeyError, TypeError, ValueError) as exc:
            error = f"bad {cmd.name} command: {exc}"
    c.effect(Reply(cmd.token, error is None, error, {"id": cmd.payload.get("id")} if cmd.payload else None))


def _seat(payload: dict[str, Any]) -> str:
    seat = payload.get("seat")
    if seat not in SEATS:
        raise ValueError(f"seat must be one of S, E, N, W, got {seat!r}")
    return str(seat)


def _start_deal(c: TableController, p: dict[str, Any]) -> str | None:
    board = p.get("board")
    if board is not None and not isinstance(board, int):
        return "board must be an integer"
    return flow.start_deal(c, board)


def _pause(c: TableController, p: dict[str, Any]) -> str | None:
    if c.phase == "paused":
        return "already paused"
    c.paused_from, c.phase, c.paused_at = c.phase, "paused", c.now
    c.emit("paused", reason=p.get("reason"))
    c.publish_state()
    return None


def _resume(c: TableController, p: dict[str, Any]) -> str | None:
    if c.phase != "paused":
        return "not paused"
    c.phase, c.paused_from = c.paused_from or "idle", None
    d = c.deal
    if d is not None and d.state is not None:  # the turn timer does not run while paused
        d.state = replace(d.state, turn_since=d.state.turn_since + (c.now - c.paused_at))
    c.emit("resumed")
    c.publish_state()
    return None


def _declare(c: TableController, p: dict[str, Any]) -> str | None:
    return flow.declare(c, _seat(p), Reading.from_json(p.get("reading")))


def _pass(c: TableController, p: dict[str, Any]) -> str | None:
    seat = _seat(p)
    d = c.deal
    if d is None or d.state is None or d.state.phase != engine.PLAYING:
        return "no deal in play"
    return None if flow.act_on(c, act.pass_turn(seat), {"command": "pass"}) else "pass refused"


def _report(c: TableController, p: dict[str, Any]) -> str | None:
    return flow.report(c, _seat(p))


def _resync(c: TableController, p: dict[str, Any]) -> str | None:
    c.publish_state()
    return None


def _correct(c: TableController, p: dict[str, Any]) -> str | None:
    action = p.get("action")
    if action not in CORRECTIONS:
        return f"unknown correction {action!r} (one of {', '.join(CORRECTIONS)})"
    d = c.deal
    if action == "void_deal":
        if d is None:
            return "no deal to void"
        flow.void_deal(c, f"referee: {p.get('reason') or 'void'}")
        return None
    if d is None or d.state is None:
        return "no deal in play"
    note = {"referee": action, "seat": p.get("seat"), "reason": p.get("reason"), "t": c.t()}
    if action in ("undo_last", "take_back"):
        if not d.undo:
            return "nothing to undo"
        before, ref = d.undo[-1]
        last = d.state.actions()[-1][0] if d.state.actions() else None
        if action == "take_back" and (last is None or last.kind != act.PLAY):
            return "the last action is not a play"
        d.undo.pop()
        d.state = replace(before, turn_since=c.now)
        d.pending_declare = None
        if last is not None:
            d.zone[last.seat] = []
        c.emit("correction", replaces=ref, action=action, seat=last.seat if last else None,
               reason=p.get("reason"), revision=len(d.referee) + 1)
    elif action == "skip_turn":
        st = d.state
        if st.phase != engine.PLAYING:
            return "no turn to skip"
        if st.leading:
            nxt = engine._next_holding(st.hands, st.turn)
            d.state = replace(st, turn=nxt, turn_since=c.now)
        elif not flow.act_on(c, act.pass_turn(SEATS[st.turn]), {"referee": "skip_turn"}):
            return "skip refused"
    elif action == "skip_trick":
        seat = _seat(p)
        d.skip_trick.add(seat)
        st = d.state
        if st.to_move == seat and not st.leading:
            flow.act_on(c, act.pass_turn(seat), {"referee": "skip_trick"})
    elif action == "redo_tribute":
        if d.state.phase not in (engine.TRIBUTE, engine.RETURNING):
            return "no tribute in progress"
        d.state, _ = engine.start_deal(c.profile, d.level, d.hands, previous_finish=c.last_finish, t=c.now)
        d.zone = {s: [] for s in SEATS}
    d.referee.append(note)
    d.events.append({"t": note["t"], "kind": "referee", **{k: v for k, v in note.items() if k != "t"}})
    c.emit("referee", **note)
    if action != "skip_trick":
        c.set_turn(d.state.to_move if d.state.phase == engine.PLAYING else
                   (d.state.pending_gives() or [s for s, _ in d.state.pending_returns()]),
                   "play" if d.state.phase == engine.PLAYING else "tribute")
    c.publish_hands()
    c.publish_state()
    return None


def _penalty(c: TableController, p: dict[str, Any]) -> str | None:
    """A penalty with 003's escalation per team and match: 2 warnings → violation, 3 violations → loss
    (判负), 2 losses → suspension (停赛)."""
    kind = p.get("kind")
    if kind not in PENALTY_KINDS:
        return f"unknown penalty {kind!r} (one of {', '.join(PENALTY_KINDS)})"
    team = p.get("team") or (team_of(_seat(p)) if p.get("seat") else None)
    if team not in ("NS", "EW"):
        return "penalty needs a team (NS or EW) or a seat"
    other = "EW" if team == "NS" else "NS"
    counts = c.penalties[team]
    counts[kind] += 1
    applied = [kind]
    if kind == "warning" and counts["warning"] % 2 == 0:
        counts["violation"] += 1
        applied.append("violation")
    if "violation" in applied and counts["violation"] % 3 == 0:
        counts["forfeit"] += 1
        applied.append("forfeit")
    if "forfeit" in applied and counts["forfeit"] % 2 == 0:
        counts["suspension"] += 1
        applied.append("suspension")
    if kind == "level_down":
        c.levels[team] = max(2, c.levels[team] - 1)
    elif kind == "level_up_opponent":
        c.levels[other] = min(ACE, c.levels[other] + 1)
    note = {"referee": "penalty", "kind": kind, "team": team, "seat": p.get("seat"), "reason": p.get("reason"),
            "applied": applied, "t": c.t()}
    if c.deal is not None:
        c.deal.referee.append(note)
        c.deal.events.append({"t": note["t"], "kind": "penalty", "team": team, "what": kind,
                              "applied": applied})
    c.emit("penalty", match=c.match_no, **{k: v for k, v in note.items() if k != "referee"},
           counts=dict(counts))
    if "forfeit" in applied and c.match_active:
        c.deal = None
        match.finish_match(c, other, f"forfeit ({team})")
    else:
        c.publish_state()
    return None


def _start_match(c: TableController, p: dict[str, Any]) -> str | None:
    return match.start_match(c, p)


HANDLERS: dict[str, Callable[[TableController, dict[str, Any]], str | None]] = {
    "start_match": _start_match, "start_deal": _start_deal, "pause": _pause, "resume": _resume,
    "declare": _declare, "pass": _pass, "report": _report, "correct": _correct, "penalty": _penalty,
    "resync": _resync,
}
