"""Labels cut from real photos of the split (labelling is checked here, nothing is trained)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from vision.files import load_image
from vision.net.network import CLASSES, IndexNet
from vision.net.reader import CLOSE_UP_FROM
from vision.training.real_data import (
    N_NONE,
    Window,
    flat_windows,
    in_box,
    in_pixels,
    label_windows,
    relabelled,
    same_rank,
    spotted_windows,
    train_part_audit,
)
from vision.training.real_eval import LabelAuditError, jokers_alike
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


def test_the_audit_names_train_photos_real_boxes_and_regions_outside_every_box(cardcounter: Path) -> None:
    """The committed audit of the train part: every photo it names is trained on, every card it relabels is a
    box's label there, and every region of an unboxed index lies outside every box (it holds what no box does)."""
    audit = train_part_audit()
    train = set(load_split()["train"])
    boxes = cardcounter_boxes(cardcounter)
    assert audit and set(audit) <= train
    assert sum(len(a.unboxed) for a in audit.values()) >= 50
    for photo, what in audit.items():
        labels = {b.code for b in boxes[photo]}
        assert all(labelled in labels and shows != labelled for labelled, shows in what.relabel)
        for region in what.unboxed:
            centre = Window(np.zeros((1, 1)), np.array([region.cx * 100, region.cy * 100]), np.array([0.0, -1.0]), 1)
            assert not any(in_box(centre, b, pad=0.0) for b in in_pixels(boxes[photo], (100, 100))), photo


def test_an_ace_of_clubs_labelled_as_the_queen_is_trained_as_the_ace(cardcounter: Path) -> None:
    name = "IMG_7768.jpg"
    boxes = cardcounter_boxes(cardcounter)[name]
    assert sorted(str(b.code) for b in boxes) == ["CQ", "CQ", "D5"]
    assert sorted(str(b.code) for b in relabelled(boxes, train_part_audit()[name])) == ["CA", "CA", "D5"]


def test_windows_of_an_unboxed_index_are_left_out_but_not_those_in_a_box() -> None:
    """A window in a region the audit says holds an index no box surrounds is neither a card nor "no index"; one
    in that region and in a labelled box is labelled by the box as before."""
    def window(x: float) -> Window:
        return Window(np.zeros((32, 32, 3), np.uint8), np.array([x, 50.0]), np.array([0.0, -1.0]), 10.0)

    teacher = IndexNet(STAGE1)
    windows = [window(20.0)] * 3 + [window(80.0)] * 3
    back = [Box(None, 0.8, 0.5, 0.2, 0.2)]  # a face-down card's box: its windows are negatives
    _, as_labelled = label_windows(windows, back, (100, 100), teacher, np.random.default_rng(0))
    _, audited_y = label_windows(windows, back, (100, 100), teacher, np.random.default_rng(0),
                                 unboxed=(Box(None, 0.2, 0.5, 0.2, 0.2), Box(None, 0.8, 0.5, 0.2, 0.2)))
    assert as_labelled.count(N_NONE) == 6  # all six taken (fewer than the six negatives kept at least)
    assert audited_y == [N_NONE] * 3  # the box's three stay; the unboxed index's three are left out


@pytest.mark.parametrize(("text", "names"), [
    ('{"relabel": [], "unbox": []}', "keys are about, relabel and unboxed"),
    ('{"relabel": [{"photo": "a.jpg", "labelled": "CQ", "shows": "C1", "why": ""}]}', "relabel[0].shows"),
    ('{"relabel": [{"photo": "a.jpg", "labelled": "CQ", "shows": "CA"}]}', "relabel[0] must have the keys"),
    ('{"unboxed": [{"photo": "a.jpg", "box": [0.5, 0.5, 0, 0.1], "why": ""}]}', "unboxed[0].box"),
    ('{"unboxed": [{"photo": "", "box": [0.5, 0.5, 0.1, 0.1], "why": ""}]}', "unboxed[0].photo"),
    ("{", "Expecting"),
])
def test_a_malformed_audit_is_an_error_naming_the_entry(tmp_path: Path, text: str, names: str) -> None:
    path = tmp_path / "audit.json"
    path.write_text(text)
    with pytest.raises(LabelAuditError, match=re.escape(names)):
        train_part_audit(path)
