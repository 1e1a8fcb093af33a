"""USB cameras (and anything else OpenCV's ``VideoCapture`` opens), the common choice on a table PC."""

from __future__ import annotations

import cv2
import numpy as np

from .base import CameraError

# OpenCV's own capture back-ends print "[ WARN:0@3.1] ... cap_v4l.cpp ... can't open camera by index" (or an
# ERROR line) to stderr on every failed open, every few seconds while a camera is away: the table says it once,
# in its own words, and OpenCV's failures that matter raise exceptions anyway
_LOGGING = getattr(getattr(cv2, "utils", None), "logging", None)  # OpenCV 5; 4.x has cv2.setLogLevel
if _LOGGING is not None:
    _LOGGING.setLogLevel(_LOGGING.LOG_LEVEL_FATAL)
elif hasattr(cv2, "setLogLevel"):
    cv2.setLogLevel(1)  # 1: fatal only (cv::utils::logging::LOG_LEVEL_FATAL)


class OpenCvCamera:
    """A ``cv2.VideoCapture`` device by index (``0``) or path (``/dev/video0``), at a requested size."""

    def __init__(self, device: int | str = 0, width: int = 1280, height: int = 720) -> None:
        self.device = device
        self.size = (width, height)
        self._capture = self._open()

    def _open(self) -> cv2.VideoCapture:
        capture = cv2.VideoCapture(self.device)
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"cannot open camera {self.device!r}")
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        return capture

    def reopen(self) -> None:
        """Open the device again (a USB camera unplugged and plugged back); CameraError while it is away."""
        self._capture.release()
        self._capture = self._open()

    def frame(self) -> np.ndarray:
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"camera {self.device!r} delivered no frame")
        return image

    def close(self) -> None:
        self._capture.release()
