"""Labels cut from real photos of the split (labelling is checked here, nothing is trained)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.files import load_image
from vision.net.network import CLASSES, IndexNet
from vision.net.reader import CLOSE_UP_FROM
from vision.training.real_data import N_NONE, Window, flat_windows, label_windows, same_rank, spotted_windows
from vision.training.real_eval import jokers_alike
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


def test_a_white_card_in_a_dim_room_gives_windows_of_its_index(cardcounter: Path) -> None:
    """A five of spades whose paper is under 40 grey levels: taken for a dark card and turned over, its regions gave
    no window of its index; read each way a dim region may be printed, they do (as the reader reads it)."""
    name = "IMG_20220921_194759.jpg"
    boxes = cardcounter_boxes(cardcounter)[name]
    assert {b.code for b in boxes} == {"S5"}
    image = load_image(cardcounter / "images" / name)
    _, y = label_windows(flat_windows(image), boxes, image.shape[:2], IndexNet(STAGE1), np.random.default_rng(0))
    assert CLASSES.index("S5") in y


def test_a_grey_red_card_gives_windows_of_its_index(cardcounter: Path) -> None:
    """A grey photo of the king of diamonds, fanned off the photo's edge (no second corner to say which way is up):
    the teacher, asked for the labelled card itself, is never 0.3 sure of a grey red card in any direction (it reads
    a grey diamond as a black suit), so the photo gave nothing to learn from; asked for its rank, it says."""
    name = "IMG_20220921_200039.jpg"
    assert name in load_split()["train"]
    boxes = cardcounter_boxes(cardcounter)[name]
    assert {b.code for b in boxes} == {"DK"}
    image = load_image(cardcounter / "images" / name)
    assert np.abs(np.diff(image.astype(np.int16), axis=2)).max() <= 12  # grey: no colour to tell red from black
    windows = flat_windows(image) + spotted_windows(image)
    _, y = label_windows(windows, boxes, image.shape[:2], IndexNet(STAGE1), np.random.default_rng(0))
    assert CLASSES.index("DK") in y and set(y) <= {CLASSES.index("DK"), N_NONE}


def test_same_rank_is_the_rank_in_every_suit_and_both_jokers() -> None:
    assert sorted(CLASSES[i] for i in same_rank("D7")) == ["C7", "D7", "H7", "S7"]
    assert sorted(CLASSES[i] for i in same_rank("ST")) == ["CT", "DT", "HT", "ST"]
    assert sorted(CLASSES[i] for i in same_rank("HR")) == ["HR", "SB"]


def test_a_close_up_gives_windows_of_its_large_index(cardcounter: Path) -> None:
    """A close-up of the king of spades, its index over a twelfth of the photo: the reader spots it in its close-up
    pass, and so must the training windows (before, the photo gave none of its index)."""
    name = "IMG_20220921_195917.jpg"
    assert name in load_split()["train"]
    boxes = cardcounter_boxes(cardcounter)[name]
    assert {b.code for b in boxes} == {"SK"}
    image = load_image(cardcounter / "images" / name)
    spotted = spotted_windows(image)
    assert any(w.glyph_h >= CLOSE_UP_FROM * max(image.shape[:2]) for w in spotted)
    _, y = label_windows(flat_windows(image) + spotted, boxes, image.shape[:2], IndexNet(STAGE1),
                         np.random.default_rng(0))
    assert CLASSES.index("SK") in y and set(y) <= {CLASSES.index("SK"), N_NONE}


def test_nothing_labelled_on_a_face_down_card_but_negatives() -> None:

    rng = np.random.default_rng(1)
    window = Window(np.zeros((32, 32, 3), np.uint8), np.array([50.0, 50.0]), np.array([0.0, -1.0]), 20.0)
    x, y = label_windows([window] * 3, [Box(None, 0.5, 0.5, 0.5, 0.5)], (100, 100), IndexNet(STAGE1), rng)
    assert y and set(y) == {N_NONE}


def test_windows_in_a_box_whose_joker_the_labels_cannot_name_are_left_out(cardcounter: Path) -> None:
    """The wizard deck's only joker is labelled RED JOKER here and BLACK JOKER in 17 other photos
    (``real_eval.jokers_alike``): its windows are neither that joker nor "no index" (it is an index)."""
    name = "IMG_20220921_194601.jpg"
    assert name in load_split()["train"] and name in jokers_alike("cardcounter")
    boxes = cardcounter_boxes(cardcounter)[name]
    assert [b.code for b in boxes] == ["HR"]
    image = load_image(cardcounter / "images" / name)
    windows = flat_windows(image) + spotted_windows(image)
    as_labelled = label_windows(windows, boxes, image.shape[:2], IndexNet(STAGE1), np.random.default_rng(0))[1]
    left_out = label_windows(windows, boxes, image.shape[:2], IndexNet(STAGE1), np.random.default_rng(0),
                             unnamed=frozenset({0}))[1]
    assert CLASSES.index("HR") in as_labelled  # what training would have learnt from the label
    assert set(left_out) == {N_NONE}
    # the box's own windows (read sideways or upside down, negatives as labelled) are gone too
    assert as_labelled.count(N_NONE) > len(left_out)
