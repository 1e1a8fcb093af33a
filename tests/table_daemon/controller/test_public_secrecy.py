"""No card a seat still holds appears on a public topic (mqtt-api.md "Public state"; issue 14 item 5).

Whole matches with tributes and returns are played by bots through the devices, with faults mixed in (a
wrong tribute card laid, cards laid out of turn, a card shown that the seat does not hold, a dealer summary
the table refuses); every message on every public topic (state, events, alerts, results) is searched for card
codes, in every field and in free text, and each one found must have been revealed already in this deal:
laid face up in a play zone (what the reader saw), the turned card (翻牌, public by rule), or the message's own
play, tribute or return. A finished deal's record on ``results`` carries the hands by design (deal-record.md).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from guandan import ALL_CARDS, SEATS
from guandan import deal as engine
from table_daemon.controller import CardsSeen, Input, Publish, ZoneCleared

from .harness import Harness, hands_with

CODES = frozenset(c.code for c in ALL_CARDS)
#: events that themselves put their cards face up on the table
REVEALING = {"play": "cards", "tribute": "card", "return": "card", "turned_card": "card", "tribute_laid": "card"}


def codes_in(value: Any) -> Iterator[str]:
    """Every card code in a JSON value: whole strings and the words of free text."""
    if isinstance(value, dict):
        for v in value.values():
            yield from codes_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from codes_in(v)
    elif isinstance(value, str):
        for word in re.split(r"[^A-Za-z0-9]+", value):
            if word in CODES:
                yield word


class Watcher(Harness):
    """The harness, keeping what is public so far and checking every public message as it is published."""

    def __init__(self, seed: int, **kw: Any) -> None:
        super().__init__("national", auto_deal=True, seed=seed, **kw)
        self.revealed: set[str] = set()
        self.checked = 0
        self.kinds: set[str] = set()

    def send(self, event: Input, dt: float = 0.5) -> list[Any]:
        if isinstance(event, CardsSeen):
            self.revealed.update(event.cards)  # laid face up: everyone at the table sees them
        effects = super().send(event, dt)
        for ef in effects:
            if isinstance(ef, Publish):
                self.check(ef)
        return effects

    def send_clear(self, seat: str) -> None:
        self.send(ZoneCleared(seat))

    def check(self, ef: Publish) -> None:
        payload = ef.payload
        kind = payload.get("type")
        if kind == "deal_started":
            self.revealed = set()
        if ef.topic == "private/hands" or kind == "deal_result":
            return
        self.checked += 1
        self.kinds.add(f"{ef.topic}:{kind}")
        own = REVEALING.get(kind) if ef.topic == "events" and kind is not None else None
        if own:
            value = payload[own]
            self.revealed.update(value if isinstance(value, list) else [value])
        leaked = [code for code in codes_in(payload) if code not in self.revealed]
        assert not leaked, f"{ef.topic} {kind} shows held cards {leaked}: {payload}"


def _faults(w: Watcher, rng: random.Random) -> None:
    """Mix in what careless players and a flaky dealer do, before the bots' correct moves."""
    d = w.c.deal
    if d is None or d.state is None or d.state.over:
        return
    st = d.state
    if st.phase == engine.TRIBUTE and st.pending_gives() and rng.random() < 0.7:
        seat = st.pending_gives()[0]
        plan = st.plan
        assert plan is not None
        allowed = next(p.candidates for p in plan.payments if p.giver == seat)
        lower = [c for c in st.hand(seat) if c not in allowed]
        if lower:
            w.send(CardsSeen(seat, [rng.choice(lower).code]))  # a wrong tribute card, laid face up
            w.send_clear(seat)
    elif st.phase == engine.PLAYING and rng.random() < 0.05:
        other = rng.choice([s for s in SEATS if s != st.to_move])
        hand = st.hand(other)
        if hand:
            w.send(CardsSeen(other, [rng.choice(hand).code]))  # out of turn
            w.send_clear(other)
    elif st.phase == engine.PLAYING and rng.random() < 0.03:
        mover = st.to_move
        assert mover is not None
        held = {c.code for c in st.hand(mover)}
        foreign = [c for s in SEATS if s != mover for c in st.hand(s) if c.code not in held]
        if foreign:
            w.send(CardsSeen(mover, [rng.choice(foreign).code]))  # a card this seat does not hold
            w.send_clear(mover)


def play_match(seed: int, deals: int) -> Watcher:
    w = Watcher(seed)
    rng = random.Random(seed)
    w.start_match(match_end={"method": "deals", "deals": deals})
    for _ in range(20000):
        if w.c.phase == "match_over":
            return w
        _faults(w, rng)
        if not w.bot_step():
            w.flush()
    raise AssertionError("the match did not finish")


def test_no_held_card_on_any_public_topic_in_whole_matches() -> None:
    checked, kinds = 0, set()
    for seed in (1, 2, 3):
        w = play_match(seed, deals=6)
        checked += w.checked
        kinds |= w.kinds
    assert checked > 1000
    for kind in ("events:tribute_plan", "events:tribute", "events:return", "alerts:alert", "state:state",
                 "events:play", "results:match_result"):
        assert kind in kinds, kind


def test_a_refused_dealer_summary_does_not_show_the_hands() -> None:
    bad = hands_with(7)
    bad["S"] = bad["S"] + [bad["N"][0]]  # 28 cards: the table refuses the summary
    w = Watcher(7, hands=[bad])
    w.start_match(match_end={"method": "deals", "deals": 1})
    faults = [a for a in w.alerts() if a["code"] == "dealer_fault"]
    assert faults and faults[0]["evidence"]["counts"]["S"] == 28
