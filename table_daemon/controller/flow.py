"""The course of a deal at the table: dealing, tribute and return, play, the 10-card report, timers, the end of
a deal. Functions over a :class:`~.table.TableController`; pure (no I/O, time comes with the input).

The rules engine (:mod:`table_daemon.guandan.deal`) decides what is legal; this module turns what the table
sees (cards in a seat's zone, buttons) into the engine's actions, and the engine's refusals into alerts with
their evidence.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import TYPE_CHECKING, Any

from table_daemon.guandan import actions as act
from table_daemon.guandan import deal as engine
from table_daemon.guandan.cards import SEATS, Card, parse_card, parse_level
from table_daemon.guandan.classify import classify
from table_daemon.guandan.errors import AmbiguousPlayError, GuandanError, InvalidPlayError
from table_daemon.guandan.interpret import interpret
from table_daemon.guandan.levels import format_team_level
from table_daemon.guandan.match import first_leader as engine_first_leader
from table_daemon.guandan.match import next_setup
from table_daemon.guandan.readings import Reading, beats
from table_daemon.guandan.timers import deadline
from table_daemon.guandan.timers import tick as engine_tick

from . import seen_choice, tribute
from .model import CardsSeen, DealerCard, DealerDo, DealerDone, DealerFault, DealerStarted, Light, Press
from .table import TableDeal

if TYPE_CHECKING:
    from .table import TableController

#: engine refusal reason -> foul code of rules §11
FOUL_OF_REASON = {"not_your_turn": "out_of_turn", "not_held": "not_held", "does_not_beat": "illegal_play",
                  "not_a_combination": "illegal_play", "must_lead": "illegal_play",
                  "wrong_tribute": "wrong_tribute", "wrong_return": "wrong_return",
                  "wrong_report": "wrong_report", "deal_over": "out_of_turn", "ambiguous": "illegal_play"}


# -- starting a deal ----------------------------------------------------------------------------------------
def start_deal(c: TableController, board: int | None = None) -> str | None:
    """Ask the dealer for the next deal; returns an error text when no deal can start now."""
    if not c.match_active:
        return "no match in progress (先开始比赛: start_match)"
    if c.phase not in ("idle", "deal_over"):
        return f"cannot start a deal while {c.phase}"
    if c.match.over:
        return "the match is over (比赛已结束)"
    setup = next_setup(c.match)
    played, level, number = setup.played, setup.level, setup.number
    if board is None and c.boards:
        board = c.boards[min(number - 1, len(c.boards) - 1)]
    c.deal = TableDeal(number=number, level=level, played=played, levels_before=dict(c.levels),
                       started=c.now, board=board)
    c.phase = "dealing"
    c.set_turn(None, "wait")
    c.effect(DealerDo("deal", board, number))
    c.emit("deal_started", match=c.match_no, deal=number, level=format_team_level(level), played=played,
           board=board)
    c.publish_state()
    return None


def on_dealer_started(c: TableController, e: DealerStarted) -> None:
    if c.deal is not None and c.phase == "dealing" and e.commitment:
        c.deal.commitment = e.commitment
        c.emit("deal_commitment", deal=c.deal.number, sha256=e.commitment)


def on_dealer_card(c: TableController, e: DealerCard) -> None:
    d = c.deal
    if d is None or c.phase != "dealing":
        return
    d.dealt_order.append((e.index, e.card, e.seat))
    if e.seat in SEATS:
        d.dealt[e.seat] += 1
    c.emit("card_dealt", deal=d.number, index=e.index, seat=e.seat, counts={s: d.dealt[s] for s in SEATS})


def on_dealer_fault(c: TableController, e: DealerFault) -> None:
    c.alert("dealer_jam" if "jam" in e.reason else "dealer_fault", None,
            f"dealer: {e.reason} {e.detail}".strip(), {"reason": e.reason, "detail": e.detail})
    if c.phase == "dealing":
        void_deal(c, f"dealer fault: {e.reason}")


def on_dealer_done(c: TableController, e: DealerDone) -> None:
    d = c.deal
    if d is None or c.phase != "dealing":
        return
    if not e.ok:
        c.alert("dealer_fault", None, f"deal fouled by the dealer (发牌错误): {e.fouled}",
                {"fouled": e.fouled, "counts": {s: len(e.hands.get(s, [])) for s in SEATS},
                 "retransmits": e.retransmits})
        attempts = d.redeal_attempts + 1
        void_deal(c, f"fouled deal: {e.fouled}")
        if c.auto_deal and attempts < 3 and start_deal(c) is None and c.deal is not None:
            c.deal.redeal_attempts = attempts
        return
    try:
        d.hands = {s: [parse_card(x) for x in e.hands[s]] for s in SEATS}
        if e.level and d.board is not None:
            d.level = parse_level(e.level)
        tribute = c.deals_done > 0 and d.board is None and c.last_finish is not None
        c.previous_finish = c.last_finish if tribute else None
        leader = None if tribute else (e.leader if e.leader in SEATS else first_leader(c, d))
        if leader is None and not tribute:
            return  # nobody can be told to lead: first_leader raised the alert and voided the deal
        d.state, effects = engine.start_deal(c.profile, d.level, d.hands,
                                             previous_finish=c.last_finish if tribute else None,
                                             leader=leader, t=c.now)
        d.state = engine.evolve_kw(d.state, t0=d.started)  # record times count from the deal's start
    except (KeyError, GuandanError) as exc:
        # what was wrong, without the cards: they were dealt and lie in the seats' hands
        c.alert("dealer_fault", None, f"dealer summary refused ({getattr(exc, 'reason', 'no hand')}) (发牌汇总无效)",
                {"counts": {s: len(e.hands.get(s, [])) for s in SEATS}})
        void_deal(c, "bad dealer summary")
        return
    if not e.faces_verified:
        c.alert("dealer_fault", None, "the dealer cannot read faces: who holds what is not checked",
                {"faces_verified": False})
    d.commitment = e.commitment or d.commitment
    d.deal_line = e.deal_line
    c.emit("deal_dealt", deal=d.number, counts={s: len(d.hands[s]) for s in SEATS}, commitment=d.commitment,
           retransmits=e.retransmits)
    c.phase = "tribute"
    run_effects(c, effects)
    if d.state.phase == engine.TRIBUTE:
        c.set_turn(d.state.pending_gives(), "tribute")
    c.publish_hands()
    c.publish_state()


def first_leader(c: TableController, d: TableDeal) -> str | None:
    """The first deal's leader per the profile's ``first_lead``, decided by the engine (``seat:X``,
    ``first_dealt:CARD``); under ``turned_card`` the table turns a card of the deal (picked from the
    commitment, or the hands) and shows it, and the engine names the seat dealt it. When no seat was dealt
    the first-lead card the table never guesses: a ``dealer_fault`` alert says so and the deal is void."""
    rule = c.profile.first_lead
    dealt = [(card, seat) for _, card, seat in sorted(d.dealt_order) if seat in SEATS]
    turned: str | None = None
    if rule.startswith("seat:") or rule.startswith("first_dealt:"):
        d.first_lead = rule
    else:
        flat = dealt if len(dealt) == 108 and all(card for card, _ in dealt) else \
            [(x.code, s) for s in SEATS for x in d.hands[s]]
        seed = (d.commitment or "".join(card or "" for card, _ in flat)).encode()
        card, turned = flat[int(hashlib.sha256(seed).hexdigest(), 16) % len(flat)]
        d.first_lead = f"turned_card:{card}"
        c.emit("turned_card", deal=d.number, card=card, seat=turned)
    sequence = []
    for card, seat in dealt:
        try:
            if card:
                sequence.append((seat, parse_card(card)))
        except GuandanError:
            continue  # an unreadable face says nothing about who was dealt what
    try:
        return engine_first_leader(c.profile, d.hands, deal_sequence=sequence, turned_seat=turned)
    except ValueError as exc:
        code = rule.partition(":")[2]
        c.alert("dealer_fault", None,
                f"no seat holds the first-lead card {code} ({rule}): the first leader cannot be told, the deal "
                f"is void (无人持有首出牌 {code}，无法确定首出，本副牌作废)",
                {"first_lead": rule, "error": str(exc), "counts": {s: len(d.hands[s]) for s in SEATS}})
        void_deal(c, f"no seat holds the first-lead card {code}")
        return None


def void_deal(c: TableController, reason: str) -> None:
    d = c.deal
    c.emit("deal_void", deal=d.number if d else None, reason=reason)
    c.deal = None
    c.phase = "idle"
    c.set_turn(None, "wait")
    c.publish_state()


# -- engine actions ---------------------------------------------------------------------------------------------
def act_on(c: TableController, action: act.Action, evidence: dict[str, Any]) -> bool:
    """Apply one action through the rules engine; a refusal becomes an alert. Returns True when accepted."""
    d = c.deal
    assert d is not None and d.state is not None
    try:
        new, effects = engine.apply(d.state, action, c.now)
    except GuandanError as exc:
        code = FOUL_OF_REASON.get(exc.reason, "illegal_play")
        c.alert(code, action.seat, str(exc), {**evidence, "reason": exc.reason})
        return False
    before, d.state = d.state, new
    d.log_since(before, c.ref + 1)
    run_effects(c, effects)
    return True


def run_effects(c: TableController, effects: list[dict[str, Any]]) -> None:
    """Publish the engine's effects as table events, lights and alerts."""
    d = c.deal
    assert d is not None and d.state is not None
    st = d.state
    turn_moved = False
    for ef in effects:
        kind = ef["kind"]
        if kind == "play":
            c.emit("play", deal=d.number, n=st.plays_made, seat=ef["seat"], cards=ef["cards"],
                   reading=ef["reading"], cards_left=len(st.hand(ef["seat"])))
        elif kind == "pass":
            c.emit("pass", deal=d.number, seat=ef["seat"], after=st.plays_made)
        elif kind == "trick_end":
            c.emit("trick_won", deal=d.number, seat=ef["winner"], leader=ef["leader"],
                   jiefeng=ef["leader"] != ef["winner"] and not st.hand(ef["winner"]))
            d.skip_trick.clear()
            d.zone = {s: [] for s in SEATS}
        elif kind == "out":
            c.emit("seat_out", deal=d.number, seat=ef["seat"], place=ef["place"])
            c.effect(Light(ef["seat"], "report", False))
        elif kind == "report":
            c.emit("report", deal=d.number, seat=ef["seat"], cards_left=ef["count"], auto=ef["auto"])
            c.effect(Light(ef["seat"], "report", True))
        elif kind == "report_due":
            c.emit("report_due", deal=d.number, seat=ef["seat"], cards_left=ef["count"])
        elif kind == "foul":
            c.alert(ef["what"], ef["seat"], "10-card report missing (未报牌)" if ef["what"] == "missing_report"
                    else ef["what"], {"cards_left": len(st.hand(ef["seat"]))})
        elif kind == "tribute":
            # who pays whom, never which cards a payer could give: those are still in its hand
            c.emit("tribute_plan", deal=d.number, resisted=ef["resisted"],
                   payments=[{"from": p["from"], "to": p["to"]} for p in ef["payments"]], leader=ef["leader"])
        elif kind == "give":
            c.emit("tribute", deal=d.number, seat=ef["seat"], to=ef["to"], card=ef["card"])
            c.effect(Light(ef["seat"], "turn", False))
        elif kind == "return_due":
            c.set_turn(ef["seats"], "return")
        elif kind == "return":
            c.emit("return", deal=d.number, seat=ef["seat"], to=ef["to"], card=ef["card"])
            c.effect(Light(ef["seat"], "turn", False))
        elif kind == "slow_play":
            c.alert("slow_play", ef["seat"], f"over the time limit by {ef['late_by']:.0f} s (超时)",
                    {"late_by": round(ef["late_by"], 1)})
        elif kind == "timeout":
            c.emit("timeout", deal=d.number, seat=ef["seat"], action=ef["action"])
        elif kind == "turn":
            turn_moved = True
        elif kind == "deal_over":
            from .match import end_deal

            end_deal(c)
            return
    if turn_moved or (st.phase == engine.PLAYING and c.phase != "playing"):
        if c.phase != "playing":
            c.phase = "playing"
            c.emit("play_started", deal=d.number, leader=st.leader, level=format_team_level(d.level))
        c.set_turn(st.to_move)
        c.publish_hands()
        c.publish_state()
        seat = st.to_move
        if seat in d.skip_trick and not st.leading:
            act_on(c, act.pass_turn(seat), {"referee": "skip_trick"})


