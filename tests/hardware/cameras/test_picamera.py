"""The Pi camera's settings reach picamera2 as controls; a broken picamera2 import says why.

There is no Pi here: a fake ``picamera2`` module records what the table asks of ``Picamera2`` (the one fake of
these tests); everything else is the real code path from the table config on.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hardware.cameras import CameraError, PendingCamera, open_camera_or_wait
from hardware.cameras.picamera import PiCamera, PiCameraSettings, picamera_controls
from table_daemon.adapters.camera import CameraZones
from table_daemon.config import parse_config

#: camera_controls of a Camera Module 3 (imx708) with a libcamera that has flicker avoidance
MODULE_3 = {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0), "AeFlickerMode": (0, 1, 0),
            "AeFlickerPeriod": (100, 1000000, None), "ExposureTime": (26, 112015443, None),
            "AnalogueGain": (1.1, 16.0, None), "AwbEnable": (False, True, None), "ColourGains": (0.0, 32.0, None),
            "AeEnable": (False, True, None), "FrameDurationLimits": (33333, 120000, None)}
#: a Camera Module 2 (imx219, fixed focus) on an older libcamera: no focus motor, no AeFlickerMode
MODULE_2_OLD = {k: v for k, v in MODULE_3.items() if k not in ("AfMode", "LensPosition", "AeFlickerMode",
                                                               "AeFlickerPeriod")}


class FakePicamera2:
    """Records the calls; offers the camera_controls of the camera in ``CAMERAS[camera_num]``."""

    cameras: list[dict[str, Any]] = []
    made: list[FakePicamera2] = []

    def __init__(self, camera_num: int = 0) -> None:
        if camera_num >= len(self.cameras):
            raise IndexError("list index out of range")
        self.camera_num = camera_num
        self.camera_controls = self.cameras[camera_num]
        self.calls: list[tuple[str, Any]] = []
        FakePicamera2.made.append(self)

    def create_video_configuration(self, main: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(("create_video_configuration", main))
        return {"main": main}

    def configure(self, config: dict[str, Any]) -> None:
        self.calls.append(("configure", config))

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", dict(controls)))

    def start(self) -> None:
        self.calls.append(("start", None))

    def capture_array(self) -> np.ndarray:
        width, height = self.calls[0][1]["size"]
        return np.zeros((height, width, 4), np.uint8)

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.cameras = [MODULE_3, MODULE_2_OLD]
    FakePicamera2.made = []
    return FakePicamera2


def controls_of(camera: FakePicamera2) -> dict[str, Any]:
    names = [name for name, _ in camera.calls]
    assert names == ["create_video_configuration", "configure", "set_controls", "start"]
    controls = camera.calls[2][1]
    assert isinstance(controls, dict)
    return controls


def test_the_table_config_reaches_picamera2_as_controls(fake_picamera2: type[FakePicamera2]) -> None:
    cfg = parse_config('[camera]\nsource = "picamera://"\nfps = 15.0\nlens_position = 1.25\nexposure_us = 20000\n'
                       'analogue_gain = 2.0\ncolour_gains = [1.9, 1.6]\nflicker_hz = 50\n', "t.toml")
    zones = CameraZones.from_config(cfg.camera)
    (camera,) = fake_picamera2.made
    assert camera.camera_num == 0 and camera.calls[0][1] == {"size": (1280, 720), "format": "RGB888"}
    assert controls_of(camera) == {
        "FrameDurationLimits": (66667, 66667), "AfMode": 0, "LensPosition": 1.25, "AeEnable": False,
        "ExposureTime": 20000, "AnalogueGain": 2.0, "AwbEnable": False, "ColourGains": (1.9, 1.6)}
    assert zones.camera.frame().shape == (720, 1280, 3)
    zones.close()
    assert camera.calls[-2:] == [("stop", None), ("close", None)]


def test_automatic_exposure_avoids_flicker_with_ae_flicker_mode(fake_picamera2: type[FakePicamera2]) -> None:
    cam = PiCamera(640, 480, PiCameraSettings(flicker_hz=50, fps=10))
    assert controls_of(fake_picamera2.made[0]) == {"FrameDurationLimits": (100000, 100000), "AeFlickerMode": 1,
                                                   "AeFlickerPeriod": 10000}
    assert cam.notes == []
    sixty, _ = picamera_controls(PiCameraSettings(flicker_hz=60), MODULE_3)
    assert sixty["AeFlickerPeriod"] == 8333


def test_a_camera_that_cannot_says_so_on_the_second_port(fake_picamera2: type[FakePicamera2]) -> None:
    cam = PiCamera(settings=PiCameraSettings(camera_num=1, lens_position=2.0, flicker_hz=50))
    camera = fake_picamera2.made[0]
    assert camera.camera_num == 1
    assert "AfMode" not in controls_of(camera) and "AeFlickerMode" not in controls_of(camera)
    assert any("fixed-focus" in n for n in cam.notes) and any("10.0 ms" in n for n in cam.notes)
    with pytest.raises(CameraError, match="rpicam-hello --list-cameras"):
        PiCamera(settings=PiCameraSettings(camera_num=2))


def test_a_camera_missing_at_start_keeps_its_settings_for_the_retry(fake_picamera2: type[FakePicamera2]) -> None:
    fake_picamera2.cameras = []
    pending = open_camera_or_wait("picamera://", PiCameraSettings(camera_num=1, exposure_us=30000))
    assert isinstance(pending, PendingCamera)
    with pytest.raises(CameraError, match="not open"):
        pending.frame()
    fake_picamera2.cameras = [MODULE_3, MODULE_3]  # the ribbon cable reseated
    pending.reopen()
    camera = fake_picamera2.made[-1]
    assert camera.camera_num == 1 and controls_of(camera)["ExposureTime"] == 30000


def _broken_picamera2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    package = tmp_path / "picamera2"
    package.mkdir()
    (package / "__init__.py").write_text(body)
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_numpy_abi_mismatch_is_a_clear_camera_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # what apt's simplejpeg raises under a pip-installed numpy 2
    _broken_picamera2(tmp_path, monkeypatch, 'raise ValueError("numpy.dtype size changed, may indicate binary '
                                             'incompatibility. Expected 96 from C header, got 88 from PyObject")\n')
    with pytest.raises(CameraError, match="numpy") as err:
        PiCamera()
    assert "dtype size changed" in str(err.value) and "scripts/install-pi" in str(err.value)
    assert "not installed" not in str(err.value)


def test_a_dependency_of_picamera2_missing_is_not_called_picamera2_missing(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _broken_picamera2(tmp_path, monkeypatch, "import simplejpeg_that_is_not_there\n")
    with pytest.raises(CameraError, match="cannot load"):
        PiCamera()


def test_picamera2_absent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import of a None entry raises ModuleNotFoundError
    with pytest.raises(CameraError, match="python3-picamera2"):
        PiCamera()


def test_a_pi_camera_not_there_is_missing_in_health_not_healthy(fake_picamera2: type[FakePicamera2]) -> None:
    fake_picamera2.cameras = [MODULE_2_OLD]
    cfg = parse_config('[camera]\nsource = "picamera://"\ncamera_num = 1\n', "t.toml")
    zones = CameraZones.from_config(cfg.camera)  # the table starts anyway and keeps trying
    health = zones.health()
    assert health["state"] == "missing" and "rpicam-hello --list-cameras" in health["error"]
    fake_picamera2.cameras = [MODULE_2_OLD, MODULE_2_OLD]
    zones.camera.reopen()
    health = zones.health()
    assert health["state"] == "ok" and any("AeFlickerMode" in n for n in health["notes"])
    zones.close()
