"""The stabiliser: plays reported once settled, passing hands ignored, exposed cards and low confidence flagged."""

from __future__ import annotations

from vision.stabiliser import CLEARED, EXPOSED, PLAY, Stabiliser
from vision.types import CardReading


def cards(*codes: str, confidence: float = 0.95) -> list[CardReading]:
    return [CardReading(c, confidence, (10 * i, 0, 10, 20)) for i, c in enumerate(codes)]


def test_play_reported_once_after_n_identical_frames() -> None:
    st = Stabiliser(frames=3)
    seen = [st.update({"S": cards("H3", "H4")}, on_turn="S") for _ in range(6)]
    assert [len(s) for s in seen] == [0, 0, 1, 0, 0, 0]
    obs = seen[2][0]
    assert (obs.kind, obs.zone, obs.cards, obs.flagged) == (PLAY, "S", ("H3", "H4"), False)


def test_passing_hand_and_flicker_produce_nothing() -> None:
    st = Stabiliser(frames=3)
    frames: list[dict[str, list[CardReading]]] = [{"S": cards("H3")}, {"S": cards("C9", "DK")}, {"S": []}, {"S": cards("H3")}, {"S": []}]
    assert all(st.update(f, on_turn="S") == [] for f in frames)


def test_covered_play_is_not_reported_twice_and_clear_rearms() -> None:
    st = Stabiliser(frames=2)
    out = [st.update({"E": cards("SA")}, "E") for _ in range(2)]
    assert out[1][0].kind == PLAY
    assert st.update({"E": []}, "E") == []  # a hand covers the card for one frame
    assert st.update({"E": cards("SA")}, "E") == []
    assert st.update({"E": cards("SA")}, "E") == []
    st.update({"E": []}, "E")
    cleared = st.update({"E": []}, "E")
    assert [o.kind for o in cleared] == [CLEARED]
    st.update({"E": cards("SA")}, "E")
    assert [o.kind for o in st.update({"E": cards("SA")}, "E")] == [PLAY]


def test_card_in_zone_of_seat_not_on_turn_is_exposed() -> None:
    st = Stabiliser(frames=2)
    for _ in range(2):
        out = st.update({"S": [], "N": cards("HR")}, on_turn="S")
    assert [(o.kind, o.zone, o.cards) for o in out] == [(EXPOSED, "N", ("HR",))]


def test_low_confidence_is_flagged_with_lowest_value() -> None:
    st = Stabiliser(frames=2)
    st.update({"W": cards("D7", confidence=0.9)}, "W")
    out = st.update({"W": cards("D7", confidence=0.3)}, "W")
    assert out[0].flagged and out[0].confidences == (0.3,)
    assert out[0].to_json()["flagged"] is True


def test_the_table_s_threshold_decides_what_is_unsure() -> None:
    strict, lenient = Stabiliser(frames=2, min_confidence=0.9), Stabiliser(frames=2, min_confidence=0.5)
    for _ in range(2):
        got_strict = strict.update({"W": cards("D7", confidence=0.8)}, "W")
        got_lenient = lenient.update({"W": cards("D7", confidence=0.8)}, "W")
    assert got_strict[0].flagged and not got_lenient[0].flagged


def test_an_unsure_set_waits_for_a_sure_reading_then_gives_up_flagged() -> None:
    st = Stabiliser(frames=2, patience=3)
    unsure = {"S": cards("H3", "H4", confidence=0.4)}
    assert st.update(unsure, "S") == [] and st.update(unsure, "S") == []  # settled, but unsure: held back
    assert st.waiting
    sure = {"S": cards("H3", "H4", confidence=0.9)}
    st.update(sure, "S")
    out = st.update(sure, "S")  # two sure frames of the same set: reported unflagged, once
    assert [(o.kind, o.cards, o.flagged) for o in out] == [(PLAY, ("H3", "H4"), False)]
    assert not st.waiting and all(st.update(sure, "S") == [] for _ in range(5))

    st = Stabiliser(frames=2, patience=3)
    seen = [st.update({"W": cards("D7", "??", confidence=0.9)}, "W") for _ in range(6)]
    # settles at frame 2, waits three frames, then goes out flagged (a card seen but not read)
    assert [len(s) for s in seen] == [0, 0, 0, 0, 1, 0]
    assert seen[4][0].flagged and seen[4][0].cards == ("D7", "??")