# -- what the camera sees -----------------------------------------------------------------------------------------
def on_cards_seen(c: TableController, e: CardsSeen) -> None:
    d = c.deal
    evidence: dict[str, Any] = {"frame": e.frame, "seen": list(e.cards), "confidence": e.confidence}
    if e.seat not in SEATS:  # the reader found cards outside every play zone
        if e.cards:
            c.alert("exposed_card", None, "cards seen outside the play zones (暴露张)", evidence)
        return
    if e.unreadable:
        c.alert("misread", e.seat, "the reader is unsure of these cards (识别不确定)",
                {**evidence, "unreadable": e.unreadable})
        return
    cards = c.parse_seen(list(e.cards))
    if cards is None:
        c.alert("misread", e.seat, "unknown card code from the reader", evidence)
        return
    st = d.state if d is not None else None
    on_turn_play = d is not None and st is not None and c.phase == "playing" and st.phase not in (
        engine.TRIBUTE, engine.RETURNING) and d.pending_declare is None and e.seat == st.to_move
    if e.confidence < c.timing.min_confidence and not on_turn_play:
        c.alert("misread", e.seat, "the reader is unsure of these cards (识别不确定)",
                {**evidence, "unreadable": e.unreadable})
        return
    if d is None or d.state is None or c.phase not in ("tribute", "playing"):
        if cards:
            c.alert("exposed_card", e.seat, "cards shown outside play (暴露张)", evidence)
        return
    new = new_cards(d.zone[e.seat], cards)
    if not new:
        return
    st = d.state
    if st.phase in (engine.TRIBUTE, engine.RETURNING):
        tribute.on_laid(c, e.seat, new, cards, evidence)
        return
    if d.pending_declare is not None:
        c.alert("out_of_turn", e.seat, "cards laid while a declaration is awaited (等待声明)", evidence)
        return
    if e.seat != st.to_move:
        code = "exposed_card" if d.zone[e.seat] else "out_of_turn"
        text = "card shown that is not part of a play (暴露张)" if code == "exposed_card" \
            else f"played out of turn (越序出牌): it is {st.to_move}'s turn"
        c.alert(code, e.seat, text, {**evidence, "turn": st.to_move})
        return
    cards, new = choose_seen(c, e, cards, new, evidence)
    if not new:
        return
    reading, candidates, why = choose_reading(new, st.level, c.profile.wild_reading, st.trick_reading)
    if reading is None and candidates:
        d.pending_declare = {"seat": e.seat, "cards": [x.code for x in new], "frame": e.frame,
                             "candidates": [r.to_json() for r in candidates]}
        d.zone[e.seat] = list(cards)
        c.emit("declare_needed", deal=d.number, seat=e.seat, cards=[x.code for x in new],
               candidates=[r.to_json() for r in candidates])
        c.set_turn(e.seat, "declare")
        c.publish_state()
        return
    if reading is None:
        missing = engine._remove(st.hand(e.seat), new) is None
        code = "not_held" if missing else "illegal_play"
        c.alert(code, e.seat, f"{e.seat} does not hold these cards (非本家牌)" if missing else why,
                {**evidence, "hand_size": len(st.hand(e.seat))})
        return
    if act_on(c, act.play(e.seat, new, reading), evidence):
        d.zone[e.seat] = list(cards)


