"""Cards found as paper (dark cards as dark paper, light cards as bright paper on a darker desk), alone, where the
edge search merges them with the things around them or loses them in a textured surface."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tests.images import imread
from vision.card_regions import (
    CLOSE_DARK_CARD,
    DARK_AREA,
    card_regions,
    dark_regions,
    is_card_shaped,
    paper_cards,
    top_level,
)
from vision.files import load_image
from vision.geometry import find_regions
from vision.net.network import IndexNet
from vision.net.reader import CardReader
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
    image = imread(cardcounter / "images" / "IMG_7800.jpg")
    card_like = [r for r in dark_regions(image) if is_card_shaped(r)]
    assert len(card_like) >= 5
    assert not any(r.area > 0.25 * image.shape[0] * image.shape[1] for r in dark_regions(image))


def test_a_dark_card_photographed_close_is_found_and_a_dark_band_across_the_photo_is_not() -> None:
    """A dark card filling a third of the photo, squashed nearly square (as a photo resized to a square is): more
    than the share a blob of several cards may have, but compact and clear of the edges. A dark band as large,
    from edge to edge, is no card."""
    scene = np.full((640, 640, 3), 210, np.uint8)
    scene[130:490, 150:480] = cv2.resize(dark_face(render_face("S4", 200, 2), "builtin:2"), (330, 360))
    (region,) = dark_regions(scene)
    assert DARK_AREA[1] < region.area / scene[..., 0].size <= CLOSE_DARK_CARD
    assert not is_card_shaped(region)  # too square for a card's own shape: found as a close-up
    band = np.full((640, 640, 3), 210, np.uint8)
    band[200:440, :] = 25
    assert dark_regions(band) == []


#: cardcounter photos (test part, never trained on) of one dark card close up, squashed nearly square, its card
CLOSE_DARK_CARDS = (("IMG_7705.jpg", "H7"), ("IMG_7744.jpg", "S4"), ("IMG_7771.jpg", "HJ"))


def test_real_close_ups_of_one_dark_card_are_read(cardcounter: Path) -> None:
    """Each filled 33-42 % of its photo, over the dark blobs' limit: nothing was read (over the train part's photos,
    single cards read right 184 -> 188, none more wrong)."""
    reader = CardReader()
    for name, card in CLOSE_DARK_CARDS:
        image = load_image(cardcounter / "images" / name)
        assert any(r.area > DARK_AREA[1] * image.shape[0] * image.shape[1] for r in dark_regions(image)), name
        assert [r.card for r in reader.read_image(image)] == [card], name


def _cloth(height: int = 480, width: int = 640) -> np.ndarray:
    rng = np.random.default_rng(5)
    return np.clip(rng.normal(70, 12, (height, width, 3)), 0, 255).astype(np.uint8)  # a dark, grainy desk


def test_a_light_card_on_a_dark_desk_is_found_as_paper_once() -> None:
    scene = _cloth()
    paste_card(scene, render_face("H7", 200, 2), (320, 240), 25.0, 260)
    found = paper_cards(scene, [])
    assert len(found) == 1
    assert np.allclose(found[0].corners.mean(axis=0), (320, 240), atol=6)
    assert paper_cards(scene, found) == []  # a region already found is not found again


def test_two_overlapping_cards_and_a_card_cut_by_the_photo_are_not_paper_cards() -> None:
    pair = _cloth()
    paste_card(pair, render_face("S9", 200, 2), (280, 240), 0.0, 260)
    paste_card(pair, render_face("D4", 200, 2), (370, 240), 0.0, 260)  # together nearly square
    assert paper_cards(pair, []) == []
    cut = _cloth()
    paste_card(cut, render_face("CQ", 200, 2), (40, 240), 0.0, 260)
    assert paper_cards(cut, []) == []


def test_cards_on_a_carpet_are_found_as_paper_and_read(edje: Path) -> None:
    """edje's IMG_2587 (its train folder: never trained on; the card calibration was fitted on it): four cards on
    a carpet beside a game box. The carpet's pile defeats the edge finder, which read one card; as bright paper on
    the darker carpet all four are found, and read."""
    image = load_image(edje / "images" / "train" / "IMG_2587.JPG")
    assert sorted(s.card for s in CardReader().sightings(image)) == ["CA", "HA", "S9", "SK"]


def test_cards_on_grainy_wood_are_found_at_the_paper_s_second_threshold(edje: Path) -> None:
    """edje's cam_image3 (train folder, never trained on): four kings lying apart on dark, grainy wood. The edge
    finder finds none of them; at Otsu's threshold the wood's light streaks join the four into one blob, at the
    second threshold (Otsu's of what is brighter) the lower two come apart as cards, and are read."""
    image = load_image(edje / "images" / "train" / "cam_image3.jpg")
    found = paper_cards(image, [])
    assert len(found) == 2 and all(is_card_shaped(r) for r in found)
    assert {"CK", "DK"} <= {s.card for s in CardReader().sightings(image)}


def _card_on_a_slab() -> np.ndarray:
    """A light card, squashed nearly square as in a photo resized to a square, on a dark slab whose outline closes
    round it, the slab on a light desk: the slab covers most of the photo."""
    scene = np.full((640, 640, 3), 200, np.uint8)
    cv2.rectangle(scene, (20, 30), (620, 620), (45, 45, 45), -1)
    face = cv2.resize(render_face("D6", 200, 2), (250, 280))  # 0.89 wide for its height: not card-shaped
    scene[180:460, 195:445] = face
    return scene


def test_a_card_on_a_slab_whose_outline_closes_round_it_is_found() -> None:
    scene = _card_on_a_slab()
    total = float(scene.shape[0] * scene.shape[1])
    outermost = find_regions(scene)
    assert len(outermost) == 1 and outermost[0].area > 0.8 * total  # the slab alone: the card lies in its hole
    nested = find_regions(scene, nested=True)
    cards = [r for r in top_level(nested, total) if r.area < 0.5 * total]
    assert len(cards) == 1
    assert np.allclose(cards[0].corners.mean(axis=0), (320, 320), atol=8)
    assert not is_card_shaped(cards[0])
    assert [r.area for r in top_level(nested)] == [outermost[0].area]  # without the image's area, as before
    assert any(r.box == cards[0].box for r in card_regions(scene, nested=True))


def test_what_lies_inside_a_card_on_a_slab_stays_hidden() -> None:
    """A card-shaped card on the slab is a card; a court's frame inside the card is not, however large."""
    scene = np.full((640, 640, 3), 200, np.uint8)
    cv2.rectangle(scene, (20, 30), (620, 620), (45, 45, 45), -1)
    cv2.rectangle(scene, (195, 150), (445, 500), (235, 235, 235), -1)  # the card, 0.71 wide for its height
    cv2.rectangle(scene, (240, 210), (400, 440), (60, 40, 160), 3)  # the frame of a court card's picture
    total = float(scene.shape[0] * scene.shape[1])
    nested = find_regions(scene, nested=True)
    frame = [r for r in nested if 0.05 * total < r.area < 0.15 * total]
    assert len(frame) == 1, "the frame inside the card is found as a region of its own"
    kept = top_level(nested, total)
    assert not any(r is frame[0] for r in kept)
    assert any(is_card_shaped(r) and 0.15 * total < r.area < 0.3 * total for r in kept)


def test_the_reader_reads_a_card_on_a_slab_in_its_outline() -> None:
    readings = CardReader(IndexNet(threads=1)).sightings(_card_on_a_slab())
    assert [(s.card, s.spotted) for s in readings] == [("D6", False)]
