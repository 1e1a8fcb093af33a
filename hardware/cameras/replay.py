"""Replaying recorded frames: a folder of images (in name order) or a video file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .base import CameraError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class ReplayCamera:
    """Frames from ``path`` (folder or video); ``loop`` starts again at the end instead of raising."""

    def __init__(self, path: str | Path, loop: bool = False) -> None:
        self.path = Path(path)
        self.loop = loop
        self._files: list[Path] = []
        self._index = 0
        self._capture: cv2.VideoCapture | None = None
        if self.path.is_dir():
            self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._files:
                raise CameraError(f"no images in {self.path}")
        elif self.path.is_file():
            self._capture = cv2.VideoCapture(str(self.path))
            if not self._capture.isOpened():
                raise CameraError(f"cannot open video {self.path}")
        else:
            raise CameraError(f"no such folder or video: {self.path}")

    def frame(self) -> np.ndarray:
        if self._capture is not None:
            ok, image = self._capture.read()
            if not ok and self.loop:
                self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._capture.read()
            if not ok or image is None:
                raise CameraError(f"end of video {self.path}")
            return image
        for _ in range(len(self._files)):
            if self._index >= len(self._files):
                if not self.loop:
                    break
                self._index = 0
            path = self._files[self._index]
            self._index += 1
            still = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if still is not None:
                return still
        raise CameraError(f"no more readable frames in {self.path}")

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