def choose_seen(c: TableController, e: CardsSeen, cards: list[Card], new: list[Card],
                evidence: dict[str, Any]) -> tuple[list[Card], list[Card]]:
    """What the seat on turn laid: the reader's first reading when it is sure enough and held and legal, else
    the most probable held, legal set of its candidates (``seen_choice``); ``([], [])`` after raising
    ``misread`` when neither will do (a foul is left to the caller only when the reader was sure)."""
    d = c.deal
    st = d.state
    zone = d.zone[e.seat]
    options = e.candidates if len(e.candidates) == len(e.cards) and all(e.candidates) else \
        [[(code, e.confidence)] for code in e.cards]

    def fits(codes: tuple[str, ...]) -> bool:
        laid = c.parse_seen(list(codes))
        if laid is None:
            return False
        fresh = new_cards(zone, laid)
        if not fresh or engine._remove(st.hand(e.seat), fresh) is None:
            return False
        reading, pool, _ = choose_reading(fresh, st.level, c.profile.wild_reading, st.trick_reading)
        return reading is not None or bool(pool)

    first = tuple(e.cards)
    if e.confidence >= c.timing.min_confidence and fits(first):
        return cards, new
    chosen = seen_choice.choose(options, fits)
    if chosen is not None and (chosen != first or e.confidence >= c.timing.min_confidence):
        laid = c.parse_seen(list(chosen)) or cards
        if chosen != first:
            evidence["read_as"] = list(chosen)  # the reader's candidates, chosen by what the seat holds
        return laid, new_cards(zone, laid)
    if seen_choice.sure(options) and e.confidence >= c.timing.min_confidence:
        return cards, new  # a sure reading: the caller calls the foul it is
    c.alert("misread", e.seat, "please lay the cards again: the reader is unsure (请重新摆牌，识别不确定)",
            {**evidence, "candidates": [[list(x) for x in o] for o in options]})
    return [], []


