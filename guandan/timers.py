"""Turn timers (rules spec §6.7) driven by the clock the caller passes in.

``deadline(state)`` is when the seat (or returner) to act runs out of time under the profile: the first lead
of a deal gets ``first_lead_seconds`` (40 s in 001), every other turn ``play_seconds`` (25 s, 30 s, 20 s), a
return ``return_seconds`` (40 s in 003); ``None`` when the profile sets no limit. ``tick(state, t)`` fires the
time-out: a ``slow_play`` alert for the referee once per turn, or, when the profile's ``timeout_action`` is
``auto`` or the seat is played by software, 001's automatic action: lead the smallest single, otherwise pass
(a late return gives the lowest allowed card).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from .actions import Action, pass_turn, play, return_card
from .cards import SEATS, single_order
from .deal import PLAYING, RETURNING, DealState, Effect, apply
from .effects import SlowPlay, TimedOut
from .tribute import lowest_allowed_return


def deadline(state: DealState) -> float | None:
    """Absolute time (on the caller's clock) when the current turn times out, or None."""
    profile = state.profile
    if state.phase == PLAYING:
        first = state.plays_made == 0
        seconds = profile.first_lead_seconds if first else profile.play_seconds
    elif state.phase == RETURNING:
        seconds = profile.return_seconds
    else:
        return None
    return None if seconds is None else state.turn_since + seconds


def default_action(state: DealState) -> list[Action]:
    """001's automatic action for the seat(s) to act: smallest single when leading, else pass; for returns,
    each returner's lowest allowed card."""
    if state.phase == PLAYING:
        seat = SEATS[state.turn]
        if not state.leading:
            return [pass_turn(seat)]
        hand = state.hands[state.turn]
        card = min(hand, key=lambda c: (single_order(c.rank, state.level), c.id))
        return [play(seat, [card])]
    if state.phase == RETURNING:
        out = []
        for seat, receiver in state.pending_returns():
            hand = state.hand(seat)
            card = lowest_allowed_return(state.profile.return_limit, state.level, seat, receiver, hand)
            out.append(return_card(seat, card))
        return out
    return []


def tick(state: DealState, t: float, *, auto_seats: Collection[str] = (),
         physical: bool = False) -> tuple[DealState, list[Effect]]:
    """Advance the clock to ``t``: nothing before the deadline; after it, the time-out of the profile.
    ``auto_seats``: seats played by software, which always take the automatic action; ``physical``: a table of
    real cards, where no other seat does, whatever the profile says (rules §6.7: a time-out there is an alert for
    the referee; the table cannot play a card still in a player's hand)."""
    due = deadline(state)
    if due is None or t < due:
        return state, []
    if state.phase == PLAYING:
        seats = [SEATS[state.turn]]
    else:
        seats = [s for s, _ in state.pending_returns()]
    auto = (state.profile.timeout_action == "auto" and not physical) or any(s in auto_seats for s in seats)
    if not auto:
        if state.warned:
            return state, []
        effects: list[Effect] = [SlowPlay(s, t - due) for s in seats]
        return replace(state, warned=True), effects
    effects = []
    for action in default_action(state):
        effects.append(TimedOut(action.seat, action.to_json()))
        state, more = apply(state, action, t)
        effects.extend(more)
    return state, effects
