"""Keeping the table calibration true while play goes on: the camera or the table may be bumped.

A pure state machine (marker sightings and the time in, a verdict out; no clock, no I/O). The camera adapter
looks for the four corner markers about once a second (``due``) and passes what it found to ``update``:

- no calibration yet (no file, markers covered at start-up): the first sighting of all four markers makes one;
  until then every check says ``uncalibrated`` (reported once);
- markers where the calibration expects them (within ``move_px``): all is well;
- at least three markers moved by more than ``move_px``, the same way in two checks running: the camera or the
  table moved; the zones follow the markers (``TableCalibration.followed``) and the verdict says ``moved`` with
  the shift, so the table can alert the referee and forget half-read zones. One odd sighting moves nothing;
- between looks, ``glance`` compares small patches around the markers with those of the last look (well
  under a millisecond), so a bump is looked into on the very next frame instead of up to a second later, and
  ``unsettled`` tells the reader to skip frames while a move is being confirmed (zones in the wrong place would
  read a laid play as gone and then as laid again);
- fewer than three markers seen, each of those seen moved by more than ``move_px`` the same way in two checks
  running, and the others, moved as much, beyond the picture's edge: the camera was knocked so far that markers
  left the picture; the zones cannot follow (three markers are needed), so the calibration is dropped and the
  verdict says ``moved_out``: nothing is read in zones that are no longer where the play areas are, until three
  markers show again (followed from the calibration before) or all four (a new one). Markers covered while the
  table was nudged are not out of the picture: that stays ``markers_hidden``;
- fewer than three markers seen for ``hidden_after`` seconds (cards, a sleeve, a cup over the corners): the
  table cannot notice a bump any more; that is said once (``markers_hidden``), and ``markers_visible`` when
  they show again.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .calibration import MARKER_POSITIONS, TableCalibration

#: side (pixels) of the square looked at around each marker by ``glance``, and the mean change (grey levels,
#: each patch less its own mean so that the light's flicker does not count) that calls for a full look
PATCH = 64
GLANCE_CHANGE = 20.0
#: a marker whose centre lies closer than this to the picture's edge is cut by it, and not found
EDGE_PX = 20

CALIBRATED = "calibrated"
MOVED = "moved"
MOVED_OUT = "moved_out"
UNCALIBRATED = "uncalibrated"
HIDDEN = "markers_hidden"
VISIBLE = "markers_visible"


@dataclass(frozen=True)
class TrackingNews:
    """A change worth telling: ``kind`` (see the module constants), the shift in pixels, the markers seen."""

    kind: str
    shift_px: float
    seen: tuple[int, ...]
    calibration: TableCalibration | None

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "shift_px": round(self.shift_px, 1), "markers_seen": list(self.seen)}


class CalibrationTracker:
    """``due(now)`` says when to look for markers; ``update(centres, now)`` returns news, or None."""

    def __init__(self, calibration: TableCalibration | None = None, *, move_px: float = 6.0,
                 interval: float = 1.0, hidden_after: float = 60.0) -> None:
        self.calibration = calibration
        self.move_px = move_px
        self.interval = interval
        self.hidden_after = hidden_after
        self.last_check: float | None = None
        self.last_full_sight: float | None = None
        self._suspect: dict[int, tuple[float, float]] | None = None
        self._said_uncalibrated = False
        self._said_hidden = False
        self._reference: np.ndarray | None = None
        self._before_out: TableCalibration | None = None  # the calibration dropped when the view moved off it
        self.moves = 0

    def glance(self, frame: np.ndarray) -> bool:
        """True when the markers' corners of ``frame`` look different from the last look (worth a full one)."""
        if self._reference is None:
            return False
        patches = self._patches(frame)
        return patches is not None and float(np.abs(patches - self._reference).mean()) > GLANCE_CHANGE

    def remember(self, frame: np.ndarray) -> None:
        """Keep the marker corners of a frame just looked at, for ``glance``."""
        self._reference = self._patches(frame)

    def _patches(self, frame: np.ndarray) -> np.ndarray | None:
        if self.calibration is None or not self.calibration.markers or frame is None or frame.ndim != 3:
            return None
        out = []
        for x, y in self.calibration.markers.values():
            x0, y0 = int(x) - PATCH // 2, int(y) - PATCH // 2
            crop = frame[max(0, y0):max(0, y0 + PATCH), max(0, x0):max(0, x0 + PATCH), 1]
            full = np.zeros((PATCH, PATCH), np.float32)  # a marker near the picture's edge: the rest stays 0
            full[:crop.shape[0], :crop.shape[1]] = crop
            small = cv2.resize(full, (PATCH // 4, PATCH // 4), interpolation=cv2.INTER_AREA)  # averages out noise
            out.append(small - small.mean())
        return np.stack(out)

    @property
    def unsettled(self) -> bool:
        """A move was seen once and waits for its confirmation: frames now are not to be read."""
        return self._suspect is not None

    def due(self, now: float) -> bool:
        """Time for a look: every ``interval`` seconds; every frame while there is no calibration (nothing else
        is read then) or a move seen once waits for its confirmation."""
        return self.last_check is None or self.calibration is None or self._suspect is not None \
            or now - self.last_check >= self.interval

    def update(self, centres: dict[int, tuple[float, float]], now: float,
               frame_size: tuple[int, int] | None = None) -> TrackingNews | None:
        """What the markers found now (``centres``) say; ``frame_size`` (width, height) lets a camera knocked so
        far that markers left the picture be told from markers covered while the table was nudged."""
        self.last_check = now
        seen = tuple(sorted(i for i in centres if i in MARKER_POSITIONS))
        if self.last_full_sight is None:
            self.last_full_sight = now
        if self.calibration is None:
            if len(seen) == len(MARKER_POSITIONS):
                self.calibration = TableCalibration.from_marker_centres(centres)
                self.last_full_sight, self._before_out = now, None
                return TrackingNews(CALIBRATED, 0.0, seen, self.calibration)
            back = [i for i in seen if self._before_out is not None and i in self._before_out.markers]
            if self._before_out is not None and len(back) >= 3:  # set back with three in view: follow from before
                self.calibration = self._before_out.followed({i: centres[i] for i in back})
                self.last_full_sight, self._before_out = now, None
                return TrackingNews(CALIBRATED, 0.0, seen, self.calibration)
            if not self._said_uncalibrated:
                self._said_uncalibrated = True
                return TrackingNews(UNCALIBRATED, 0.0, seen, None)
            return None
        if not self.calibration.markers and len(seen) == len(MARKER_POSITIONS):
            # a calibration file without marker centres: take them now, trusting the file for the view
            self.calibration = TableCalibration(self.calibration.zones, {i: centres[i] for i in seen})
        usable = [i for i in seen if i in self.calibration.markers]
        if len(usable) < 3:
            if usable and frame_size is not None and self._left_the_picture(centres, usable, frame_size):
                return self._moved_out(centres, usable, seen)
            self._suspect = None
            if not self._said_hidden and now - self.last_full_sight >= self.hidden_after:
                self._said_hidden = True
                return TrackingNews(HIDDEN, 0.0, seen, self.calibration)
            return None
        self.last_full_sight = now
        news: TrackingNews | None = None
        if self._said_hidden:
            self._said_hidden = False
            news = TrackingNews(VISIBLE, 0.0, seen, self.calibration)
        shift = _shift(self.calibration.markers, centres, usable)
        if shift <= self.move_px:
            self._suspect = None
            return news
        if self._suspect is None or _shift(self._suspect, centres, [i for i in usable if i in self._suspect]) \
                > self.move_px:
            self._suspect = {i: centres[i] for i in usable}  # seen once: wait for a second sighting
            return news
        self._suspect = None
        self.calibration = self.calibration.followed({i: centres[i] for i in usable})
        self.moves += 1
        return TrackingNews(MOVED, shift, seen, self.calibration)


    def _left_the_picture(self, centres: dict[int, tuple[float, float]], usable: list[int],
                          frame_size: tuple[int, int]) -> bool:
        """Every marker in view moved, and every one out of view would now lie beyond the picture's edge (the
        visible ones' mean shift applied to where it was): knocked out of the view, not covered."""
        assert self.calibration is not None
        known = self.calibration.markers
        if not all(_shift(known, centres, [i]) > self.move_px for i in usable):
            return False
        dx = float(np.mean([centres[i][0] - known[i][0] for i in usable]))
        dy = float(np.mean([centres[i][1] - known[i][1] for i in usable]))
        width, height = frame_size
        gone = [i for i in known if i not in centres]
        return bool(gone) and all(not (EDGE_PX <= known[i][0] + dx < width - EDGE_PX
                                       and EDGE_PX <= known[i][1] + dy < height - EDGE_PX) for i in gone)

    def _moved_out(self, centres: dict[int, tuple[float, float]], usable: list[int],
                   seen: tuple[int, ...]) -> TrackingNews | None:
        """Fewer than three markers in view, each of them moved: a second sighting the same drops the calibration."""
        assert self.calibration is not None
        shift = _shift(self.calibration.markers, centres, usable)
        confirmed = self._suspect is not None and all(i in self._suspect for i in usable) \
            and _shift(self._suspect, centres, usable) <= self.move_px
        if not confirmed:
            self._suspect = {i: centres[i] for i in usable}  # seen once: wait for a second sighting
            return None
        self._suspect = None
        self._before_out = self.calibration  # three markers back in view follow from it
        self.calibration, self._reference = None, None
        self._said_uncalibrated = True  # said here, by name: the calibration comes back with all four markers
        self.moves += 1
        return TrackingNews(MOVED_OUT, shift, seen, None)


def _shift(before: dict[int, tuple[float, float]], after: dict[int, tuple[float, float]], ids: list[int]) -> float:
    """The largest distance any of ``ids`` moved (pixels); infinite when none is shared."""
    if not ids:
        return float("inf")
    return max(float(np.hypot(after[i][0] - before[i][0], after[i][1] - before[i][1])) for i in ids)