def choose_reading(cards: list[Card], level: int, wild_reading: str,
                   over: Reading | None) -> tuple[Reading | None, tuple[Reading, ...], str]:
    """The reading a laid-out play counts as against ``over``: (reading, (), "") when decided;
    (None, candidates, "ambiguous") when the seat must declare; (None, (), reason) when it is illegal."""
    readings = classify(cards, level)
    if not readings:
        return None, (), "not a combination (不成牌型)"
    try:
        reading = interpret(cards, level, wild_reading=wild_reading)
    except InvalidPlayError as exc:
        return None, (), str(exc)
    except AmbiguousPlayError as exc:
        pool = tuple(r for r in exc.candidates if over is None or beats(r, over, level))
        if len(pool) == 1:
            return pool[0], (), ""
        return (None, pool, "ambiguous") if pool else (None, (), f"no reading of these cards beats {over}")
    if over is None or beats(reading, over, level):
        return reading, (), ""
    pool = tuple(r for r in readings if beats(r, over, level))
    if len(pool) == 1 or (pool and wild_reading != "declare"):
        return pool[0], (), ""
    if pool:
        return None, pool, "ambiguous"
    return None, (), f"{reading} does not beat {over} (管不上)"


def new_cards(before: list[Card], seen: list[Card]) -> list[Card]:
    """Cards in ``seen`` beyond those already lying in the zone (order kept); all of ``seen`` when some of the
    old ones were taken away."""
    left = Counter(x.id for x in before)
    if any(n > 0 for n in (left - Counter(x.id for x in seen)).values()):
        return list(seen)
    out = []
    for x in seen:
        if left[x.id] > 0:
            left[x.id] -= 1
        else:
            out.append(x)
    return out


