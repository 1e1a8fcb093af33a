"""What the table takes as laid: the reader's candidates weighed with what the seat holds; fouls only when sure."""

from __future__ import annotations

import pytest

from guandan import deal as engine
from table_daemon.controller import CardsSeen, Command
from table_daemon.controller import seen_choice as sc

from .harness import Harness, hands_with

UNSURE_FIVE = [[("H5", 0.7), ("H6", 0.25)], [("S9", 0.9), ("C9", 0.08)]]

CHOICES = [
    # (options, the sets that fit (None: every set), the reader's sure threshold, what is taken)
    # H5 not held: its runner-up
    ([[("H5", 0.7), ("H6", 0.29)], [("S9", 0.97), ("C9", 0.02)]], {("H6", "S9"), ("H6", "C9")}, 0.9, ("H6", "S9")),
    (UNSURE_FIVE, {("H6", "S9"), ("H6", "C9")}, 0.9, None),  # not H5, but what else: H6 at 0.25 of 0.3 is unsure
    (UNSURE_FIVE, {("H6", "C9")}, 0.9, None),  # far less probable than what was seen
    (UNSURE_FIVE, set(), 0.9, None),  # nothing the seat could have laid
    (UNSURE_FIVE, None, 0.9, None),  # anything fits: the hand tells nothing, and 0.63 is not sure
    ([[("SB", 0.82), ("HR", 0.18)]], {("SB",)}, 0.998, ("SB",)),  # an unsure joker, the other one not held
    ([[("SB", 0.82), ("HR", 0.18)]], {("SB",), ("HR",)}, 0.998, None),  # both held: too near to choose
    ([[("H5", 0.5)]], None, 0.6, None),  # a reading with no runners-up: half of it may be any other card
    ([[("H5", 0.95)]], None, 0.9, ("H5",)),
    # a pip read as a third card, fairly surely: the held pair without it
    ([[("H5", 0.999)], [("H5", 0.999)], [("SK", 0.6), ("CK", 0.1)]], {("H5", "H5")}, 0.998, ("H5", "H5")),
    # a triple of kings, the third read unsurely as a jack: the pair without it fits, but so would the third king,
    # which its candidates do not name: asked again, not taken as the pair (seen in bench/table_reading.py)
    ([[("HK", 1.0)], [("SK", 1.0)], [("DJ", 0.45), ("DQ", 0.1), ("D8", 0.05)]],
     {("HK", "SK"), ("HK", "SK", "DK")}, 0.998, None),
    # the same reading where no unnamed card would make a play the seat could lay: the pair without it
    ([[("HK", 1.0)], [("SK", 1.0)], [("DJ", 0.45), ("DQ", 0.1), ("D8", 0.05)]], {("HK", "SK")}, 0.998, ("HK", "SK")),
]


@pytest.mark.parametrize(("options", "fitting", "sure_at", "taken"), CHOICES)
def test_choice_of_what_was_laid(options: list[list[tuple[str, float]]], fitting: set[tuple[str, ...]] | None,
                                 sure_at: float, taken: tuple[str, ...] | None) -> None:
    assert sc.choose(options, lambda codes: fitting is None or codes in fitting, sure_at) == taken


def test_a_foul_needs_every_card_and_the_whole_reading_sure() -> None:
    readings = [[("H5", 0.99996)], [("S9", 1.0)]]
    assert sc.sure(readings) and sc.sure(readings, 0.998) and not sc.sure(UNSURE_FIVE)
    assert not sc.sure([[("H5", 0.9995)], [("S9", 0.997)]], 0.998)  # a card under the reader's threshold
    assert not sc.sure([[("H5", 0.99996)]] * 3)  # each sure, the three together wrong 1 time in 8,000
    assert not sc.sure([[("H5", 0.95)]], 0.6)
    assert not sc.sure([[("H5", 1.0)]], 0.998, least=0.9982)  # less sure in another settling frame


