"""A duplicate board's hands and results stay off public topics until the desk releases it (rules §12).

Before, a board's deal record went out on the public ``results`` with its hands as the deal ended, and the
``deal_over`` event, the ``level_change`` event, the state's last result and levels and the match's result told
every hall screen who took 上游 on a board that the other tables had still to play.
"""

from __future__ import annotations

from typing import Any

from guandan import replay
from table_daemon.controller import Command, Reply
from table_daemon.controller.sealing import SEALED_TOPIC

from .harness import Harness
from .test_public_secrecy import codes_in

PUBLIC = ("state", "events", "results")


def _board_match(boards: list[int], deals: int) -> Harness:
    h = Harness(seed=5)
    h.c.configured_deal_file = "open-boards.jsonl"  # the dealer's own deal file (dealer.deal_file)
    h.start_match(match_end={"method": "deals", "deals": deals}, boards=boards)
    for _ in range(deals):
        h.send(Command("start_deal", {}))
        h.flush()
        h.play_out()
    assert h.c.phase == "match_over"
    return h


def _outcome_fields(message: dict[str, Any]) -> set[str]:
    """Fields that would tell a deal's or a match's outcome."""
    said = {k for k in ("hands", "actions", "result", "finish", "winner", "up", "levels_after", "levels",
                        "match_points", "level_points", "penalties", "deal_line") if message.get(k) is not None}
    for key in ("last_result", "match_result"):
        if isinstance(message.get(key), dict):
            said |= {f"{key}.{k}" for k in _outcome_fields(message[key])}
    return said


def test_a_board_matchs_outcome_is_on_no_public_topic() -> None:
    h = _board_match([3, 7], deals=2)
    public = [p for p in h.published if p.topic in PUBLIC]
    assert public
    for p in public:
        assert _outcome_fields(p.payload) == set(), (p.topic, p.payload["type"])
    assert not h.of("events", "level_change")
    dealt_hands = {code for p in h.published if p.topic == "private/hands"
                   for code in codes_in(p.payload.get("hands"))}
    assert dealt_hands  # the referees' topic has them: the public results must not
    for twin in h.of("results"):
        assert twin["sealed"] is True and "封存" in twin["note"] and not set(codes_in(twin))
    twins = h.of("results", "deal_result")
    assert [(t["deal"], t["board"]) for t in twins] == [(1, 3), (2, 7)]
    state = h.of("state")[-1]
    assert state["sealed"] is True and state["levels"] is None
    assert state["last_result"] == {"deal": 2, "board": 7, "sealed": True}
    assert state["match_result"]["sealed"] is True
    over = h.of("events", "deal_over")
    assert [(e["deal"], e["board"], e["sealed"]) for e in over] == [(1, 3, True), (2, 7, True)]


def test_a_boards_live_play_shows_no_card_and_no_place() -> None:
    """The live plays told a board's cards as they were laid (98 of 108 in a walk-through, the rest by counting)
    and the places its outcome: in a sealed match a play says only who laid how many cards."""
    h = _board_match([3, 7], deals=2)
    for p in h.published:
        if p.topic in PUBLIC:
            assert not set(codes_in(p.payload)), (p.topic, p.payload["type"], set(codes_in(p.payload)))
    plays = h.of("events", "play")
    assert plays and all(p["sealed"] and p["count"] >= 1 and "cards" not in p and "cards_left" not in p
                         for p in plays)
    assert not h.of("events", "seat_out") and h.of("events", "trick_won") and h.of("events", "pass")
    for state in h.of("state"):
        assert all(seat["cards_left"] is None and seat["place"] is None for seat in state["seats"].values())
        assert all(set(play) == {"seat", "count"} for play in state["trick"])
    assert h.of("private/hands")  # the referees still see every hand


def test_the_desk_gets_every_board_in_full_on_the_sealed_topic() -> None:
    h = _board_match([3, 7], deals=2)
    full = h.of(SEALED_TOPIC, "deal_result")
    twins = h.of("results", "deal_result")
    assert [r["id"] for r in full] == [t["id"] for t in twins]  # the desk acks one id: the table drops both
    for record in full:
        assert record["sealed_copy"] is True and record["board"] in (3, 7)
        assert len(record["hands"]) == 4 and record["result"]["up"] in (1, 2, 3, 4)
        assert replay(record)["ok"], replay(record)
    (match,) = h.of(SEALED_TOPIC, "match_result")
    (twin,) = h.of("results", "match_result")
    assert match["id"] == twin["id"] and set(match["levels"]) == {"NS", "EW"} and "winner" in match
    assert h.c.match_result is not None and h.c.match_result["levels"] == match["levels"]


def test_a_match_of_random_deals_is_not_sealed() -> None:
    h = Harness(seed=5)
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    h.play_out()
    (record,) = h.of("results", "deal_result")
    assert "sealed" not in record and len(record["hands"]) == 4 and record["result"]["winner"] in ("NS", "EW")
    assert not h.of(SEALED_TOPIC)
    state = h.of("state")[-1]
    assert "sealed" not in state and state["levels"] and state["last_result"]["winner"] in ("NS", "EW")


def test_a_level_penalty_in_a_board_match_says_no_levels() -> None:
    """A level penalty's ``level_change`` gave both teams' levels, which after a board tell its result."""
    h = Harness(seed=5)
    h.c.configured_deal_file = "open-boards.jsonl"
    h.start_match(match_end={"method": "deals", "deals": 3}, boards=[3, 7, 9])
    h.send(Command("start_deal", {}))
    h.flush()
    h.play_out()
    h.send(Command("penalty", {"role": "referee", "team": "NS", "kind": "level_up_opponent", "reason": "r"},
                   token="p"))
    (change,) = h.of("events", "level_change")
    assert change["sealed"] is True and change["by"] == "penalty" and change["team"] == "NS"
    assert "before" not in change and "after" not in change
    assert h.of("state")[-1]["levels"] is None


def test_a_match_of_boards_ends_after_its_last_board() -> None:
    """With boards 1-2 and the default match end (pass A) a table dealt board 2 four times more, and the desk
    scored each: a match of boards must end after them, each board once."""
    h = Harness(seed=5)
    h.c.configured_deal_file = "open-boards.jsonl"
    for payload in ({"boards": [1, 2]}, {"boards": [1, 2], "match_end": {"method": "deals", "deals": 3}},
                    {"boards": [1, 2], "match_end": {"method": "time", "minutes": 60}},
                    {"boards": [1, 1], "match_end": {"method": "deals", "deals": 2}}):
        h.send(Command("start_match", payload, token="s"))
        reply = [e for e in h.effects if isinstance(e, Reply)][-1]
        assert not reply.ok and "boards" in (reply.error or "") and not h.c.match_active, payload
    h.start_match(boards=[1, 2], match_end={"method": "time_or_deals", "deals": 2, "minutes": 60})
    assert h.c.match_active
