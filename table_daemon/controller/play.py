"""Play at the table (layer 4): what the camera sees in the seats' zones, the buttons, declarations, the
10-card report and the turn timers, turned into the engine's actions (:mod:`.steps`). The rules engine
(:mod:`guandan.deal`) decides what is legal; this module turns what the table sees into the
engine's actions, and the engine's refusals into alerts with their evidence."""

from __future__ import annotations

from dataclasses import replace

from guandan import (
    SEATS,
    Reading,
    TimedOut,
    deadline,
    parse_card,
)
from guandan import actions as act
from guandan import deal as engine
from guandan import tick as engine_tick

from .doubts import doubt_the_reading
from .early_offer import last_word_on_a_taken_play, may_settle_now, taken_while_held
from .laid import (
    Decided,
    choose_reading,
    choose_seen,
    lay_in_zone,
    more_than_the_pack,
    new_cards,
    owed,
    playable,
    playing,
    seen_evidence,
)
from .model import CardsSeen, Press
from .state import Phase, TableState
from .steps import SEAT_WORDS, act_on, run_effects, try_act
from .tribute import on_laid as tribute_laid
from .tribute import on_press as tribute_press
from .tribute import on_tick as tribute_tick
from .views import publish_state


def on_cards_seen(c: TableState, e: CardsSeen) -> None:
    d = c.deal
    evidence = seen_evidence(e)
    if last_word_on_a_taken_play(c, e):
        return
    if e.provisional and not may_settle_now(c, e):
        return  # the camera reports this set again once it reads it surely or stops waiting: judged then
    if e.seat not in SEATS:  # the reader found cards outside every play zone
        if e.cards:
            c.alert("exposed_card", None, "暴露张：出牌区外见到牌 | exposed card: cards seen outside the play zones", evidence)
        return
    st = d.state if d is not None else None
    on_turn_play = False
    if playing(c):
        assert d is not None and st is not None  # playing(c): a deal in its play
        if e.seat != st.to_move and d.zone_read_as.get(e.seat) == tuple(e.cards):
            return  # the play lying there, read as when the table took it for the held cards it chose
        on_turn_play = d.pending_declare is None and e.seat == st.to_move
        if (e.unreadable or e.confidence < c.timing.min_confidence) and e.seat != st.to_move and d.zone[e.seat]:
            # unsure cards beside the earlier play of a seat not on turn: no play, and too unsure for an exposed
            # card; its own cards, lying there, read another way in a few frames (a pip as a card) raise nothing
            return
    if e.unreadable:
        c.alert("misread", e.seat, "请重新摆牌，识别不确定 | please lay the cards again: the reader is unsure of these cards",
                {**evidence, "unreadable": e.unreadable})
        return
    cards = c.parse_seen(list(e.cards))
    if cards is None:
        c.alert("misread", e.seat, "请重新摆牌，读到未知牌码 | please lay the cards again: unknown card code from the reader", evidence)
        return
    too_many = more_than_the_pack(cards)
    if too_many:  # no seat can lay that: a card read twice (a joker's 大王 or JOKER read as one more joker)
        c.alert("misread", e.seat, "请重新摆牌，识别张数超出牌数 | please lay the cards again: more copies seen "
                "than the pack holds", {**evidence, "more_than_the_pack_holds": too_many})
        return
    tributes = d is not None and st is not None and c.phase in ("tribute", "playing") and st.phase in (
        engine.TRIBUTE, engine.RETURNING)
    if e.confidence < c.timing.min_confidence and not (on_turn_play or tributes):
        c.alert("misread", e.seat, "请重新摆牌，识别不确定 | please lay the cards again: the reader is unsure of these cards",
                {**evidence, "unreadable": e.unreadable})
        return
    if d is None or d.state is None or c.phase not in ("tribute", "playing"):
        if cards:
            c.alert("exposed_card", e.seat, "暴露张：非出牌时亮出的牌 | exposed card: cards shown outside play", evidence)
        return
    new = new_cards(d.zone[e.seat], cards)
    if not new:
        return
    st = d.state
    if tributes:
        cards, new = choose_seen(c, e, cards, evidence, owed(c, e.seat))
        if new:
            tribute_laid(c, e.seat, new, cards, evidence)
        return
    if d.pending_declare is not None:
        c.alert("out_of_turn", e.seat, "越序出牌：正等待声明牌型 | out of turn: cards laid while a declaration is awaited", evidence)
        return
    if e.seat != st.to_move:
        code = "exposed_card" if d.zone[e.seat] else "out_of_turn"
        text = "暴露张：亮出的牌不属于所出的牌 | exposed card: a card shown that is not part of a play" \
            if code == "exposed_card" else \
            f"越序出牌：应由{SEAT_WORDS.get(str(st.to_move), '')} {st.to_move} 出牌 | played out of turn: it is {st.to_move}'s turn"
        c.alert(code, e.seat, text, {**evidence, "turn": st.to_move})
        return
    worked_out: dict[tuple[str, ...], Decided] = {}  # the new cards' codes -> choose_reading's answer
    cards, new = choose_seen(c, e, cards, evidence, playable(c, e.seat, worked_out))
    if not new:
        return
    missing = engine.hand_without(st.hand(e.seat), new) is None
    if missing:  # the cards' shape does not matter: a seat cannot lay what it does not hold
        if not doubt_the_reading(c, e.seat, new, evidence, held=False):
            c.alert("not_held", e.seat, f"所出之牌不在{SEAT_WORDS[e.seat]} {e.seat} 手中 | {e.seat} does not hold these cards",
                    {**evidence, "hand_size": len(st.hand(e.seat))})
        return
    reading, candidates, why = worked_out.get(tuple(x.code for x in new)) or choose_reading(
        new, st.level, c.profile.wild_reading, st.trick_reading)
    if reading is None and candidates:
        d.pending_declare = {"seat": e.seat, "cards": [x.code for x in new], "frame": e.frame,
                             "candidates": [r.to_json() for r in candidates]}
        lay_in_zone(d, e, cards)
        taken_while_held(d, e, cards)
        c.emit("declare_needed", deal=d.number, seat=e.seat, cards=[x.code for x in new],
               candidates=[r.to_json() for r in candidates])
        c.set_turn(e.seat, "declare")
        publish_state(c)
        return
    if reading is None:
        if not doubt_the_reading(c, e.seat, new, evidence, held=True):
            c.alert("illegal_play", e.seat, why, {**evidence, "hand_size": len(st.hand(e.seat))})
        return
    if act_on(c, act.play(e.seat, new, reading), evidence):
        lay_in_zone(d, e, cards)
        taken_while_held(d, e, cards)


