"""Sightings of corner indices grouped into physical cards: whole cards, fans, two copies of one card."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.net.grouping import (
    Sighting,
    at_a_tens_second_glyph,
    at_most_a_pack,
    corners_in_one_outline,
    corners_of_one_card,
    fused,
    in_a_row,
    maybe_corners_of_one_card,
    one_glyph,
    physical_cards,
)


def seen(card: str, x: float, y: float, up: tuple[float, float] = (0.0, -1.0), h: float = 20.0,
         confidence: float = 0.9, candidates: tuple[tuple[str, float], ...] = ()) -> Sighting:
    return Sighting(card, confidence, (int(x), int(y), int(h), int(2 * h)), (x, y), up, h,
                    candidates or ((card, confidence),))


def test_a_card_lying_whole_is_one_card_surer_than_either_corner() -> None:
    # card 150 wide, 210 high: top-left index near (12, 15), bottom-right one turned, near (138, 195)
    top, bottom = seen("SQ", 12, 15), seen("SQ", 138, 195, up=(0.0, 1.0), confidence=0.8)
    assert corners_of_one_card(top, bottom) and corners_of_one_card(bottom, top)
    [card] = physical_cards([bottom, top])
    assert card.card == "SQ" and card.box == top.box  # placed at the surer corner
    assert card.confidence > 0.99


def test_a_card_turned_a_quarter_is_still_one_card() -> None:
    # the same card turned 90 degrees clockwise: "up" points right for the first index
    first, second = seen("H7", 195, 12, up=(1.0, 0.0)), seen("H7", 15, 138, up=(-1.0, 0.0))
    [card] = physical_cards([first, second])
    assert card.card == "H7" and card.centre == first.centre


def test_corners_reading_different_cards_are_not_paired() -> None:
    top, bottom = seen("SQ", 12, 15), seen("S9", 138, 195, up=(0.0, 1.0), confidence=0.8)
    assert not corners_of_one_card(top, bottom)
    assert [c.card for c in physical_cards([top, bottom])] == ["SQ", "S9"]


def test_spotted_corners_whose_up_is_off_are_still_one_card() -> None:
    """Spotting takes "up" from the rank to its suit, so a big rank over a small suit set to its side gives an
    "up" tilted off the card's. These are the corners of a real queen of diamonds lying whole, tilted about 20
    degrees, spotted with "up" 40 degrees from upright (edje IMG_2387: it was reported twice)."""
    tilt = np.radians(40.0)
    up = (float(np.sin(tilt)), float(-np.cos(tilt)))
    top, bottom = seen("DQ", 136, 188, up=up, h=17.1), seen("DQ", 220, 331, up=(-up[0], -up[1]), h=17.4)
    assert not corners_of_one_card(top, bottom)  # read by regions, whose "up" is the card's, they would not pair
    assert not maybe_corners_of_one_card(top, bottom)
    spotted = [replace(top, spotted=True, confidence=0.97), replace(bottom, spotted=True, confidence=0.9)]
    assert maybe_corners_of_one_card(*spotted)
    # one card, as sure as its surer corner: two pips of one card that look like an index stand like this too,
    # so the two are not weighed as two looks at one card
    [card] = physical_cards(spotted)
    assert card.card == "DQ" and card.confidence == 0.97


def test_spotted_copies_lying_head_to_toe_side_by_side_are_two_cards() -> None:
    """Two copies of one card side by side, one turned half a turn: their indices stand level, a quarter turn
    from where a card's own second corner can be even with the slack allowed to a spotted "up"."""
    left = seen("S5", 12, 15, h=20.0)
    right = seen("S5", 200, 15, up=(0.0, 1.0), h=20.0)
    spotted = [replace(left, spotted=True), replace(right, spotted=True)]
    assert not maybe_corners_of_one_card(*spotted)
    assert len(physical_cards(spotted)) == 2


