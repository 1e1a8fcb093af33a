"""One deal (一副牌) as a pure state machine (rules spec §6–§7): tribute, return, play, going out, 借风, end.

``start_deal`` builds the state from the four hands; ``apply(state, action, t)`` returns a new state and the
effects (JSON-ready dicts) of one action, or raises a typed error whose ``reason`` says why the action is
refused (``not_your_turn``, ``not_held``, ``does_not_beat``, ``not_a_combination``, ``ambiguous``,
``must_lead``, ``wrong_tribute``, ``wrong_return``, ``wrong_report``, ``deal_over``). The state is never
changed in place, so a refused action loses nothing. Time is passed in (seconds on any clock); turn timers
are handled by :mod:`timers`. No I/O, no threads: the daemon, the simulator, the bots and replay share it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .actions import GIVE, PASS, PLAY, REPORT, RETURN, Action
from .cards import SEATS, Card, partner
from .deal_state import (
    _SEAT_INDEX,
    HAND_SIZE,
    OVER,
    PLAYING,
    REPORT_AT,
    RETURNING,
    TRIBUTE,
    DealState,
    Effect,
    Hands,
    _copy,
    _illegal,
    _next_holding,
    check_hands,
    clear_caches,
    evolve,
    evolve_kw,
    hand_without,
    read_play,
)
from .effects import (
    DealOver,
    Foul,
    Given,
    Jiefeng,
    Passed,
    Played,
    ReportDue,
    Reported,
    ReturnDue,
    Returned,
    TributePlanned,
    TrickEnd,
    Turn,
    WentOut,
)
from .errors import AmbiguousPlayError, GuandanError
from .profiles import Profile
from .readings import beats
from .tribute import plan_tribute, return_allowed

__all__ = [
    "HAND_SIZE", "OVER", "PLAYING", "REPORT_AT", "RETURNING", "TRIBUTE", "DealState", "Effect", "Hands",
    "apply", "begin_play", "check_action", "check_hands", "clear_caches", "evolve", "evolve_kw", "hand_without",
    "read_play", "skip_turn", "start_deal",
]


def start_deal(
    profile: Profile,
    level: int,
    hands: Mapping[str, Sequence[Card]],
    *,
    previous_finish: Sequence[str] | None = None,
    leader: str | None = None,
    t: float = 0.0,
    full_pack: bool = True,
) -> tuple[DealState, list[Effect]]:
    """A new deal at ``level`` with these hands (as dealt). With ``previous_finish`` the tribute phase comes
    first (the tribute plan decides the leader); otherwise ``leader`` leads at once (first deal of a match,
    a board from a deal file, a position set up by hand). ``full_pack=False`` allows any hand sizes."""
    try:
        tup: Hands = tuple(tuple(hands[s]) for s in SEATS)  # type: ignore[assignment]
    except KeyError as exc:
        raise _illegal("bad_deal", f"no hand for seat {exc.args[0]}") from None
    check_hands(tup, full_pack=full_pack)
    if not 2 <= level <= 14:
        raise _illegal("bad_deal", f"level must be 2..14, got {level}")
    base = DealState(profile, level, tup, tup, TRIBUTE, None, "S", t0=t, turn_since=t)
    if previous_finish is not None:
        plan = plan_tribute(profile, level, previous_finish, hands)
        state = evolve_kw(base, plan=plan, leader=plan.leader)
        effects: list[Effect] = [TributePlanned(plan.resisted, tuple(p.to_json() for p in plan.payments), plan.leader)]
        if plan.resisted or not plan.payments:
            state = begin_play(state, plan.leader, t)
            effects.append(Turn(plan.leader, True))
        return state, effects
    if leader not in SEATS:
        raise _illegal("bad_deal", f"a deal without tribute needs a leader seat, got {leader!r}")
    return begin_play(evolve_kw(base, leader=leader), leader, t), [Turn(leader, True)]


def begin_play(state: DealState, leader: str, t: float) -> DealState:
    """Play starts with ``leader`` to lead at ``t`` (after tribute, or a position set up by hand: a test, or a
    referee's reconstruction); a leader without cards passes the lead to the next seat that holds some."""
    idx = SEATS.index(leader)
    if not state.hands[idx]:  # a position set up by hand may give the leader no cards
        idx = _next_holding(state.hands, idx)
    return evolve_kw(state, phase=PLAYING, leader=SEATS[idx], turn=idx, turn_since=t, warned=False)


def apply(state: DealState, action: Action, t: float) -> tuple[DealState, list[Effect]]:
    """Apply one action at time ``t``; return the new state and its effects, or raise a typed error."""
    if state.phase == OVER:
        raise _illegal("deal_over", "the deal is over")
    if action.seat not in SEATS:
        raise _illegal("not_a_seat", f"unknown seat {action.seat!r}")
    kind = action.kind
    history = (state.history, action, t - state.t0)
    if kind == PLAY or kind == PASS:
        new, effects = _play_or_pass(state, action, t)
        new.history = history
        return new, effects
    if kind == REPORT:
        new, effects = _report(state, action)
    elif kind == GIVE:
        new, effects = _give(state, action, t)
    elif kind == RETURN:
        new, effects = _return(state, action, t)
    else:
        raise _illegal("bad_action", f"unknown action kind {kind!r}")
    return evolve(new, {"history": history}), effects


def _play_or_pass(state: DealState, action: Action, t: float) -> tuple[DealState, list[Effect]]:
    """One play or pass (the hot path: one fresh copy of the state per action, filled in before anyone
    else sees it; ``state`` itself is never touched)."""
    if state.phase != PLAYING:
        raise _illegal("not_your_turn", f"play has not started (phase: {state.phase})")
    seat = action.seat
    idx = _SEAT_INDEX[seat]
    if idx != state.turn:
        raise _illegal("not_your_turn", f"it is {SEATS[state.turn]}'s turn, not {seat}'s")
    effects: list[Effect] = []
    if seat in state.report_due:
        effects.append(Foul("missing_report", seat))
    hands = state.hands
    if action.kind == PASS:
        if state.trick_reading is None:
            raise _illegal("must_lead", f"{seat} leads and cannot pass")
        passes = state.passes + 1
        effects.append(Passed(seat))
        holding = (hands[0] != ()) + (hands[1] != ()) + (hands[2] != ()) + (hands[3] != ())
        holding -= hands[state.trick_seat] != ()
        if passes < holding:
            nxt = _next_holding(hands, idx)
            effects.append(Turn(SEATS[nxt], False))
            new = _copy(state)
            new.turn, new.passes, new.turn_since, new.warned = nxt, passes, t, False
            return new, effects
        # trick over: the last player leads, or 借风 its partner, or the next seat holding cards
        last = state.trick_seat
        if hands[last]:
            lead = last
        elif state.profile.jiefeng and hands[(last + 2) % 4]:
            lead = (last + 2) % 4
            effects.append(Jiefeng(SEATS[lead]))
        else:
            lead = _next_holding(hands, last)
        effects.append(TrickEnd(SEATS[last], SEATS[lead]))
        effects.append(Turn(SEATS[lead], True))
        new = _copy(state)
        new.turn, new.passes, new.trick_seat, new.trick_reading, new.trick_cards = lead, 0, -1, None, ()
        new.trick_plays, new.tricks_done = (), state.tricks_done + 1
        new.turn_since, new.warned = t, False
        return new, effects
    cards = action.cards
    rest = hand_without(hands[idx], cards)
    if rest is None:
        missing = sorted({c.code for c in cards if cards.count(c) > hands[idx].count(c)})
        raise _illegal("not_held", f"{seat} does not hold {' '.join(missing)}")
    over = state.trick_reading
    try:
        reading = read_play(cards, state.level, state.profile.wild_reading, action.reading)
    except AmbiguousPlayError as exc:
        # under ``declare`` only the readings that are legal here count: one of them needs no declaration
        # (deal-record.md: "a play that still has two legal readings is an error")
        legal = [r for r in exc.candidates if over is None or beats(r, over, state.level)]
        if over is not None and not legal:
            raise _illegal("does_not_beat", f"no reading of {' '.join(c.code for c in cards)} beats {over}") from None
        if len(legal) != 1:
            raise
        reading = legal[0]
    if over is not None and not beats(reading, over, state.level):
        raise _illegal("does_not_beat", f"{reading} does not beat {over}")
    new_hands: Hands = hands[:idx] + (rest,) + hands[idx + 1 :]  # type: ignore[assignment]
    effects.append(Played(seat, tuple(c.code for c in cards), reading.to_json()))
    reported, due = state.reported, state.report_due
    left = len(rest)
    if 0 < left <= REPORT_AT and seat not in reported and seat not in due:
        if state.profile.report == "auto":
            reported = reported | {seat}
            effects.append(Reported(seat, left, True))
        else:
            due = due | {seat}
            effects.append(ReportDue(seat, left))
    finished = state.finished
    if not rest:
        finished = finished + (seat,)
        effects.append(WentOut(seat, len(finished)))
        due = due - {seat}
    new = _copy(state)
    new.hands, new.trick_seat, new.trick_reading, new.trick_cards, new.passes = new_hands, idx, reading, cards, 0
    new.trick_plays = state.trick_plays + ((idx, reading, cards),)
    new.finished, new.reported, new.report_due, new.plays_made = finished, reported, due, state.plays_made + 1
    new.turn_since, new.warned = t, False
    if len(finished) >= 3 or (len(finished) == 2 and finished[1] == partner(finished[0])):
        new.phase, new.turn = OVER, -1
        order = list(finished) + ([s for s in SEATS if s not in finished] if len(finished) == 3 else [])
        effects.append(DealOver(tuple(order)))
        return new, effects
    nxt = _next_holding(new_hands, idx)
    effects.append(Turn(SEATS[nxt], False))
    new.turn = nxt
    return new, effects


def _report(state: DealState, action: Action) -> tuple[DealState, list[Effect]]:
    seat = action.seat
    count = len(state.hand(seat))
    if state.phase != PLAYING or count == 0 or count > REPORT_AT:
        raise _illegal("wrong_report", f"{seat} holds {count} cards: no report is due")
    if seat in state.reported and not state.profile.report_on_ask:
        raise _illegal("wrong_report", f"{seat} has already reported and may not report again")
    effect = Reported(seat, count, False)
    return evolve_kw(state, reported=state.reported | {seat}, report_due=state.report_due - {seat}), [effect]


def _give(state: DealState, action: Action, t: float) -> tuple[DealState, list[Effect]]:
    plan = state.plan
    seat = action.seat
    if state.phase != TRIBUTE or plan is None:
        raise _illegal("not_your_turn", f"no tribute is due now (phase: {state.phase})")
    payment = next((p for p in plan.payments if p.giver == seat), None)
    if payment is None or seat not in state.pending_gives():
        raise _illegal("not_your_turn", f"{seat} owes no tribute")
    card = action.cards[0] if len(action.cards) == 1 else None
    if card is None:
        raise _illegal("wrong_tribute", "a tribute is exactly one card")
    idx = SEATS.index(seat)
    if card not in state.hands[idx]:
        raise _illegal("not_held", f"{seat} does not hold {card.code}")
    if card not in payment.candidates:
        # the allowed cards are not named: the message reaches public alerts and they are still in the hand
        raise _illegal("wrong_tribute", f"{seat} must give its highest card (进贡须贡最大的牌), not {card.code}")
    receiver = payment.receiver
    taken = {r for _, r, _ in state.given}
    if plan.winner_chooses:  # 上游 picks either card: each winner still takes exactly one
        if action.to is not None and (action.to not in plan.winners or action.to in taken):
            raise _illegal("wrong_tribute", f"{action.to} cannot take {seat}'s tribute")
        receiver = action.to or (receiver if receiver not in taken else next(w for w in plan.winners
                                                                            if w not in taken))
    elif action.to is not None and action.to != receiver:
        raise _illegal("wrong_tribute", f"{seat}'s tribute goes to {receiver}, not {action.to}")
    hands = list(state.hands)
    ridx = SEATS.index(receiver)
    hands[idx] = hand_without(hands[idx], (card,)) or ()
    hands[ridx] = hands[ridx] + (card,)
    given = state.given + ((seat, receiver, card),)
    leader = state.leader
    if receiver == plan.winners[0]:
        leader = seat  # the payer of 上游 leads
    new = evolve_kw(state, hands=tuple(hands), given=given, leader=leader)
    effects: list[Effect] = [Given(seat, receiver, card.code)]
    if len(given) == len(plan.payments):
        new = evolve_kw(new, phase=RETURNING, turn_since=t, warned=False)
        effects.append(ReturnDue(tuple(r for r, _ in new.pending_returns())))
    return new, effects


def _return(state: DealState, action: Action, t: float) -> tuple[DealState, list[Effect]]:
    seat = action.seat
    if state.phase != RETURNING:
        raise _illegal("not_your_turn", f"no return is due now (phase: {state.phase})")
    owed = dict(state.pending_returns())
    if seat not in owed:
        raise _illegal("not_your_turn", f"{seat} owes no return")
    if len(action.cards) != 1:
        raise _illegal("wrong_return", "a return is exactly one card")
    card, receiver = action.cards[0], owed[seat]
    idx = SEATS.index(seat)
    ok, why = return_allowed(state.profile.return_limit, state.level, seat, receiver, card, state.hands[idx])
    if not ok:
        raise _illegal("not_held" if why == "not_held" else "wrong_return", f"{seat} may not return {card.code} "
                       f"to {receiver} ({why}, return limit {state.profile.return_limit})")
    hands = list(state.hands)
    ridx = SEATS.index(receiver)
    hands[idx] = hand_without(hands[idx], (card,)) or ()
    hands[ridx] = hands[ridx] + (card,)
    new = evolve_kw(state, hands=tuple(hands), returned=state.returned + ((seat, receiver, card),))
    effects: list[Effect] = [Returned(seat, receiver, card.code)]
    if not new.pending_returns():
        new = begin_play(new, new.leader, t)
        effects.append(Turn(new.leader, True))
    return new, effects


def skip_turn(state: DealState, t: float) -> tuple[DealState, list[Effect]]:
    """A referee's skip (跳过) of the seat on turn. Following a play it is that seat's pass (kept in the
    history as one); on the lead, the lead moves on to the next seat holding cards and nothing else changes.
    The table and replay both call this, so a recorded ``{"referee": "skip"}`` replays exactly."""
    if state.phase != PLAYING:
        raise _illegal("not_your_turn", f"no turn to skip (phase: {state.phase})")
    seat = SEATS[state.turn]
    if not state.leading:
        return apply(state, Action(seat, PASS), t)
    nxt = _next_holding(state.hands, state.turn)
    return evolve_kw(state, turn=nxt, turn_since=t, warned=False), [Turn(SEATS[nxt], True)]


def check_action(state: DealState, action: Action, t: float) -> str | None:
    """The reason ``action`` would be refused now, or None when it is legal."""
    try:
        apply(state, action, t)
    except GuandanError as exc:
        return exc.reason
    return None