def test_early_an_unsure_play_is_offered_at_once_and_still_judged_when_the_wait_ends() -> None:
    st = Stabiliser(frames=2, patience=3, early=True)
    unsure = {"S": cards("H3", "H4", confidence=0.4)}
    seen = [st.update(unsure, "S") for _ in range(7)]
    assert [[o.provisional for o in s] for s in seen] == [[], [True], [], [], [False], [], []]
    first, final = seen[1][0], seen[4][0]
    assert (first.kind, first.cards, first.flagged) == (PLAY, ("H3", "H4"), True)
    assert (final.kind, final.cards, final.flagged) == (PLAY, ("H3", "H4"), True)
    assert first.to_json()["provisional"] is True and final.to_json()["provisional"] is False


def test_early_a_set_that_reads_otherwise_while_waiting_is_offered_again_and_a_sure_one_ends_the_wait() -> None:
    st = Stabiliser(frames=2, patience=5, early=True)
    out = [st.update({"E": cards("C9", "C8", confidence=0.5)}, "E") for _ in range(2)]
    assert [o.cards for o in out[1]] == [("C9", "C8")] and out[1][0].provisional
    assert st.update({"E": cards("C9", "C8", confidence=0.5)}, "E") == []  # offered once per reading
    st.update({"E": cards("C9", "C7", confidence=0.5)}, "E")
    again = st.update({"E": cards("C9", "C7", confidence=0.5)}, "E")
    assert [(o.cards, o.provisional) for o in again] == [(("C9", "C7"), True)]
    st.update({"E": cards("C9", "C7")}, "E")
    sure = st.update({"E": cards("C9", "C7")}, "E")
    assert [(o.cards, o.flagged, o.provisional) for o in sure] == [(("C9", "C7"), False, False)]
    assert not st.waiting


def test_early_offers_nothing_for_a_seat_not_on_turn_nor_for_a_sure_play() -> None:
    st = Stabiliser(frames=2, patience=3, early=True)
    seen = [st.update({"N": cards("HR", confidence=0.4), "S": cards("D5")}, "S") for _ in range(4)]
    assert [[(o.zone, o.provisional) for o in s] for s in seen] == [[], [("S", False)], [], []]


def test_an_unsure_set_replaced_by_a_sure_one_reports_only_the_sure_one() -> None:
    st = Stabiliser(frames=2, patience=5)
    for _ in range(3):
        assert st.update({"E": cards("C9", "C8", confidence=0.5)}, "E") == []
    st.update({"E": cards("C9", "C9")}, "E")
    out = st.update({"E": cards("C9", "C9")}, "E")
    assert [(o.cards, o.flagged) for o in out] == [(("C9", "C9"), False)]


def test_a_held_set_s_reports_share_its_hold_number_and_its_final_report_stays_a_play() -> None:
    """The provisional reports of a held set and its final report carry the hold's number, so the table knows the
    final word on a play it already took; the final report is the whole play even after the turn moved on (the
    table took the play from the provisional report), and a later hold has another number."""
    st = Stabiliser(frames=2, patience=3, early=True, holds_from=1000)
    zone = {"S": [*cards("D5"), *cards("H3", "H4", confidence=0.4)]}
    st.update({"S": cards("D5")}, "S")
    assert [o.wait for o in st.update({"S": cards("D5")}, "S")] == [0]  # sure at once: never held
    st.update(zone, "S")
    offered = st.update(zone, "S")
    assert [(o.provisional, o.wait) for o in offered] == [(True, 1001)]
    seen = [st.update(zone, "E") for _ in range(3)]  # the turn moved on: the table took the play
    final = [o for s in seen for o in s]
    assert [(o.kind, o.cards, o.provisional, o.wait) for o in final] == [(PLAY, ("D5", "H3", "H4"), False, 1001)]
    st.update({"S": []}, "E")
    st.update({"S": []}, "E")
    st.update({"S": cards("C7", confidence=0.4)}, "S")
    assert [o.wait for o in st.update({"S": cards("C7", confidence=0.4)}, "S")] == [1002]


def test_a_set_held_while_its_seat_was_not_on_turn_is_judged_as_the_turn_then_is() -> None:
    st = Stabiliser(frames=2, patience=2)
    unsure = {"W": cards("S8", confidence=0.4)}
    assert st.update(unsure, "S") == [] and st.update(unsure, "S") == []  # held, as an exposed card
    seen = [o for _ in range(3) for o in st.update(unsure, "W")]  # the turn came to W while it was held
    assert [(o.kind, o.wait) for o in seen] == [(PLAY, seen[0].wait)] and seen[0].wait
