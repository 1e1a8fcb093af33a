"""Where a corner index may start, and the picture of each such place that the index network reads.

An upright region (one card or a fan, ``CARD_H`` pixels high) is searched for ink components of glyph size in
its top band; each is a *proposal*: "an index whose first glyph is this component may start here". No rule
pairs glyphs: the network (``vision.network``) sees a square window around the component, larger than any
index layout needs (suit below or beside the rank, "10" in one glyph or two, JOKER letters, 大王 text), and says
which card's index starts there, or that none does (a pip, a picture, the second glyph of an index, an index
lying sideways). The window is scaled by the component's height, so small and jumbo indices look alike.
"""

from __future__ import annotations

from typing import overload

import cv2
import numpy as np

from ..components import connected_components
from ..geometry import CARD_H
from ..index import Glyph

#: side of the square picture the network reads
CROP = 32
#: the window around a component of height h: from (x - PAD h, y - PAD h), SIDE h on each side
PAD = 0.35
SIDE = 2.5
#: a proposal's first glyph lies in the top of the upright region and has index size
MAX_TOP = 0.16
MIN_H, MAX_H, MAX_W = 0.035, 0.22, 0.2


#: the ink components of a mask: OpenCV's label image and its per-label (x, y, w, h, area) rows
Components = tuple[np.ndarray, np.ndarray]


def components(mask: np.ndarray) -> Components:
    """The 8-connected ink components of ``mask`` (shared by :func:`propose` and :func:`anchored`)."""
    _, labels, stats, _ = connected_components(mask)
    return labels, stats


def propose(mask: np.ndarray, height: int = CARD_H, max_top: float = MAX_TOP, found: Components | None = None
            ) -> list[Glyph]:
    """Ink components of ``mask`` (an upright region's top band) that may be an index's first glyph.

    ``max_top`` (in card heights) bounds how low a proposal may start; training takes the whole card
    (``max_top=1``) so that the network learns what a pip or a picture in the middle of a card is not.
    ``found``: the mask's :func:`components`, when already known."""
    labels, stats = found if found is not None else components(mask)
    xs, ys, ws, hs, areas = stats[1:].T
    sized = _all_glyph_sized(xs, ys, ws, hs, areas, height, max_top)
    # a band holds hundreds of specks: only components that are glyphs, or too large for one, are looked at
    large = ~sized & ((hs > MAX_H * height) | (ws > MAX_W * height)) & (ys <= MAX_TOP * height)
    out: list[Glyph] = []
    for i in np.flatnonzero(sized | large) + 1:
        x, y, w, h, _ = (int(v) for v in stats[i])
        if sized[i - 1]:
            out.append(Glyph(x, y, w, h))
            if h >= 2 * MIN_H * height and y <= MAX_TOP * height:
                out.extend(_stacked_cores(labels[y: y + h, x: x + w] == i, x, y, height))
        else:
            out.extend(_split_from_lines(labels[y: y + h, x: x + w] == i, x, y, height))
    return out + _joined_fragments(mask, out, height, max_top)


#: pieces of one glyph at most this far apart (pixels of the upright region, diagonally too) are joined
FRAGMENT_GAP = 2


def _joined_fragments(mask: np.ndarray, found: list[Glyph], height: int, max_top: float) -> list[Glyph]:
    """Glyphs whose strokes the ink mask broke into pieces (a thin or pale type face, blur): the mask's pieces
    up to ``FRAGMENT_GAP`` pixels apart taken together, where that makes a glyph-sized box not already proposed
    holding at most one proposed glyph.
    Without them a "5" whose curve lost a stroke is proposed by its upper half alone, and the window, scaled by
    that height, is read as another card."""
    grow = FRAGMENT_GAP // 2 + 1
    grown = cv2.dilate(mask, np.ones((2 * grow - 1, 2 * grow - 1), np.uint8))
    n, labels, stats, _ = connected_components(grown)
    ink = np.bincount(labels[mask > 0], minlength=n)
    # the grown boxes less the growth: the boxes of the pieces themselves, give or take a pixel
    boxes = stats[1:, :4] + np.array([grow - 1, grow - 1, -2 * (grow - 1), -2 * (grow - 1)])
    bx, by, bw, bh = boxes.T
    sized = _all_glyph_sized(bx, by, bw, bh, ink[1:], height, max_top)
    out: list[Glyph] = []
    for i in np.flatnonzero(sized):
        glyph = Glyph(*(int(v) for v in boxes[i]))
        if any(_inside(glyph, g) for g in found):
            continue
        # glyphs standing close (a rank and its suit beside it, a "10") are proposed one by one already: only a
        # glyph with pieces too small to be glyphs themselves is proposed whole
        if sum(_inside(g, glyph) for g in found) <= 1:
            out.append(glyph)
    return out


def _inside(a: Glyph, b: Glyph, slack: int = 1) -> bool:
    """Whether box ``a`` lies within box ``b`` (give or take ``slack`` pixels): bridging added nothing."""
    return a.x >= b.x - slack and a.y >= b.y - slack and a.x + a.w <= b.x + b.w + slack \
        and a.y + a.h <= b.y + b.h + slack


