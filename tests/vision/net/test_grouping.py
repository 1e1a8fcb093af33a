"""Sightings of corner indices grouped into physical cards: whole cards, fans, two copies of one card."""

from __future__ import annotations

from vision.net.grouping import Sighting, corners_of_one_card, physical_cards


def seen(card: str, x: float, y: float, up: tuple[float, float] = (0.0, -1.0), h: float = 20.0,
         confidence: float = 0.9) -> Sighting:
    return Sighting(card, confidence, (int(x), int(y), int(h), int(2 * h)), (x, y), up, h)


def test_a_card_lying_whole_is_one_card() -> None:
    # card 150 wide, 210 high: top-left index near (12, 15), bottom-right one turned, near (138, 195)
    top, bottom = seen("SQ", 12, 15), seen("SQ", 138, 195, up=(0.0, 1.0), confidence=0.8)
    assert corners_of_one_card(top, bottom) and corners_of_one_card(bottom, top)
    assert physical_cards([bottom, top]) == [top]


def test_a_card_turned_a_quarter_is_still_one_card() -> None:
    # the same card turned 90 degrees clockwise: "up" points right for the first index
    first, second = seen("H7", 195, 12, up=(1.0, 0.0)), seen("H7", 15, 138, up=(-1.0, 0.0))
    assert physical_cards([first, second]) == [first]


def test_two_copies_side_by_side_are_two_cards() -> None:
    a_top, a_bottom = seen("D9", 12, 15), seen("D9", 138, 195, up=(0.0, 1.0))
    b_top, b_bottom = seen("D9", 182, 15), seen("D9", 308, 195, up=(0.0, 1.0))
    assert len(physical_cards([a_top, a_bottom, b_top, b_bottom])) == 2


def test_a_fan_keeps_every_index_even_of_equal_cards() -> None:
    fan = [seen(code, 12 + 40 * i, 15) for i, code in enumerate(["C8", "C8", "H8", "S8", "S8"])]
    assert len(physical_cards(fan)) == 5


def test_the_same_index_seen_twice_is_one() -> None:
    assert len(physical_cards([seen("CK", 40, 40), seen("CK", 44, 42, confidence=0.5)])) == 1
    # different cards at the same place are both kept (the reader decides between them, not the grouping)
    assert len(physical_cards([seen("CK", 40, 40), seen("SK", 44, 42)])) == 2
