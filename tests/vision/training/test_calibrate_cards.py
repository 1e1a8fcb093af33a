"""Fitting the card calibration's curves (scikit-learn, the train extra)."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("sklearn")

from vision.training.calibrate_cards import fit  # noqa: E402


def test_the_curves_follow_how_often_readings_were_right() -> None:
    """Readings right as often as a known rule says (half at 0.998, nearly all at 0.99999 and above; spotted ones
    less often): the fitted curves give back about those shares, each way of seeing its own."""
    rng = random.Random(3)
    seen = []
    for _ in range(3000):
        confidence = rng.choice((0.6, 0.9, 0.99, 0.998, 0.9999, 0.99999, 1.0))
        spotted = rng.random() < 0.5
        share = {0.6: 0.05, 0.9: 0.1, 0.99: 0.3, 0.998: 0.5, 0.9999: 0.85, 0.99999: 0.95, 1.0: 0.99}[confidence]
        share = share * (0.8 if spotted else 1.0)
        seen.append((confidence, spotted, rng.random() < share))
    calibration, counts = fit(seen)
    assert counts["region"]["readings"] + counts["spotted"]["readings"] == 3000
    assert calibration.probability(0.6, False) < 0.15
    assert 0.35 < calibration.probability(0.998, False) < 0.65
    assert calibration.probability(1.0, False) > 0.95
    assert calibration.probability(0.9999, True) < calibration.probability(0.9999, False)


def test_a_way_of_seeing_with_only_right_readings_cannot_be_fitted() -> None:
    with pytest.raises(SystemExit, match="spotted"):
        fit([(0.9, False, True), (0.6, False, False), (0.99, True, True)])