def test_fusing_weighs_both_distributions() -> None:
    a = seen("HR", 0, 0, confidence=0.9, candidates=(("HR", 0.9), ("SB", 0.08), ("DK", 0.01)))
    sure_other = seen("SB", 0, 0, confidence=0.99, candidates=(("SB", 0.99), ("HR", 0.005), ("CK", 0.001)))
    both = fused(a, sure_other)
    assert both.card == "SB" and both.confidence == pytest.approx(0.99 * 0.08 / (0.99 * 0.08 + 0.9 * 0.005), abs=0.01)
    # a partner unsure of everything (most of its mass on "no index" or elsewhere) leaves the reading as it was
    vague = seen("CK", 0, 0, confidence=0.2, candidates=(("CK", 0.2), ("SK", 0.1), ("HK", 0.05)))
    kept = fused(a, vague)
    assert kept.card == "HR" and 0.85 < kept.confidence < 0.95


def test_two_copies_side_by_side_are_two_cards() -> None:
    a_top, a_bottom = seen("D9", 12, 15), seen("D9", 138, 195, up=(0.0, 1.0))
    b_top, b_bottom = seen("D9", 182, 15), seen("D9", 308, 195, up=(0.0, 1.0))
    assert len(physical_cards([a_top, a_bottom, b_top, b_bottom])) == 2


def test_a_fan_keeps_every_index_even_of_equal_cards() -> None:
    fan = [seen(code, 12 + 40 * i, 15) for i, code in enumerate(["C8", "C8", "H8", "S8", "S8"])]
    assert len(physical_cards(fan)) == 5


def test_the_same_index_seen_twice_is_one() -> None:
    assert len(physical_cards([seen("CK", 40, 40), seen("CK", 44, 42, confidence=0.5)])) == 1
    # different cards read from one glyph: one index read twice, the surer stands
    assert [c.card for c in physical_cards([seen("SK", 44, 42, confidence=0.7), seen("CK", 40, 40)])] == ["CK"]


def test_of_one_index_read_in_an_outline_and_spotted_the_one_over_its_own_threshold_stands() -> None:
    """A real photo's four of hearts: read in its outline at 0.9985 (the threshold there 0.998) and spotted at
    0.9997 (the threshold of indices spotted alone 0.9999). By number the spotted one is surer and stood for
    the index, and then fell short of its threshold: the card was lost. Ordered by the margin over each one's
    threshold, the outline's reading stands."""
    outline = seen("H4", 30, 40, confidence=0.9985)
    spotted = replace(seen("H4", 31, 41, confidence=0.9997), spotted=True)
    assert physical_cards([outline, spotted]) == [spotted]
    thresholds = {False: 0.998, True: 0.9999}

    def margin(s: Sighting) -> float:
        return float(np.log(s.confidence / (1 - s.confidence)) - np.log(thresholds[s.spotted] / (1 - thresholds[s.spotted])))

    assert physical_cards([outline, spotted], margin) == [outline]


def test_a_card_in_a_photo_stretched_to_a_square_is_still_one_card() -> None:
    """Photos are often resized to a square for a dataset: a card lying across a 16:9 photo then has its corner
    indices about as far apart across as down (1.3 here, a card's own 0.7 stretched by 16/9)."""
    top, bottom = seen("D8", 12, 15, h=18.0), seen("D8", 12 + 1.3 * 110, 15 + 110, up=(0.0, 1.0), h=18.0)
    assert corners_of_one_card(top, bottom)
    assert [c.card for c in physical_cards([top, bottom])] == ["D8"]


def test_no_more_of_one_card_than_the_two_decks_hold() -> None:
    """Six black jokers "seen" in one photo (newspaper letters): at most two can be; the surest two stay, and
    other cards, two copies of one card among them, are untouched, in their order."""
    jokers = [seen("SB", 40 + 60 * i, 20, confidence=0.9 + 0.01 * i) for i in range(6)]
    others = [seen("D8", 30, 300), seen("D8", 200, 300), seen("C4", 400, 300)]
    kept = at_most_a_pack(jokers + others)
    assert [k.card for k in kept] == ["SB", "SB", "D8", "D8", "C4"]
    assert [k.confidence for k in kept[:2]] == [jokers[4].confidence, jokers[5].confidence]


