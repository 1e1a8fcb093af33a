"""Images the tests read from files they have."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def imread(path: str | Path) -> np.ndarray:
    """``cv2.imread(path)`` (3-channel BGR) of an image file the test has: the image, never None."""
    image = cv2.imread(str(path))
    assert image is not None, f"cannot read the image {path}"
    return image
