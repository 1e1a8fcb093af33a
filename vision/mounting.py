"""Guiding a person through mounting and focusing the table camera (``guandan-table vision calibrate --camera``).

Each live view is measured and turned into advice: which of the four corner markers show and how far each is
from the picture's edge (a marker cut by the edge is not found), how sharp the picture is (the variance of the
Laplacian: it rises as the focus improves, so the person turns the lens or changes ``camera.lens_position``
until it peaks), and whether the exposure clips. The annotated view is saved as a picture, so the person at the
table can look at it on a phone or laptop (the Pi has no screen), and the best view gives the calibration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from .calibration import MARKER_POSITIONS, TableCalibration, find_markers
from .polarity import MAX_GAIN, exposure_gain

#: markers closer than this to the picture's edge are not found reliably (docs/raspberry-pi.md)
EDGE_MARGIN_PX = 40
CORNERS = {0: "N/W", 1: "N/E", 2: "E/S", 3: "S/W"}


def focus_measure(frame: np.ndarray) -> float:
    """Variance of the Laplacian of the grey picture: larger is sharper (only comparable within one scene)."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(gray, cv2.CV_64F).var())


@dataclass
class ViewReport:
    """What one live view shows and what to do about it."""

    markers: dict[int, tuple[float, float]]
    edge_px: dict[int, float]
    focus: float
    best_focus: float
    brightness: float
    clipped: float
    advice: list[str] = field(default_factory=list)
    #: how much the table would brighten this view (``polarity.exposure_gain``; ``MAX_GAIN``: too dark to read)
    gain: float = 1.0

    @property
    def ready(self) -> bool:
        """All four markers found, none too close to the edge: the view can be calibrated from."""
        return len(self.markers) == len(MARKER_POSITIONS) and all(d >= EDGE_MARGIN_PX for d in self.edge_px.values())

    @property
    def exposure_problem(self) -> str | None:
        """Why the cards could not be read at this exposure (too dark, or clipped white), or None. The markers
        may still be found, so a calibration can be taken; the exposure must be set before play."""
        if self.clipped > 0.02:
            return f"过曝 / over-exposed: {self.clipped:.0%} of the picture is white"
        if self.gain >= MAX_GAIN:
            return f"太暗 / too dark: the table would brighten it {self.gain:.1f}x, the most it does"
        return None

    def to_json(self) -> dict[str, Any]:
        return {"markers": sorted(self.markers), "edge_px": {str(k): round(v) for k, v in sorted(self.edge_px.items())},
                "focus": round(self.focus, 1), "best_focus": round(self.best_focus, 1),
                "brightness": round(self.brightness, 1), "clipped": round(self.clipped, 4), "gain": round(self.gain, 2),
                "ready": self.ready,
                "advice": self.advice}


def view_report(frame: np.ndarray, best_focus: float = 0.0) -> ViewReport:
    """Measure one view; ``best_focus``: the sharpest figure seen so far in this session."""
    height, width = frame.shape[:2]
    markers = find_markers(frame)
    edge = {i: min(x, y, width - 1 - x, height - 1 - y) for i, (x, y) in markers.items()}
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    focus = focus_measure(gray)
    best = max(best_focus, focus)
    report = ViewReport(markers, edge, focus, best, float(gray.mean()), float((gray >= 250).mean()),
                        gain=exposure_gain(frame) if frame.ndim == 3 else 1.0)
    advice = report.advice
    for marker_id in sorted(set(MARKER_POSITIONS) - set(markers)):
        advice.append(f"标记 {marker_id} ({CORNERS[marker_id]}) 看不到 / marker {marker_id} ({CORNERS[marker_id]} "
                      "corner) not seen: turn or raise the camera until that corner shows, or uncover it")
    for marker_id, d in sorted(edge.items()):
        if d < EDGE_MARGIN_PX:
            advice.append(f"标记 {marker_id} 太靠边 / marker {marker_id} only {d:.0f} px from the edge (keep "
                          f"{EDGE_MARGIN_PX} px): centre the camera over the table or raise it")
    if report.clipped > 0.02:
        advice.append(f"过曝 / {report.clipped:.0%} of the picture is white: lower camera.exposure_us or "
                      "camera.analogue_gain, or shade the lamp")
    elif report.gain >= MAX_GAIN:  # the table's own measure (its markers' and cards' white), not the mean: a
        # dark cloth is most of a well exposed view
        advice.append("太暗 / too dark: raise camera.exposure_us (a multiple of 10000 under 50 Hz lights) or the gain")
    if best > 0 and focus < 0.8 * best:
        advice.append(f"对焦 / focus {focus:.0f}, best so far {best:.0f}: turn the lens (or change "
                      "camera.lens_position) back towards the sharpest")
    if not advice:
        advice.append(f"好 / good: all four markers in view, focus {focus:.0f} (best {best:.0f}); keep turning the "
                      "lens while the figure still rises")
    return report


def annotate(frame: np.ndarray, report: ViewReport) -> np.ndarray:
    """The view with the markers ringed (green: fine, red: too close to the edge), the seat zones when all four
    show, and the focus figure, for the person to look at."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    scale = max(1.0, out.shape[1] / 1280)
    for marker_id, (x, y) in report.markers.items():
        colour = (0, 200, 0) if report.edge_px[marker_id] >= EDGE_MARGIN_PX else (0, 0, 230)
        cv2.circle(out, (int(x), int(y)), int(28 * scale), colour, max(2, int(3 * scale)), cv2.LINE_AA)
        cv2.putText(out, str(marker_id), (int(x + 32 * scale), int(y)), cv2.FONT_HERSHEY_SIMPLEX, 1.0 * scale,
                    colour, max(2, int(2 * scale)), cv2.LINE_AA)
    if len(report.markers) == len(MARKER_POSITIONS):
        calibration = TableCalibration.from_marker_centres(report.markers)
        for seat, zone in calibration.zones.items():
            pts = zone.corners.reshape(-1, 1, 2).astype(np.int32)
            cv2.polylines(out, [pts], True, (255, 160, 0), max(1, int(2 * scale)), cv2.LINE_AA)
            cx, cy = zone.corners.mean(axis=0)
            cv2.putText(out, seat, (int(cx), int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 1.2 * scale, (255, 160, 0),
                        max(2, int(2 * scale)), cv2.LINE_AA)
    status = "READY" if report.ready else f"markers {sorted(report.markers)}"
    text = f"focus {report.focus:.0f} (best {report.best_focus:.0f})  {status}"
    cv2.rectangle(out, (0, 0), (out.shape[1], int(44 * scale)), (0, 0, 0), -1)
    cv2.putText(out, text, (int(10 * scale), int(31 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.9 * scale,
                (255, 255, 255), max(1, int(2 * scale)), cv2.LINE_AA)
    return out
