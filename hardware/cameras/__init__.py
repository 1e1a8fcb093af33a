"""Camera sources for the card reader: Pi camera, USB (OpenCV), replay of recordings, simulated table.

``open_camera(url)`` picks one from a config string: ``picamera://``, ``usb://0`` (or ``usb:///dev/video0``),
``replay:///path/to/folder-or-video``, ``sim://?seed=7``. Every source offers ``frame()`` and ``close()``
(``hardware.cameras.base.Camera``). Importing this package never needs picamera2.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

from .base import Camera, CameraError

__all__ = ["Camera", "CameraError", "PendingCamera", "open_camera", "open_camera_or_wait"]


def open_camera(url: str, picamera: Any = None) -> Camera:
    """Open the camera a config names; raises CameraError for an unknown scheme or a device that fails.
    ``picamera``: the :class:`~hardware.cameras.picamera.PiCameraSettings` of a ``picamera://`` camera."""
    parsed = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
    width, height = int(query.get("width", 1280)), int(query.get("height", 720))
    if parsed.scheme == "sim":
        from .simulated import SimulatedTableCamera

        return SimulatedTableCamera(seed=int(query.get("seed", 0)), width=width, height=height)
    if parsed.scheme == "usb":
        from .opencv_camera import OpenCvCamera

        target = (parsed.netloc + parsed.path) or "0"
        return OpenCvCamera(int(target) if target.isdigit() else target, width, height)
    if parsed.scheme == "picamera":
        from .picamera import PiCamera

        return PiCamera(width, height, picamera)
    if parsed.scheme == "replay":
        from .replay import ReplayCamera

        return ReplayCamera(parsed.netloc + parsed.path, loop=query.get("loop", "0") in ("1", "true"))
    raise CameraError(f"unknown camera {url!r} (use picamera://, usb://N, replay://PATH or sim://)")


class PendingCamera:
    """A camera that could not be opened yet (unplugged at boot): ``frame()`` fails with the reason until
    ``reopen()`` (the daemon tries every few seconds) succeeds, and from then on it is that camera."""

    def __init__(self, url: str, error: CameraError, picamera: Any = None) -> None:
        self.url = url
        self.error = error
        self.picamera = picamera
        self._camera: Camera | None = None

    @property
    def is_open(self) -> bool:
        """False until the camera could be opened (its ``error`` says why not)."""
        return self._camera is not None

    def frame(self) -> Any:
        if self._camera is None:
            raise CameraError(f"camera {self.url!r} not open: {self.error}")
        return self._camera.frame()

    def reopen(self) -> None:
        if self._camera is not None:
            again = getattr(self._camera, "reopen", None)
            if again is not None:
                again()
            return
        try:
            self._camera = open_camera(self.url, self.picamera)
        except CameraError as exc:
            self.error = exc
            raise

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()


def open_camera_or_wait(url: str, picamera: Any = None) -> Camera | PendingCamera:
    """``open_camera(url)``, or a :class:`PendingCamera` that keeps trying when the device is not there yet; an
    unknown scheme is still an error at once."""
    try:
        return open_camera(url, picamera)
    except CameraError as exc:
        if urlparse(url).scheme not in ("picamera", "usb", "replay"):
            raise
        return PendingCamera(url, exc, picamera)