def _game() -> Harness:
    h = Harness("national", hands=[hands_with(7, {"S": "H3 D9 C9", "E": "H6", "W": "S4"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.deal.state = engine.begin_play(h.state, "S", h.now)  # S leads
    return h


def absent(h: Harness, seat: str, codes: list[str]) -> str:
    """The first of ``codes`` that ``seat`` does not hold."""
    held = {c.code for c in h.state.hand(seat)}
    return next(code for code in codes if code not in held)


def test_a_card_read_wrong_but_held_in_second_place_is_taken() -> None:
    h = _game()
    # the reader is fairly sure of D6, which S does not hold; its second candidate D9 is held and legal
    wrong = absent(h, "S", ["D6", "D5", "D4", "D7"])
    h.send(CardsSeen("S", [wrong], 0.72, frame=5, candidates=[[(wrong, 0.72), ("D9", 0.27), ("D8", 0.005)]]))
    assert h.alerts() == []
    (play,) = h.of("events", "play")
    assert play["seat"] == "S" and play["cards"] == ["D9"]


def test_unsure_not_held_is_a_misread_not_a_foul() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    other = absent(h, "S", [c for c in ["SK", "SQ", "CK", "CQ"] if c != wrong])
    h.send(CardsSeen("S", [wrong], 0.8, frame=6, candidates=[[(wrong, 0.8), (other, 0.15)]]))
    assert not h.alerts("not_held") and len(h.alerts("misread")) == 1
    assert h.alerts("misread")[0]["evidence"]["candidates"][0][0] == [wrong, 0.8]
    assert h.state.to_move == "S"  # nothing happened: S lays again


def test_nearly_sure_is_not_sure_enough_to_accuse() -> None:
    h = _game()
    wrong = absent(h, "S", ["HK", "HQ", "HJ", "SK", "SQ"])
    # surer than the learned reader's threshold, but wrong one time in 1,700: the cards are laid again
    h.send(CardsSeen("S", [wrong], 0.9994, frame=7, candidates=[[(wrong, 0.9994), ("D9", 0.0004)]]))
    assert not h.alerts("not_held") and len(h.alerts("misread")) == 1


def test_a_pair_read_with_one_wrong_card_becomes_the_held_pair() -> None:
    h = _game()
    wrong = absent(h, "S", ["S9", "H9"])
    h.send(CardsSeen("S", ["D9", wrong], 0.7, frame=8,
                     candidates=[[("D9", 0.99), ("H9", 0.005)], [(wrong, 0.7), ("C9", 0.29)]]))
    assert h.alerts() == []
    assert h.of("events", "play")[0]["cards"] == ["D9", "C9"]


def test_unsure_cards_beside_the_play_of_a_seat_not_on_turn_raise_nothing() -> None:
    """A seat's play lies in its zone while the others play on; a pip of it read as another card, unsurely, in
    a few frames is no exposed card and asks nothing of a seat not on turn."""
    h = _game()
    h.send(CardsSeen("S", ["D9"], 1.0, frame=9))
    assert h.of("events", "play")[0]["cards"] == ["D9"] and h.state.to_move == "E"
    h.send(CardsSeen("S", ["C9"], 0.5, frame=10, candidates=[[("C9", 0.5), ("S9", 0.3)]]))
    h.send(CardsSeen("S", [], 0.0, frame=11, unreadable=1))
    assert h.alerts() == []
    h.send(CardsSeen("S", ["C9"], 1.0, frame=12))  # surely another card laid beside it: an exposed card
    assert [a["code"] for a in h.alerts()] == ["exposed_card"]


def test_more_copies_of_a_card_than_the_pack_holds_is_never_a_foul() -> None:
    """Three red jokers read surely (the 大王 or JOKER printed beside a joker's index read as one more): no seat
    can lay that, so it is always a misread, and the table does not stop."""
    h = Harness("national", hands=[hands_with(7, {"S": "HR HR S4"})])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    h.deal.state = engine.begin_play(h.state, "S", h.now)
    for frame in (44, 45):
        h.send(CardsSeen("S", ["HR", "HR", "HR"], 1.0, frame=frame))
    assert [a["evidence"]["more_than_the_pack_holds"] for a in h.alerts("misread")] == [["HR"], ["HR"]]
    assert not any(h.alerts(code) for code in ("not_held", "illegal_play"))
    h.send(CardsSeen("S", ["HR", "HR"], 1.0, frame=46))
    assert h.of("events", "play")[0]["cards"] == ["HR", "HR"]
