"""Reading image files and labelled folders for the CLI and the benchmarks (bad files never crash)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from .types import normalise_label

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


class ImageError(ValueError):
    """An image file that is missing, unreadable, corrupt or empty."""


def load_image(path: Path) -> np.ndarray:
    """The image at ``path`` as 3-channel BGR; raises ImageError naming the problem."""
    if not path.is_file():
        raise ImageError(f"no such image file: {path}")
    data = np.fromfile(str(path), dtype=np.uint8)
    if data.size == 0:
        raise ImageError(f"empty image file: {path}")
    image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise ImageError(f"not a readable image: {path}")
    if image.dtype != np.uint8:
        image = cv2.convertScaleAbs(image, alpha=255.0 / max(float(image.max()), 1.0))
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        alpha = image[:, :, 3:4].astype(np.float32) / 255.0
        image = (image[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)
    return image


def labelled_images(folder: Path) -> Iterator[tuple[Path, str]]:
    """(path, card code) for every image in ``folder`` whose name is a card code (ours or bidly's)."""
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in IMAGE_SUFFIXES:
            code = normalise_label(path.stem)
            if code is not None:
                yield path, code
