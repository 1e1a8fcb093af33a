"""The Raspberry Pi camera through ``picamera2``, imported only when such a camera is opened.

The package must import on machines without picamera2 (a PC, CI), so the import lives in the constructor and
its absence is a clear CameraError. So is the other way it fails on a Pi: apt's picamera2 pulls in apt's
``simplejpeg``, built for Bookworm's numpy 1.24; a numpy 2 installed into the venv by pip makes that import
raise ``ValueError: numpy.dtype size changed`` (or an ImportError about ``_ARRAY_API``), which is a numpy
mismatch, not a missing camera, and the message says how to repair it.

The card reader needs the same picture all evening: fixed focus, fixed exposure and white balance (a red
heart must not drift towards a black spade as the hall lights warm up), and no 50 Hz banding from the hall
lighting. :class:`PiCameraSettings` holds those settings and :func:`picamera_controls` turns them into
libcamera controls for the camera at hand, saying what that camera cannot do (a fixed-focus lens, a libcamera
without ``AeFlickerMode``) instead of failing.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .base import CameraError

log = logging.getLogger(__name__)

#: libcamera's ``AfModeEnum.Manual`` and ``AeFlickerModeEnum.FlickerManual``
AF_MODE_MANUAL = 0
AE_FLICKER_MANUAL = 1


@dataclass(frozen=True)
class PiCameraSettings:
    """What the table config asks of a Pi camera module (``[camera]`` of the table config).

    ``camera_num``: which camera (``Picamera2(camera_num)``; a Pi 5 has two CSI ports, CAM0 and CAM1, listed
    by ``rpicam-hello --list-cameras``). ``lens_position``: manual focus in dioptres (1 / distance in metres,
    Camera Module 3), ``None`` to leave the camera's autofocus or fixed lens alone. ``exposure_us`` and
    ``analogue_gain``: fixed exposure (``None``: automatic). ``colour_gains``: fixed white balance as (red,
    blue) gains (``None``: automatic). ``flicker_hz``: mains frequency of the hall lighting (50 in China, 60,
    or 0 for none). ``fps``: frame rate, which bounds the exposure.
    """

    camera_num: int = 0
    lens_position: float | None = None
    exposure_us: int | None = None
    analogue_gain: float | None = None
    colour_gains: tuple[float, float] | None = None
    flicker_hz: int = 50
    fps: float = 15.0


def flicker_period_us(hz: int) -> float:
    """Lights on ``hz`` mains flicker at twice that: 10 000 µs at 50 Hz, 8 333 µs at 60 Hz."""
    return 1_000_000 / (2 * hz)


def picamera_controls(settings: PiCameraSettings, available: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The libcamera controls that apply ``settings`` on a camera offering ``available`` controls (its
    ``camera_controls``), and notes, one per setting this camera cannot apply (logged and shown in health)."""
    controls: dict[str, Any] = {}
    notes: list[str] = []
    if settings.fps > 0 and "FrameDurationLimits" in available:
        frame_us = int(round(1_000_000 / settings.fps))
        controls["FrameDurationLimits"] = (frame_us, frame_us)
    if settings.lens_position is not None:
        if "AfMode" in available and "LensPosition" in available:
            controls["AfMode"] = AF_MODE_MANUAL
            controls["LensPosition"] = float(settings.lens_position)
        else:
            notes.append("camera.lens_position: this camera has no focus motor (fixed-focus lens): "
                         "focus it by turning the lens, see `guandan-table vision calibrate`")
    if settings.exposure_us is not None:
        controls["AeEnable"] = False
        controls["ExposureTime"] = int(settings.exposure_us)
    if settings.analogue_gain is not None:
        controls["AnalogueGain"] = float(settings.analogue_gain)
    if settings.exposure_us is None and settings.flicker_hz:
        if "AeFlickerMode" in available and "AeFlickerPeriod" in available:
            controls["AeFlickerMode"] = AE_FLICKER_MANUAL
            controls["AeFlickerPeriod"] = int(round(flicker_period_us(settings.flicker_hz)))
        else:
            notes.append(f"camera.flicker_hz: this libcamera has no AeFlickerMode: the automatic exposure may "
                         f"band under {settings.flicker_hz} Hz lighting; set camera.exposure_us to a multiple of "
                         f"{flicker_period_us(settings.flicker_hz) / 1000:.1f} ms")
    if settings.colour_gains is not None:
        controls["AwbEnable"] = False
        controls["ColourGains"] = (float(settings.colour_gains[0]), float(settings.colour_gains[1]))
    return controls, notes


