"""Spotting corner indices anywhere, in any orientation: for hands fanned in an arc, where no one box fits.

Every ink component of glyph size, with each neighbour that could be the rest of its index (the suit below it,
or beside it), gives a direction in which the component may stand upright. The image is turned that way around
the component and scaled so that the component has the height of a glyph on a rectified card, and the index
network reads the proposal's window there as it would on a rectified card (``vision.proposals``). Each
component keeps its surest reading; readings of the same index place are one. Slower than the rectified reader
(many directions), so it is the free-standing reader's second opinion on fans, not the table reader's path.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..components import connected_components
from ..geometry import CARD_H
from ..index import Glyph
from ..spotting import MAX_GLYPH_SHARE, GlyphPairs, glyph_pairs
from .grouping import Sighting, glyphs_apart
from .network import NONE, IndexModel
from .proposals import CROP, PAD, SIDE

#: glyph height, in pixels, at which a direction is read (a first glyph on a rectified card is about this tall)
TARGET_H = 0.1 * CARD_H
CANDIDATES = 3


#: where a spotted window's first glyph stands in the image: (centre, glyph height, unit "up" vector)
Frame = tuple[tuple[float, float], float, tuple[float, float]]


def spot(image: np.ndarray, net: IndexModel, min_glyph: int = 8, max_tries: int = 1500, steady: bool = True,
         floor: float = 0.5, max_share: float = MAX_GLYPH_SHARE) -> list[Sighting]:
    """Every index spotted in ``image`` (BGR), with its place and direction; ``steady``: the windows read as a
    card at least ``floor`` sure are read again a little turned (``_steadied``); glyphs up to ``max_share`` of
    the image's longer side."""
    tries, windows, frames, g = spot_windows(image, min_glyph, max_tries, max_share)
    if not tries:
        return []
    stats = g.stats
    probs, own = net.readings(windows)
    none = net.classes.index(NONE)
    if steady:
        probs, own = _steadied(image, net, tries, g, probs, own, floor)
    probs = deck_kept_out(tries, probs, own, none)
    best: dict[int, Sighting] = {}
    for (a, _), p, (centre, glyph_h, up) in zip(tries, probs, frames, strict=True):
        cards = p.copy()
        cards[none] = -1.0
        order = np.argsort(-cards)[:CANDIDATES]
        top = int(order[0])
        if p[top] <= p[none] or (a in best and best[a].confidence >= p[top]):
            continue
        x, y, bw, bh = (int(v) for v in stats[a][:4])
        box = (x, y, max(bw, round(2.1 * glyph_h)), max(bh, round(2.1 * glyph_h)))
        cut = x <= 0 or y <= 0 or x + bw >= image.shape[1] or y + bh >= image.shape[0]
        best[a] = Sighting(net.classes[top], float(p[top]), box, centre, up, glyph_h,
                           tuple((net.classes[int(j)], round(float(p[j]), 4)) for j in order), cut=cut)
    kept: list[Sighting] = []
    for s in sorted(best.values(), key=lambda s: -s.confidence):
        if any(glyphs_apart(s, k) < 0.6 for k in kept):
            continue
        kept.append(s)
    return kept


