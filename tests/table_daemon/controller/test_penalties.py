"""A referee's penalty is counted once, in the match it was given in, wherever in the match it was given: between
deals, and with the forfeit that ends a deal (no deal record holds those), as the match result lists them."""

from __future__ import annotations

from typing import Any

from table_daemon.controller import Command, Reply

from .harness import Harness


def penalty(h: Harness, **payload: Any) -> Reply:
    h.send(Command("penalty", {"role": "referee", **payload}, token="t"))
    return [e for e in h.effects if isinstance(e, Reply)][-1]


def test_a_penalty_between_deals_and_a_forfeit_are_in_the_match_result() -> None:
    h = Harness(seed=3)
    h.start_match(match_end={"method": "deals", "deals": 3})
    h.send(Command("start_deal", {}))
    h.flush()
    h.play_out()
    assert h.c.phase == "deal_over"
    assert penalty(h, team="EW", kind="violation", reason="说话 talking").ok  # between deals 1 and 2
    h.send(Command("start_deal", {}))
    h.flush()
    for _ in range(20):  # into deal 2
        h.bot_step()
    assert h.c.phase == "playing" and h.c.deal is not None and h.c.deal.number == 2
    for _ in range(2):
        assert penalty(h, seat="E", kind="violation").ok  # the third violation: 判负
    result = h.of("results", "match_result")[-1]
    assert result["winner"] == "NS" and result["reason"] == "forfeit (EW)"
    assert result["penalties"] == {"NS": {}, "EW": {"forfeit": 1, "violation": 3}}


def test_a_penalty_is_refused_where_it_would_count_nowhere_or_against_the_wrong_team() -> None:
    h = Harness()
    reply = penalty(h, team="NS", kind="warning")
    assert not reply.ok and "no match in play" in (reply.error or "") and "desk correct" in (reply.error or "")
    h.start_match(match_end={"method": "deals", "deals": 1})
    reply = penalty(h, team="NS", seat="E", kind="warning")
    assert not reply.ok and "seat E plays for EW, not NS" in (reply.error or "")
    assert not h.of("events", "penalty")


def test_the_same_ruling_twice_is_obeyed_once() -> None:
    """A QoS 1 redelivery, or a referee retrying after no reply: the second warning made a violation."""
    h = Harness()
    h.start_match(match_end={"method": "deals", "deals": 1})
    first = penalty(h, seat="N", kind="warning", reason="说话", id="pen-1")
    again = penalty(h, seat="N", kind="warning", reason="说话", id="pen-1")
    assert first.ok and again.ok and again.data == {"id": "pen-1", "duplicate": True}
    assert [e["applied"] for e in h.of("events", "penalty")] == [["warning"]]
    assert penalty(h, seat="N", kind="warning", id="pen-2").ok  # another ruling: escalates
    assert h.of("events", "penalty")[-1]["applied"] == ["warning", "violation"]
