"""USB cameras (and anything else OpenCV's ``VideoCapture`` opens), the common choice on a table PC."""

from __future__ import annotations

import cv2
import numpy as np

from .base import CameraError


class OpenCvCamera:
    """A ``cv2.VideoCapture`` device by index (``0``) or path (``/dev/video0``), at a requested size."""

    def __init__(self, device: int | str = 0, width: int = 1280, height: int = 720) -> None:
        self.device = device
        self._capture = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"cannot open camera {device!r}")
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def frame(self) -> np.ndarray:
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"camera {self.device!r} delivered no frame")
        return image

    def close(self) -> None:
        self._capture.release()
