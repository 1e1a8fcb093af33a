"""An alert about what the camera saw carries that frame as a picture: the real simulated table camera and
reader settle a laid set, the real table daemon raises an exposed-card alert for it (no deal is being played),
and the alert it publishes carries the frame as a JPEG the desk can show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from table_daemon.adapters.camera import EVIDENCE_WIDTH, CameraZones
from table_daemon.app import TableApp
from table_daemon.config import simulated_config
from table_daemon.controller import CardsSeen
from table_daemon.desk.alerts import describe, picture


def settled(zones: CameraZones, seat: str, cards: list[str]) -> CardsSeen:
    """``cards`` laid in ``seat``'s zone, frames taken until the camera reports a settled reading of them."""
    fed: list[Any] = []
    zones.feed = fed.append
    zones.lay(seat, cards)
    for _ in range(40):
        zones.take()
        if any(isinstance(f, CardsSeen) for f in fed):
            break
    return next(f for f in fed if isinstance(f, CardsSeen))


def test_an_exposed_card_alert_carries_the_camera_frame(tmp_path: Path) -> None:
    zones = CameraZones.simulated_table(seed=3)
    seen = settled(zones, "S", ["H5", "D5"])
    app = TableApp(simulated_config(journal=str(tmp_path / "j.sqlite")), camera=zones, connect=False)
    published: list[tuple[str, dict[str, Any]]] = []
    app.on_published = lambda topic, msg: published.append((topic, msg))
    try:
        app.handle(seen)
    finally:
        app.journal.close()
    alert = next(m for t, m in published if t.endswith("/alerts"))
    assert alert["code"] == "exposed_card" and alert["evidence"]["frame"] == seen.frame
    jpeg = picture(alert)
    assert jpeg is not None and jpeg[:2] == b"\xff\xd8"
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    assert image.shape[1] == EVIDENCE_WIDTH and image.std() > 5  # a real picture, not a blank
    # large enough for a referee to read a laid card's index (at 480 px cards were ~70 px wide), small enough to
    # travel in the alert
    assert EVIDENCE_WIDTH >= 960 and len(jpeg) < 200_000
    row = describe({**alert, "table": "T01", "n": 1}, "Asia/Shanghai")
    assert row["picture"] and row["type"] == "暴露张 exposed card" and row["seat"] == "南 S"
    assert zones.evidence_jpeg(seen.frame + 1000) is None  # only frames that settled a reading are kept


def test_in_a_dim_hall_the_picture_is_the_frame_as_brightened_for_reading() -> None:
    """The hall a third as bright as the camera was set for: the frame kept as evidence is brightened as the table
    brightened it to read (vision.table), so the referee sees the cards, not a dark picture."""
    zones = CameraZones.simulated_table(seed=3)
    zones.camera.exposure = 0.33  # the simulated camera's switch: the hall dimmed after setup
    seen = settled(zones, "S", ["H5", "D5"])
    assert seen.cards == ["H5", "D5"] and zones.reader.exposure_gain > 2.0
    jpeg = zones.evidence_jpeg(seen.frame)
    assert jpeg is not None
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    assert np.percentile(image.max(axis=2), 99) >= 180  # the markers' white and the cards' paper look white again
