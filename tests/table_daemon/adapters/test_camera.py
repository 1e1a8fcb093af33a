"""The camera adapter on the simulated table camera: a bumped camera, a lost camera, a late calibration.

Real frames through the real reader and tracker; only the clock is fake, so the adapter's timing (lost after
two seconds, markers looked for once a second) is exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_daemon.adapters.camera import LOST_AFTER, CameraZones
from table_daemon.adapters.pi_health import HealthLimits, problems
from table_daemon.controller import CameraNotice, CardsSeen
from table_daemon.device_health import device_figures


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def wired(zones: CameraZones) -> tuple[Clock, list[Any]]:
    """``zones`` on a fake clock, what it feeds the controller collected."""
    clock = Clock()
    zones.clock = clock
    fed: list[Any] = []
    zones.feed = fed.append
    return clock, fed


def zones_with_clock(seed: int = 3, **kw: Any) -> tuple[CameraZones, Clock, list[Any]]:
    zones = CameraZones.simulated_table(seed=seed, **kw)
    clock, fed = wired(zones)
    zones._last_good = clock.now
    return zones, clock, fed


def run(zones: CameraZones, clock: Clock, frames: int, dt: float = 1 / 15) -> None:
    for _ in range(frames):
        clock.now += dt
        zones.take()


def notices(fed: list[Any]) -> list[str]:
    return [f.what for f in fed if isinstance(f, CameraNotice)]


def test_a_bumped_camera_is_noticed_and_plays_are_still_read() -> None:
    # a design the reader reads steadily (noto-sans-beside): on roboto-condensed, the held-out design it reads
    # worst, the bumped view's first readings sometimes miss a card (bench/table_reading.py --deck held-out)
    zones, clock, fed = zones_with_clock(seed=2)
    zones.on_turn = "W"
    zones.lay("W", ["SQ", "DQ"])
    run(zones, clock, 3)
    assert [f.cards for f in fed if isinstance(f, CardsSeen)] == [["SQ", "DQ"]]
    zones.camera.bump(60, 0)
    run(zones, clock, 20)  # a second and more of frames: the markers are looked for, seen twice, followed
    assert notices(fed) == ["camera_moved"]
    moved = next(f for f in fed if isinstance(f, CameraNotice))
    assert 55 < moved.evidence["shift_px"] < 65
    assert [f.cards for f in fed if isinstance(f, CardsSeen)] == [["SQ", "DQ"]]  # the same cards: no new play
    zones.on_turn = "N"
    zones.lay("N", ["H3", "H4", "H5", "H6", "H7"])
    run(zones, clock, 3)
    assert [f.cards for f in fed if isinstance(f, CardsSeen)][-1] == ["H3", "H4", "H5", "H6", "H7"]
    assert zones.health()["moves"] == 1


def test_a_camera_knocked_off_two_markers_stops_reading_and_says_so_until_set_back() -> None:
    zones, clock, fed = zones_with_clock(seed=2)
    run(zones, clock, 3)
    zones.camera.bump(400, 250)  # the markers at E/S (and more) leave the picture
    run(zones, clock, 20)
    assert notices(fed) == ["camera_moved_out"]
    assert zones.health()["calibrated"] is False
    zones.on_turn = "N"
    zones.lay("N", ["H3", "H4"])
    run(zones, clock, 10)
    assert not any(isinstance(f, CardsSeen) for f in fed)  # nothing read in zones no longer over the play areas
    zones.camera.bump(-400, -250)  # set back: all four markers in view
    run(zones, clock, 20)
    assert notices(fed) == ["camera_moved_out", "camera_calibrated"] and zones.health()["calibrated"] is True
    assert [f.cards for f in fed if isinstance(f, CardsSeen)] == [["H3", "H4"]]


def test_a_lost_camera_is_reported_once_reopened_and_its_return_reported() -> None:
    zones, clock, fed = zones_with_clock()
    run(zones, clock, 2)
    zones.camera.unplug()
    run(zones, clock, 5, dt=0.2)
    assert notices(fed) == []  # a second of failed frames is not yet a lost camera
    run(zones, clock, 30, dt=0.2)
    assert notices(fed) == ["camera_lost"]
    assert zones.health()["lost"] is True
    zones.camera.replug()
    run(zones, clock, 20, dt=0.2)  # the adapter reopens it within REOPEN_EVERY seconds
    assert notices(fed) == ["camera_lost", "camera_restored"]
    restored = [f for f in fed if isinstance(f, CameraNotice)][-1]
    assert restored.evidence["lost_seconds"] >= LOST_AFTER
    assert zones.health()["lost"] is False


def test_a_table_whose_markers_are_covered_at_start_calibrates_when_they_show() -> None:
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader
    from vision.tracking import CalibrationTracker

    camera = SimulatedTableCamera(seed=4)
    camera.cover_markers((0, 2))
    zones = CameraZones(camera, None, fps=0, tracker=CalibrationTracker(None), make_reader=TableReader)
    clock, fed = wired(zones)
    zones.on_turn = "E"
    camera.lay("E", ["C9", "C9"])
    run(zones, clock, 20)
    assert notices(fed) == ["camera_uncalibrated"]
    assert not any(isinstance(f, CardsSeen) for f in fed)  # nothing is read without zones
    camera.uncover_markers()
    run(zones, clock, 20)
    assert notices(fed) == ["camera_uncalibrated", "camera_calibrated"]
    assert [f.cards for f in fed if isinstance(f, CardsSeen)] == [["C9", "C9"]]
    assert zones.health()["calibrated"] is True


def test_a_configured_camera_calibrates_from_its_frames_and_reads_a_play(tmp_path: Path) -> None:
    """The real-camera path of the config (``replay://`` frames saved from a table camera): no calibration file,
    so the markers of the frames place the zones, then a laid play is read."""
    import cv2

    from hardware.cameras.simulated import SimulatedTableCamera
    from table_daemon.config import CameraSection

    camera = SimulatedTableCamera(seed=6)  # a held-out design (noto-sans-beside), read by the learned reader
    folder = tmp_path / "frames"
    folder.mkdir()
    camera.cover_markers((1,))  # a sleeve over a marker at start: not calibrated yet
    cv2.imwrite(str(folder / "f00.png"), camera.frame())
    camera.uncover_markers()
    camera.lay("S", ["H3", "H4", "H5", "H6", "H7"])
    for i in range(1, 8):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), camera.frame())
    zones = CameraZones.from_config(CameraSection(source=f"replay://{folder}"))
    clock = Clock()
    zones.clock = clock
    fed: list[Any] = []
    zones.feed = fed.append
    zones.on_turn = "S"
    run(zones, clock, 8)
    assert notices(fed)[:2] == ["camera_uncalibrated", "camera_calibrated"]
    assert [f.cards for f in fed if isinstance(f, CardsSeen)] == [["H3", "H4", "H5", "H6", "H7"]]
    zones.close()


def test_a_camera_source_the_config_does_not_know_is_refused() -> None:
    import pytest

    from table_daemon.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match="camera.source"):
        parse_config('[camera]\nsource = "webcam"\n')
    assert parse_config('[camera]\nsource = "picamera://"\n').camera.source == "picamera://"


def test_a_camera_missing_at_start_up_is_reported_lost_and_taken_when_it_appears(tmp_path: Path) -> None:
    import cv2

    from hardware.cameras.simulated import SimulatedTableCamera
    from table_daemon.config import CameraSection

    folder = tmp_path / "later"
    zones = CameraZones.from_config(CameraSection(source=f"replay://{folder}"))  # nothing there yet: no error
    clock = Clock()
    zones.clock = clock
    zones._last_good = clock.now
    fed: list[Any] = []
    zones.feed = fed.append
    run(zones, clock, 15, dt=0.2)
    assert notices(fed) == ["camera_lost"]
    folder.mkdir()  # the camera is plugged in
    camera = SimulatedTableCamera(seed=7)
    for i in range(6):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), camera.frame())
    run(zones, clock, 20, dt=0.2)
    assert notices(fed)[:3] == ["camera_lost", "camera_restored", "camera_calibrated"]


def test_the_table_judges_cards_by_its_readers_own_threshold_unless_configured() -> None:
    """``camera.min_confidence = 0`` (the default): the stabiliser and the controller take a card as sure at the
    card reader's own threshold (the learned reader's, chosen on held-out real photos); a configured value
    stands. The table's reader reports unsure cards too, for the controller to choose among."""
    from table_daemon.app import TableApp
    from table_daemon.config import simulated_config

    learned = CameraZones.simulated_table(seed=3)
    assert learned.min_confidence == learned.reader.reader.sure > 0.99
    assert learned.stabiliser.min_confidence == learned.min_confidence
    assert learned.reader.reader.unsure
    glyphs = CameraZones.simulated_table(seed=3, reader="glyphs")
    assert glyphs.min_confidence == 0.6
    assert CameraZones.simulated_table(seed=3, min_confidence=0.95).min_confidence == 0.95
    app = TableApp(simulated_config(table="T1", event="e"), camera=learned, connect=False)
    assert app.controller.timing.min_confidence == learned.min_confidence
    for zones in (learned, glyphs):
        zones.close()


