"""The learned reader on held-out designs (never trained on) and real photos: what it already reads."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.cameras.simulated import held_out_decks, load_deck
from vision.net.reader import CardReader
from vision.render import light_scene, paste_card, table_cloth
from vision.types import normalise_label


@pytest.fixture(scope="module")
def net_reader() -> CardReader:
    return CardReader()


def held_out_scene(deck: str, layout: list[tuple[str, float, float, float]], rng: np.random.Generator,
                   card_h: float = 240, size: tuple[int, int] = (480, 900)) -> np.ndarray:
    faces = load_deck(deck)
    scene = table_cloth(size[0], size[1], rng, light=False)
    for code, x, y, angle in layout:
        paste_card(scene, faces[code], (x, y), angle, card_h)
    return light_scene(scene, rng, 0.4)


def test_two_identical_cards_side_by_side_are_two_cards_not_four(net_reader: CardReader) -> None:
    rng = np.random.default_rng(13)
    got = net_reader.read_image(held_out_scene("roboto-condensed", [("DQ", 250, 240, 8.0), ("DQ", 560, 240, -6.0)],
                                               rng))
    assert [r.card for r in got] == ["DQ", "DQ"]
    assert all(r.candidates and r.candidates[0][0] == r.card for r in got)


def test_held_out_fans_find_most_cards(net_reader: CardReader) -> None:
    """Fans of ten on the four held-out designs: most cards found; the extra readings it still makes
    (pips and court pictures of the card on top, read as indices) are why this reader is not the table's yet."""
    rng = np.random.default_rng(11)
    codes = ["S3", "H5", "C6", "D8", "ST", "HJ", "CQ", "DK", "SA", "H2"]
    right = 0
    for deck in held_out_decks():
        got = [r.card for r in net_reader.read_image(
            held_out_scene(deck, [(c, 150 + 62 * i, 240, 3.0) for i, c in enumerate(codes)], rng))]
        found = sum(1 for c in codes if c in got)
        right += found
        assert len(got) - found <= len(codes), (deck, got)
    assert right >= 0.8 * len(codes) * len(held_out_decks())  # 0.85 to 0.9 (OpenCV 4.9 and 5 scenes)


def test_real_fanned_deal_photo(net_reader: CardReader, bidly: Path) -> None:
    """A real phone photo of four hands fanned in arcs, never trained on: most cards found, few invented (cards
    seen only by spotting must be very sure, a threshold chosen on the calibration photos: 33 of 52 found and none
    invented at this writing, against 42 and 2 with spotted cards held to the ordinary threshold)."""
    image = bidly / "deals" / "deal4-md-sq.jpg"
    wanted = {normalise_label(i["name"]) for i in json.loads((bidly / "deals" / "deal4-md-sq-labels.json").read_text())}
    got = [r.card for r in net_reader.read_image(cv2.imread(str(image)))]
    assert len(set(got) & wanted) >= 0.6 * len(wanted)
    assert sum(1 for c in got if c not in wanted) <= 0.1 * len(got)


def test_blank_and_tiny_images_read_nothing(net_reader: CardReader) -> None:
    assert net_reader.read_image(np.full((480, 640, 3), 220, np.uint8)) == []
    assert net_reader.read_image(np.zeros((5, 5, 3), np.uint8)) == []
