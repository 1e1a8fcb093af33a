"""A camera that keeps failing does not flood the log: the first failed frame is logged, then at most one summary
line a minute (how many failed since), and one line when frames come back; health still says the camera's state.

A missing camera (``camera.source = "usb://9"``) failed about 5 frames a second, each one a WARNING line, all
evening: SD-card wear and an unreadable log. The clock is fake: minutes pass without sleeping.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from table_daemon.adapters.camera import SAY_FAILING_EVERY, CameraZones


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class MissingCamera:
    """A camera not plugged in (as :class:`hardware.cameras.PendingCamera`): every frame and reopen fails until
    ``plugged``."""

    def __init__(self) -> None:
        self.plugged = False
        self.reopens = 0

    @property
    def is_open(self) -> bool:
        return self.plugged

    @property
    def error(self) -> str:
        return "no such device /dev/video9"

    def frame(self) -> Any:
        if not self.plugged:
            raise RuntimeError("camera 'usb://9' not open: no such device /dev/video9")
        return object()

    def reopen(self) -> None:
        self.reopens += 1
        if not self.plugged:
            raise RuntimeError("no such device /dev/video9")


def camera_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "table_daemon.adapters.camera"]


def test_a_missing_camera_is_logged_once_then_once_a_minute_and_its_return_once(
        caplog: pytest.LogCaptureFixture) -> None:
    camera = MissingCamera()
    clock = Clock()
    zones = CameraZones(camera, None, fps=0, clock=clock)
    fed: list[Any] = []
    zones.feed = fed.append
    caplog.set_level(logging.INFO, logger="table_daemon.adapters.camera")
    minutes = 10
    for _ in range(int(minutes * 60 * 5)):  # 5 failed frames a second, as the frame loop's 0.2 s pause gives
        clock.now += 0.2
        assert zones.take() is False
    lines = camera_lines(caplog)
    failed = [line for line in lines if "camera frame failed" in line]
    summaries = [line for line in lines if "camera frame still failing" in line]
    assert len(failed) == 1 and "usb://9" in failed[0]
    assert minutes - 1 <= len(summaries) <= minutes, summaries
    assert re.search(r"\b(299|300) failures in the last 60 s, (300|301) since 60 s ago, 20 reopen attempts failed",
                     summaries[0]), summaries[0]
    assert len([line for line in lines if "reopening the camera failed" in line]) == 1
    assert len(lines) <= 2 + minutes + 2, lines  # + the camera_lost notice, said once
    assert camera.reopens > 100  # still tried every few seconds, only not logged each time
    health = zones.health()  # the state is health's and the alert's to say, as before
    assert health["state"] == "missing" and health["errors"] == minutes * 60 * 5 and health["lost"] is True
    assert [f.what for f in fed] == ["camera_lost"]

    caplog.clear()
    camera.plugged = True
    for _ in range(5):
        clock.now += 0.2
        assert zones.take() is True
    back = [line for line in camera_lines(caplog) if "camera frames back" in line]
    assert back == [f"摄像头恢复 camera frames back after {minutes * 60 * 5} failed frames over 600.0 s"]
    assert zones.health()["state"] == "ok"

    caplog.clear()  # a new run of failures is said again at once
    camera.plugged = False
    clock.now += 0.2
    zones.take()
    assert len([line for line in camera_lines(caplog) if "camera frame failed" in line]) == 1


def test_summaries_stop_within_a_minute_of_failing_less_often_than_the_limit(
        caplog: pytest.LogCaptureFixture) -> None:
    """Failures further apart than a minute are each said (each is a summary of one); never more than one a
    minute."""
    zones = CameraZones(MissingCamera(), None, fps=0, clock=(clock := Clock()))
    caplog.set_level(logging.WARNING, logger="table_daemon.adapters.camera")
    for _ in range(5):
        clock.now += SAY_FAILING_EVERY / 2
        zones.take()
    failing = [line for line in camera_lines(caplog) if "camera frame" in line]
    assert len(failing) == 3  # the first, then at 60 s and 120 s
