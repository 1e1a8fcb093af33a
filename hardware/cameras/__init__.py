"""Camera sources for the card reader: Pi camera, USB (OpenCV), replay of recordings, simulated table.

``open_camera(url)`` picks one from a config string: ``picamera://``, ``usb://0`` (or ``usb:///dev/video0``),
``replay:///path/to/folder-or-video``, ``sim://?seed=7``. Every source offers ``frame()`` and ``close()``
(``hardware.cameras.base.Camera``). Importing this package never needs picamera2.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from .base import Camera, CameraError

__all__ = ["Camera", "CameraError", "open_camera"]


def open_camera(url: str) -> Camera:
    """Open the camera a config names; raises CameraError for an unknown scheme or a device that fails."""
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

        return PiCamera(width, height)
    if parsed.scheme == "replay":
        from .replay import ReplayCamera

        return ReplayCamera(parsed.netloc + parsed.path, loop=query.get("loop", "0") in ("1", "true"))
    raise CameraError(f"unknown camera {url!r} (use picamera://, usb://N, replay://PATH or sim://)")