def test_a_card_whose_index_the_photo_cuts_is_one_card() -> None:
    """A card the photo's top edge cuts: its upper index is read from what is left of it, so its glyph measures
    short (edje's IMG_2561: 9 px against 16 px at the whole lower corner), and the sizes alone would keep the two
    corners apart."""
    whole = seen("D9", 138, 195, up=(0.0, 1.0), h=16.0, confidence=0.99)
    upper = seen("D9", 20, 4, h=9.0, confidence=0.98)
    assert not corners_of_one_card(whole, upper)
    [card] = physical_cards([whole, replace(upper, cut=True)])
    assert card.card == "D9" and card.centre == whole.centre
    # cut or not, corners that read different cards stay two cards, and so does a cut glyph larger than its partner
    assert len(physical_cards([whole, replace(upper, card="D7", cut=True)])) == 2
    assert len(physical_cards([replace(whole, cut=True), upper])) == 2


def test_corner_glyphs_of_a_size_are_judged_alike_whichever_comes_first() -> None:
    """edje's IMG_2466 (train folder): a ten of hearts read in its outline at its lower corner (glyph 23.4 px) and
    spotted at its upper one, whose ink a shadow thins (14.5 px, 0.62 of it). The glyphs' sizes were compared
    one way round only, so the pair was one card in one order and two in the other."""
    lower = seen("HT", 212.0, 435.8, up=(0.135, 0.991), h=23.37, confidence=0.999999)
    upper = replace(seen("HT", 88.8, 310.9, up=(-0.259, -0.966), h=14.5, confidence=1.0), spotted=True)
    assert corners_of_one_card(lower, upper) and corners_of_one_card(upper, lower)
    assert len(physical_cards([lower, upper])) == 1
    thinner = replace(upper, glyph_h=0.55 * lower.glyph_h)  # a pip beside an index is smaller still
    assert not corners_of_one_card(lower, thinner) and not corners_of_one_card(thinner, lower)


def test_a_corner_seen_twice_pairs_with_the_other_corner_by_either_look() -> None:
    """edje's IMG_2481 (train folder) read with cardcounter's deck: a jack's upper corner read in an outline (its
    glyph measured by the card, 8.1 px) and spotted (by its ink, 14.0 px), its lower corner spotted (14.5 px). The
    outline's look stands for the corner, and by its size alone the lower corner was another jack."""
    upper = seen("HJ", 129.0, 194.0, up=(0.87, -0.49), h=8.1, confidence=0.999999)
    upper_spotted = replace(seen("HJ", 132.0, 193.0, up=(0.92, -0.40), h=14.0, confidence=1.0), spotted=True)
    lower = replace(seen("HJ", 75.0, 308.0, up=(-0.92, 0.39), h=14.5, confidence=1.0), spotted=True)
    assert not corners_of_one_card(upper, lower) and corners_of_one_card(upper_spotted, lower)

    def margin(s: Sighting) -> float:  # the outline's reading is held to the lower threshold, so it stands
        return s.confidence - (0.99995 if s.spotted else 0.998)

    [card] = physical_cards([lower, upper_spotted, upper], margin)
    assert card.card == "HJ" and card.centre == upper.centre
    # reported once, not weighed: a look pairs two readings into one card but never makes either surer
    unsure = [replace(s, confidence=0.99, candidates=(("HJ", 0.99),)) for s in (lower, upper_spotted, upper)]
    [card] = physical_cards(unsure, margin)
    assert card.card == "HJ" and card.confidence == 0.99
    # the looks are of one corner only: a look at another card's index standing there pairs nothing
    other = replace(upper_spotted, card="DJ")
    assert len(physical_cards([lower, other, upper], margin)) == 2


