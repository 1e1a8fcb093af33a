"""The public state's current trick (mqtt-api.md "Public state": "the current trick (each play with seat, cards and
reading)"): at every state a table publishes in play, ``trick`` lists each play of the trick so far, oldest first,
and ``trick_passes`` the seats that passed since the last of them, exactly as the events told it. A screen that
joins mid-trick can draw the whole trick from the state alone."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import Harness


@pytest.mark.parametrize("seed", [3, 11])
def test_the_state_carries_every_play_of_the_current_trick(seed: int) -> None:
    h = Harness("national", auto_deal=True, seed=seed)
    h.start_match(match_end={"method": "deals", "deals": 2})
    for _ in range(2):
        h.play_out()
        if h.c.phase == "deal_over":
            h.flush()
    trick: list[dict[str, Any]] = []
    passes = checked = longest = 0
    for message in h.published:
        payload = message.payload
        if message.topic == "events":
            kind = payload["type"]
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
