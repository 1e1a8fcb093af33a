"""The free-standing reader on real photos (one deck) and on rendered scenes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.images import imread
from vision.files import labelled_images
from vision.reader import CardReader
from vision.render import light_scene, paste_card, render_face, table_cloth
from vision.types import normalise_label


def best(reader: CardReader, image: np.ndarray) -> str | None:
    readings = reader.read_image(image)
    return max(readings, key=lambda r: r.confidence).card if readings else None


@pytest.mark.parametrize(("stem", "code"), [("10h", "HT"), ("Qs", "SQ"), ("As", "SA"), ("SQ", "SQ"),
                                            ("S10", "ST"), ("HR", "HR"), ("sb", "SB"), ("2c", "C2"),
                                            ("xyz", None), ("1h", None)])
def test_file_names_give_card_codes(stem: str, code: str | None) -> None:
    assert normalise_label(stem) == code


def test_real_cropped_photos_without_enrolment(bidly: Path, reader: CardReader) -> None:
    """52 real photos of one deck the model never saw: most read right, and wrong reads are rare."""
    files = list(labelled_images(bidly / "cards"))
    assert len(files) == 52
    results = [best(reader, imread(p)) for p, _ in files]
    right = sum(r == code for r, (_, code) in zip(results, files, strict=True))
    assert right / len(files) >= 0.85


def test_real_photos_turned_on_a_light_desk(bidly: Path, reader: CardReader) -> None:
    """The card is found by its edges on a light desk (a brightness threshold would not), turned, read."""
    rng = np.random.default_rng(3)
    files = list(labelled_images(bidly / "cards"))[::4]
    right = 0
    for path, code in files:
        scene = table_cloth(480, 640, rng, light=True)
        paste_card(scene, imread(path), (320, 240), float(rng.uniform(-45, 45)), 330.0)
        right += best(reader, light_scene(scene, rng, 0.6)) == code
    assert right / len(files) >= 0.8


def test_rendered_jokers_and_overlapping_fan(reader: CardReader) -> None:
    rng = np.random.default_rng(8)
    scene = table_cloth(420, 980, rng, light=False)
    for i, code in enumerate(["HR", "SB"]):
        paste_card(scene, render_face(code, 200, 2), (140 + 280 * i, 210), 15.0 - 30 * i, 260)
    for i, code in enumerate(["D5", "D6", "D7"]):  # fanned: only the top-left indices of the lower cards show
        paste_card(scene, render_face(code, 200, 3), (680 + 45 * i, 210), 5.0, 260)
    got = reader.read_image(light_scene(scene, rng, 0.4))
    assert [r.card for r in got] == ["HR", "SB", "D5", "D6", "D7"]


def test_blank_and_noise_images_read_nothing(reader: CardReader) -> None:
    rng = np.random.default_rng(0)
    assert reader.read_image(np.full((480, 640, 3), 220, np.uint8)) == []
    noise = rng.integers(0, 255, (240, 320, 3), dtype=np.uint8)
    assert all(r.flagged or r.confidence < 0.9 for r in reader.read_image(noise))
    assert reader.read_image(np.zeros((5, 5, 3), np.uint8)) == []


def test_real_fanned_deal_reads_most_indices_and_invents_few(bidly: Path, reader: CardReader) -> None:
    """A real phone photo of four hands fanned in arcs: indices are spotted in any orientation."""
    import json

    image = bidly / "deals" / "deal4-md-sq.jpg"
    labels = json.loads((bidly / "deals" / "deal4-md-sq-labels.json").read_text())
    wanted = {normalise_label(item["name"]) for item in labels}
    seen = {r.card for r in reader.read_image(imread(image))}
    assert len(seen & wanted) >= 0.6 * len(wanted)
    assert len(seen - wanted) <= 2
