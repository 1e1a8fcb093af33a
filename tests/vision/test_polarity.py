"""Cards printed light on dark are read as dark on light: grey turns over, coloured ink keeps its colour."""

from __future__ import annotations

import numpy as np

from vision.index import ink_mask
from vision.polarity import as_read, is_light_on_dark, turn_over


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
