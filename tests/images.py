"""Images the tests read from files they have."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def imread(path: str | Path) -> np.ndarray:
    """``cv2.imread(path)`` (3-channel BGR) of an image file the test has: the image, never None. Not
    ``vision.files.load_image``: these tests were written against ``cv2.imread``, which turns a JPEG by its EXIF
    orientation and drops an alpha channel, where ``load_image`` reads the pixels as stored and flattens alpha onto
    white."""
    image = cv2.imread(str(path))
    assert image is not None, f"cannot read the image {path}"
    return image