def test_two_readings_of_one_glyph_are_one_index_and_the_surer_stands() -> None:
    """edje's IMG_2562: a king of spades read in its outline and the same glyph spotted, turned 47 degrees, as the
    king of hearts, both over their thresholds: one index read twice."""
    outlined = seen("SK", 142, 138, up=(0.33, 0.94), h=13.0, confidence=0.99999)
    spotted = replace(seen("HK", 142.4, 138.3, up=(0.92, 0.4), h=14.0, confidence=0.9999), spotted=True)
    assert one_glyph(outlined, spotted) and one_glyph(spotted, outlined)
    assert [c.card for c in physical_cards([spotted, outlined])] == ["SK"]


def test_indices_of_a_tight_fan_are_not_one_glyph() -> None:
    """In a tight fan the next card's index starts 0.6-0.9 glyph heights away (cardcounter's fanned spades read
    right 0.66 apart): both cards stay."""
    first, second = seen("S4", 100, 100, h=20.0), seen("S5", 113.2, 100, h=20.0, confidence=0.8)
    assert not one_glyph(first, second)
    assert [c.card for c in physical_cards([first, second])] == ["S4", "S5"]


def test_a_spotted_index_next_in_a_row_beside_a_sure_one_is_in_the_row() -> None:
    """A fan's next index: turned as its neighbour, on its line, a glyph or two along it, of its size."""
    sure = seen("S4", 100, 100, confidence=0.99999)
    nxt = replace(seen("S6", 130, 101, confidence=0.999), spotted=True)
    assert in_a_row(nxt, sure)
    assert not in_a_row(replace(nxt, up=(0.5, -0.87)), sure)  # turned 30 degrees from it
    assert not in_a_row(replace(nxt, centre=(130.0, 130.0)), sure)  # a glyph and a half below its line
    assert not in_a_row(replace(nxt, centre=(200.0, 100.0)), sure)  # five glyphs along
    assert not in_a_row(replace(nxt, glyph_h=12.0), sure)  # a pip, smaller than the index


def test_what_may_be_the_neighbours_own_index_is_not_in_the_row() -> None:
    """Held-out designs' fans (bench/held_out_scenes.py): the "0" of a ten read as the queen of its suit, a court
    picture read as a joker, a queen; and a card read again beside itself is no next card."""
    ten = seen("HT", 100, 100, confidence=0.99999)
    zero = replace(seen("H9", 117, 100, confidence=0.999), spotted=True)  # 0.85 glyph heights right of the "1"
    assert not in_a_row(zero, ten)
    assert in_a_row(replace(zero, centre=(140.0, 100.0)), ten)  # two glyphs along: the next card
    assert not in_a_row(replace(zero, card="HQ", centre=(140.0, 100.0)), ten)  # a queen: maybe another ten's "0"
    king = seen("SK", 100, 100, confidence=0.99999)
    assert not in_a_row(replace(seen("SB", 130, 100, confidence=0.999), spotted=True), king)
    assert not in_a_row(replace(seen("SK", 130, 100, confidence=0.999), spotted=True), king)


def test_a_glyph_at_a_tens_zero_is_part_of_the_ten() -> None:
    """The "0" of a ten, paired with the ten's suit below it, reads as the queen of that suit; spotted, its "up" runs
    to what it was paired with (that suit, below the ten's "1", or a pip farther off), so it may face any way."""
    ten = seen("HT", 100, 100, confidence=0.99999)
    zero = replace(seen("HQ", 117, 100, confidence=0.99999), spotted=True)  # 0.85 glyph heights right of the "1"
    assert at_a_tens_second_glyph(zero, ten)
    turned = (float(np.sin(np.radians(22))), -float(np.cos(np.radians(22))))
    assert at_a_tens_second_glyph(replace(zero, up=turned), ten)  # spotted: its place is what counts
    assert at_a_tens_second_glyph(replace(zero, up=(-0.76, -0.65)), ten)  # paired with a pip above and to the left
    assert not at_a_tens_second_glyph(replace(zero, up=turned, spotted=False), ten)  # in an outline: as the ten is
    assert not at_a_tens_second_glyph(replace(zero, centre=(140.0, 100.0)), ten)  # two glyphs along: the next card
    assert not at_a_tens_second_glyph(replace(zero, centre=(117.0, 115.0)), ten)  # off the ten's line
    assert not at_a_tens_second_glyph(replace(zero, centre=(83.0, 100.0)), ten)  # left of the "1"
    assert not at_a_tens_second_glyph(zero, replace(ten, card="H9"))  # beside a nine: nothing to be part of
    assert not at_a_tens_second_glyph(replace(zero, card="HT"), ten)  # the ten read again