def declare(c: TableState, seat: str, reading: Reading) -> str | None:
    d = c.deal
    if d is None or d.state is None or d.pending_declare is None:
        return "no declaration is awaited"
    if d.pending_declare["seat"] != seat:
        return f"the declaration is awaited from {d.pending_declare['seat']}"
    cards = [parse_card(x) for x in d.pending_declare["cards"]]
    if not any(reading.same_as(Reading.from_json(r)) for r in d.pending_declare["candidates"]):
        return f"{reading} is not one of the readings asked for"
    d.pending_declare = None
    if not act_on(c, act.play(seat, cards, reading), {"declared": reading.to_json()}):
        return "declared play refused"
    c.emit("declared", deal=d.number, seat=seat, reading=reading.to_json())
    return None


def report(c: TableState, seat: str, *, by_command: bool = False) -> str | None:
    """A seat's 10-card report (报牌): its confirm button (a wrong one is a foul), or a referee's ``report``
    command for one made by voice (a refusal is only the reply, with the reason)."""
    d = c.deal
    if d is None or d.state is None or d.state.phase != engine.PLAYING:
        return "没有进行中的牌局 | no deal in play"
    if by_command:
        return try_act(c, act.report(seat), {"command": "report"}, foul=False)
    return None if act_on(c, act.report(seat), {"button": "confirm"}) else "report refused"


def on_press(c: TableState, e: Press) -> None:
    d = c.deal
    if e.button == "referee":
        c.alert("referee_call", e.seat, "a seat calls the referee (呼叫裁判)", {"button": "referee"})
        return
    if tribute_press(c, e.seat, e.button):
        return
    if d is None or d.state is None or d.state.phase != engine.PLAYING:
        return
    if e.button == "confirm":
        pd = d.pending_declare
        if pd is not None and pd["seat"] == e.seat:
            declare(c, e.seat, Reading.from_json(pd["candidates"][0]))
        elif e.seat in d.state.reported and e.seat not in d.state.report_due and not d.state.profile.report_on_ask:
            return  # confirm pressed again after the report was taken (a second press, a seat asked twice
            # after a restart): nothing to report, and no foul
        else:
            report(c, e.seat)
        return
    if e.button == "pass":
        if d.pending_declare is not None:
            c.alert("out_of_turn", e.seat, "越序过牌：正等待声明牌型 | out of turn: a pass while a declaration is awaited", {"button": "pass"})
            return
        act_on(c, act.pass_turn(e.seat), {"button": "pass", "turn": d.state.to_move})


def shift_turn_clock(c: TableState, gap: float) -> None:
    """Give the seat asked to act (and 上游 choosing a tribute card) ``gap`` seconds back: time that was nobody's
    (a referee's pause, an outage)."""
    d = c.deal
    if d is not None and d.state is not None:
        d.state = replace(d.state, turn_since=d.state.turn_since + gap)
        if d.tribute_choice is not None:
            d.tribute_choice["since"] += gap


def stop_clocks(c: TableState, gap: float) -> None:
    """The table was down for ``gap`` seconds (a power cut, a crash: the first input after its restart comes
    that much after its last one): the turn timer and a timed match's clock take up where they stopped, as
    after a referee's pause, so no seat is timed out (or charged slow play) for the outage."""
    if c.phase != Phase.PAUSED:  # a pause's own resume shifts the turn clock by the whole pause
        shift_turn_clock(c, gap)
    if c.match_active and not c.match.time_up:
        c.match = replace(c.match, t_start=c.match.t_start + gap)


def on_tick(c: TableState) -> None:
    d = c.deal
    if d is None or d.state is None or c.phase not in ("playing", "tribute"):
        return
    if d.tribute_choice is not None:
        tribute_tick(c, d)
        return
    due = deadline(d.state)
    if due is not None and d.warned_at != d.state.turn_since and c.now >= due - c.timing.warn_before:
        d.warned_at = d.state.turn_since
        c.emit("timer_warning", deal=d.number, seat=d.state.to_move, seconds_left=round(max(0.0, due - c.now), 1))
    new, effects = engine_tick(d.state, c.now, auto_seats=c.software_seats, physical=True)
    if new is not d.state:
        before, d.state = d.state, new
        if any(isinstance(ef, TimedOut) for ef in effects):
            d.log_since(before, c.ref + 1)
        run_effects(c, effects)
