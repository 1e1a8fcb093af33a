"""Scoring on the real photos: the label audit (labels that do not say what the photo shows), photos whose
jokers the labels cannot name, and their checks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.images import imread
from vision.training.real_eval import (
    A_JOKER,
    LabelAuditError,
    Photo,
    audited,
    edje,
    jokers_alike,
    label_audit,
    photographed_grey,
    real_sets,
    reliability,
    score,
)
from vision.training.real_eval import cardcounter as split_part
from vision.training.real_split import CARDS, cardcounter_boxes
from vision.types import CardReading


def _audit(tmp_path: Path, *entries: dict[str, object]) -> Path:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps({"about": "test", "photos": list(entries)}))
    return path


def test_a_corrected_label_and_a_missing_card_change_the_score(tmp_path: Path) -> None:
    photo = Photo(CARDS / "cardcounter" / "images" / "x.jpg", Counter({"S6": 1, "D4": 1}), False)
    audit = label_audit(_audit(tmp_path, {"set": "cardcounter", "photo": "x.jpg", "labelled": ["S6"],
                                          "shows": ["S7", "C7"], "why": "test"}))
    [fixed] = audited([photo], audit)
    assert fixed.wanted == Counter({"S7": 1, "C7": 1, "D4": 1})
    read = [CardReading("S7", 1.0, (0, 0, 1, 1)), CardReading("D4", 1.0, (0, 0, 1, 1))]
    as_labelled, corrected = score(lambda _: read, [photo]), score(lambda _: read, [fixed])
    assert as_labelled.figures(0.9)["wrong_above_threshold"] == 1
    assert corrected.figures(0.9)["wrong_above_threshold"] == 0 and corrected.figures(0.9)["recall"] == pytest.approx(2 / 3, abs=1e-4)
    # a photo of the same name in another set is not touched
    other = Photo(CARDS / "edje" / "images" / "test" / "x.jpg", Counter({"S6": 1}), True)
    assert audited([other], audit) == [other]


@pytest.mark.parametrize(("entry", "says"), [
    ({"set": "somewhere", "photo": "x.jpg", "labelled": [], "shows": ["S7"]}, "unknown set 'somewhere'"),
    ({"set": "bidly", "photo": "x.jpg", "labelled": [], "shows": ["7s"]}, "card codes must be written as ours"),
    ({"set": "edje", "photo": "x.jpg", "labelled": ["9"], "shows": ["DT"]}, "labelled by rank"),
    ({"set": "cardcounter", "photo": "x.jpg", "labelled": [], "shows": ["T"]}, "card codes must be written as ours"),
])
def test_a_malformed_audit_is_refused_by_name(tmp_path: Path, entry: dict[str, object], says: str) -> None:
    with pytest.raises(LabelAuditError, match=says):
        label_audit(_audit(tmp_path, entry))


def test_an_unreadable_audit_or_an_entry_missing_a_key_is_refused_by_name(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(LabelAuditError, match="not a label audit"):
        label_audit(broken)
    with pytest.raises(LabelAuditError, match="entry 0 lacks labelled, shows"):
        label_audit(_audit(tmp_path, {"set": "bidly", "photo": "x.jpg"}))


def test_an_audit_removing_a_label_the_photo_does_not_have_is_refused(tmp_path: Path) -> None:
    photo = Photo(CARDS / "bidly" / "cards" / "x.jpg", Counter({"S6": 1}), True)
    audit = label_audit(_audit(tmp_path, {"set": "bidly", "photo": "x.jpg", "labelled": ["S5"], "shows": ["S7"]}))
    with pytest.raises(LabelAuditError, match="removes"):
        audited([photo], audit)


def test_the_shipped_audit_names_real_photos_never_trained_on(cardcounter: Path) -> None:
    """Every audited photo exists, its removed labels are labelled there, and it is one of the photos figures are
    reported on or choices are made on (none was trained on with the wrong label fixed here)."""
    audit = label_audit()
    assert audit
    for set_name, name in audit:
        assert any((CARDS / set_name).rglob(name)), name
    photos = [p for ps in real_sets("test").values() for p in ps] \
        + [p for ps in split_part("calibration", as_labelled=True) for p in ps] + edje("train", as_labelled=True)
    changed = {(p.path.relative_to(CARDS).parts[0], p.path.name)
               for p, q in zip(photos, audited(photos), strict=True) if p.wanted != q.wanted}
    assert changed == set(audit)
    trained_on = {p.path.name for ps in split_part("train", as_labelled=True) for p in ps}
    assert not {name for set_name, name in audit if set_name == "cardcounter"} & trained_on


def test_the_parts_choices_are_made_on_come_audited_and_the_test_part_as_labelled(cardcounter: Path) -> None:
    """Thresholds, the card calibration, the choice sets and the enrolment blend all load their photos through
    ``cardcounter``/``edje``, so none can be chosen against a label the audit knows to be wrong; the figures' part keeps
    the shipped labels (``bench/vision.py`` puts the audit beside them)."""
    [ten] = [p for p in edje("train") if p.path.name == "IMG_2396.JPG"]
    [nine] = [p for p in edje("train", as_labelled=True) if p.path.name == "IMG_2396.JPG"]
    assert ten.wanted == Counter({"T": 1}) and nine.wanted == Counter({"9": 1})
    [with_ace] = [p for ps in split_part("calibration") for p in ps if p.path.name == "IMG_20220921_194751.jpg"]
    assert with_ace.wanted["SA"] == 1
    assert split_part("test") == split_part("test", as_labelled=True)
    assert edje("test") == edje("test", as_labelled=True)


def test_an_edje_photo_is_corrected_by_rank(tmp_path: Path) -> None:
    """edje's labels name ranks only, so its corrections do too: a ten labelled as a nine reads right as a ten."""
    photo = Photo(CARDS / "edje" / "images" / "train" / "x.JPG", Counter({"9": 1}), True, by_rank=True)
    audit = label_audit(_audit(tmp_path, {"set": "edje", "photo": "x.JPG", "labelled": ["9"], "shows": ["T"],
                                          "why": "test"}))
    [fixed] = audited([photo], audit)
    read = [CardReading("DT", 1.0, (0, 0, 1, 1))]
    assert score(lambda _: read, [photo]).figures(0.9)["wrong_above_threshold"] == 1
    assert score(lambda _: read, [fixed]).figures(0.9)["single_accuracy"] == 1.0