#: a frame line is thinner than this (pixels of the upright region; an index's strokes are thicker) ...
LINE_THICKNESS = 5
#: ... and runs straight for longer than this share of the card height (an index's strokes are shorter)
LINE_LENGTH = 0.12


def _thick_strokes(ink: np.ndarray) -> np.ndarray:
    """The ink of strokes at least ``LINE_THICKNESS`` thick: an index's cores, without frame lines and slivers."""
    return cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((LINE_THICKNESS, LINE_THICKNESS), np.uint8))


def _split_from_lines(component: np.ndarray, x0: int, y0: int, height: int) -> list[Glyph]:
    """Glyph-sized parts of an ink component too large for a glyph, once thin lines are taken out of it: an
    index touching the frame line of a court card's picture, or the edge of the card over it, is otherwise
    proposed nowhere (the card is seen but not read). Long thin straight lines go first; a part still too large
    (an index's rank and suit joined by a short piece of frame) is split into its thick cores."""
    ink = component.astype(np.uint8)
    thick = _thick_strokes(ink)
    thin = ink & (1 - thick)
    run = max(8, int(LINE_LENGTH * height))
    across: np.ndarray = cv2.morphologyEx(thin, cv2.MORPH_OPEN, np.ones((1, run), np.uint8))
    down: np.ndarray = cv2.morphologyEx(thin, cv2.MORPH_OPEN, np.ones((run, 1), np.uint8))
    lines = across | down
    near_lines: np.ndarray = cv2.dilate(lines, np.ones((3, 3), np.uint8))
    rest = ink & (1 - near_lines)
    out: list[Glyph] = []
    n, labels, stats, _ = connected_components(rest)
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if h > MAX_H * height or w > MAX_W * height:
            # the thick cores of the part, each grown back by half a line's thickness (what the opening took)
            cores = thick[y: y + h, x: x + w] & (labels[y: y + h, x: x + w] == i)
            m, _, core_stats, _ = connected_components(cores.astype(np.uint8))
            grow = LINE_THICKNESS // 2
            for j in range(1, m):
                cx, cy, cw, ch, core_area = (int(v) for v in core_stats[j])
                glyph = Glyph(x0 + x + cx - grow, y0 + y + cy - grow, cw + 2 * grow, ch + 2 * grow)
                if _glyph_sized(glyph, core_area, height):
                    out.append(glyph)
            continue
        glyph = Glyph(x0 + x, y0 + y, w, h)
        if _glyph_sized(glyph, area, height):
            out.append(glyph)
    return out


def _stacked_cores(component: np.ndarray, x0: int, y0: int, height: int) -> list[Glyph]:
    """The upper and lower parts of a glyph-sized ink component whose thick cores include two glyph-sized ones
    standing one above the other, cut at the row with least ink between them, when both parts are glyph-sized:
    a rank and its suit joined by a thin sliver (a piece of the card's inner frame line beside them) make one
    component as tall as both, whose window, scaled by that height, reads neither. Each part keeps its thin
    strokes (its box is the ink's). One part alone is not proposed: cut from a single glyph (a sideways "8" in
    a real photo), it was read as a card surely and wrongly."""
    ink = component.astype(np.uint8)
    n, _, stats, _ = connected_components(_thick_strokes(ink))
    if n < 3:
        return []
    tall = [(int(s[1]), int(s[1] + s[3])) for s in stats[1:] if s[3] + LINE_THICKNESS >= MIN_H * height]
    gaps = [(top_end, low_start) for _, top_end in tall for low_start, _ in tall if low_start > top_end]
    if not gaps:
        return []
    top_end, low_start = min(gaps, key=lambda g: g[1] - g[0])
    rows = ink[top_end: low_start].sum(axis=1)
    cut = top_end + int(np.argmin(rows))
    out: list[Glyph] = []
    for part, offset in ((ink[:cut], 0), (ink[cut + 1:], cut + 1)):
        ys, xs = np.nonzero(part)
        if len(ys) == 0:
            continue
        glyph = Glyph(x0 + int(xs.min()), y0 + offset + int(ys.min()), int(xs.max() - xs.min()) + 1,
                      int(ys.max() - ys.min()) + 1)
        if _glyph_sized(glyph, len(ys), height):
            out.append(glyph)
    return out if len(out) == 2 else []  # a rank and a suit, or not what this is for


def _glyph_sized(glyph: Glyph, area: int, height: int, max_top: float = MAX_TOP) -> bool:
    """Whether an ink component of this box and area may be an index's first glyph (see :func:`propose`)."""
    return bool(_all_glyph_sized(glyph.x, glyph.y, glyph.w, glyph.h, area, height, max_top))


@overload
def _all_glyph_sized(x: np.ndarray, y: np.ndarray, w: np.ndarray, h: np.ndarray, area: np.ndarray, height: int,
                     max_top: float = MAX_TOP) -> np.ndarray: ...
