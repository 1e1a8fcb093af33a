"""The table reader: one camera frame in, the cards in each seat's play area out (left to right from the seat).

Each seat's zone is warped to that seat's upright view (``vision.calibration``); card regions are found there
by edges and read upright (a card laid by a seat faces that seat), so a fan of overlapping cards reads as its
row of top-left indices, in the seat's own left-to-right order. With ``outside=True`` the rest of the table is
searched as well and cards found there are returned under ``OUTSIDE`` (possible exposed cards).
"""

from __future__ import annotations

import cv2
import numpy as np

from .calibration import TableCalibration
from .classifier import GlyphModel
from .deck import DeckProfile
from .geometry import find_regions, map_box
from .reader import CardReader
from .types import CardReading

OUTSIDE = "outside"


class TableReader:
    """``TableReader(calibration, deck_profile=None).read(frame) -> {seat: [CardReading, ...]}``."""

    def __init__(self, calibration: TableCalibration, deck_profile: DeckProfile | None = None,
                 model: GlyphModel | None = None) -> None:
        self.reader = CardReader(model=model, deck=deck_profile)
        self.recalibrate(calibration)

    def recalibrate(self, calibration: TableCalibration) -> None:
        """Read the seats' zones where ``calibration`` puts them from now on (the camera or table moved)."""
        self.calibration = calibration
        self._warps = {seat: (zone.upright_matrix(), zone.size) for seat, zone in calibration.zones.items()}

    def read(self, frame: np.ndarray, outside: bool = False) -> dict[str, list[CardReading]]:
        """Readings per seat (every calibrated seat present, maybe empty); boxes are in frame coordinates."""
        out: dict[str, list[CardReading]] = {}
        if frame is None or frame.ndim != 3 or min(frame.shape[:2]) < 16:
            return {seat: [] for seat in self.calibration.zones}
        for seat, (matrix, size) in self._warps.items():
            view = cv2.warpPerspective(frame, matrix, size, flags=cv2.INTER_LINEAR)
            inverse = np.linalg.inv(matrix)
            readings: list[CardReading] = []
            for region in find_regions(view, min_area_frac=0.02):
                # regions come ordered from their top-left corner, so turn 0 keeps a card laid within 45 degrees
                # of facing its seat upright
                read = self.reader.read_region(view, region, turns=(0,))
                readings.extend(CardReading(r.card, r.confidence, map_box(inverse, r.box)) for r in read.readings)
            order = np.array([[r.box[0] + r.box[2] / 2, r.box[1] + r.box[3] / 2] for r in readings], np.float32)
            if readings:  # sort by x in the seat's upright view
                seat_x = cv2.perspectiveTransform(order[None], matrix)[0][:, 0]
                readings = [readings[i] for i in np.argsort(seat_x, kind="stable")]
            out[seat] = readings
        if outside:
            out[OUTSIDE] = self._outside(frame)
        return out

    def _outside(self, frame: np.ndarray) -> list[CardReading]:
        mask = np.full(frame.shape[:2], 255, np.uint8)
        for zone in self.calibration.zones.values():
            cv2.fillConvexPoly(mask, zone.corners.astype(np.int32), 0)
        found: list[CardReading] = []
        for region in find_regions(frame, min_area_frac=0.002, mask=mask)[:12]:
            centre = region.corners.mean(axis=0)
            if self.calibration.zone_of((float(centre[0]), float(centre[1]))) is None:
                found.extend(self.reader.read_region(frame, region).readings)
        return found
