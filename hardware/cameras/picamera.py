"""The Raspberry Pi camera through ``picamera2``, imported only when such a camera is opened.

The package must import on machines without picamera2 (a PC, CI), so the import lives in the constructor and
its absence is a clear CameraError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import CameraError


class PiCamera:
    """A Pi camera module delivering BGR frames of the requested size."""

    def __init__(self, width: int = 1280, height: int = 720) -> None:
        self.size = (width, height)
        self._camera: Any = self._start()

    def _start(self) -> Any:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError as exc:
            raise CameraError("picamera2 is not installed (it exists only on Raspberry Pi OS)") from exc
        try:
            camera = Picamera2()
            config = camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            camera.configure(config)
            camera.start()
        except Exception as exc:  # the library raises many kinds; all mean "no camera"
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

    def close(self) -> None:
        try:
            self._camera.stop()
            self._camera.close()
        except Exception:  # closing a camera that already failed must not raise
            pass
