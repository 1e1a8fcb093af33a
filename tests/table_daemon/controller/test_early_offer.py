"""Unsure plays taken early (controller/early_offer.py): a provisional reading is taken at once when the seat's hand
settles it, and the camera's later reports of the same hold are the last word on that play, never a new one."""

from __future__ import annotations

from typing import TypedDict

from guandan import deal as engine
from table_daemon.controller import CardsSeen, Command, Press

from .harness import Harness, hands_with
from .test_seen_choice import _game, absent


class _Unsure(TypedDict):
    """The unsure part of a reading: its confidence and the candidates of each card."""

    confidence: float
    candidates: list[list[tuple[str, float]]]


def test_a_provisional_reading_the_hand_settles_is_taken_at_once() -> None:
    """An unsure play the camera still looks at: taken now when one held, legal reading is by far the likeliest."""
    h = _game()
    wrong = absent(h, "S", ["S9", "H9"])
    h.send(CardsSeen("S", ["D9", wrong], 0.7, frame=8, provisional=True, wait=3,
                     candidates=[[("D9", 0.99), ("H9", 0.005)], [(wrong, 0.7), ("C9", 0.29)]]))
    assert h.alerts() == []
    assert h.of("events", "play")[0]["cards"] == ["D9", "C9"] and h.state.to_move == "E"
    # the camera's final report of the same set (its hold's), now for a seat no longer on turn: nothing more
    h.send(CardsSeen("S", ["D9", wrong], 0.7, frame=16, wait=3,
                     candidates=[[("D9", 0.99), ("H9", 0.005)], [(wrong, 0.7), ("C9", 0.29)]]))
    assert h.alerts() == [] and len(h.of("events", "play")) == 1


def test_a_provisional_reading_the_hand_cannot_settle_waits_for_the_final_report() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    other = absent(h, "S", [c for c in ["SK", "SQ", "CK", "CQ"] if c != wrong])
    unsure: _Unsure = {"confidence": 0.8, "candidates": [[(wrong, 0.8), (other, 0.15)]]}
    h.send(CardsSeen("S", [wrong], frame=6, provisional=True, **unsure))
    h.send(CardsSeen("S", ["D9", "??"], 0.5, frame=6, provisional=True, unreadable=1))
    assert h.alerts() == [] and h.state.to_move == "S"  # no alert yet, no play
    h.send(CardsSeen("S", [wrong], frame=14, **unsure))  # the camera stopped waiting: judged now
    assert [a["code"] for a in h.alerts()] == ["misread"]


def test_a_provisional_reading_is_never_a_foul_nor_judged_off_turn_or_paused() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    h.send(CardsSeen("S", [wrong], 0.59, frame=7, provisional=True, candidates=[[(wrong, 1.0)]]))
    h.send(CardsSeen("E", ["H6"], 0.5, frame=7, provisional=True))  # E is not on turn
    h.send(Command("pause", {}))
    h.send(CardsSeen("S", ["D9"], 0.5, frame=8, provisional=True, candidates=[[("D9", 0.99)]]))
    assert h.alerts() == [] and not h.of("events", "play")


def test_the_final_report_of_a_play_taken_early_is_never_a_second_play_even_after_the_trick() -> None:
    """The play was taken from the provisional report; the trick ended (everyone passed) before the camera's final
    report of the same hold came, so the seat is on turn again with an empty zone: the report is no new play."""
    h = Harness("national", hands=[hands_with(7, {"S": "D9 D9 H3"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.deal.state = engine.begin_play(h.state, "S", h.now)
    unsure = [[("D9", 0.55), ("S9", 0.44)]]
    h.send(CardsSeen("S", ["D9"], 0.55, frame=8, provisional=True, wait=4, candidates=unsure))
    for seat in ("E", "N", "W"):
        h.send(Press(seat, "pass"), dt=0.1)
    assert h.state.to_move == "S" and h.deal.zone["S"] == []
    h.send(CardsSeen("S", ["D9"], 0.55, frame=16, wait=4, candidates=unsure))
    assert [p["cards"] for p in h.of("events", "play")] == [["D9"]] and h.alerts() == []
    # a set of a later hold is a play again
    h.send(CardsSeen("S", ["H3"], 1.0, frame=30))
    assert [p["cards"] for p in h.of("events", "play")] == [["D9"], ["H3"]]


def test_a_sure_final_report_unlike_the_play_taken_early_asks_the_referee_and_accuses_no_one() -> None:
    for final, alerts in ((["D9", "S9"], ["misread"]), (["D9", "H9"], ["misread"]), (["D9", "C9"], [])):
        h = _game()
        wrong = absent(h, "S", ["S9", "H9"])
        h.send(CardsSeen("S", ["D9", wrong], 0.5, frame=8, provisional=True, wait=2,
                         candidates=[[("D9", 0.99)], [(wrong, 0.5), ("C9", 0.499)]]))
        assert h.of("events", "play")[0]["cards"] == ["D9", "C9"]
        h.send(CardsSeen("S", final, 0.99999, frame=12, wait=2, candidates=[[(c, 0.99999)] for c in final]))
        assert [a["code"] for a in h.alerts()] == alerts, final  # never exposed_card nor not_held
        if alerts:
            assert h.alerts()[0]["evidence"]["taken"] == ["D9", "C9"] and h.alerts()[0]["seat"] == "S"
        assert len(h.of("events", "play")) == 1


def test_the_final_report_of_a_play_taken_early_raises_nothing_while_a_declaration_waits_or_paused() -> None:
    h = Harness("competitive-2017", hands=[hands_with(7, {"S": "H3 SK DK H6 C6 H2"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    seen = ["SK", "DK", "H6", "C6", "S2"]  # S2 not held: the hand takes H2, and the wild play needs declaring
    unsure = [[("SK", 1.0)], [("DK", 1.0)], [("H6", 1.0)], [("C6", 1.0)], [("S2", 0.58), ("H2", 0.419)]]
    h.send(CardsSeen("S", seen, 0.58, frame=7, provisional=True, wait=9, candidates=unsure))
    assert len(h.of("events", "declare_needed")) == 1
    h.send(CardsSeen("S", seen, 0.58, frame=15, wait=9, candidates=unsure))
    assert h.alerts() == []  # neither "unsure" nor out_of_turn while the declaration is awaited
    h2 = _game()
    h2.send(CardsSeen("S", ["D9"], 0.6, frame=5, provisional=True, wait=1, candidates=[[("D9", 0.6), ("D8", 0.01)]]))
    assert h2.of("events", "play")
    h2.send(Command("pause", {}))
    h2.send(CardsSeen("S", ["D9"], 0.6, frame=9, wait=1, candidates=[[("D9", 0.6), ("D8", 0.01)]]))
    assert h2.alerts() == []  # not "cards laid while the table is paused"


def test_a_deal_snapshotted_before_a_field_was_added_loads_with_its_default() -> None:
    """Snapshots of one version's format pickle the controller; a table deal written before ``taken_in_wait``
    existed loads with it empty instead of failing at the next card seen."""
    import pickle

    h = _game()
    d = h.deal
    del d.__dict__["taken_in_wait"]  # as a deal pickled by the build before it
    loaded = pickle.loads(pickle.dumps(d))
    assert loaded.taken_in_wait == {} and loaded.zone == d.zone and loaded.number == d.number
    assert loaded.state is not None and d.state is not None and loaded.state.to_move == d.state.to_move
