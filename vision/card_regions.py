"""Which regions of a photo are cards: the card-shaped test, regions not inside a bigger one, a second look with
fainter edges, and the one card of a single-card photo. Shared by both card readers (``vision/reader.py``, the
glyph reader; ``vision/net/reader.py``, the learned one), which differ only in how they read a region."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

import cv2
import numpy as np

from .geometry import Region, find_regions, whole_image_region


class Scored(Protocol):
    @property
    def score(self) -> float: ...


R = TypeVar("R", bound=Scored)


def is_card_shaped(region: Region) -> bool:
    """Short side over long side as for playing cards (poker 0.72, bridge 0.64), with room for perspective."""
    c = region.corners
    a = float(np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3]))
    b = float(np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1]))
    return 0.52 <= min(a, b) / max(max(a, b), 1e-6) <= 0.84


def top_level(regions: list[Region]) -> list[Region]:
    """Regions not lying inside a bigger one (pips and picture frames inside a card)."""
    return [r for r in regions if not any(_inside(r, o) for o in regions if o is not r and o.area > r.area)]


def card_regions(image: np.ndarray) -> list[Region]:
    """Regions by edges; when no card-sized card-shaped one shows, once more with fainter edges."""
    regions = find_regions(image)
    total = float(image.shape[0] * image.shape[1])
    if not any(r.area >= 0.03 * total and is_card_shaped(r) for r in top_level(regions)):
        regions = find_regions(image, sensitive=True) or regions
    return regions


def best_card(image: np.ndarray, read_region: Callable[[np.ndarray, Region], R]) -> tuple[Region, R]:
    """The one card of a single-card photo: the card-shaped region that reads best, else the whole image.

    The whole image stands for an image cropped to the card; it is only taken when no region found by edges
    reads clearly better or as well, since a photo of a card on a desk may itself be card-shaped.
    """
    total = float(image.shape[0] * image.shape[1])
    best: tuple[Region, R] | None = None
    for region in [r for r in top_level(card_regions(image)) if r.area >= 0.08 * total and is_card_shaped(r)][:5]:
        read = read_region(image, region)
        # equal readings: the bigger region is the whole card, the smaller one something printed on it
        if best is None or read.score > best[1].score + 0.05 or \
                (read.score > best[1].score - 0.05 and region.area > best[0].area):
            best = (region, read)
    if best is not None and best[1].score >= 0.5:
        return best
    whole = whole_image_region(image)
    read = read_region(image, whole)
    if best is None or read.score > best[1].score:
        return whole, read
    return best


def _inside(inner: Region, outer: Region) -> bool:
    contour = outer.corners.reshape(-1, 1, 2)
    centre = inner.corners.mean(axis=0)
    return cv2.pointPolygonTest(contour, (float(centre[0]), float(centre[1])), False) > 0
