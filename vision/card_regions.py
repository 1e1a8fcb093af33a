"""Which regions of a photo are cards: the card-shaped test, regions not inside a bigger one, a second look with
fainter edges, and the one card of a single-card photo. Shared by both card readers (``vision/reader.py``, the
glyph reader; ``vision/net/reader.py``, the learned one), which differ only in how they read a region."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import cv2
import numpy as np

from .geometry import Region, box_iou, clear_of_edges, find_regions, order_corners, whole_image_region
from .polarity import DARK_PAPER


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


#: a region that is not card-shaped and covers at least this share of the image is a surface the cards lie on (a
#: board, a tray, a slab of stone), not a card: what lies inside it are cards, not its pips
SURFACE_SHARE = 0.6
#: a region at least this share of the image is a card (or cards) of a scene, not a pip or an index of a card the
#: image is cropped to; lying on a surface, card-shaped or not, since a photo squashed square (cardcounter's) makes a
#: card nearly square
SCENE_CARD_SHARE = 0.02
#: a card-shaped region at least this share of the image is a card the first look found: where none is, the regions are
#: looked for again with fainter edges
CARD_SIZED_SHARE = 0.03


def top_level(regions: list[Region], image_area: float | None = None) -> list[Region]:
    """Regions not lying inside a bigger one (pips and picture frames inside a card). Given the image's area, a
    region of a card's size lying on a surface (``SURFACE_SHARE``) is kept: a card on a dark slab was hidden inside
    the slab's outline and read by spotting alone."""
    def hides(outer: Region, inner: Region) -> bool:
        if outer is inner or outer.area <= inner.area or not _inside(inner, outer):
            return False
        return not (image_area and outer.area >= SURFACE_SHARE * image_area and not is_card_shaped(outer)
                    and inner.area >= SCENE_CARD_SHARE * image_area)
    return [r for r in regions if not any(hides(o, r) for o in regions)]


def card_regions(image: np.ndarray, nested: bool = False) -> list[Region]:
    """Regions by edges; when no card-sized card-shaped one shows, once more with fainter edges. ``nested``: also
    the regions inside another's closed outline (``geometry.find_regions``), for ``top_level`` with the image's
    area to keep the cards lying on a surface."""
    regions = find_regions(image, nested=nested)
    total = float(image.shape[0] * image.shape[1])
    if not any(r.area >= CARD_SIZED_SHARE * total and is_card_shaped(r) for r in top_level(regions, total if nested else None)):
        fainter = find_regions(image, sensitive=True, nested=nested)
        if nested:  # the first look's card-sized regions stay: a card in a photo squashed square is not card-shaped
            fainter = sorted(fainter + [r for r in regions if r.area >= CARD_SIZED_SHARE * total], key=lambda r: -r.area)
        regions = fainter or regions
    return regions


def cards_on_surfaces(image: np.ndarray) -> list[Region]:
    """The regions of a photo that may be cards, largest first: the outlines found by edges, inner ones too, less
    what lies inside a bigger one unless it lies on a surface (``top_level``): a card on a mat, a board or a slab
    whose outline closes round it is found, the pips inside a card are not. What the free-standing reader and
    enrolment look at; the table knows where its cards lie."""
    return top_level(card_regions(image, nested=True), float(image.shape[0] * image.shape[1]))


#: a dark blob is a card or a few overlapping cards: between these shares of the image, and filling at least
#: ``DARK_FILL`` of its turned bounding box (a keyboard, a laptop or a shadow is bigger or ragged)
DARK_AREA = (0.004, 0.25)
DARK_FILL = 0.6
#: a larger dark blob, up to this share, is one dark card photographed close if it is compact (its turned box at
#: least ``CLOSE_DARK_ASPECT`` as wide as long: a card, or one foreshortened or squashed by a photo's resizing)
#: and clear of the photo's edges (a keyboard or a laptop across the photo is neither): close-ups of single dark
#: cards fill 27-47 % of cardcounter's photos, squashed nearly square by the set's resizing
CLOSE_DARK_CARD = 0.6
CLOSE_DARK_ASPECT = 0.5


