"""One step through the rules engine (layer 3, under every flow): apply an action, turn a refusal into an
alert with its evidence, and publish the engine's effects as the table's events, lights and turn news. A deal
the engine ends is only marked (``settle_due``): the dispatcher settles it, so no flow calls back up.
"""

from __future__ import annotations

from typing import Any

from guandan import (
    SEAT_ZH,
    SEATS,
    DealOver,
    EngineEffect,
    Foul,
    Given,
    GuandanError,
    Passed,
    Played,
    ReportDue,
    Reported,
    ReturnDue,
    Returned,
    SlowPlay,
    TimedOut,
    TributePlanned,
    TrickEnd,
    Turn,
    WentOut,
    format_team_level,
)
from guandan import actions as act
from guandan import deal as engine

from .model import Light
from .state import Phase, TableState
from .views import deal_asks, publish_hands, publish_state

#: engine refusal reason -> foul code of rules §11
FOUL_OF_REASON = {"not_your_turn": "out_of_turn", "not_held": "not_held", "does_not_beat": "illegal_play",
                  "not_a_combination": "illegal_play", "must_lead": "illegal_play",
                  "wrong_tribute": "wrong_tribute", "wrong_return": "wrong_return",
                  "wrong_report": "wrong_report", "deal_over": "out_of_turn", "ambiguous": "illegal_play"}


#: the rules engine's refusals in the referees' words (Chinese first; the engine's own English follows)
REFUSAL_WORDS = {"not_your_turn": "未轮到该座位", "not_held": "所出之牌不在手中", "does_not_beat": "压不过上家",
                 "not_a_combination": "不成牌型", "must_lead": "须领出，不能不出", "wrong_tribute": "进贡牌不对",
                 "wrong_return": "还贡牌不对", "wrong_report": "报牌不当", "deal_over": "本副已结束",
                 "ambiguous": "牌型不明，须声明", "bad_action": "动作无效", "not_a_seat": "座位无效"}


#: seats as referees say them in an alert's Chinese (东 E)
SEAT_WORDS = SEAT_ZH


def refusal_words(exc: GuandanError) -> str:
    """An engine refusal as a referee reads it: ``未轮到该座位 | it is N's turn, not S's``."""
    return f"{REFUSAL_WORDS.get(exc.reason, '不合规则')} | {exc}"


def try_act(c: TableState, action: act.Action, evidence: dict[str, Any], *, foul: bool = True) -> str | None:
    """Apply one action through the rules engine; a refusal is returned in words (None when the action was
    accepted) and, when the seat itself did it (``foul``: a button, cards laid), becomes a foul alert. A
    command's refusal (a referee's tool sent it) is only the reply: it changes nothing and accuses no one."""
    d = c.deal
    assert d is not None and d.state is not None
    try:
        new, effects = engine.apply(d.state, action, c.now)
    except GuandanError as exc:
        if foul:
            code = FOUL_OF_REASON.get(exc.reason, "illegal_play")
            c.alert(code, action.seat, refusal_words(exc), {**evidence, "reason": exc.reason})
        return refusal_words(exc)
    before, d.state = d.state, new
    d.log_since(before, c.ref + 1)
    run_effects(c, effects)
    return None


def act_on(c: TableState, action: act.Action, evidence: dict[str, Any]) -> bool:
    """:func:`try_act`; True when the action was accepted."""
    return try_act(c, action, evidence) is None


def run_effects(c: TableState, effects: list[EngineEffect]) -> None:
    """Publish the engine's effects (typed records) as table events, lights and alerts."""
    d = c.deal
    assert d is not None and d.state is not None
    st = d.state
    turn_moved = False
    for ef in effects:
        match ef:
            case Played(seat=seat, cards=cards, reading=reading):
                c.emit("play", deal=d.number, n=st.plays_made, seat=seat, cards=list(cards), reading=reading,
                       cards_left=len(st.hand(seat)))
            case Passed(seat=seat):
                c.emit("pass", deal=d.number, seat=seat, after=st.plays_made)
            case TrickEnd(winner=winner, leader=leader):
                c.emit("trick_won", deal=d.number, trick=st.tricks_done, seat=winner, leader=leader,
                       jiefeng=leader != winner and not st.hand(winner))
                d.skip_trick.clear()
                d.zone = {s: [] for s in SEATS}
            case WentOut(seat=seat, place=place):
                c.emit("seat_out", deal=d.number, seat=seat, place=place)
                c.effect(Light(seat, "report", False))
            case Reported(seat=seat, count=count, auto=auto):
                c.emit("report", deal=d.number, seat=seat, cards_left=count, auto=auto)
                c.effect(Light(seat, "report", True))
            case ReportDue(seat=seat, count=count):
                c.emit("report_due", deal=d.number, seat=seat, cards_left=count)
            case Foul(what=what, seat=seat):
                c.alert(what, seat, "未报牌：剩 10 张未报 | 10-card report missing" if what == "missing_report" else what,
                        {"cards_left": len(st.hand(seat))})
            case TributePlanned(resisted=resisted, payments=payments, leader=leader):
                # who pays whom, never which cards a payer could give: those are still in its hand
                c.emit("tribute_plan", deal=d.number, resisted=resisted,
                       payments=[{"from": p["from"], "to": p["to"]} for p in payments], leader=leader)
            case Given(seat=seat, to=to, card=card):
                c.emit("tribute", deal=d.number, seat=seat, to=to, card=card)
                c.effect(Light(seat, "turn", False))
            case ReturnDue(seats=seats):
                c.set_turn(list(seats), "return")
            case Returned(seat=seat, to=to, card=card):
                c.emit("return", deal=d.number, seat=seat, to=to, card=card)
                c.effect(Light(seat, "turn", False))
            case SlowPlay(seat=seat, late_by=late_by):
                c.alert("slow_play", seat, f"出牌超时 {late_by:.0f} 秒 | over the time limit by {late_by:.0f} s",
                        {"late_by": round(late_by, 1)})
            case TimedOut(seat=seat, action=action):
                c.emit("timeout", deal=d.number, seat=seat, action=action)
            case Turn():
                turn_moved = True
            case DealOver():
                c.settle_due = True  # the dispatcher settles the deal (match flow) once this input's flow is done
                return
    if c.phase == Phase.PAUSED:
        # a referee's correction while the table is held: the deal moves on, the table stays paused (resume
        # asks whoever must act then); play that begins meanwhile is play the table resumes to
        if st.phase == engine.PLAYING and c.paused_from != Phase.PLAYING:
            c.paused_from = Phase.PLAYING
            c.emit("play_started", deal=d.number, leader=st.leader, level=format_team_level(d.level))
        publish_hands(c)
        publish_state(c)
        return
    if turn_moved or (st.phase == engine.PLAYING and c.phase != Phase.PLAYING):
        if c.phase != Phase.PLAYING:
            c.phase = Phase.PLAYING
            c.emit("play_started", deal=d.number, leader=st.leader, level=format_team_level(d.level))
        c.set_turn(st.to_move)
        publish_hands(c)
        publish_state(c)
        mover = st.to_move
        if mover in d.skip_trick and not st.leading:
            act_on(c, act.pass_turn(mover), {"referee": "skip_trick"})


def ask_current(c: TableState) -> None:
    """Light and ask whoever must act now (after a correction changed the deal's course)."""
    if c.deal is None or c.deal.state is None:
        c.set_turn(None, "wait")
        return
    seats, what = deal_asks(c)
    if what:
        c.set_turn(seats, what)
