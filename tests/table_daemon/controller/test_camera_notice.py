"""The camera's own news reaches the referee as alerts, with evidence, even while the table is paused."""

from __future__ import annotations

from typing import Any

from table_daemon.controller import CameraNotice, Command, Publish
from table_daemon.controller.camera import TEXT

from .harness import Harness


def alerts(h: Harness) -> list[dict[str, Any]]:
    return [p.payload for p in h.published if isinstance(p, Publish) and p.topic == "alerts"]


def test_camera_lost_and_restored_are_alerts_with_bilingual_text_and_evidence() -> None:
    h = Harness(auto_deal=True)
    h.start_match()
    assert h.c.deal is not None
    h.send(CameraNotice("camera_lost", "no frame for 2.0 s", {"errors": 30}))
    h.send(CameraNotice("camera_restored", "", {"lost_seconds": 7.5}))
    got = alerts(h)
    assert [a["code"] for a in got] == ["camera_lost", "camera_restored"]
    assert "摄像头" in got[0]["message"] and "camera lost" in got[0]["message"]
    assert got[0]["evidence"]["camera"] == {"errors": 30}
    assert got[1]["evidence"]["camera"]["lost_seconds"] == 7.5
    # a fault, not a foul, in the deal record's events
    assert h.c.deal is not None and h.c.deal.events[-1]["kind"] == "fault"


def test_a_moved_camera_is_told_while_the_table_is_paused() -> None:
    h = Harness()
    h.start_match()
    h.send(Command("pause", {"role": "referee"}))
    assert h.c.phase == "paused"
    h.send(CameraNotice("camera_moved", "", {"kind": "moved", "shift_px": 31.0, "markers_seen": [0, 1, 2, 3]}))
    assert alerts(h)[-1]["code"] == "camera_moved"
    assert alerts(h)[-1]["message"].startswith(TEXT["camera_moved"])


def test_every_notice_the_camera_sends_has_a_text() -> None:
    sent = {"camera_lost", "camera_restored", "camera_moved", "camera_calibrated", "camera_uncalibrated",
            "camera_markers_hidden", "camera_markers_visible"}
    assert sent <= TEXT.keys()