def test_reliability_counts_wrong_readings_against_those_their_confidences_expect() -> None:
    readings = [(0.6, False), (0.7, True), (0.95, True), (0.999, False), (1.0, True), (0.5, True), (0.2, False)]
    bins = reliability(readings, edges=(0.5, 0.9, 0.99, 1.0))
    assert [(b["from"], b["to"], b["readings"], b["wrong"]) for b in bins] == [
        (0.5, 0.9, 3, 1), (0.9, 0.99, 1, 0), (0.99, 1.0, 2, 1)]  # 1.0 falls in the last bin; under 0.5 in none
    assert bins[0]["expected_wrong"] == pytest.approx(0.4 + 0.3 + 0.5)
    assert bins[2]["share_wrong"] == 0.5
    assert reliability([], edges=(0.5, 1.0)) == [{"from": 0.5, "to": 1.0, "readings": 0, "wrong": 0,
                                                   "share_wrong": None, "expected_wrong": 0}]


def test_either_joker_is_the_joker_of_a_photo_whose_labels_cannot_say_which() -> None:
    alike = Photo(CARDS / "cardcounter" / "images" / "x.jpg", Counter({A_JOKER: 1, "S6": 1}), False, jokers_alike=True)
    told = Photo(CARDS / "cardcounter" / "images" / "y.jpg", Counter({"SB": 1, "S6": 1}), False)

    def reads(*codes: str) -> list[CardReading]:
        return [CardReading(code, 1.0, (0, 0, 1, 1)) for code in codes]

    for joker in ("SB", "HR"):
        def reads_joker(_: Path, j: str = joker) -> list[CardReading]:
            return reads(j, "S6")

        assert score(reads_joker, [alike]).figures(0.9)["wrong_above_threshold"] == 0
    # one joker in sight: the second joker read there is one card too many, as a card read twice is
    assert score(lambda _: reads("SB", "HR", "S6"), [alike]).figures(0.9)["wrong_above_threshold"] == 1
    # where the labels do tell the jokers apart, the other joker is still a wrong card
    assert score(lambda _: reads("HR", "S6"), [told]).figures(0.9)["wrong_above_threshold"] == 1


def test_jokers_alike_that_is_not_a_list_of_photos_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "audit.json"
    for broken in ({"jokers_alike": [{"set": "cardcounter"}]}, {"jokers_alike": [{"set": "cardcounter", "photos": [3]}]},
                   {"jokers_alike": "IMG_1.jpg"}):
        path.write_text(json.dumps({"about": "test", "photos": [], **broken}))
        with pytest.raises(LabelAuditError, match="jokers_alike"):
            jokers_alike("cardcounter", path)
    path.write_text(json.dumps({"about": "test", "photos": []}))
    assert jokers_alike("cardcounter", path) == frozenset()


def test_the_shipped_jokers_alike_are_cardcounter_photos_of_a_joker_scored_as_either(cardcounter: Path) -> None:
    """Every photo listed is labelled with a joker, and wherever the split puts it, its joker is scored as either."""
    names = jokers_alike("cardcounter")
    assert names
    boxes = cardcounter_boxes(cardcounter)
    assert all(any(b.code in ("SB", "HR") for b in boxes[name]) for name in names)
    listed = [p for part in ("train", "calibration", "test") for ps in split_part(part) for p in ps
              if p.path.name in names]
    assert len(listed) == len(names)
    assert all(p.jokers_alike and p.wanted[A_JOKER] == 1 and not {"SB", "HR"} & set(p.wanted) for p in listed)


def test_a_photo_saved_grey_is_grey_and_a_red_index_on_white_is_not() -> None:
    card = np.full((120, 80, 3), 235, np.uint8)
    cv2.putText(card, "7", (8, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (30, 30, 200), 3)  # red ink (BGR)
    assert not photographed_grey(card)
    grey = cv2.cvtColor(cv2.cvtColor(card, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    # saved as a JPEG, a grey photo's channels differ a little: still grey
    ok, jpeg = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 80])
    saved = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    assert ok and saved is not None and photographed_grey(saved)


def test_the_shared_grey_photos_are_told_from_the_colour_ones(cardcounter: Path) -> None:
    # a grey photo of an eight of diamonds, and a colour photo of a three of hearts of the same series
    images = cardcounter / "images"
    assert photographed_grey(imread(images / "IMG_20220921_200027.jpg"))
    assert not photographed_grey(imread(images / "IMG_20220921_194705.jpg"))
