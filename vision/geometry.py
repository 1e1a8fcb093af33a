"""Finding cards in an image by their edges, and turning each found region upright and flat.

A plain brightness threshold fails for a white card on a light desk, so cards are found from edges: Canny on
the blurred grey image, dilated until each card's outline closes, outer contours only, convex hull. Each region
is kept as a rotated box (or a 4-point quad when the hull is one), then rectified so that the region's
vertical extent becomes the canonical card height ``CARD_H``. A region may hold one card or an overlapping
fan of cards; the index reader (``vision.index``) handles both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

CARD_H = 300
#: Longest side, in pixels, at which regions are searched for; bigger images are shrunk first (speed).
FIND_SIDE = 960


@dataclass(frozen=True)
class Region:
    """A card-like region: its 4 corners in image coordinates, clockwise from the top-left of its box."""

    corners: np.ndarray  # float32 (4, 2)
    area: float
    #: the convex hull of what was found (image coordinates), which the 4 corners may cut a little off
    hull: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def box(self) -> tuple[int, int, int, int]:
        x, y, w, h = cv2.boundingRect(self.corners.astype(np.float32))
        return int(x), int(y), int(w), int(h)


def order_corners(points: np.ndarray) -> np.ndarray:
    """Order 4 points clockwise starting from the one nearest the top-left."""
    pts = points.reshape(4, 2).astype(np.float32)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def find_regions(image: np.ndarray, min_area_frac: float = 0.003, mask: np.ndarray | None = None,
                 sensitive: bool = False, nested: bool = False) -> list[Region]:
    """Card-like regions of ``image`` (BGR or grey), largest first. ``mask`` limits the search (non-zero = in).

    ``sensitive`` lowers the edge thresholds and adds colour-difference edges, for a white card on a light desk
    whose outline is faint; it also finds more clutter, so it is the second try, not the first. ``nested``: also
    what lies inside another closed outline (a card on a board or a slab whose own outline is closed, and the pips
    inside a card: ``card_regions.top_level`` tells them apart); without it, only the outermost outlines.
    """
    if image is None or image.size == 0 or min(image.shape[:2]) < 16:
        return []
    scale = min(1.0, FIND_SIDE / max(image.shape[:2]))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    gray = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (0, 0), 1.6)
    low, high = (7, 18) if sensitive else (18, 45)
    edges: np.ndarray = cv2.Canny(blur, low, high)
    if small.ndim == 3:  # colour edges too: a white card on a coloured cloth of the same brightness
        # blurred as one three-channel image (the same per channel, and cheaper than two blurs of strided ones)
        lab = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2LAB), (0, 0), 2.0)
        for channel in (1, 2):
            chroma = np.ascontiguousarray(lab[:, :, channel])
            edges |= cv2.Canny(chroma, low * 0.5, high * 0.5) if sensitive else cv2.Canny(chroma, 12, 30)
    if mask is not None:
        m = cv2.resize(mask, (edges.shape[1], edges.shape[0]), interpolation=cv2.INTER_NEAREST)
        edges[m == 0] = 0
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8), iterations=2)
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    if nested:  # two levels: every outer boundary (top level, wherever it lies) and the holes inside them
        contours, hierarchy = cv2.findContours(edges, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        contours = [c for c, h in zip(contours, hierarchy[0] if hierarchy is not None else [], strict=True)
                    if h[3] < 0]
    else:
        contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    total = float(small.shape[0] * small.shape[1])
    regions: list[Region] = []
    for contour in contours:
        hull = cv2.convexHull(contour)
        area = float(cv2.contourArea(hull))
        if area < min_area_frac * total or area > 0.98 * total:
            continue
        rect = cv2.minAreaRect(hull)
        (rw, rh) = rect[1]
        if min(rw, rh) < 12 or area / max(rw * rh, 1.0) < 0.7:
            continue
        approx = cv2.approxPolyDP(hull, 0.03 * cv2.arcLength(hull, True), True)
        quad = approx.reshape(-1, 2) if len(approx) == 4 and cv2.contourArea(approx) > 0.85 * area else None
        if quad is None:
            quad = cv2.boxPoints(rect)
        corners = order_corners(np.asarray(quad, np.float32) / scale)
        # the dilation grew every outline by about 2 px of the searched image: shrink back towards the centre
        centre = corners.mean(axis=0)
        corners = centre + (corners - centre) * (1 - 3.0 / max(min(rw, rh), 1.0))
        regions.append(Region(corners.astype(np.float32), area / (scale * scale),
                              (hull.reshape(-1, 2) / scale).astype(np.float32)))
    regions.sort(key=lambda r: -r.area)
    return regions


def whole_image_region(image: np.ndarray) -> Region:
    """The whole image as one region (an image already cropped to a card)."""
    h, w = image.shape[:2]
    corners = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    return Region(corners, float(w * h))


def rectify(image: np.ndarray, region: Region, quarter_turns: int) -> tuple[np.ndarray, np.ndarray]:
    """The region flattened and turned by ``quarter_turns`` x 90 degrees clockwise, scaled to height CARD_H.

    Returns the upright image and the 3x3 matrix that maps its pixels back to the source image.
    """
    forward, width = rectifying(region, quarter_turns)
    flat = cv2.warpPerspective(image, forward, (width, CARD_H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)
    return flat, np.linalg.inv(forward)


def rectifying(region: Region, quarter_turns: int) -> tuple[np.ndarray, int]:
    """The 3x3 matrix that takes the source image to the region's rectified, turned image, and that image's width
    (its height is ``CARD_H``): what :func:`rectify` warps by."""
    c = np.roll(region.corners, -quarter_turns, axis=0).astype(np.float32)  # c[0] becomes the top-left
    top = float(np.linalg.norm(c[1] - c[0]))
    side = float(np.linalg.norm(c[3] - c[0]))
    width = max(8, min(int(round(CARD_H * top / max(side, 1.0))), 12 * CARD_H))
    target = np.array([[0, 0], [width - 1, 0], [width - 1, CARD_H - 1], [0, CARD_H - 1]], np.float32)
    return cv2.getPerspectiveTransform(c, target), width


def _upright_hull(region: Region) -> tuple[np.ndarray, int, np.ndarray] | None:
    """The region's rectifying transform at turn 0, its width, and its ``hull`` in that upright view; None
    without a hull."""
    if region.hull is None or len(region.hull) < 3:
        return None
    forward, width = rectifying(region, 0)
    return forward, width, cv2.perspectiveTransform(region.hull.reshape(1, -1, 2).astype(np.float32), forward)[0]


def widened_at_the_start(region: Region, least: float, margin: float) -> Region | None:
    """``region`` with its left end (upright at turn 0) moved out past what was found there (its ``hull``), where
    that sticks out more than ``least`` card heights, by ``margin`` card heights more; else None (no hull, or
    nothing sticking out that far)."""
    upright = _upright_hull(region)
    if upright is None:
        return None
    forward, _, hull = upright
    out = -float(hull[:, 0].min())
    if out <= least * CARD_H:
        return None
    left = -(out + margin * CARD_H)
    moved = cv2.perspectiveTransform(np.array([[[left, 0.0], [left, CARD_H - 1.0]]], np.float32),
                                     np.linalg.inv(forward))[0]
    wider = region.corners.astype(np.float32)
    wider[0], wider[3] = moved[0], moved[1]
    return Region(wider, region.area, region.hull)


def raised_at_the_top(region: Region, least: float, margin: float, reach: float) -> Region | None:
    """``region`` with each end of its top side (upright at turn 0) moved up past what was found above it (its
    ``hull``, within ``reach`` card heights of that end: a card's width), where that sticks out more than ``least``
    card heights, by ``margin`` card heights more; else None. The card on top of a fan often lies turned a little,
    its top-left corner, index and all, above the outline's top side."""
    upright = _upright_hull(region)
    if upright is None:
        return None
    forward, width, hull = upright
    span = min(reach * CARD_H, width / 2)
    ends = []
    for near in (hull[:, 0] <= span, hull[:, 0] >= width - span):
        out = -float(hull[near, 1].min()) if near.any() else 0.0
        ends.append(out + margin * CARD_H if out > least * CARD_H else 0.0)
    if not any(ends):
        return None
    tops = np.array([[[0.0, -ends[0]], [width - 1.0, -ends[1]]]], np.float32)
    moved = cv2.perspectiveTransform(tops, np.linalg.inv(forward))[0]
    raised = region.corners.astype(np.float32)
    raised[0], raised[1] = moved[0], moved[1]
    return Region(raised, region.area, region.hull)


def map_box(inverse: np.ndarray, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Map a box of a rectified image back to an axis-aligned box of the source image."""
    x, y, w, h = box
    pts = np.array([[[x, y], [x + w, y], [x + w, y + h], [x, y + h]]], np.float32)
    back = cv2.perspectiveTransform(pts, inverse)[0]
    x0, y0 = back.min(axis=0)
    x1, y1 = back.max(axis=0)
    return int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0))


def box_intersection(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """Area shared by two axis-aligned boxes (x, y, w, h): the one measure the overlap tests of regions build on."""
    w = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h


def box_iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two boxes: the same thing found twice."""
    shared = box_intersection(a, b)
    return shared / max(a[2] * a[3] + b[2] * b[3] - shared, 1)


def box_overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over the smaller box: one box mostly inside the other, whatever their sizes."""
    return box_intersection(a, b) / max(min(a[2] * a[3], b[2] * b[3]), 1)


def clear_of_edges(box: tuple[int, int, int, int], shape: tuple[int, ...]) -> bool:
    """Whether a box lies wholly inside an image of ``shape``, a pixel clear of its edges: a thing in full view,
    not one the photo cuts (a card's corner in a photo cropped to it, the desk of a close-up)."""
    x, y, w, h = box
    return x > 1 and y > 1 and x + w < shape[1] - 1 and y + h < shape[0] - 1
