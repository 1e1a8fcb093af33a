"""Referee actions in a deal record's ``actions`` (deal-record.md): skips change the turn as the table does,
undos take back the step before them (skips included), tribute corrections come before play, and anything
inconsistent is refused at its index with reason ``bad_referee`` / ``nothing_to_undo`` / ``not_your_turn``."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from guandan.bot import deal_hands
from guandan.deal import skip_turn, start_deal
from guandan.errors import IllegalPlayError
from guandan.profiles import PROFILES
from guandan.replay import replay

from .test_replay import make_record


def _error(rec: dict[str, Any]) -> tuple[int, str] | None:
    e = replay(rec)["first_error"]
    return None if e is None else (e["index"], e["reason"])


def test_skip_on_the_lead_and_its_undo_replay() -> None:
    rec = make_record()
    acts = rec["actions"]
    lead = next(i for i, a in enumerate(acts) if i > 3 and "play" in a and "pass" in acts[i - 1])
    seat = acts[lead]["seat"]
    # the referee skips the leader, then undoes the skip: the record replays as before
    acts[lead:lead] = [{"referee": "skip", "seat": seat, "t": 1.0},
                       {"referee": "undo_last", "seat": seat, "undone": [{"referee": "skip", "seat": seat}]}]
    assert _error(rec) is None
    # without the undo the leader has lost its turn and its play is out of turn
    no_undo = copy.deepcopy(rec)
    del no_undo["actions"][lead + 1]
    assert _error(no_undo) == (lead + 1, "not_your_turn")
    # skip_turn is read as skip
    alias = copy.deepcopy(rec)
    alias["actions"][lead]["referee"] = "skip_turn"
    assert _error(alias) == (lead + 1, "bad_referee")  # the undo names what it undoes
    alias["actions"][lead + 1]["undone"][0]["referee"] = "skip_turn"
    assert _error(alias) is None


def test_skip_while_following_is_that_seats_pass() -> None:
    rec = make_record()
    acts = rec["actions"]
    k = next(i for i, a in enumerate(acts) if i > 3 and a.get("pass") and "play" in acts[i - 1])
    acts[k] = {"referee": "skip", "seat": acts[k]["seat"], "t": acts[k]["t"]}
    assert _error(rec) is None


def test_tribute_corrections_come_before_play() -> None:
    rec = make_record()
    giver = rec["tribute"][0]
    undo = {"referee": "undo_last", "seat": giver["from"], "undone": [{"seat": giver["from"], "give": giver["card"]}]}
    ok = copy.deepcopy(rec)
    ok["actions"][0:0] = [undo, {"referee": "redo_tribute", "reason": "wrong card shown", "t": 0.5}]
    assert _error(ok) is None
    late = copy.deepcopy(rec)
    late["actions"].insert(2, undo)
    assert _error(late) == (2, "bad_referee")
    late = copy.deepcopy(rec)
    late["actions"].insert(2, {"referee": "redo_tribute"})
    assert _error(late) == (2, "bad_referee")


def test_malformed_referee_actions_are_refused() -> None:
    rec = make_record()
    for bad, reason in (({"referee": "rewind"}, "bad_referee"), ({"referee": ["take_back"]}, "bad_referee"),
                        ({"referee": "skip_trick"}, "bad_referee"), ({"referee": "penalty", "kind": "warning"},
                                                                     "bad_referee"),
                        ({"referee": "skip", "seat": "X"}, "bad_referee"),
                        ({"referee": "take_back", "undone": "the last one"}, "bad_referee"),
                        ({"referee": "undo_last"}, "nothing_to_undo")):
        broken = copy.deepcopy(rec)
        broken["actions"].insert(0, bad)
        assert _error(broken) == (0, reason), bad


def test_skip_turn_needs_a_turn_of_play() -> None:
    state, _ = start_deal(PROFILES["national"], 9, deal_hands(random.Random(1)), previous_finish=["S", "E", "N", "W"])
    with pytest.raises(IllegalPlayError) as info:
        skip_turn(state, 0.0)
    assert info.value.reason == "not_your_turn"
