"""Referee corrections (``correct``) and penalties (``penalty``) at the table, written into the deal record.

deal-record.md: "Referee actions are actions too". Every correction the table obeys becomes an entry of the
record's ``actions``, at the place it happened, with ``t``, in the form :mod:`guandan.replay`
replays, so that a tool replaying the published record reaches the same end as the table did:

- ``{"referee": "take_back" | "undo_last", "seat": S, "undone": [<the step undone, as recorded, without t>],
  "t": ...}``: the step before it is undone (a play taken back, 收回重出, stays in the record before this entry);
- ``{"referee": "skip", "seat": S, "t": ...}``: the seat on turn loses its turn (a pass when it follows; on the
  lead, the lead moves on): :func:`guandan.deal.skip_turn`;
- ``{"referee": "skip_trick", "seat": S, "t": ...}``: S passes for the rest of the trick (its passes follow);
- ``{"referee": "redo_tribute", "t": ...}``: the tribute starts over (the record's ``tribute`` and ``returns``
  are the final ones);
- ``{"referee": "penalty", "kind": K, "team": T, "seat": S?, "t": ...}``, one entry per penalty applied, an
  escalated one with ``"escalated_from"`` (so a desk counting violations sees the one two warnings make).

Each also carries the referee's ``reason`` when given, and stays in ``events`` as evidence for the referee log.
A void deal has no record, so ``void_deal`` appears only as the ``deal_void`` event.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from guandan import ACE, PENALTY_KINDS, SEATS, GuandanError, format_team_level, team_of
from guandan import actions as act
from guandan import deal as engine

from .dealing import void_deal
from .match import forfeit
from .sealing import SEALED_WORDS, match_sealed
from .state import TableDeal, TableState
from .steps import act_on, ask_current, run_effects
from .views import publish_hands, publish_state

CORRECTIONS = ("undo_last", "take_back", "skip_turn", "skip_trick", "redo_tribute", "void_deal")


def _seat(value: Any) -> str:
    if value not in SEATS:
        raise ValueError(f"seat must be one of S, E, N, W, got {value!r}")
    return str(value)


def _log(c: TableState, d: TableDeal, referee: str, reason: Any, **fields: Any) -> dict[str, Any]:
    """Append one referee action to the record's ``actions`` (and its note to ``events``); return it."""
    entry: dict[str, Any] = {"referee": referee, **{k: v for k, v in fields.items() if v is not None}}
    if reason is not None:
        entry["reason"] = str(reason)
    entry["t"] = d.t(c.now)
    d.actions.append(entry)
    d.referee.append(entry)
    note = {k: v for k, v in entry.items() if k not in ("referee", "t", "kind")}
    if referee == "penalty":
        d.events.append({"t": entry["t"], "kind": "penalty", "what": entry["kind"], **note})
    else:
        d.events.append({"t": entry["t"], "kind": "referee", "what": referee, **note})
    return entry


def correct(c: TableState, p: dict[str, Any]) -> str | None:
    """The ``correct`` command: returns an error text (nothing changed) or None."""
    action = p.get("action")
    if action not in CORRECTIONS:
        return f"未知的更正 | unknown correction {action!r} (one of {', '.join(CORRECTIONS)})"
    if p.get("seat") is not None:
        _seat(p["seat"])  # a seat that is not one is refused whatever the correction
    d = c.deal
    if action == "void_deal":
        if d is None:
            return "没有可作废的牌局 | no deal to void"
        void_deal(c, f"referee: {p.get('reason') or 'void'}")
        return None
    if d is None or d.state is None:
        return "没有进行中的牌局 | no deal in play"
    if d.state.over:
        return "本副已结束并已发布：请在记分台更正 | the deal is over and its record is published: correct its result at the desk"
    if action in ("undo_last", "take_back"):
        return _undo(c, d, action, p.get("reason"))
    if action == "skip_turn":
        return _skip_turn(c, d, p.get("seat"), p.get("reason"))
    if action == "skip_trick":
        return _skip_trick(c, d, _seat(p.get("seat")), p.get("reason"))
    return _redo_tribute(c, d, p.get("reason"))


def _undo(c: TableState, d: TableDeal, action: str, reason: Any) -> str | None:
    assert d.state is not None
    if not d.undo:
        return "没有可撤销的动作 | nothing to undo"
    before, ref, steps = d.undo[-1]
    if action == "take_back" and not (steps and "play" in steps[-1]):
        return "上一步不是出牌 | the last action is not a play"
    if d.state.phase == engine.PLAYING and before.phase != engine.PLAYING:
        return ("已开始出牌，进贡还贡不能再撤销 | play has begun: the tribute and return can no longer be undone "
                "(void_deal to deal again)")
    d.undo.pop()
    d.state = engine.evolve_kw(before, turn_since=c.now)
    d.pending_declare = None
    d.tribute_held.clear()
    d.tribute_choice = None
    seat = steps[-1].get("seat") if steps else None
    for step in steps:
        if step.get("seat") in SEATS:
            d.zone[step["seat"]] = []
            d.zone_read_as.pop(step["seat"], None)
            d.taken_in_wait.pop(step["seat"], None)
    entry = _log(c, d, action, reason, seat=seat, undone=steps)
    c.emit("correction", replaces=ref, action=action, seat=seat, reason=reason, revision=len(d.referee))
    c.emit("referee", **entry)
    _after(c)
    return None


