"""Choosing the accept threshold from readings of the calibration photos."""

from __future__ import annotations

from vision.training.choose_threshold import MAX_WRONG_SHARE, choose


def test_lowest_threshold_with_few_wrong_readings() -> None:
    readings = [(0.99, True)] * 200 + [(0.97, False)] + [(0.8, True)] * 50 + [(0.75, False)] * 10
    t, facts = choose(readings)
    assert 0.75 < t <= 0.8
    assert facts["wrong_above"] <= MAX_WRONG_SHARE * (facts["right_above"] + facts["wrong_above"])


def test_when_no_threshold_is_safe_wrong_readings_cost_ten_right_ones() -> None:
    readings = [(0.999, False)] * 3 + [(0.9, True)] * 20 + [(0.6, False)] * 5
    t, facts = choose(readings)
    assert 0.6 < t <= 0.9 and facts["wrong_above"] == 3 and facts["right_above"] == 20