def dark_regions(image: np.ndarray) -> list[Region]:
    """Cards printed light on dark, found as dark paper: blobs darker than ``polarity.DARK_PAPER``. On a light
    desk their edges are strong, but the edge search merges them with whatever else is dark and near (a
    keyboard); this finds them alone. Largest first."""
    if image is None or image.ndim != 3 or min(image.shape[:2]) < 40:
        return []
    h, w = image.shape[:2]
    dark = (image.max(axis=2) < DARK_PAPER).astype(np.uint8)
    # the light ink inside a dark card is a hole in the blob, which its outer contour ignores; an opening cuts the
    # thin dark links (shadows, a card's edge) that join a card to a keyboard or to the dark edge of the photo
    k = max(3, min(h, w) // 80) | 1
    dark = cv2.morphologyEx(dark, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    total = float(h * w)
    out: list[Region] = []
    for contour in contours:
        area = float(cv2.contourArea(contour))
        if not DARK_AREA[0] * total <= area <= CLOSE_DARK_CARD * total:
            continue
        rect = cv2.minAreaRect(contour)
        if area < DARK_FILL * rect[1][0] * rect[1][1]:
            continue
        if area > DARK_AREA[1] * total and not _close_dark_card(rect, contour, w, h):
            continue
        out.append(Region(order_corners(cv2.boxPoints(rect)), area))
    return sorted(out, key=lambda r: -r.area)


def _close_dark_card(rect: tuple[Sequence[float], Sequence[float], float], contour: np.ndarray, width: int,
                     height: int) -> bool:
    """A large dark blob (its turned box ``rect``) is one dark card photographed close: compact and clear of the
    photo's edges (see ``CLOSE_DARK_CARD``)."""
    sides = rect[1]
    x, y, bw, bh = cv2.boundingRect(contour)
    clear = x > 0 and y > 0 and x + bw < width and y + bh < height
    return clear and min(sides) >= CLOSE_DARK_ASPECT * max(max(sides), 1e-6)


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


def paper_regions(image: np.ndarray) -> list[Region]:
    """The faces as paper apart from the cloth (Otsu's threshold of the grey image): where cards lie a few
    millimetres apart the edge finder's dilation closes the gaps and merges neighbours, a threshold does not. A
    light deck is the brighter side of the threshold on a darker cloth; a dark deck (printed light on black) is the
    darker side on a lighter cloth, so both sides are looked at (the cloth and the ink are not card-shaped)."""
    bright = _bright_papers(image)[0]  # (the second threshold costs a few ms on a spread photo, once)
    return _faces(bright) + _faces(cv2.bitwise_not(bright))


#: the least change (grey levels, after a light blur) that counts as something laid on the table: over a frame's
#: sensor noise (five times the median change, the cloth's, where that is more)
CHANGE_FLOOR = 8.0


def changed_regions(image: np.ndarray, empty: np.ndarray) -> list[Region]:
    """What lies on the table in ``image`` and not in ``empty``, a photo of the same table empty from the same
    camera: cards told from the cloth by what changed, however alike their paper and the cloth are (a light deck
    on a light cloth, whose edges are all the other finders have). ``ValueError`` when the two photos differ in
    size."""
    if image.shape != empty.shape:
        raise ValueError(f"the empty table's photo is {empty.shape[1]}x{empty.shape[0]}, this one "
                         f"{image.shape[1]}x{image.shape[0]}: take both with the same camera")
    now = cv2.GaussianBlur(image, (0, 0), 1.5).astype(np.float32)
    before = cv2.GaussianBlur(empty, (0, 0), 1.5).astype(np.float32)
    # the exposure moves a little from frame to frame (and an automatic one with what is laid): the cloth, most of
    # the picture, tells by how much
    gain = float(np.median(now.sum(axis=2) / np.maximum(before.sum(axis=2), 1.0)))
    change = np.abs(now / max(gain, 1e-3) - before).max(axis=2).clip(0, 255).astype(np.uint8)
    # the cloth, most of the picture, is the noise: a face's paper stands far over it, and a threshold between
    # paper and ink (Otsu's) would keep only the ink
    level = max(CHANGE_FLOOR, 5.0 * float(np.median(change)))
    return _faces(np.where(change > level, 255, 0).astype(np.uint8))


def _bright_papers(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The brighter side of Otsu's threshold of the grey image, and the brighter side of Otsu's threshold of the
    pixels brighter than that: paper apart from the light parts of a surface too (255 there)."""
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (0, 0), 1.5)  # print and grain split no face
    first, bright = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    brighter = gray[gray > first]
    if brighter.size < 2:
        return bright, np.zeros_like(gray)
    second = cv2.threshold(brighter.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[0]
    return bright, np.where(gray > second, 255, 0).astype(np.uint8)


def _faces(mask: np.ndarray) -> list[Region]:
    """The outer shapes of ``mask``'s blobs (faces, with the ink inside them closed), as regions."""
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))  # ink inside a face
    mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for contour in contours:
        hull = cv2.convexHull(contour)
        area = float(cv2.contourArea(hull))
        if area < 100:
            continue
        out.append(Region(order_corners(cv2.boxPoints(cv2.minAreaRect(hull))), area))
    return out


#: a single card found as paper: between these shares of the photo, filling this much of its turned box (two cards
#: touching, or a card and the glare beside it, do not), and clear of the photo's edges (the desk of a close-up)
PAPER_CARD_AREA = (0.004, 0.6)
PAPER_CARD_FILL = 0.85
#: and as long for its width as a card in a photo: two overlapping cards make a blob nearly square (0.83 on a real
#: photo), which ``is_card_shaped`` allows for cards seen aslant
PAPER_CARD_ASPECT = (0.55, 0.8)
#: a paper card whose box overlaps a region already found by more than this (intersection over union) is that region
SAME_REGION = 0.7


def paper_cards(image: np.ndarray, known: list[Region]) -> list[Region]:
    """Single cards as bright paper on a darker surface that no region of ``known`` already is. Where a card's edge
    runs into a shadow or the grain of a table, the edge finder takes them in with the card or loses it (four
    cards on a carpet: it found one of them). The paper is looked for at two thresholds: Otsu's, and Otsu's of what
    is brighter than that (light streaks of a wooden table join cards lying apart at the first, not at the second)."""
    total = float(image.shape[0] * image.shape[1])
    out: list[Region] = []
    bright, brightest = _bright_papers(image)
    for region in _faces(bright) + _faces(brightest):
        c = region.corners
        across, along = sorted((float(np.linalg.norm(c[1] - c[0])), float(np.linalg.norm(c[3] - c[0]))))
        if PAPER_CARD_AREA[0] * total <= region.area <= PAPER_CARD_AREA[1] * total \
                and PAPER_CARD_ASPECT[0] <= across / max(along, 1e-6) <= PAPER_CARD_ASPECT[1] \
                and region.area >= PAPER_CARD_FILL * across * along \
                and clear_of_edges(region.box, image.shape) \
                and not any(box_iou(region.box, k.box) > SAME_REGION for k in known + out):
            out.append(region)
    return out


def _inside(inner: Region, outer: Region) -> bool:
    contour = outer.corners.reshape(-1, 1, 2)
    centre = inner.corners.mean(axis=0)
    return cv2.pointPolygonTest(contour, (float(centre[0]), float(centre[1])), False) > 0
