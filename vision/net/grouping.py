"""From index sightings to physical cards: a card lying whole shows two corner indices, a fanned one shows one.

A sighting is one corner index read somewhere in an image, with where it is, which way its "up" points and how
tall its first glyph is. Two sightings are one card when they read the same card and stand as a card's two
corner indices stand: turned half a turn from each other, the second one about a card's height below the
first and a card's width to its right, in the first one's own frame. Two sightings of the same card in the same
place and the same direction (the region seen twice) are one sighting. Everything else stays apart, so two
copies of the same card laid together (two decks) are two cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: a card's height and width, in glyph heights of its index (small to jumbo indices)
CARD_DOWN = (3.0, 13.0)
CARD_RIGHT = (1.0, 9.5)
#: from one corner index to the other, across over down: about a card's width over its height
ASPECT = (0.4, 0.95)


@dataclass(frozen=True)
class Sighting:
    """One corner index read in an image."""

    card: str
    confidence: float
    box: tuple[int, int, int, int]
    centre: tuple[float, float]  # the first glyph's centre, image pixels
    up: tuple[float, float]  # unit vector from the glyph's bottom to its top
    glyph_h: float  # the first glyph's height, image pixels
    candidates: tuple[tuple[str, float], ...] = ()


def _frame(s: Sighting, other: Sighting) -> tuple[float, float]:
    """Where ``other`` lies in ``s``'s own frame: (down, right), in ``s``'s glyph heights."""
    up = np.array(s.up)
    right = np.array([-up[1], up[0]])  # up turned a quarter clockwise (image y points down)
    d = np.array(other.centre) - np.array(s.centre)
    return float(-(d @ up)) / s.glyph_h, float(d @ right) / s.glyph_h


def same_corner(a: Sighting, b: Sighting) -> bool:
    """The same index seen twice: same card, same direction, within a glyph of each other."""
    if a.card != b.card or float(np.dot(a.up, b.up)) < 0.7:
        return False
    down, right = _frame(a, b)
    return abs(down) < 1.0 and abs(right) < 1.0


def corners_of_one_card(a: Sighting, b: Sighting) -> bool:
    """``a`` and ``b`` are the two corner indices of one card lying whole."""
    if a.card != b.card or float(np.dot(a.up, b.up)) > -0.7:
        return False
    if not 0.6 <= a.glyph_h / max(b.glyph_h, 1e-6) <= 1.6:
        return False
    for first, second in ((a, b), (b, a)):
        down, right = _frame(first, second)
        if CARD_DOWN[0] <= down <= CARD_DOWN[1] and CARD_RIGHT[0] <= right <= CARD_RIGHT[1] \
                and ASPECT[0] <= right / down <= ASPECT[1]:
            return True
    return False


def physical_cards(sightings: list[Sighting]) -> list[Sighting]:
    """One sighting per physical card (the surer of each pair), surest first."""
    kept: list[Sighting] = []
    for s in sorted(sightings, key=lambda s: -s.confidence):
        if any(same_corner(k, s) or corners_of_one_card(k, s) for k in kept):
            continue
        kept.append(s)
    return kept
