"""Labels cut from a real photo (one of the split's test part: labelling is checked here, nothing is trained)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.files import load_image
from vision.net.network import CLASSES, IndexNet
from vision.training.real_data import N_NONE, Window, flat_windows, label_windows, spotted_windows
from vision.training.real_split import Box, cardcounter_boxes, load_split

STAGE1 = Path(__file__).resolve().parents[3] / "vision" / "data" / "index_net_rendered.onnx"


def test_a_single_card_photo_gives_its_index_starts_and_hard_negatives(cardcounter: Path) -> None:
    name = "IMG_20220921_193936.jpg"
    assert name in load_split()["test"]
    boxes = cardcounter_boxes(cardcounter)[name]
    code = boxes[0].code
    assert code is not None and all(b.code == code for b in boxes) and len(boxes) == 2
    image = load_image(cardcounter / "images" / name)
    windows = flat_windows(image) + spotted_windows(image)
    x, y = label_windows(windows, boxes, image.shape[:2], IndexNet(STAGE1), np.random.default_rng(0))
    labels = np.array(y)
    positives = labels[labels != N_NONE]
    # both corners of the card, seen in more than one region or turn; never another card
    assert len(positives) >= 2 and set(positives) == {CLASSES.index(code)}
    assert (labels == N_NONE).sum() >= 2 * len(positives)  # pips, the desk, sideways and upside-down indices
    assert len(x) == len(y) and x[0].shape == (32, 32, 3)


def test_nothing_labelled_on_a_face_down_card_but_negatives() -> None:

    rng = np.random.default_rng(1)
    window = Window(np.zeros((32, 32, 3), np.uint8), np.array([50.0, 50.0]), np.array([0.0, -1.0]), 20.0)
    x, y = label_windows([window] * 3, [Box(None, 0.5, 0.5, 0.5, 0.5)], (100, 100), IndexNet(STAGE1), rng)
    assert y and set(y) == {N_NONE}
