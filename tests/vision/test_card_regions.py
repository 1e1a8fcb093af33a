"""Dark cards found as dark paper, alone, where the edge search merges them with the dark things around them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.card_regions import dark_regions, is_card_shaped
from vision.render import paste_card, render_face
from vision.training.dark_decks import dark_face


def test_dark_cards_on_a_light_desk_are_found_one_by_one_and_a_keyboard_is_not_a_card() -> None:
    scene = np.full((720, 1280, 3), 205, np.uint8)
    cv2.rectangle(scene, (0, 0), (1279, 250), (30, 30, 30), -1)  # a keyboard across the top of the photo
    for code, x, angle in (("H9", 300, 10.0), ("S4", 640, -20.0), ("DQ", 980, 35.0)):
        paste_card(scene, dark_face(render_face(code, 200, 2), "builtin:2"), (x, 480), angle, 240)
    regions = dark_regions(scene)
    assert len(regions) == 3
    assert all(is_card_shaped(r) for r in regions)
    centres = sorted(float(r.corners[:, 0].mean()) for r in regions)
    assert np.allclose(centres, [300, 640, 980], atol=15)


def test_a_real_photo_of_dark_cards_beside_a_keyboard(cardcounter: Path) -> None:
    """IMG_7800 (the split's test part): four dark cards face up and two face down on a white desk beside a
    keyboard lit in colours; the edge search finds the desk and the cards as two regions."""
    image = cv2.imread(str(cardcounter / "images" / "IMG_7800.jpg"))
    card_like = [r for r in dark_regions(image) if is_card_shaped(r)]
    assert len(card_like) >= 5
    assert not any(r.area > 0.25 * image.shape[0] * image.shape[1] for r in dark_regions(image))
