"""The public state (mqtt-api.md "Public state", published "after every change"), as a screen that joins late reads
it: the current trick ("each play with seat, cards and reading"): at every state a table publishes in play,
``trick`` lists each play of the trick so far, oldest first, and ``trick_passes`` the seats that passed since the
last of them, exactly as the events told it; and while the dealer deals, each seat's cards so far."""

from __future__ import annotations

from typing import Any

import pytest

from guandan import SEATS
from table_daemon.controller import Command, DealerCard, DealerDone

from .harness import Harness, hands_with


@pytest.mark.parametrize("seed", [3, 11])
def test_the_state_carries_every_play_of_the_current_trick(seed: int) -> None:
    h = Harness("national", auto_deal=True, seed=seed)
    h.start_match(match_end={"method": "deals", "deals": 2})
    for _ in range(2):
        h.play_out()
        if h.c.phase == "deal_over":
            h.flush()
    trick: list[dict[str, Any]] = []
    passes = checked = longest = won = 0
    for message in h.published:
        payload = message.payload
        if message.topic == "events":
            kind = payload["type"]
            if kind == "deal_started":
                won = 0
            if kind == "trick_won":  # numbered in the deal, so a console or screen restarted mid-deal goes on
                won += 1
                assert payload["trick"] == won
            if kind in ("deal_started", "trick_won"):
                trick, passes = [], 0
            elif kind == "play":
                trick.append({"seat": payload["seat"], "cards": payload["cards"], "reading": payload["reading"]})
                passes = 0
            elif kind == "pass":
                passes += 1
        elif message.topic == "state" and payload["phase"] == "playing":
            assert payload["trick"] == trick, f"state seq {payload['seq']}"
            assert payload["trick_passes"] == passes
            checked += 1
            longest = max(longest, len(trick))
    assert checked > 50 and longest >= 3  # tricks of several plays were seen, not only leads


def test_each_card_dealt_is_a_new_state_with_the_seats_counts() -> None:
    hands = hands_with(5)
    h = Harness(hands=[hands])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.pending.clear()  # the harness would report the deal dealt at once; this dealer deals card by card
    order = [(seat, card) for i in range(27) for seat, card in ((s, hands[s][i]) for s in SEATS)]
    for index, (seat, card) in enumerate(order[:10]):
        before = len(h.of("state"))
        h.send(DealerCard(index, card, seat))
        state = h.of("state")[-1]
        dealt, = [e for e in h.of("events", "card_dealt") if e["index"] == index]
        assert len(h.of("state")) == before + 1 and state["phase"] == "dealing"
        assert {s: state["seats"][s]["cards_left"] for s in SEATS} == dealt["counts"]
    assert h.of("state")[-1]["seats"]["S"]["cards_left"] == 3  # S, E, N, W, S, E, N, W, S, E
    for index, (seat, card) in enumerate(order[10:], start=10):
        h.send(DealerCard(index, card, seat))
    h.send(DealerDone(True, None, hands, "c0ffee"))
    assert h.c.phase == "playing" and all(h.of("state")[-1]["seats"][s]["cards_left"] == 27 for s in SEATS)


def test_a_timed_match_says_when_its_time_is_up() -> None:
    """A screen joining at any moment shows a timed match's time left: its start and end in table time."""
    h = Harness("national", auto_deal=True)
    h.start_match(match_end={"method": "time_or_deals", "minutes": 8, "deals": 5})
    clock = h.of("state")[-1]["match_clock"]
    assert clock == {"started": clock["started"], "ends": clock["started"] + 480.0, "time_up": False}
    assert h.now - 10 < clock["started"] <= h.now  # table time, as the turn timer's
    untimed = Harness("national", auto_deal=True)
    untimed.start_match(match_end={"method": "deals", "deals": 1})
    assert untimed.of("state")[-1]["match_clock"] is None


def test_a_new_deal_publishes_its_hands_at_once_not_the_last_deals() -> None:
    """Retained ``private/hands`` stayed the last deal's leftovers until the new deal was dealt."""
    h = Harness("national", seed=4)
    h.start_match(match_end={"method": "deals", "deals": 2})
    h.send(Command("start_deal", {}))
    h.flush()
    h.play_out()
    h.send(Command("start_deal", {}))
    hands = h.of("private/hands")[-1]
    assert hands["deal"] == 2 and all(not cards for cards in hands["hands"].values())