def _skip_turn(c: TableState, d: TableDeal, named: Any, reason: Any) -> str | None:
    """Skip the turn of the seat to play; a seat named is checked to be that one (a referee who named another
    seat meant another turn, and skipping the one on turn would be a ruling nobody made)."""
    st = d.state
    assert st is not None
    if st.phase != engine.PLAYING:
        return "没有可跳过的出牌 | no turn to skip"
    seat = st.to_move
    if named is not None and named != seat:
        return f"轮到 {seat}，不是 {named} | it is {seat}'s turn, not {named}'s: only the turn of the seat to play is skipped"
    try:
        new, effects = engine.skip_turn(st, c.now)
    except GuandanError as exc:
        return f"不能跳过 | skip refused: {exc}"
    d.pending_declare = None
    d.state = new
    entry = _log(c, d, "skip", reason, seat=seat)
    d.undo.append((st, c.ref + 1, [{k: v for k, v in entry.items() if k != "t"}]))
    c.emit("referee", **entry)
    run_effects(c, effects)
    publish_state(c)
    return None


def _skip_trick(c: TableState, d: TableDeal, seat: str, reason: Any) -> str | None:
    st = d.state
    assert st is not None
    if st.phase != engine.PLAYING:
        return "没有进行中的一圈牌 | no trick in play"
    d.skip_trick.add(seat)
    entry = _log(c, d, "skip_trick", reason, seat=seat)
    c.emit("referee", **entry)
    if st.to_move == seat and not st.leading:
        act_on(c, act.pass_turn(seat), {"referee": "skip_trick"})
    publish_state(c)
    return None


def _redo_tribute(c: TableState, d: TableDeal, reason: Any) -> str | None:
    assert d.state is not None
    if d.state.phase not in (engine.TRIBUTE, engine.RETURNING):
        return "没有进行中的进贡 | no tribute in progress"
    state, effects = engine.start_deal(c.profile, d.level, d.hands, previous_finish=c.last_finish, t=c.now)
    d.state = engine.evolve_kw(state, t0=d.started)
    d.undo.clear()
    d.zone = {s: [] for s in SEATS}
    d.tribute_held.clear()
    d.tribute_choice = None
    entry = _log(c, d, "redo_tribute", reason)
    c.emit("referee", **entry)
    run_effects(c, effects)
    _after(c)
    return None


def _after(c: TableState) -> None:
    """Ask again whoever must act now, and show the corrected hands and state."""
    ask_current(c)
    publish_hands(c)
    publish_state(c)


def penalty(c: TableState, p: dict[str, Any]) -> str | None:
    """A penalty with 003's escalation per team and match: 2 warnings → violation, 3 violations → loss
    (判负), 2 losses → suspension (停赛). Each penalty applied becomes a referee action of the deal."""
    kind = p.get("kind")
    if kind not in PENALTY_KINDS:
        return f"未知的判罚 | unknown penalty {kind!r} (one of {', '.join(PENALTY_KINDS)})"
    seat = _seat(p["seat"]) if p.get("seat") is not None else None
    team = p.get("team") or (team_of(seat) if seat else None)
    if team not in ("NS", "EW"):
        return "判罚需要一队或一个座位 | penalty needs a team (NS or EW) or a seat"
    if seat is not None and team_of(seat) != team:
        return f"seat {seat} plays for {team_of(seat)}, not {team} (座位与队不符)"
    if not c.match_active:
        # counted nowhere: the desk counts a table's penalties from its match (its result lists them)
        return ("no match in play at this table (本桌无进行中的比赛): a penalty after a match is a correction at "
                "the desk (desk correct --penalty)")
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
    levels_before = dict(c.match.levels)
    if kind in ("level_down", "level_up_opponent"):
        levels = dict(c.match.levels)
        if kind == "level_down":
            levels[team] = max(2, levels[team] - 1)
        else:
            levels[other] = min(ACE, levels[other] + 1)
        c.match = replace(c.match, levels=levels)
    d = c.deal
    if d is not None and (d.state is None or not d.state.over):
        for k in applied:
            _log(c, d, "penalty", p.get("reason"), kind=k, team=team, seat=seat,
                 escalated_from=kind if k != kind else None)
    c.emit("penalty", match=c.match_no, kind=kind, team=team, seat=seat, reason=p.get("reason"),
           applied=applied, t=c.t(), counts=dict(counts))
    if c.match.levels != levels_before and match_sealed(c):  # the levels would tell the boards' results (§12)
        c.emit("level_change", by="penalty", team=team, kind=kind, sealed=True, note=SEALED_WORDS)
    elif c.match.levels != levels_before:  # a level change (mqtt-api.md events), as a deal's is said
        c.emit("level_change", before={t: format_team_level(v) for t, v in levels_before.items()},
               after={t: format_team_level(v) for t, v in c.match.levels.items()}, by="penalty")
    if "forfeit" in applied and c.match_active:
        c.deal = None
        forfeit(c, other, f"forfeit ({team})")
    else:
        publish_state(c)
    return None
