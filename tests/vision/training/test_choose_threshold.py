"""Choosing the accept threshold from readings of the calibration photos."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from vision.net.grouping import Sighting
from vision.training.choose_threshold import MAX_WRONG_SHARE, SPOT_FLOOR, choose, choose_spot
from vision.training.real_eval import Photo


def test_lowest_threshold_with_few_wrong_readings() -> None:
    readings = [(0.99, True)] * 200 + [(0.97, False)] + [(0.8, True)] * 50 + [(0.75, False)] * 10
    t, facts = choose(readings)
    assert 0.75 < t <= 0.8
    right, wrong = facts["right_above"], facts["wrong_above"]
    assert isinstance(right, int) and isinstance(wrong, int)
    assert wrong <= MAX_WRONG_SHARE * (right + wrong)


def test_when_no_threshold_is_safe_wrong_readings_cost_ten_right_ones() -> None:
    readings = [(0.999, False)] * 3 + [(0.9, True)] * 20 + [(0.6, False)] * 5
    t, facts = choose(readings)
    assert 0.6 < t <= 0.9 and facts["wrong_above"] == 3 and facts["right_above"] == 20


def _photo(*codes: str) -> Photo:
    return Photo(Path(f"{'-'.join(codes)}.jpg"), Counter(codes), len(codes) == 1)


def _seen(card: str, confidence: float, spotted: bool) -> Sighting:
    return Sighting(card, confidence, (0, 0, 10, 20), (5.0, 5.0), (0.0, -1.0), 10.0, spotted=spotted)


def test_cards_seen_only_by_spotting_get_a_stricter_threshold_when_it_pays() -> None:
    # region readings are all right; spotted ones just over the accept threshold are pips read as cards
    read = [(_photo("SQ", "H5"), [_seen("SQ", 0.999, False), _seen("H5", 0.99999, True), _seen("C3", 0.9991, True)])
            for _ in range(10)]
    t, facts = choose_spot(read, accept=0.998)
    assert 0.9991 < t <= 0.99999 and facts["wrong_above"] == 0 and facts["right_above"] == 20
    # where every spotted reading is right, nothing is gained by refusing them
    honest = [(_photo("SQ", "H5"), [_seen("SQ", 0.999, False), _seen("H5", 0.9985, True)]) for _ in range(10)]
    assert choose_spot(honest, accept=0.998)[0] == 0.998


def test_a_spotted_floor_holds_however_the_calibration_photos_read() -> None:
    # every spotted reading right and just over the accept threshold: the photos alone would take the accept threshold
    honest = [(_photo("SQ", "H5"), [_seen("SQ", 0.999, False), _seen("H5", 0.99996, True)]) for _ in range(10)]
    assert choose_spot(honest, accept=0.998)[0] == 0.998
    t, facts = choose_spot(honest, accept=0.998, floor=SPOT_FLOOR)
    assert t == SPOT_FLOOR and facts["right_above"] == 20 and facts["wrong_above"] == 0
