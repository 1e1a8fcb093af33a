"""A referee's penalty is counted once, in the match it was given in, wherever in the match it was given: between
deals, and with the forfeit that ends a deal (no deal record holds those), as the match result lists them."""

from __future__ import annotations

from typing import Any

from table_daemon.controller import Command, Light, Reply

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
    # 判负 scores as a match won without play (弃权): the levels at the forfeit gave EW a draw's 级差分 or more
    assert result["walkover"] is True and result["level_points"] == {"NS": 26.0, "EW": 0.0}
    assert result["match_points"] == {"NS": 2.0, "EW": 0.0}


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


def test_nothing_to_pause_without_a_match_and_a_correction_keeps_a_pause() -> None:
    h = Harness()
    h.send(Command("pause", {}, token="p"))
    reply = [e for e in h.effects if isinstance(e, Reply)][-1]
    assert not reply.ok and "nothing to pause" in (reply.error or "") and h.c.phase == "idle"
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    while h.c.phase != "playing":
        h.bot_step()
    for _ in range(3):
        h.bot_step()
    on_turn = h.to_move
    other = next(s for s in "SENW" if s != on_turn)
    h.send(Command("pause", {}))
    assert h.c.phase == "paused"
    refused = correct(h, action="skip_turn", seat=other)
    assert not refused.ok and f"it is {on_turn}'s turn, not {other}'s" in (refused.error or "")
    lit = len([e for e in h.effects if isinstance(e, Light) and e.on])
    assert correct(h, action="skip_turn", seat=on_turn).ok
    assert h.c.phase == "paused" and h.to_move != on_turn  # the turn moved on, the table is still held
    assert correct(h, action="undo_last").ok and h.c.phase == "paused" and h.to_move == on_turn
    assert len([e for e in h.effects if isinstance(e, Light) and e.on]) == lit  # nobody asked while held
    h.send(Command("resume", {}))
    assert h.c.phase == "playing"
    assert [e for e in h.effects if isinstance(e, Light) and e.on][-1].seat == on_turn


def correct(h: Harness, **payload: Any) -> Reply:
    h.send(Command("correct", {"role": "referee", **payload}, token="c"))
    return [e for e in h.effects if isinstance(e, Reply)][-1]


def test_a_level_penalty_is_a_level_change_event() -> None:
    """mqtt-api.md: ``events`` carries every level change; a display that follows events saw none for one a
    referee's penalty made."""
    h = Harness(seed=3)
    h.start_match(match_end={"method": "deals", "deals": 3})
    assert penalty(h, team="NS", kind="level_up_opponent", reason="x").ok
    (change,) = h.of("events", "level_change")
    assert change["before"] == {"NS": "2", "EW": "2"} and change["after"] == {"NS": "2", "EW": "3"}
    assert change["by"] == "penalty"
    assert penalty(h, team="NS", kind="level_down").ok  # NS at 2 already: no change, no event
    assert len(h.of("events", "level_change")) == 1