def outline_corners(card: str = "C5", confidence: float = 0.996) -> tuple[Sighting, Sighting]:
    """A card's two corners as an outline read them in two opposite turns, in a photo stretched to a square: the
    second 7.3 glyph heights down and 10.4 to the right of the first (cardcounter's IMG_20220921_193915, a five of
    clubs read at 0.9962 and 0.9887), wider than a card stands."""
    first = replace(seen(card, 100, 100, confidence=confidence), outline=3)
    second = replace(seen(card, 100 + 10.4 * 20, 100 + 7.3 * 20, up=(0.0, 1.0), confidence=0.989), outline=3,
                     second=True)
    return first, second


def test_an_outline_s_two_corners_may_stand_wider_than_a_card() -> None:
    first, second = outline_corners()
    assert not corners_of_one_card(first, second)
    assert corners_in_one_outline(first, second)
    assert not corners_in_one_outline(first, replace(second, card="D5"))
    assert not corners_in_one_outline(first, replace(second, up=(0.0, -1.0)))  # not turned half a turn
    assert not corners_in_one_outline(first, replace(second, glyph_h=10.0))  # not of a size
    # one outline around several cards: a king's corner and another king's 29.5 glyph heights away
    assert not corners_in_one_outline(first, replace(second, centre=(100 + 23.5 * 20, 100 + 17.8 * 20)))


def test_an_outline_s_second_corner_is_weighed_with_its_card_and_is_never_a_card_alone() -> None:
    first, second = outline_corners()
    [card] = physical_cards([second, first])
    assert card.card == "C5" and card.centre == first.centre and card.confidence > 0.9999
    assert physical_cards([second]) == []
    assert [c.card for c in physical_cards([first, replace(second, outline=4)])] == ["C5"]  # another outline's
    assert physical_cards([first, replace(second, outline=4)])[0].confidence == first.confidence


def test_a_card_weighed_with_a_corner_already_is_not_weighed_again() -> None:
    """Two looks at one glyph are not two corners: a card whose corners were weighed together (its other corner
    read where a card's stands) keeps that reading when its outline's second corner, at the same place, comes."""
    first, second = outline_corners()
    near = replace(second, centre=(100 + 8.0 * 20, 100 + 9.0 * 20), second=False, outline=None)
    assert corners_of_one_card(first, near)
    once = physical_cards([first, near])
    assert physical_cards([first, near, replace(second, centre=near.centre)]) == once


def test_a_spotted_reading_paired_by_place_alone_gives_way_to_the_outline_s_second_corner() -> None:
    """A spotted index standing where the outline's second corner does, paired with the card by place alone
    (``maybe_corners_of_one_card``: not weighed), does not keep the two outline corners from being weighed."""
    first, second = outline_corners()
    tilt = np.radians(-20.0)
    spotted = replace(second, up=(float(np.sin(tilt)), float(np.cos(tilt))), second=False, outline=None,
                      spotted=True, confidence=0.97, candidates=(("C5", 0.97),))
    assert maybe_corners_of_one_card(first, spotted) and not corners_of_one_card(first, spotted)
    assert physical_cards([first, spotted])[0].confidence == first.confidence
    [card] = physical_cards([first, spotted, second])
    assert card.card == "C5" and card.confidence > 0.9999