# -- buttons, declarations, reports, timers -----------------------------------------------------------------------
def declare(c: TableController, seat: str, reading: Reading) -> str | None:
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


def ask_current(c: TableController) -> None:
    """Light and ask whoever must act now (after a correction changed the deal's course)."""
    d = c.deal
    if d is None or d.state is None:
        c.set_turn(None, "wait")
        return
    st = d.state
    if d.tribute_choice is not None:
        c.set_turn(d.tribute_choice["seat"], "choose_tribute")
    elif st.phase == engine.PLAYING:
        c.set_turn(st.to_move, "declare" if d.pending_declare else "play")
    elif st.phase == engine.TRIBUTE:
        c.set_turn([s for s in st.pending_gives() if s not in d.tribute_held], "tribute")
    elif st.phase == engine.RETURNING:
        c.set_turn([s for s, _ in st.pending_returns()], "return")


def report(c: TableController, seat: str) -> str | None:
    d = c.deal
    if d is None or d.state is None or d.state.phase != engine.PLAYING:
        return "no deal in play"
    return None if act_on(c, act.report(seat), {"button": "confirm"}) else "report refused"


def on_press(c: TableController, e: Press) -> None:
    d = c.deal
    if e.button == "referee":
        c.alert("referee_call", e.seat, "a seat calls the referee (呼叫裁判)", {"button": "referee"})
        return
    if tribute.on_press(c, e.seat, e.button):
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
            c.alert("out_of_turn", e.seat, "pass while a declaration is awaited", {"button": "pass"})
            return
        act_on(c, act.pass_turn(e.seat), {"button": "pass", "turn": d.state.to_move})


def on_tick(c: TableController) -> None:
    d = c.deal
    if d is None or d.state is None or c.phase not in ("playing", "tribute"):
        return
    if d.tribute_choice is not None:
        tribute.on_tick(c, d)
        return
    due = deadline(d.state)
    if due is not None and d.warned_at != d.state.turn_since and c.now >= due - c.timing.warn_before:
        d.warned_at = d.state.turn_since
        c.emit("timer_warning", deal=d.number, seat=d.state.to_move, seconds_left=round(max(0.0, due - c.now), 1))
    new, effects = engine_tick(d.state, c.now, auto_seats=c.software_seats)
    if new is not d.state:
        before, d.state = d.state, new
        if any(ef["kind"] == "timeout" for ef in effects):
            d.log_since(before, c.ref + 1)
        run_effects(c, effects)

