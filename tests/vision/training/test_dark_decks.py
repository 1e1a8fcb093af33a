"""Designs turned dark for training: light on dark, stable per design, and read back where the light one is."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import CARD_H
from vision.index import BAND, ink_mask
from vision.net.proposals import propose
from vision.polarity import as_read, is_light_on_dark
from vision.render import render_face
from vision.training.dark_decks import dark_face


def first_glyph(face: np.ndarray) -> tuple[int, int]:
    upright = cv2.resize(face, None, fx=CARD_H / face.shape[0], fy=CARD_H / face.shape[0],
                         interpolation=cv2.INTER_AREA)
    mask, _ = ink_mask(upright[: int(BAND * CARD_H)])
    g = min(propose(mask), key=lambda g: g.x + g.y)
    return g.x, g.y


def test_a_dark_design_is_light_on_dark_and_the_same_every_time() -> None:
    face = render_face("HQ", 200, 0)
    dark = dark_face(face, "builtin:0")
    assert is_light_on_dark(dark) and not is_light_on_dark(face)
    assert np.array_equal(dark, dark_face(face, "builtin:0"))
    looks = {dark_face(face, f"design {i}").tobytes() for i in range(6)}
    assert len(looks) >= 3  # designs are turned dark in different looks (gold or red suits, tints)


def test_its_index_is_found_where_the_light_design_has_it_once_turned_back() -> None:
    for code in ("HQ", "S7", "DT", "C2"):
        face = render_face(code, 200, 1)
        x, y = first_glyph(face)
        dx, dy = first_glyph(as_read(dark_face(face, "builtin:1")))
        assert abs(dx - x) <= 3 and abs(dy - y) <= 3, code


def test_red_suits_stay_coloured_and_black_suits_turn_pale() -> None:
    heart = dark_face(render_face("H9", 200, 0), "builtin:0")
    spade = dark_face(render_face("S9", 200, 0), "builtin:0")
    hsv_h = cv2.cvtColor(heart, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    hsv_s = cv2.cvtColor(spade, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    ink_h = hsv_h[hsv_h[:, 2] > 120]
    ink_s = hsv_s[hsv_s[:, 2] > 120]
    assert len(ink_h) and len(ink_s)
    assert np.median(ink_h[:, 1]) > 100  # coloured: red or gold
    assert np.median(ink_s[:, 1]) < 120  # white, silver or pale gold