def scaled_to(image: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    """``image`` made smaller (never larger) to at most ``side`` pixels on its longer side, and the scale: how
    the reader spots big photos and a close-up's large indices, and how training cuts the same windows."""
    scale = min(1.0, side / max(image.shape[:2]))
    if scale < 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return image, scale


def least_glyph(image: np.ndarray, share: float) -> int:
    """The smallest glyph looked for: ``share`` of ``image``'s longer side, and never under 8 pixels."""
    return max(8, int(share * max(image.shape[:2])))


#: the small turns (degrees) of a spotted window read again: a real index reads as the same card in each, a pip
#: or a letter that only looks like an index from one exact framing often does not
JITTERS = (3.0, -3.0)


def _steadied(image: np.ndarray, net: IndexModel, tries: list[tuple[int, float]], g: GlyphPairs,
              probs: np.ndarray, own: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """``probs`` with each window read as a card at least ``floor`` sure read again in its ``JITTERS`` views: where
    any view reads another class, the window's probabilities become the mean over all views (a reading that
    holds in every view keeps its own: averaging those too lost a fifth of the fanned real deals' cards); and
    the network's own readings ``own`` (``IndexNet.readings``) steadied alike, as the network alone steadies them."""
    none = net.classes.index(NONE)

    def card_like(p: np.ndarray) -> np.ndarray:
        return (np.delete(p, none, axis=1).max(axis=1) >= floor) & (p.argmax(axis=1) != none)

    again_probs, again_own = card_like(probs), card_like(own)
    again = np.flatnonzero(again_probs | again_own)
    if not len(again):
        return probs, own
    views = []
    for i in again:
        a, angle = tries[i]
        for turn in JITTERS:
            views.append(_window(image, g.mask, g.centroids[a], float(g.stats[a, 3]), float(g.sizes[a]),
                                 angle + turn)[0])
    more_probs, more_own = (m.reshape(len(again), len(JITTERS), -1) for m in net.readings(np.stack(views)))
    readings = [(probs, more_probs, again_probs)] + ([] if own is probs else [(own, more_own, again_own)])
    steadied = []
    for p, more, chosen in readings:
        out = p.copy()
        for k, i in enumerate(again):
            if chosen[i] and (more[k].argmax(axis=1) != p[i].argmax()).any():  # a view reads otherwise: averaged
                out[i] = (p[i] + more[k].sum(axis=0)) / (1 + len(JITTERS))
        steadied.append(out)
    return steadied[0], steadied[-1]  # the network alone: one reading, both


#: how sure each of two pairings of one glyph must be, of different cards, for an enrolled deck to have no say in
#: that glyph's reading (chosen, for another rule, on cardcounter's calibration part and edje's train folder:
#: vision/README.md, "a spotted glyph whose pairings disagree, made unsure")
PAIRINGS_SURE = 0.9


def deck_kept_out(tries: list[tuple[int, float]], probs: np.ndarray, own: np.ndarray, none: int) -> np.ndarray:
    """``probs`` with the network's own readings ``own`` in every window of a glyph whose pairings the network
    reads as different cards, each at least ``PAIRINGS_SURE`` sure.

    Spotting pairs a glyph with every neighbour that may be its suit, and in a tight fan the next card's suit
    stands as near as its own: in a real fan (bidly's deal7) a nine of clubs' "9" has its club below it and the
    next card's diamond as near; the window turned towards the diamond reads 9♦ at 0.9999, the one towards the
    club 9♣ at 0.997. The network alone leaves that 9♦ just under the spotted threshold, and an enrolled deck,
    whose 9♦ is the nearest exemplar of a window that shows a "9" and a diamond, carried it over: a wrong card the
    network alone does not report. Which pairing is the glyph's own is not a question the deck's exemplars can
    answer, so where the network's pairings disagree the deck has no say, and the glyph reads as it does without
    the deck. The network alone (``own is probs``) reads as before."""
    if own is probs:
        return probs
    cards = np.delete(own, none, axis=1).max(axis=1)
    components: dict[int, list[int]] = {}
    for i, (component, _) in enumerate(tries):
        components.setdefault(component, []).append(i)
    out = probs
    for rows in components.values():
        sure = {int(own[i].argmax()) for i in rows if own[i].argmax() != none and cards[i] >= PAIRINGS_SURE}
        if len(sure) > 1:
            if out is probs:
                out = probs.copy()
            out[rows] = own[rows]
    return out


def spot_windows(image: np.ndarray, min_glyph: int = 8, max_tries: int = 1500,
                 max_share: float = MAX_GLYPH_SHARE) -> tuple[list[tuple[int, float]], np.ndarray, list[Frame], GlyphPairs]:
    """The windows ``spot`` reads: the (component, angle) tries, their windows, frames and the glyph components
    (also what training labels on real photos, so that it learns from exactly what the reader will read)."""
    empty = np.empty((0, CROP, CROP, 3), np.uint8)
    g = glyph_pairs(image, min_glyph, max_share)
    mask, stats, centroids, sizes = g.mask, g.stats, g.centroids, g.sizes
    tries: list[tuple[int, float]] = []  # (component, angle that stands it upright)
    for a, b in g.pairs:
        v = centroids[b] - centroids[a]
        down = float(np.degrees(np.arctan2(v[1], v[0]))) - 90.0  # b below a
        tries.append((a, down))
        tries.append((a, down + 90.0))  # b beside a, to its right
    tries = tries[:max_tries]
    if not tries:
        return [], empty, [], g
    windows = np.empty((len(tries), CROP, CROP, 3), np.uint8)
    frames: list[tuple[tuple[float, float], float, tuple[float, float]]] = []
    for i, (a, angle) in enumerate(tries):
        windows[i], frame = _window(image, mask, centroids[a], float(stats[a, 3]), float(sizes[a]), angle)
        frames.append(frame)
    return tries, windows, frames, g


def _window(image: np.ndarray, mask: np.ndarray, centre: np.ndarray, a_h: float, a_size: float,
            angle: float) -> tuple[np.ndarray, Frame]:
    """The network's window for a component stood upright by turning the image ``angle`` degrees about it."""
    glyph_h = max(a_h if abs(((angle + 180) % 360) - 180) < 30 else a_size, 4.0)
    scale = TARGET_H / glyph_h
    side = int(4 * TARGET_H)
    matrix = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle, scale)
    matrix[:, 2] += np.array([side / 2 - centre[0], side / 2 - centre[1]])
    patch_mask = cv2.warpAffine(mask, matrix, (side, side), flags=cv2.INTER_NEAREST)
    n, labels, stats, _ = connected_components(patch_mask)
    cx = cy = side // 2
    label = labels[cy, cx]
    if label == 0:  # a ring-shaped glyph (0, A) can have paper at its centroid: take the nearest ink
        around = labels[max(0, cy - 3): cy + 4, max(0, cx - 3): cx + 4]
        values = around[around > 0]
        label = int(np.bincount(values).argmax()) if values.size else 0
    if label:
        gx, gy, gw, gh, _ = (int(v) for v in stats[label])
        glyph = Glyph(gx, gy, gw, gh)
    else:
        glyph = Glyph(int(cx - TARGET_H / 3), int(cy - TARGET_H / 2), int(2 * TARGET_H / 3), int(TARGET_H))
    x0, y0, s = glyph.x - PAD * glyph.h, glyph.y - PAD * glyph.h, SIDE * glyph.h
    # the window, straight from the source image: patch coordinates composed with the crop's own scaling
    to_patch = np.vstack([matrix, [0, 0, 1]])
    crop_scale = CROP / s
    to_crop = np.array([[crop_scale, 0, -x0 * crop_scale], [0, crop_scale, -y0 * crop_scale], [0, 0, 1]])
    full = (to_crop @ to_patch)[:2].astype(np.float32)
    window = cv2.warpAffine(image, full, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    back = np.linalg.inv(to_patch)
    gc = back @ np.array([glyph.cx, glyph.y + glyph.h / 2, 1.0])
    up = back[:2, :2] @ np.array([0.0, -1.0])
    up = up / max(float(np.linalg.norm(up)), 1e-9)
    return window, ((float(gc[0]), float(gc[1])), glyph.h / scale, (float(up[0]), float(up[1])))
