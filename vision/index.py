"""Finding corner indices (rank glyph above suit pip) in an upright rectified region, and glyph features.

The region is one card or a fan of overlapping cards, upright, ``CARD_H`` pixels high. Ink is what is clearly
darker than the local card background or strongly coloured (red ink), measured against a background estimated
by a grey-level closing, so shadows, glare and light cloth do not matter. Glyphs are the connected ink
components of index size in the top band; a rank glyph pairs with the suit pip right below it. Features are
scale- and deck-independent: each glyph is cropped to its box, padded to a fixed aspect and described by a
coarse pixel grid plus gradient-orientation histograms (a small HOG computed with numpy).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .components import connected_components
from .geometry import CARD_H

GLYPH_W, GLYPH_H = 20, 28
BAND = 0.45  # indices lie in the top 45 % of the card height


@dataclass(frozen=True)
class Glyph:
    x: int
    y: int
    w: int
    h: int

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def bottom(self) -> int:
        return self.y + self.h

    def union(self, other: Glyph) -> Glyph:
        x0, y0 = min(self.x, other.x), min(self.y, other.y)
        x1, y1 = max(self.x + self.w, other.x + other.w), max(self.bottom, other.bottom)
        return Glyph(x0, y0, x1 - x0, y1 - y0)


@dataclass(frozen=True)
class IndexCandidate:
    """A rank glyph, the suit glyph below it, and the glyphs stacked further below (JOKER letters)."""

    rank: Glyph
    suit: Glyph
    stack: int


#: how much darker than its paper ink must be: at least ``INK_FLOOR`` grey levels and 1 / ``INK_CONTRAST`` of the
#: paper's brightness; a faint look (a second look at a card nothing was read on) asks for less, to find pale
#: thin print (a light grey italic "Q" fades below the usual contrast)
INK_FLOOR, INK_CONTRAST = 28, 4
FAINT_INK_FLOOR, FAINT_INK_CONTRAST = 20, 6


def ink_mask(band: np.ndarray, faint: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Binary ink mask of an upright card band and its per-pixel redness (red ink minus background); ``faint``:
    fainter ink counts too."""
    floor, contrast = (FAINT_INK_FLOOR, FAINT_INK_CONTRAST) if faint else (INK_FLOOR, INK_CONTRAST)
    mask, redness = ink_mask_k(band, max(9, (CARD_H // 14) | 1), floor, contrast)
    edge = max(2, CARD_H // 75)  # the card's own outline and any sliver of table left by the rectification
    mask[:edge] = 0
    mask[:, :edge] = 0
    mask[:, -edge:] = 0
    return _drop_thin_lines(mask), redness


def _drop_thin_lines(mask: np.ndarray) -> np.ndarray:
    """Remove long ink lines one or two pixels thick: the edges and shadows of overlapping cards in a fan.

    They would otherwise join an index glyph they touch. Only runs that, with their gaps bridged, are longer
    than any glyph go (a fan's card edge, often broken into dashes); thin strokes of a glyph stay.
    """
    thin = mask & (1 - cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
    run = max(8, int(0.035 * CARD_H))
    long_side = 0.12 * CARD_H
    remove = np.zeros_like(mask)
    for kernel, bridge, axis in (((run, 1), (21, 1), 3), ((1, run), (1, 21), 2)):
        lines = cv2.morphologyEx(thin, cv2.MORPH_OPEN, np.ones(kernel, np.uint8))
        if not lines.any():
            continue
        joined = cv2.morphologyEx(lines, cv2.MORPH_CLOSE, np.ones(bridge, np.uint8))
        _, labels, stats, _ = connected_components(joined)
        is_long = stats[:, axis] >= long_side
        is_long[0] = False  # the background
        if is_long.any():
            remove |= (is_long[labels] & (lines > 0)).astype(np.uint8)
    if not remove.any():
        return mask
    return mask & (1 - cv2.dilate(remove, np.ones((3, 3), np.uint8)))


def ink_mask_k(image: np.ndarray, k: int, floor: int = INK_FLOOR, contrast: int = INK_CONTRAST
               ) -> tuple[np.ndarray, np.ndarray]:
    """Ink: clearly darker than the paper around it (``floor`` grey levels, and 1 / ``contrast`` of the paper's
    brightness), the paper estimated by a ``k``-pixel grey closing."""
    b, g, r = (image[:, :, i].astype(np.int16) for i in range(3))
    dark = np.minimum(np.minimum(b, g), r).astype(np.uint8)
    background = cv2.morphologyEx(dark, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    background = cv2.blur(background, (k, k))
    diff = background.astype(np.int16) - dark.astype(np.int16)
    threshold = np.maximum(floor, background.astype(np.int16) // contrast)
    mask = (diff > threshold).astype(np.uint8)
    mask[background < 70] = 0  # no ink on a dark background: that is cloth, not card
    redness = np.clip(r - np.maximum(g, b), -255, 255)
    return mask, redness


def find_candidates(mask: np.ndarray) -> list[IndexCandidate]:
    """Rank/suit glyph pairs in the top band of an upright region's ink mask, left to right."""
    height = CARD_H
    n, _, stats, _ = connected_components(mask)
    glyphs: list[Glyph] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if area < 10 or h < 0.03 * height or h > 0.22 * height or w > 0.2 * height or w < 2:
            continue
        if area < 0.08 * w * h:
            continue
        glyphs.append(Glyph(x, y, w, h))
    glyphs, parts = _merge_side_by_side(glyphs)
    glyphs.sort(key=lambda g: (g.x, g.y))
    # a suit pip may have been joined to a sliver of the card beside it: its parts are candidates too
    suits = glyphs + [p for g in glyphs for p in parts.get(g, ())]
    out: list[IndexCandidate] = []
    for rank in glyphs:
        if rank.y > 0.22 * height or rank.h < 0.045 * height:
            continue
        best: Glyph | None = None
        for suit in suits:
            if suit is rank or suit.y < rank.bottom - 0.15 * rank.h or suit.y - rank.bottom > 0.9 * rank.h:
                continue
            if abs(suit.cx - rank.cx) > 0.55 * max(rank.w, suit.w, 0.5 * rank.h):
                continue
            if not 0.3 * rank.h <= suit.h <= 1.6 * rank.h or suit.w > 1.6 * rank.h:
                continue
            if best is None or (suit.y, abs(suit.cx - rank.cx)) < (best.y, abs(best.cx - rank.cx)):
                best = suit
        if best is not None:
            out.append(IndexCandidate(rank, best, _stack_below(best, glyphs)))
    return out


def _merge_side_by_side(glyphs: list[Glyph]) -> tuple[list[Glyph], dict[Glyph, list[Glyph]]]:
    """Join glyphs standing side by side at the same height (the 1 and 0 of a 10, a broken stroke).

    Two pips of neighbouring cards in a tight fan can be joined too: ``find_candidates`` then still finds a
    card's suit among the parts. Returns the glyphs and, for each joined one, the glyphs it was joined from.
    """
    glyphs = sorted(glyphs, key=lambda g: g.x)
    merged: list[Glyph] = []
    parts: dict[Glyph, list[Glyph]] = {}
    for g in glyphs:
        for i, m in enumerate(merged):
            overlap = min(m.bottom, g.bottom) - max(m.y, g.y)
            gap = g.x - (m.x + m.w)
            if overlap > 0.75 * min(m.h, g.h) and abs(m.h - g.h) < 0.2 * max(m.h, g.h) \
                    and gap < 0.3 * max(m.h, g.h) and m.union(g).w < 1.7 * max(m.h, g.h):
                joined = m.union(g)
                parts[joined] = parts.pop(m, [m]) + [g]
                merged[i] = joined
                break
        else:
            merged.append(g)
    return merged, parts


def _stack_below(suit: Glyph, glyphs: list[Glyph]) -> int:
    """How many similar glyphs stand in a column under ``suit`` (a joker's vertical J-O-K-E-R)."""
    count, last = 0, suit
    for g in sorted(glyphs, key=lambda g: g.y):
        if g.y <= last.y or g.y - last.bottom > 0.8 * last.h or abs(g.cx - last.cx) > 0.6 * max(g.w, last.w):
            continue
        if 0.6 * suit.h <= g.h <= 1.5 * suit.h:
            count += 1
            last = g
    return count


def glyph_features(mask: np.ndarray, glyph: Glyph) -> np.ndarray:
    """Feature vector of one glyph: aspect, a 10x14 ink grid and an 8-bin, 5x7-cell orientation histogram."""
    pad = 1
    y0, y1 = max(0, glyph.y - pad), min(mask.shape[0], glyph.bottom + pad)
    x0, x1 = max(0, glyph.x - pad), min(mask.shape[1], glyph.x + glyph.w + pad)
    crop = mask[y0:y1, x0:x1].astype(np.float32)
    h, w = crop.shape
    target = GLYPH_W / GLYPH_H
    if w / h < target:  # pad to the fixed aspect, centred
        extra = int(round(h * target - w))
        crop = np.pad(crop, ((0, 0), (extra // 2, extra - extra // 2)))
    else:
        extra = int(round(w / target - h))
        crop = np.pad(crop, ((extra // 2, extra - extra // 2), (0, 0)))
    norm = cv2.resize(crop, (GLYPH_W, GLYPH_H), interpolation=cv2.INTER_AREA)
    grid: np.ndarray = cv2.resize(norm, (10, 14), interpolation=cv2.INTER_AREA).ravel()
    smooth = cv2.GaussianBlur(norm, (3, 3), 0)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.sqrt(gx * gx + gy * gy)
    bins = ((np.arctan2(gy, gx) + np.pi) / (2 * np.pi) * 8).astype(np.int32) % 8
    hog_cells = np.zeros((7, 5, 8), np.float32)
    cy = np.minimum(np.arange(GLYPH_H) // 4, 6)[:, None].repeat(GLYPH_W, 1)
    cx = np.minimum(np.arange(GLYPH_W) // 4, 4)[None, :].repeat(GLYPH_H, 0)
    np.add.at(hog_cells, (cy, cx, bins), magnitude)
    hog = hog_cells.ravel()
    hog /= np.linalg.norm(hog) + 1e-6
    grid /= np.linalg.norm(grid) + 1e-6
    aspect = np.array([np.log(glyph.w / max(glyph.h, 1)), glyph.h / CARD_H * 5], np.float32)
    return np.concatenate([grid, hog, aspect]).astype(np.float32)


FEATURE_SIZE = 140 + 280 + 2


def redness_of(redness: np.ndarray, mask: np.ndarray, glyph: Glyph) -> float:
    """Median redness of a glyph's ink minus that of the paper around it (colour casts cancel out)."""
    ys = slice(glyph.y, glyph.bottom)
    xs = slice(glyph.x, glyph.x + glyph.w)
    ink = mask[ys, xs] > 0
    red = redness[ys, xs]
    if not ink.any():
        return 0.0
    paper = float(np.median(red[~ink])) if (~ink).any() else 0.0
    return float(np.median(red[ink])) - paper
