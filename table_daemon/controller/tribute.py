"""Tribute (进贡) and return (还贡) cards laid at the table, and 上游's choice under ``winner_chooses``.

Rules §7: with a double tribute of two equal cards and ``tie_tribute = "winner_chooses"``, 上游 picks either
card (二游 gets the other; the seat that pays 上游 leads). A real table offers the choice only once both cards
lie face up, so the controller does not hand them to the engine as they are laid: it checks each one (held,
highest, owed) and keeps it on the table (``TableDeal.tribute_held``). When both are down it asks 上游, the way
it asks for a declaration: a ``tribute_choice_needed`` event, the turn lamp of 上游's seat, a ``TurnChanged``
with ``asked="choose_tribute"`` and the public state's ``tribute_choice`` (上游选择进贡牌 / 上游 chooses a
tribute card). 上游 answers with its seat buttons (pass: the card of the default giver, the one the
``clockwise`` rule would give it, 上游's 下家; confirm: the other card) or with ``declare`` ``{"seat": 上游,
"tribute_from": SEAT}``; when the profile's turn timer (``play_seconds``) runs out, the default applies.
Then both gives go to the engine with their receiver (``to``), which is how the choice reaches the deal record
(``tribute[*].to``) and replay.
"""

from __future__ import annotations

from typing import Any

from guandan import Card, GuandanError
from guandan import actions as act
from guandan import deal as engine

from .model import Light
from .state import TableDeal, TableState
from .steps import FOUL_OF_REASON, act_on, refusal_words
from .views import CHOICE_TEXT, choice_deadline, publish_hands, publish_state

#: seat-panel buttons while 上游 chooses: pass takes the default giver's card, confirm the other one
BUTTONS = {"pass": "default", "confirm": "other"}


def choice_pending(d: TableDeal) -> bool:
    """Whether tribute cards laid now wait for 上游's choice (an equal double tribute under winner_chooses,
    nothing given to the engine yet)."""
    st = d.state
    return (st is not None and st.phase == engine.TRIBUTE and st.plan is not None and st.plan.winner_chooses
            and not st.given)


def on_laid(c: TableState, seat: str, new: list[Card], cards: list[Card], evidence: dict[str, Any]) -> None:
    """Cards newly laid in ``seat``'s zone during the tribute or the return."""
    d = c.deal
    assert d is not None and d.state is not None
    kind = act.GIVE if d.state.phase == engine.TRIBUTE else act.RETURN
    action = act.Action(seat, kind, tuple(new))
    if kind == act.GIVE and choice_pending(d):
        _hold(c, d, action, cards, evidence)
    elif act_on(c, action, evidence):
        d.zone[seat] = list(cards)
        if c.deal is d and d.state.phase != engine.PLAYING:  # play's start publishes its own
            publish_hands(c)
            publish_state(c)


def _hold(c: TableState, d: TableDeal, action: act.Action, cards: list[Card],
          evidence: dict[str, Any]) -> None:
    """Check a tribute card and keep it on the table until 上游 has chosen (a giver may swap its card for
    another allowed one until then)."""
    assert d.state is not None and d.state.plan is not None
    seat = action.seat
    try:
        engine.apply(d.state, action, c.now)
    except GuandanError as exc:
        c.alert(FOUL_OF_REASON.get(exc.reason, "wrong_tribute"), seat, refusal_words(exc), {**evidence, "reason": exc.reason})
        return
    d.tribute_held[seat] = action.cards[0]
    d.zone[seat] = list(cards)
    c.emit("tribute_laid", deal=d.number, seat=seat, card=action.cards[0].code)
    c.effect(Light(seat, "turn", False))
    givers = {p.giver for p in d.state.plan.payments}
    if set(d.tribute_held) == givers:
        _ask(c, d)
    else:
        publish_state(c)


def _ask(c: TableState, d: TableDeal) -> None:
    assert d.state is not None and d.state.plan is not None
    plan = d.state.plan
    winner = plan.winners[0]
    default = next(p.giver for p in plan.payments if p.receiver == winner)
    other = next(p.giver for p in plan.payments if p.giver != default)
    cards = {g: d.tribute_held[g].code for g in (default, other)}
    first_ask = d.tribute_choice is None
    d.tribute_choice = {"seat": winner, "cards": cards, "default": default, "other": other,
                        "since": d.tribute_choice["since"] if d.tribute_choice else c.now, "warned": False}
    if first_ask:
        c.emit("tribute_choice_needed", deal=d.number, seat=winner, cards=cards, default=default,
               buttons={"pass": default, "confirm": other}, text=CHOICE_TEXT)
    c.set_turn(winner, "choose_tribute")
    publish_state(c)


def choose(c: TableState, seat: str, giver: Any, *, how: str) -> str | None:
    """上游 (``seat``) takes the card laid by ``giver``; 二游 gets the other. Returns an error text or None."""
    d = c.deal
    choice = d.tribute_choice if d is not None else None
    if d is None or d.state is None or choice is None:
        return "no tribute choice is awaited (没有等待上游选择进贡牌)"
    if seat != choice["seat"]:
        return f"the choice is 上游's: {choice['seat']} chooses, not {seat}"
    if giver not in choice["cards"]:
        return f"tribute_from must be {choice['default']} or {choice['other']}, got {giver!r}"
    assert d.state.plan is not None
    first, second = d.state.plan.winners[0], d.state.plan.winners[1]
    other = choice["other"] if giver == choice["default"] else choice["default"]
    held = dict(d.tribute_held)
    d.tribute_choice = None
    d.tribute_held.clear()
    c.emit("tribute_chosen", deal=d.number, seat=seat, tribute_from=giver, card=held[giver].code, how=how)
    for g, to in ((giver, first), (other, second)):
        if not act_on(c, act.give(g, held[g], to), {"tribute_choice": how}):
            break
    publish_hands(c)
    publish_state(c)
    return None


def on_press(c: TableState, seat: str, button: str) -> bool:
    """A seat button while 上游 chooses; True when it was 上游's answer."""
    d = c.deal
    choice = d.tribute_choice if d is not None else None
    if choice is None or seat != choice["seat"] or button not in BUTTONS:
        return False
    choose(c, seat, choice[BUTTONS[button]], how=f"button:{button}")
    return True


def on_tick(c: TableState, d: TableDeal) -> None:
    """The turn timer of 上游's choice: a warning shortly before, then the default card."""
    due = choice_deadline(c, d)
    choice = d.tribute_choice
    if due is None or choice is None:
        return
    if not choice["warned"] and c.now >= due - c.timing.warn_before:
        choice["warned"] = True
        c.emit("timer_warning", deal=d.number, seat=choice["seat"], seconds_left=round(max(0.0, due - c.now), 1))
    if c.now >= due:
        c.emit("timeout", deal=d.number, seat=choice["seat"], action={"tribute_from": choice["default"]})
        choose(c, choice["seat"], choice["default"], how="timeout")