def _import_picamera2() -> Any:
    """``picamera2.Picamera2``, or a CameraError that tells a missing package from a numpy mismatch."""
    try:
        module = importlib.import_module("picamera2")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "picamera2":
            raise CameraError("picamera2 is not installed: on Raspberry Pi OS `sudo apt install python3-picamera2` "
                              "(scripts/install-pi does it) and a venv made with --system-site-packages") from exc
        raise CameraError(_mismatch(exc)) from exc
    except (ImportError, ValueError, AttributeError) as exc:
        # "numpy.dtype size changed, may indicate binary incompatibility", "_ARRAY_API not found" ...
        raise CameraError(_mismatch(exc)) from exc
    return module.Picamera2


def _mismatch(exc: BaseException) -> str:
    return (f"picamera2 cannot load with numpy {np.__version__} ({type(exc).__name__}: {exc}): apt's picamera2 and "
            "simplejpeg are built for Raspberry Pi OS's numpy 1.24; reinstall the venv with scripts/install-pi "
            "(it pins numpy<2 with deploy/constraints-bookworm.txt)")


class PiCamera:
    """A Pi camera module delivering BGR frames of the requested size, with the table's fixed settings."""

    def __init__(self, width: int = 1280, height: int = 720, settings: PiCameraSettings | None = None) -> None:
        self.size = (width, height)
        self.settings = settings or PiCameraSettings()
        self.controls: dict[str, Any] = {}
        self.notes: list[str] = []
        self._camera: Any = self._start()

    def _start(self) -> Any:
        picamera2 = _import_picamera2()
        try:
            camera = picamera2(self.settings.camera_num)
        except Exception as exc:  # the library raises many kinds (IndexError for a camera number not there, ...)
            raise CameraError(f"no Pi camera {self.settings.camera_num} (`rpicam-hello --list-cameras` lists "
                              f"them; a Pi 5 has CAM0 and CAM1): {exc}") from exc
        try:
            config = camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            camera.configure(config)
            self.controls, self.notes = picamera_controls(self.settings, getattr(camera, "camera_controls", {}) or {})
            for note in self.notes:
                log.warning("%s", note)
            if self.controls:
                camera.set_controls(self.controls)
            camera.start()
        except Exception as exc:  # all mean "this camera does not run"
            try:
                camera.close()
            except Exception:
                pass
            raise CameraError(f"cannot start the Pi camera: {exc}") from exc
        return camera

    def reopen(self) -> None:
        """Start the camera again after it stopped delivering frames (a loose ribbon cable reseated)."""
        self.close()
        self._camera = self._start()

    def frame(self) -> np.ndarray:
        try:
            image = self._camera.capture_array()
        except Exception as exc:
            raise CameraError(f"Pi camera delivered no frame: {exc}") from exc
        # picamera2's "RGB888" is laid out B, G, R in memory: already what OpenCV expects
        return np.ascontiguousarray(image[:, :, :3])

    def metadata(self) -> dict[str, Any]:
        """The last frame's metadata (ExposureTime, AnalogueGain, ColourGains, LensPosition ...), for calibration."""
        try:
            return dict(self._camera.capture_metadata())
        except Exception:
            return {}

    def close(self) -> None:
        try:
            self._camera.stop()
            self._camera.close()
        except Exception:  # closing a camera that already failed must not raise
            pass
