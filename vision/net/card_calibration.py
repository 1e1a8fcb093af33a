"""What a reported card's confidence means: how often such a reading was the card, on real photos not trained on.

The network's probabilities are calibrated on windows (its temperature). A card read in a whole photo of a deck
the network was not trained on is far less sure than its windows say: on the held-out real photos, readings the
reader put at 0.998-0.9999 were wrong about one time in four, and 11 reported readings were wrong where their
confidences expected fewer than 0.05 (``bench/vision.py --reliability``). So each reported card's confidence is
mapped by Platt scaling (a logistic curve on the logit of the reader's confidence, one per way of seeing: read in a
card's outline, or spotted alone) fitted on real photos the network was not trained on
(``vision/training/calibrate_cards.py``). The curves are increasing, so they reorder no readings of one way of
seeing, and the reader's decisions (its accept thresholds, on the network's own scale) are unchanged: only what
the reported number says is.

Pure arithmetic on a few floats, read from the model's ``index_net.json`` (``card_calibration``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

#: the network's probabilities are float32: nearer 0 or 1 than this they are not told apart (fit and use alike)
EPSILON = 1e-7
#: the ways of seeing a card, each with its own curve (the keys of ``card_calibration`` in the model's json)
WAYS = ("region", "spotted")


class CardCalibrationError(ValueError):
    """The model's ``card_calibration`` is malformed; ``key`` names the bad entry."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(f"card_calibration.{key}: {why}")
        self.key = key


def logit(p: float) -> float:
    """The log-odds of ``p``, held within ``EPSILON`` of 0 and 1."""
    p = min(max(p, EPSILON), 1.0 - EPSILON)
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class Platt:
    """One logistic curve on the logit of a confidence: ``1 / (1 + exp(-(slope * logit(p) + intercept)))``."""

    slope: float
    intercept: float

    def __call__(self, p: float) -> float:
        z = self.slope * logit(p) + self.intercept
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@dataclass(frozen=True)
class CardCalibration:
    """The chance that a card read so sure is the card: one curve for cards read in an outline (a card's region),
    one for cards spotted alone (no outline around them, where pips and pictures are read as indices)."""

    region: Platt
    spotted: Platt

    def probability(self, confidence: float, spotted: bool) -> float:
        """How often a reading of ``confidence`` (the reader's, on the network's scale) was the card."""
        return (self.spotted if spotted else self.region)(confidence)

    def candidates(self, confidence: float, spotted: bool, candidates: tuple[tuple[str, float], ...]
                   ) -> tuple[tuple[str, float], ...]:
        """``candidates`` (the first being the reading) scaled so that the first is :meth:`probability`: the
        network's odds between the candidates are kept, the rest of the chance is "some other card or none"."""
        if confidence <= 0.0:
            return candidates
        scale = self.probability(confidence, spotted) / confidence
        return tuple((code, round(p * scale, 6)) for code, p in candidates)

    def to_meta(self) -> dict[str, dict[str, float]]:
        return {way: {"slope": curve.slope, "intercept": curve.intercept}
                for way, curve in (("region", self.region), ("spotted", self.spotted))}


def from_meta(meta: object) -> CardCalibration | None:
    """The calibration stored in a model's json (``card_calibration``), or None where the model carries none (its
    readings are then reported on the network's own scale). Anything malformed is refused, naming the entry."""
    if meta is None:
        return None
    if not isinstance(meta, Mapping):
        raise CardCalibrationError("", "not a table of curves")
    unknown = sorted(set(meta) - set(WAYS))
    if unknown:
        raise CardCalibrationError(str(unknown[0]), f"unknown entry (known: {', '.join(WAYS)})")
    curves: dict[str, Platt] = {}
    for way in WAYS:
        curve = meta.get(way)
        if not isinstance(curve, Mapping):
            raise CardCalibrationError(way, "missing, or not a table with slope and intercept")
        values = []
        for name in ("slope", "intercept"):
            value = curve.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise CardCalibrationError(f"{way}.{name}", f"not a finite number: {value!r}")
            values.append(float(value))
        if values[0] <= 0.0:
            raise CardCalibrationError(f"{way}.slope", "must be positive (a surer reading cannot be less likely "
                                                       "right)")
        curves[way] = Platt(*values)
    return CardCalibration(curves["region"], curves["spotted"])
