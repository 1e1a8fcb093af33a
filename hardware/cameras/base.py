"""The small interface every camera source offers to the table daemon: frames as BGR numpy arrays."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


class CameraError(RuntimeError):
    """A camera that cannot be opened or has stopped delivering frames."""


@runtime_checkable
class Camera(Protocol):
    def frame(self) -> np.ndarray:
        """The next frame (H x W x 3, uint8, BGR); raises CameraError when none can be had."""
        ...

    def close(self) -> None:
        """Release the device (idempotent)."""
        ...
