"""Cards printed light on dark are read as dark on light: grey turns over, coloured ink keeps its colour. Cards lit
too dimly are brightened first, and a region that may be either way is read both ways."""

from __future__ import annotations

import numpy as np

from vision.index import ink_mask
from vision.polarity import (
    DIM,
    LIT,
    MAX_GAIN,
    as_read,
    exposure_gain,
    is_light_on_dark,
    lit,
    polarities,
    turn_over,
)


def patch(bgr: tuple[int, int, int]) -> np.ndarray:
    return np.full((4, 4, 3), bgr, np.uint8)


def test_grey_turns_over_and_coloured_ink_keeps_its_brightness_and_hue() -> None:
    assert turn_over(patch((15, 15, 15)))[0, 0].min() >= 235  # black paper becomes white
    assert turn_over(patch((245, 245, 245)))[0, 0].max() <= 20  # white ink becomes black
    red = turn_over(patch((40, 30, 220)))[0, 0]  # BGR: a bright red stays a bright red
    assert red[2] >= 200 and red[0] <= 60 and red[1] <= 60
    gold = turn_over(patch((55, 175, 212)))[0, 0]
    assert gold[2] >= 190 and gold[1] >= 150 and gold[0] <= 80


def test_the_noise_of_dark_paper_is_grey_not_colour() -> None:
    """Saturated but dim pixels (sensor noise on black paper) turn over to near white like the paper."""
    assert turn_over(patch((20, 28, 38)))[0, 0].min() >= 200


def test_a_dark_card_is_told_from_a_light_one() -> None:
    assert is_light_on_dark(patch((25, 25, 30)))
    assert not is_light_on_dark(patch((230, 230, 225)))
    assert not is_light_on_dark(np.zeros((0, 0, 3), np.uint8))


def test_gold_and_white_indices_on_black_are_ink_once_turned_over() -> None:
    """The ink mask finds nothing on black paper (it is cloth to it); turned over, both indices are ink."""
    card = np.full((300, 210, 3), (18, 18, 22), np.uint8)
    card[20:50, 15:35] = (55, 175, 212)  # a gold rank
    card[20:50, 120:140] = (235, 235, 235)  # a white rank
    before, _ = ink_mask(card)
    after, _ = ink_mask(as_read(card))
    assert before[20:50, 15:35].sum() == 0 and before[20:50, 120:140].sum() == 0
    assert after[25:45, 18:32].all() and after[25:45, 123:137].all()
    assert after[100:, :].sum() == 0  # the paper itself is no ink


def white_card(paper: int = 230, ink: int = 20) -> np.ndarray:
    """A white card's upright view with a black rank in its corner and a pip in its middle."""
    card = np.full((300, 210, 3), paper, np.uint8)
    card[20:50, 15:35] = ink
    card[130:170, 90:120] = ink
    return card


def test_a_white_card_in_dim_light_is_brightened_and_its_ink_found() -> None:
    """Paper 40 grey levels bright (a real photo in a dark room): no ink by the mask's grey levels, and its paper
    counts as a dark card's. Brightened, the rank is ink again and the paper is not."""
    dim = (white_card().astype(np.float32) * 0.17).astype(np.uint8)
    before, _ = ink_mask(dim)
    assert before.sum() == 0 and is_light_on_dark(dim)
    shown = lit(dim)
    assert abs(int(np.percentile(shown.max(axis=2), 95)) - LIT) <= 6
    after, _ = ink_mask(shown)
    assert after[25:45, 18:32].all() and after[60:120, :].sum() == 0


def test_a_card_in_good_light_is_left_as_it_is() -> None:
    card = white_card(paper=DIM + 5)
    assert lit(card) is card
    assert polarities(card) == (False,)


def test_brightening_stops_at_its_most() -> None:
    """A photo nearly black (brightest parts 8 grey levels): brightened at most ``MAX_GAIN`` times, not until its
    noise is ink-dark against paper-bright."""
    nearly_black = white_card(paper=8, ink=1)
    assert int(lit(nearly_black).max()) == round(8 * MAX_GAIN)


def test_a_region_dark_and_dim_all_over_is_read_both_ways() -> None:
    """A dark card with bright ink is one; a dim white card and a dark card whose ink is dim too (the brightest
    parts under ``DIM``) may be either, the dark reading first (as before the dim rule)."""
    dark = np.full((300, 210, 3), (18, 18, 22), np.uint8)
    dark[20:50, 15:35] = 235  # white ink: bright, a rank and a large picture
    dark[100:200, 50:160] = 235
    assert polarities(dark) == (True,)
    dim_dark = dark.copy()
    dim_dark[dark > 200] = 120
    assert polarities(dim_dark) == (True, False)
    assert polarities((white_card().astype(np.float32) * 0.17).astype(np.uint8)) == (True, False)
    assert polarities(np.zeros((0, 0, 3), np.uint8)) == (False,)


def test_a_dark_card_is_turned_over_not_brightened() -> None:
    """The network learnt dark cards as turned over (``as_read``): a dim dark card's view is its turned-over self."""
    dark = np.full((300, 210, 3), (18, 18, 22), np.uint8)
    dark[20:50, 15:35] = (55, 140, 160)  # dim gold ink
    assert np.array_equal(as_read(dark), turn_over(dark))


def test_a_frame_is_brightened_by_its_whitest_parts() -> None:
    """A view whose white (markers, paper: the top 1 %) is 60 grey levels bright wants LIT / 60; one whose white
    reaches ``DIM`` wants nothing; a nearly black one at most ``MAX_GAIN``; an empty one nothing."""
    frame = np.full((720, 1280, 3), 30, np.uint8)
    frame[:40, :] = 60  # about 5 % of the view: the white of this dim frame
    assert exposure_gain(frame) == LIT / 60
    frame[:40, :] = DIM
    assert exposure_gain(frame) == 1.0
    assert exposure_gain(np.full((720, 1280, 3), 3, np.uint8)) == MAX_GAIN
    assert exposure_gain(np.zeros((0, 0, 3), np.uint8)) == 1.0
