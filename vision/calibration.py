"""Table calibration: where each seat's play area lies in the camera image, and which way is up for it.

Canonical table coordinates put the centres of four ArUco markers (``DICT_4X4_50``) at the table corners:
id 0 at (0, 0) (between N and W, top-left with S at the bottom of the image), id 1 at (1, 0) (N/E), id 2 at
(1, 1) (E/S) and id 3 at (0, 1) (S/W). Each seat's zone is a quadrilateral in those coordinates, listed as
seen from that seat: far-left, far-right, near-right, near-left. Warping a zone to a rectangle therefore shows
the seat's cards upright and in their left-to-right order from that seat (the order tells how a wild card is
meant). Calibration is a JSON file, so an organiser can check or adjust it; it keeps the marker centres it was
made from, so that when the camera or the table is bumped the zones can follow the markers
(``TableCalibration.followed``, driven by ``vision.tracking.CalibrationTracker``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

SEATS: tuple[str, ...] = ("S", "E", "N", "W")
MARKER_DICT = cv2.aruco.DICT_4X4_50
MARKER_POSITIONS = {0: (0.0, 0.0), 1: (1.0, 0.0), 2: (1.0, 1.0), 3: (0.0, 1.0)}
#: Default play areas in table coordinates, corners as seen from the seat (far-left, far-right, near-right,
#: near-left): in front of each seat, between the seat and the middle of the table.
DEFAULT_ZONES: dict[str, tuple[tuple[float, float], ...]] = {
    "S": ((0.2, 0.7), (0.8, 0.7), (0.8, 0.98), (0.2, 0.98)),
    "N": ((0.8, 0.3), (0.2, 0.3), (0.2, 0.02), (0.8, 0.02)),
    "E": ((0.7, 0.8), (0.7, 0.2), (0.98, 0.2), (0.98, 0.8)),
    "W": ((0.3, 0.2), (0.3, 0.8), (0.02, 0.8), (0.02, 0.2)),
}


class CalibrationError(ValueError):
    """The table markers could not be found, or a calibration file is malformed."""


@dataclass(frozen=True)
class Zone:
    """One seat's play area: its 4 image corners as seen from the seat, and the upright view's size."""

    seat: str
    corners: np.ndarray  # float32 (4, 2)

    @property
    def size(self) -> tuple[int, int]:
        c = self.corners
        width = max(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3]))
        height = max(np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[2] - c[1]))
        return max(8, int(round(width))), max(8, int(round(height)))

    def upright_matrix(self) -> np.ndarray:
        """Homography from the image to the seat's upright view of its zone."""
        w, h = self.size
        target = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        return cv2.getPerspectiveTransform(self.corners.astype(np.float32), target)

    def contains(self, point: tuple[float, float]) -> bool:
        return cv2.pointPolygonTest(self.corners.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


@dataclass(frozen=True)
class TableCalibration:
    """The four seat zones of one camera view, and the marker centres (by id) they were placed from."""

    zones: dict[str, Zone]
    markers: dict[int, tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def from_table_homography(cls, table_to_image: np.ndarray,
                              zones: dict[str, tuple[tuple[float, float], ...]] | None = None) -> TableCalibration:
        out: dict[str, Zone] = {}
        for seat, quad in (zones or DEFAULT_ZONES).items():
            pts = np.array([quad], np.float32)
            out[seat] = Zone(seat, cv2.perspectiveTransform(pts, table_to_image)[0].astype(np.float32))
        table = np.array([[MARKER_POSITIONS[i] for i in sorted(MARKER_POSITIONS)]], np.float32)
        image = cv2.perspectiveTransform(table, table_to_image)[0]
        markers = {i: (float(x), float(y)) for i, (x, y) in zip(sorted(MARKER_POSITIONS), image, strict=True)}
        return cls(out, markers)

    @classmethod
    def from_marker_centres(cls, centres: dict[int, tuple[float, float]]) -> TableCalibration:
        src = np.array([MARKER_POSITIONS[i] for i in range(4)], np.float32)
        dst = np.array([centres[i] for i in range(4)], np.float32)
        return cls.from_table_homography(cv2.getPerspectiveTransform(src, dst))

    @classmethod
    def from_markers(cls, frame: np.ndarray) -> TableCalibration:
        """Calibrate from one camera frame showing the four corner markers (ids 0-3)."""
        centres = find_markers(frame)
        missing = [i for i in range(4) if i not in centres]
        if missing:
            raise CalibrationError(f"看不到桌角标记 {missing} / table marker(s) {missing} not visible (need ArUco 4x4 ids "
                                   "0-3 at the corners)")
        return cls.from_marker_centres(centres)

    def followed(self, centres: dict[int, tuple[float, float]]) -> TableCalibration:
        """The same zones moved with the markers: ``centres`` are where (at least three of) them are now.

        Four markers give the full perspective change, three an affine one (a hand or a card over one marker
        while the camera was bumped). Zones an organiser adjusted by hand keep their shape relative to the table.
        """
        common = sorted(set(centres) & set(self.markers))
        if len(common) < 3:
            raise CalibrationError(f"need three known markers to follow the table, saw {sorted(centres)}")
        src = np.array([self.markers[i] for i in common], np.float32)
        dst = np.array([centres[i] for i in common], np.float32)
        if len(common) >= 4:
            matrix, _ = cv2.findHomography(src, dst, 0)
        else:
            matrix = np.vstack([cv2.getAffineTransform(src[:3], dst[:3]), [0.0, 0.0, 1.0]])
        if matrix is None:
            raise CalibrationError("the markers seen do not fit one view of the table")

        def move(points: np.ndarray) -> np.ndarray:
            return cv2.perspectiveTransform(points.reshape(1, -1, 2).astype(np.float64), matrix)[0].astype(np.float32)

        zones = {seat: Zone(seat, move(zone.corners)) for seat, zone in self.zones.items()}
        known = sorted(self.markers)
        moved = move(np.array([self.markers[i] for i in known], np.float32))
        markers = {i: (float(x), float(y)) for i, (x, y) in zip(known, moved, strict=True)}
        markers.update({i: centres[i] for i in common})
        return TableCalibration(zones, markers)

    def zone_of(self, point: tuple[float, float]) -> str | None:
        for seat, zone in self.zones.items():
            if zone.contains(point):
                return seat
        return None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"zones": {s: z.corners.round(1).tolist() for s, z in self.zones.items()}}
        if self.markers:
            out["markers"] = {str(i): [round(x, 1), round(y, 1)] for i, (x, y) in sorted(self.markers.items())}
        return out

    @classmethod
    def from_json(cls, data: dict[str, object]) -> TableCalibration:
        try:
            if not isinstance(data, dict):
                raise CalibrationError("malformed calibration: not an object with zones")
            zones = data["zones"]
            if not isinstance(zones, dict):
                raise CalibrationError("malformed calibration: zones must be an object of seat: corners")
            out = {}
            for seat, corners in zones.items():
                arr = np.array(corners, np.float32)
                if seat not in SEATS or arr.shape != (4, 2):
                    raise CalibrationError(f"bad zone for seat {seat!r}: need 4 [x, y] corners")
                out[seat] = Zone(seat, arr)
            markers: dict[int, tuple[float, float]] = {}
            raw = data.get("markers", {})
            if not isinstance(raw, dict):
                raise CalibrationError("malformed calibration: markers must be an object of id: [x, y]")
            for key, centre in raw.items():
                x, y = (float(v) for v in centre)
                if int(key) not in MARKER_POSITIONS:
                    raise CalibrationError(f"unknown table marker id {key!r} (ids 0-3)")
                markers[int(key)] = (x, y)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"malformed calibration: {exc}") from exc
        return cls(out, markers)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1), "utf-8")

    @classmethod
    def load(cls, path: Path) -> TableCalibration:
        try:
            return cls.from_json(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError) as exc:  # unreadable, not UTF-8 text, not JSON
            if isinstance(exc, CalibrationError):
                raise CalibrationError(f"calibration {path}: {exc}") from exc
            raise CalibrationError(f"cannot read calibration {path}: {exc}") from exc


