"""Spotting corner indices anywhere, in any orientation: for hands fanned in an arc, where no one box fits.

Every ink component of glyph size is tried as a rank glyph paired with a neighbour as its suit pip; the pair's
direction says which way is down on that card. The pair is turned upright and scaled so that the glyph has
the size the classifiers were trained on, then read like an index of a rectified card. Readings keep the
surest use of each component. Slower than the rectified reader (many pairs), so it is the free-standing
reader's second opinion on fans, not the table reader's path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .components import connected_components
from .geometry import CARD_H
from .index import Glyph, IndexCandidate, ink_mask_k

#: Rank glyph height in the normalised patch (about a tenth of the canonical card height, as in training).
TARGET_H = 0.1 * CARD_H


Classify = Callable[[Sequence[IndexCandidate], np.ndarray, np.ndarray], list[tuple[str, float, IndexCandidate]]]


@dataclass(frozen=True)
class GlyphPairs:
    """The ink components of glyph size in an image and the pairs of them that could be a rank and its suit
    (near each other, of like size): where both readers look for indices."""

    mask: np.ndarray
    redness: np.ndarray
    #: per component: x, y, w, h, area (``cv2.connectedComponentsWithStats``); its centre; its larger side
    stats: np.ndarray
    centroids: np.ndarray
    sizes: np.ndarray
    pairs: list[tuple[int, int]]


#: the largest glyph looked for, as a share of the image's longer side (a phone photo of a hand or a spread)
MAX_GLYPH_SHARE = 1 / 12


def glyph_pairs(image: np.ndarray, min_glyph: int = 8, max_share: float = MAX_GLYPH_SHARE) -> GlyphPairs:
    """Components between ``min_glyph`` and ``max_share`` of the image, solid enough to be print, and each one's
    neighbours at 0.55 to 1.7 of its size whose size is within 0.4 to 1.6 of its own, in component order."""
    h, w = image.shape[:2]
    # the ink's neighbourhood grows with the largest glyph looked for (a twelfth of the image: 1/45 of it)
    k = max(9, int(max(h, w) * max_share * 12 / 45) | 1)
    mask, redness = ink_mask_k(image, k)
    _, _, stats, centroids = connected_components(mask)
    max_glyph = max(min_glyph + 1, int(max(h, w) * max_share))
    sizes = np.maximum(stats[:, 2], stats[:, 3]).astype(np.float32)
    ok = (sizes >= min_glyph) & (sizes <= max_glyph) & (stats[:, 4] >= 0.12 * stats[:, 2] * stats[:, 3])
    ok[0] = False
    idx = np.flatnonzero(ok)
    pairs: list[tuple[int, int]] = []
    if len(idx) >= 2:
        pts = centroids[idx]
        for a_pos, a in enumerate(idx):
            d = np.linalg.norm(pts - pts[a_pos], axis=1)
            for b_pos in np.flatnonzero((d > 0.55 * sizes[a]) & (d < 1.7 * sizes[a])):
                b = idx[b_pos]
                if 0.4 * sizes[a] <= sizes[b] <= 1.6 * sizes[a]:
                    pairs.append((int(a), int(b)))
    return GlyphPairs(mask, redness, stats, centroids, sizes, pairs)


def spot(image: np.ndarray, classify: Classify, min_glyph: int = 8,
         max_pairs: int = 1500) -> list[tuple[str, float, tuple[int, int, int, int]]]:
    """(code, confidence, box in ``image``) for every index spotted in ``image`` (BGR).

    ``classify(candidates, mask, redness)`` is the reader's index classifier (``CardReader._classify``).
    """
    g = glyph_pairs(image, min_glyph)
    mask, redness, stats, centroids, sizes = g.mask, g.redness, g.stats, g.centroids, g.sizes
    pairs = g.pairs[:max_pairs]
    found: list[tuple[str, float, tuple[int, int, int, int], int, int]] = []
    for a, b in pairs:
        upright = _upright(mask, redness, centroids[a], centroids[b], float(stats[a, 3]), float(sizes[a]))
        if upright is None:
            continue
        patch_mask, patch_red, cand = upright
        for code, conf, _ in classify([cand], patch_mask, patch_red):
            x0 = int(min(stats[a, 0], stats[b, 0]))
            y0 = int(min(stats[a, 1], stats[b, 1]))
            x1 = int(max(stats[a, 0] + stats[a, 2], stats[b, 0] + stats[b, 2]))
            y1 = int(max(stats[a, 1] + stats[a, 3], stats[b, 1] + stats[b, 3]))
            found.append((code, conf, (x0, y0, x1 - x0, y1 - y0), a, b))
    used: set[int] = set()
    out: list[tuple[str, float, tuple[int, int, int, int]]] = []
    for code, conf, box, a, b in sorted(found, key=lambda f: -f[1]):
        if a in used or b in used:
            continue
        used.update((a, b))
        out.append((code, conf, box))
    return out


def _upright(mask: np.ndarray, redness: np.ndarray, a: np.ndarray, b: np.ndarray, a_h: float,
             a_size: float) -> tuple[np.ndarray, np.ndarray, IndexCandidate] | None:
    """The pair turned so that b lies below a, scaled to the training glyph size; None if it falls apart."""
    v = b - a
    angle = float(np.degrees(np.arctan2(v[1], v[0]))) - 90.0
    glyph_h = max(a_h if abs(angle) < 30 else a_size, 4.0)
    scale = TARGET_H / glyph_h
    side = int(4 * TARGET_H)
    mid = (a + b) / 2
    matrix = cv2.getRotationMatrix2D((float(mid[0]), float(mid[1])), angle, scale)
    matrix[:, 2] += np.array([side / 2 - mid[0], side / 2 - mid[1]])
    patch_mask = cv2.warpAffine(mask, matrix, (side, side), flags=cv2.INTER_NEAREST)
    patch_red = cv2.warpAffine(redness.astype(np.float32), matrix, (side, side), flags=cv2.INTER_LINEAR)
    pa = matrix @ np.array([a[0], a[1], 1.0])
    pb = matrix @ np.array([b[0], b[1], 1.0])
    n, labels, stats, _ = connected_components(patch_mask)

    def glyph_at(p: np.ndarray) -> Glyph | None:
        x, y = int(round(p[0])), int(round(p[1]))
        if not (0 <= x < side and 0 <= y < side):
            return None
        label = labels[y, x]
        if label == 0:  # the centroid of a ring-shaped glyph (0, A) can fall on paper: take the nearest ink
            window = labels[max(0, y - 3): y + 4, max(0, x - 3): x + 4]
            values = window[window > 0]
            if values.size == 0:
                return None
            label = int(np.bincount(values).argmax())
        gx, gy, gw, gh, _ = (int(v) for v in stats[label])
        return Glyph(gx, gy, gw, gh)

    rank, suit = glyph_at(pa), glyph_at(pb)
    if rank is None or suit is None or rank == suit or suit.y < rank.bottom - 0.3 * rank.h:
        return None
    return patch_mask, patch_red.astype(np.int16), IndexCandidate(rank, suit, 0)
