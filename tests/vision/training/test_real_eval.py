"""Scoring on the real photos: the label audit (labels that do not say what the photo shows) and its checks."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from vision.training.real_eval import (
    CARDS,
    LabelAuditError,
    Photo,
    audited,
    label_audit,
    real_sets,
    reliability,
    score,
)
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


def test_the_shipped_audit_names_real_photos_of_the_test_part(cardcounter: Path) -> None:
    """Every audited photo exists, its removed labels are labelled there, and it is one of the photos figures are
    reported on (none was trained on with the wrong label fixed here)."""
    audit = label_audit()
    assert audit
    for set_name, name in audit:
        assert any((CARDS / set_name).rglob(name)), name
    photos = [p for ps in real_sets("test").values() for p in ps]
    changed = {(p.path.relative_to(CARDS).parts[0], p.path.name)
               for p, q in zip(photos, audited(photos), strict=True) if p.wanted != q.wanted}
    assert changed == set(audit)


def test_reliability_counts_wrong_readings_against_those_their_confidences_expect() -> None:
    readings = [(0.6, False), (0.7, True), (0.95, True), (0.999, False), (1.0, True), (0.5, True), (0.2, False)]
    bins = reliability(readings, edges=(0.5, 0.9, 0.99, 1.0))
    assert [(b["from"], b["to"], b["readings"], b["wrong"]) for b in bins] == [
        (0.5, 0.9, 3, 1), (0.9, 0.99, 1, 0), (0.99, 1.0, 2, 1)]  # 1.0 falls in the last bin; under 0.5 in none
    assert bins[0]["expected_wrong"] == pytest.approx(0.4 + 0.3 + 0.5)
    assert bins[2]["share_wrong"] == 0.5
    assert reliability([], edges=(0.5, 1.0)) == [{"from": 0.5, "to": 1.0, "readings": 0, "wrong": 0,
                                                   "share_wrong": None, "expected_wrong": 0}]
