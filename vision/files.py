"""Reading image files and labelled folders for the CLI and the benchmarks (bad files never crash)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from .types import normalise_label

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


class ImageError(ValueError):
    """An image file that is missing, unreadable, corrupt or empty, or too large to decode."""


#: the largest image decoded: a 64-megapixel still (a table camera gives 12 MP at most); a file declaring more
#: (a decompression bomb: a few KB of PNG that says 60000 x 60000) is refused before it is decoded
MAX_PIXELS = 64_000_000
MAX_FILE_BYTES = 200 << 20


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header of a PNG, JPEG, BMP, WebP or TIFF file; None when unknown or cut."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return w, h
        if data[:2] == b"BM":
            w, h = struct.unpack("<ii", data[18:26])
            return abs(w), abs(h)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_size(data)
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff_size(data)
        if data[:2] == b"\xff\xd8":
            return _jpeg_size(data)
    except (struct.error, IndexError):
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    end = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(end + "I", data[4:8])
    (count,) = struct.unpack(end + "H", data[ifd:ifd + 2])
    size: dict[int, int] = {}
    for k in range(min(count, 512)):
        at = ifd + 2 + 12 * k
        tag, kind = struct.unpack(end + "HH", data[at:at + 4])
        if tag in (256, 257):
            fmt = end + ("H" if kind == 3 else "I")
            size[tag] = struct.unpack(fmt, data[at + 8:at + 8 + struct.calcsize(fmt)])[0]
    return (size[256], size[257]) if 256 in size and 257 in size else None


def load_image(path: Path) -> np.ndarray:
    """The image at ``path`` as 3-channel BGR; raises ImageError naming the problem."""
    if not path.is_file():
        raise ImageError(f"no such image file: {path}")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ImageError(f"image file too large: {path} ({path.stat().st_size} bytes, at most {MAX_FILE_BYTES})")
    data = np.fromfile(str(path), dtype=np.uint8)
    if data.size == 0:
        raise ImageError(f"empty image file: {path}")
    size = image_size(data[:4 << 20].tobytes())  # JPEG: the frame header follows EXIF and other segments
    if size is None:
        raise ImageError(f"not a readable image (PNG, JPEG, BMP, WebP or TIFF): {path}")
    if size[0] < 1 or size[1] < 1 or size[0] * size[1] > MAX_PIXELS:
        raise ImageError(f"image refused: {path} declares {size[0]} x {size[1]} pixels "
                         f"(at most {MAX_PIXELS // 1_000_000} megapixels)")
    try:
        image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    except cv2.error as exc:
        raise ImageError(f"not a readable image: {path} ({str(exc).strip().splitlines()[-1][:200]})") from None
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


def load_face(path: Path) -> np.ndarray | None:
    """A rendered card face (PNG, maybe with alpha) as BGR with the alpha flattened onto white; None when the
    file cannot be read (the training scripts skip it)."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        return None
    if image.ndim == 3 and image.shape[2] == 4:
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