@overload
def _all_glyph_sized(x: int, y: int, w: int, h: int, area: int, height: int, max_top: float = MAX_TOP) -> bool: ...
def _all_glyph_sized(x: np.ndarray | int, y: np.ndarray | int, w: np.ndarray | int, h: np.ndarray | int,
                     area: np.ndarray | int, height: int, max_top: float = MAX_TOP) -> np.ndarray | bool:
    """:func:`_glyph_sized` of many components at once (arrays of their boxes and areas), or of one."""
    return (area >= 10) & (w >= 2) & (MIN_H * height <= h) & (h <= MAX_H * height) & (w <= MAX_W * height) \
        & (area >= 0.08 * w * h) & (y <= max_top * height)


#: a component at least this many times taller or wider than the glyphs read surely in its region holds more than
#: a first glyph (:func:`anchored`)
OVERSIZED = 1.4
#: the anchored glyph's width, in glyph heights, over which its top ink is looked for
ANCHOR_WIDTH = 0.8


def anchored(found: Components, glyph_h: float, height: int = CARD_H, max_top: float = MAX_TOP) -> list[Glyph]:
    """A glyph of the region's own index size (``glyph_h``, the height of the first glyphs read surely there) at
    the top-left ink of each ink component too large for one: an index whose rank touches the card's art (a
    circle or a picture beside it), or whose rank and suit the blur joined, makes one component that
    :func:`propose` cannot split into a glyph (its strokes are thinner than a frame line's test) or proposes
    whole, twice too tall, and the window scaled by that height reads no card: a card seen whole, its index
    clear, left out of a fan (CK DK CK DK SK taken without a DK). Where an index starts is its component's
    leftmost ink and the top of the ink within a glyph's width of it. ``found``: the :func:`components` of the
    region's ink mask."""
    if glyph_h <= 0:
        return []
    labels, stats = found
    xs, ys, ws, hs, areas = stats[1:].T
    oversized = ((hs > OVERSIZED * glyph_h) | (ws > OVERSIZED * glyph_h)) & (areas >= 10) & (ys <= max_top * height)
    out: list[Glyph] = []
    h = max(2, round(glyph_h))
    span = max(2, round(ANCHOR_WIDTH * glyph_h))
    for i in np.flatnonzero(oversized) + 1:
        x, y, w, ch, area = (int(v) for v in stats[i])
        cols = labels[y: y + ch, x: x + span] == i
        rows = np.flatnonzero(cols.any(axis=1))
        top = y + int(rows[0])
        inked = np.flatnonzero((labels[top: top + h, x: x + span] == i).any(axis=0))
        glyph = Glyph(x, top, int(inked[-1]) + 1 if inked.size else span, h)
        if top <= max_top * height and _glyph_sized(glyph, max(area, 10), height, max_top):
            out.append(glyph)
    return out


def window(glyph: Glyph) -> tuple[float, float, float]:
    """(x, y, side) of the square window read for ``glyph``, in the upright region's pixels."""
    return glyph.x - PAD * glyph.h, glyph.y - PAD * glyph.h, SIDE * glyph.h


def crops(image: np.ndarray, glyphs: list[Glyph]) -> np.ndarray:
    """The windows of ``glyphs`` in ``image`` (BGR), each ``CROP`` x ``CROP``, as uint8 (N, CROP, CROP, 3)."""
    out = np.empty((len(glyphs), CROP, CROP, 3), np.uint8)
    for i, glyph in enumerate(glyphs):
        x, y, side = window(glyph)
        scale = CROP / side
        matrix = np.array([[scale, 0, -x * scale], [0, scale, -y * scale]], np.float32)
        flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        out[i] = cv2.warpAffine(image, matrix, (CROP, CROP), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return out


#: the brightness taken for a crop's paper: this percentile of its brightest channel
PAPER_PERCENTILE = 90


def normalise(batch: np.ndarray) -> np.ndarray:
    """uint8 crops to the network's input (N, 3, CROP, CROP) float32: paper near 1, ink below, less 0.5.

    Each crop is divided by its own paper level (a high percentile of its brightest channel), so dim light,
    glare and colour casts of the hall matter less than the shapes and the ink's hue.
    """
    n = len(batch)
    if n == 0:
        return np.zeros((0, 3, *batch.shape[1:3]), np.float32)
    # the 90th percentile of each crop's brightest channel, as np.percentile interpolates it (written out with
    # np.partition: the table reads a few hundred crops a frame, and percentile's sort was a tenth of the frame)
    brightest = np.maximum(np.maximum(batch[..., 0], batch[..., 1]), batch[..., 2]).reshape(n, -1)
    at = PAPER_PERCENTILE / 100 * (brightest.shape[1] - 1)
    low = int(at)
    high = min(low + 1, brightest.shape[1] - 1)
    ranked = np.partition(brightest, (low, high), axis=1)
    paper = (ranked[:, low] + (at - low) * (ranked[:, high].astype(np.float64) - ranked[:, low])) / 255.0
    scale = (1.0 / 255.0 / np.maximum(paper, 0.1)).astype(np.float32)
    x = batch.transpose(0, 3, 1, 2).astype(np.float32, order="C")
    x *= scale[:, None, None, None]
    np.clip(x, 0.0, 1.5, out=x)
    x -= 0.5
    return x