def test_the_configured_network_runtime_reads_the_plays() -> None:
    """``[camera] runtime = "onnxruntime"`` (the optional extra) runs the learned reader's network on the table;
    where it is not installed the setting is refused by name (tests/vision/test_readers.py)."""
    import pytest

    from table_daemon.config import CameraSection

    pytest.importorskip("onnxruntime")
    zones = CameraZones.from_config(CameraSection(source="sim://", runtime="onnxruntime"))
    assert zones.reader is not None and zones.reader.reader.net.runtime == "onnxruntime"
    clock, fed = wired(zones)
    zones.on_turn = "E"
    zones.lay("E", ["C9", "C9"])
    run(zones, clock, 3)
    assert [f.cards for f in fed if isinstance(f, CardsSeen)] == [["C9", "C9"]]
    zones.close()


def test_a_hall_too_dark_for_the_camera_is_said_in_its_health() -> None:
    """Health carries how much the table brightens its frames (vision.table) and, once even the most it brightens
    leaves the frame dark, says so by name and in a note for the desk, in Chinese and English, and raises it as a
    problem (``camera_dim``): before, the camera showed "ok" to the desk and the status light."""
    from hardware.cameras.simulated import SimulatedTableCamera
    from vision.table import TableReader

    for exposure, dim in ((1.0, False), (0.4, False), (0.08, True)):
        camera = SimulatedTableCamera(seed=4, exposure=exposure)
        zones = CameraZones(camera, TableReader(camera.calibration), fps=0)
        clock, _ = wired(zones)
        zones._last_good = clock.now
        run(zones, clock, 2)
        health = zones.health()
        assert health["dim"] is dim, (exposure, health)
        assert (health["exposure_gain"] == 1.0) is (exposure == 1.0), (exposure, health)
        assert any("摄像头过暗" in n and "exposure" in n for n in health.get("notes", [])) is dim
        # and it is a health problem (the desk's devices, the status light, an alert), not a note only
        found = problems(device_figures({"camera": zones}), HealthLimits())  # as the app's health has them
        assert ("camera_dim" in found) is dim, (exposure, found)