def find_markers(frame: np.ndarray) -> dict[int, tuple[float, float]]:
    """Centres of the ArUco table markers found in ``frame``, by id."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    found: dict[int, tuple[float, float]] = {}
    blurred = cv2.GaussianBlur(gray, (3, 3), 0)
    # cloth texture and sensor noise break some markers' outlines or bits: try a stricter threshold and smoothing
    for constant, image in ((15, gray), (7, gray), (15, blurred), (7, blurred)):
        params = cv2.aruco.DetectorParameters()
        params.adaptiveThreshConstant = constant
        corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(image)
        if ids is not None:
            for quad, marker_id in zip(corners, ids.ravel(), strict=True):
                if int(marker_id) in MARKER_POSITIONS and int(marker_id) not in found:
                    c = quad.reshape(4, 2).mean(axis=0)
                    found[int(marker_id)] = (float(c[0]), float(c[1]))
        if len(found) == len(MARKER_POSITIONS):
            break
    return found


def marker_image(marker_id: int, side: int) -> np.ndarray:
    """The printable image of one table marker (grey, ``side`` pixels, with a white quiet zone)."""
    inner = max(6, int(side * 0.75))
    img = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(MARKER_DICT), marker_id, inner)
    pad = (side - inner) // 2
    return cv2.copyMakeBorder(img, pad, side - inner - pad, pad, side - inner - pad, cv2.BORDER_CONSTANT, value=255)
