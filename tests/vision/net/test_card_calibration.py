"""What a reported card's confidence means: the Platt curves of the model's card calibration."""

from __future__ import annotations

import pytest

from vision.net.card_calibration import CardCalibration, CardCalibrationError, Platt, from_meta, logit

#: about the shipped model's curves: a region reading at 0.998 is right about half the time
CURVES = {"region": {"slope": 0.61, "intercept": -3.68}, "spotted": {"slope": 0.55, "intercept": -4.0}}


def test_curves_rise_and_stay_within_zero_and_one() -> None:
    calibration = from_meta(CURVES)
    assert calibration is not None
    for spotted in (False, True):
        values = [calibration.probability(p, spotted) for p in (0.0, 0.5, 0.9, 0.998, 0.9999, 0.99999, 1.0)]
        assert values == sorted(values) and len(set(values)) == len(values)
        assert 0.0 < values[0] and values[-1] < 1.0
    # spotted alone, a reading is less often the card than one read in a card's outline
    assert calibration.probability(0.9999, True) < calibration.probability(0.9999, False)
    assert calibration.probability(0.998, False) == pytest.approx(0.527, abs=0.01)


def test_logit_is_held_where_float32_cannot_tell_values_apart() -> None:
    assert logit(1.0) == logit(1.0 - 1e-9) == pytest.approx(-logit(0.0))
    assert logit(0.5) == 0.0
    curve = Platt(1.0, 0.0)
    assert curve(0.8) == pytest.approx(0.8) and curve(-5.0) > 0.0  # the identity curve


def test_candidates_keep_the_networks_odds() -> None:
    calibration = CardCalibration(Platt(0.5, -3.0), Platt(0.5, -4.0))
    candidates = (("C8", 0.998), ("S8", 0.0015), ("C6", 0.0005))
    scaled = calibration.candidates(0.998, False, candidates)
    assert [c for c, _ in scaled] == ["C8", "S8", "C6"]
    assert scaled[0][1] == pytest.approx(calibration.probability(0.998, False), abs=1e-4)
    assert scaled[1][1] / scaled[2][1] == pytest.approx(3.0, rel=0.05)
    assert sum(p for _, p in scaled) < 1.0  # the rest: some other card, or no card at all
    assert calibration.candidates(0.0, False, ()) == ()


@pytest.mark.parametrize(("meta", "key"), [
    ([1, 2], ""),
    ({"region": CURVES["region"]}, "spotted"),
    ({**CURVES, "dark": CURVES["region"]}, "dark"),
    ({**CURVES, "region": {"slope": 0.6}}, "region.intercept"),
    ({**CURVES, "region": {"slope": float("nan"), "intercept": 0.0}}, "region.slope"),
    ({**CURVES, "region": {"slope": True, "intercept": 0.0}}, "region.slope"),
    ({**CURVES, "spotted": {"slope": -0.5, "intercept": 0.0}}, "spotted.slope"),
])
def test_a_malformed_calibration_names_its_bad_entry(meta: object, key: str) -> None:
    with pytest.raises(CardCalibrationError) as caught:
        from_meta(meta)
    assert caught.value.key == key and f"card_calibration.{key}" in str(caught.value)


def test_a_model_without_calibration_reports_on_the_networks_scale() -> None:
    assert from_meta(None) is None
    assert from_meta(CURVES).to_meta() == CURVES  # type: ignore[union-attr]
