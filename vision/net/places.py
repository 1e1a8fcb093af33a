"""Where an index can start: the learned reader's readings of one upright region, kept or dropped by place.

The index network says what each proposal's window shows (``vision.net.reader.seen_at``); these rules
say which readings are indices of different cards. Two readings of one index place are one; a thin stroke or
a glyph far shorter than a fan's others starts no index; the "0" of a "10" starts none; a joker's index is one
column (大 over 王, JOKER spelt downwards), one character even when its ink came apart (小), and the word on its
face is not another joker; a reading well below a fan's line of indices is a pip or a picture. Pure functions of
the readings' glyph boxes and confidences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..index import Glyph
from ..types import JOKERS


@dataclass(frozen=True)
class IndexSeen:
    """The network's reading of one proposal: best card, its probability, the runners-up, the first glyph."""

    card: str
    confidence: float
    candidates: tuple[tuple[str, float], ...]
    glyph: Glyph


def one_per_place(seen: list[IndexSeen]) -> list[IndexSeen]:
    """The surest reading of each index place: proposals whose first glyphs overlap, or stand within the
    width of one glyph of each other at the same height, are one index (a "10" in two glyphs, a broken stroke)."""
    kept: list[IndexSeen] = []
    for s in sorted(seen, key=lambda s: -s.confidence):
        g = s.glyph
        if any(abs(g.cx - k.glyph.cx) < 0.6 * max(g.h, k.glyph.h) and abs(g.y - k.glyph.y) < 0.6 * max(g.h, k.glyph.h)
               for k in kept):
            continue
        kept.append(s)
    return kept


#: a first glyph thinner than this (width over height) is a stroke: only the "1" of a "10" starts an index so
#: (a card's inner frame line, or the edge of the card on top, next to an index is read as that index)
THIN_STROKE = 0.2
#: in a region with several readings, a first glyph lower than this share of their median height is no index
#: start of that deck (a fan's indices are all one size): a broken stroke, a frame's corner
SHORT_GLYPH = 0.7


def plausible_starts(found: list[IndexSeen]) -> list[IndexSeen]:
    """The readings whose first glyph may start that card's index: a thin stroke starts only a ten (its "1"),
    and in a region of three or more readings a glyph much shorter than the others starts none. Jokers are left
    alone: their first glyph (J of a vertical JOKER, a stroke of 小) may be thin or small."""
    kept = [f for f in found if f.card in JOKERS or f.card[1:] == "T" or f.glyph.w >= THIN_STROKE * f.glyph.h]
    heights = [f.glyph.h for f in kept if f.card not in JOKERS]
    if len(heights) < 3:
        return kept
    median = float(np.median(heights))
    return [f for f in kept if f.card in JOKERS or f.glyph.h >= SHORT_GLYPH * median]


#: the "0" of a "10" starts less than this many glyph heights right of its "1" (a loose "10" about 1.0, a tight one
#: about 0.6); the next card's index cannot start there, since the whole "10" it would cover was read (about 1.8)
TEN_SECOND_GLYPH = 1.3
#: and stands on the "1"'s line, less than this many glyph heights above or below it
TEN_LINE = 0.5


def without_second_glyphs(found: list[IndexSeen]) -> list[IndexSeen]:
    """Drop a reading that starts on the "0" of a "10" read just left of it (ordered left to right): a "0" is
    read as a queen, so a ten read surely was a ten and a queen too."""
    kept: list[IndexSeen] = []
    for f in found:
        last = kept[-1] if kept else None
        if last is not None and last.card[1:] == "T" and abs(f.glyph.y - last.glyph.y) < TEN_LINE * last.glyph.h \
                and 0 <= f.glyph.x - last.glyph.x < TEN_SECOND_GLYPH * last.glyph.h:
            continue
        kept.append(f)
    return kept


#: a joker's index is a column of glyphs (J O K E R, 大 over 王) as long as this many of its first glyph's heights
JOKER_COLUMN = 6.0


def _unshadowed(found: list[IndexSeen], shadows: Callable[[IndexSeen, IndexSeen], bool]) -> list[IndexSeen]:
    """``found`` without each reading that another reading of it ``shadows`` (``shadows(other, reading)``)."""
    return [f for f in found if not any(k is not f and shadows(k, f) for k in found)]


def without_joker_columns(found: list[IndexSeen], sure: float) -> list[IndexSeen]:
    """Drop the readings that start on a lower glyph of a joker's index: a joker's index is printed as a column
    (JOKER spelt downwards, 大 over 王), and the window of a glyph under its first one is read as a card too
    (王 as the red joker again, the K of JOKER as a king: fanned jokers were read so at the table, a pair of
    jokers as three cards). Only a joker read at least ``sure`` has a column, and only readings no surer than it
    go."""
    def column_of(j: IndexSeen, f: IndexSeen) -> bool:
        return j.card in JOKERS and j.confidence >= max(f.confidence, sure) \
            and abs(f.glyph.cx - j.glyph.cx) < 0.6 * j.glyph.h \
            and j.glyph.y + 0.5 * j.glyph.h < f.glyph.y <= j.glyph.y + JOKER_COLUMN * j.glyph.h

    return _unshadowed(found, column_of)


#: two readings of one joker side by side are one index in pieces when the gap between their glyphs is under this
#: share of a glyph's height and the two together no wider than ``JOKER_PIECES_SPAN`` glyph heights: one character
#: (小 is about as wide as it is high). Two jokers fanned at the least pitch players use (``counting.MIN_PITCH``, a
#: quarter of the card's width: about 1.7 glyph heights) stand further apart, a card's edge and margin between.
JOKER_PIECES_GAP = 0.8
JOKER_PIECES_SPAN = 2.0


def one_joker_per_index(found: list[IndexSeen]) -> list[IndexSeen]:
    """Drop a joker reading standing just beside a surer reading of the same joker, level with it, the two no wider
    than one character: one index whose glyph came apart (小's strokes are three ink components, and the network
    reads the small joker in more than one; the edge of a card next to its 大 is read as the red joker too). Of
    equally sure readings the one with the larger glyph stays."""
    def rank(f: IndexSeen) -> tuple[float, int]:
        return f.confidence, f.glyph.w * f.glyph.h

    def piece_beside(k: IndexSeen, f: IndexSeen) -> bool:
        g, h = f.glyph, max(f.glyph.h, k.glyph.h)
        return f.card in JOKERS and k.card == f.card and rank(k) >= rank(f) \
            and max(k.glyph.x - (g.x + g.w), g.x - (k.glyph.x + k.glyph.w)) < JOKER_PIECES_GAP * h \
            and max(k.glyph.x + k.glyph.w, g.x + g.w) - min(k.glyph.x, g.x) < JOKER_PIECES_SPAN * h \
            and min(g.y + g.h, k.glyph.y + k.glyph.h) - max(g.y, k.glyph.y) > 0.5 * min(g.h, k.glyph.h)

    return _unshadowed(found, piece_beside)


#: a word printed on a joker's face (JOKER, 大王) is at least this many times taller than the joker's index ...
JOKER_WORD_SIZE = 1.4
#: ... and stands right of it, below its first glyph (not merely lower: the next card of a fan sloping down, its
#: 小 read whole where this one's was read in pieces), within this many of the index's glyph heights
JOKER_WORD_REACH = 6.0


def without_joker_words(found: list[IndexSeen]) -> list[IndexSeen]:
    """Drop a joker reading that is the word printed on a joker's face, not its index: read as the same joker as
    an index standing above it and to its left, in glyphs much taller than that index's (both copies of a joker
    carry indices of one size). The big JOKER across the top of a face was read as a third joker of a pair."""
    def word_of(k: IndexSeen, f: IndexSeen) -> bool:
        g = f.glyph
        return f.card in JOKERS and k.card == f.card and g.h >= JOKER_WORD_SIZE * k.glyph.h \
            and g.y >= k.glyph.y + k.glyph.h and 0 < g.x - k.glyph.x < JOKER_WORD_REACH * k.glyph.h

    return _unshadowed(found, word_of)


def on_the_index_line(found: list[IndexSeen]) -> list[IndexSeen]:
    """The readings of a fan that stand on its line of corner indices.

    A fan's top-left indices stand in a line along its top edge (sloping with the fan); a reading well below
    that line is a pip or a picture of the card lying on top, not an index. The line is fitted to the readings
    by least squares, weighted by confidence, dropping the lowest outlier until none is left.
    """
    kept = list(found)
    while len(kept) >= 3:
        x = np.array([f.glyph.cx for f in kept])
        y = np.array([f.glyph.y for f in kept], np.float64)
        w = np.array([f.confidence for f in kept]) + 1e-3
        a, b = np.polyfit(x, y, 1, w=w)
        below = y - (a * x + b)
        worst = int(np.argmax(below))
        h = float(np.median([f.glyph.h for f in kept]))
        if below[worst] <= 0.7 * h:
            break
        kept.pop(worst)
    return kept


def index_places(found: list[IndexSeen], sure: float) -> list[IndexSeen]:
    """The readings of one upright region (one per index place already) that are indices of different cards, left
    to right; ``sure``: the reader's accept threshold (only a sure joker reading has a column)."""
    ordered = without_second_glyphs(sorted(found, key=lambda f: f.glyph.x))
    return on_the_index_line(without_joker_words(one_joker_per_index(without_joker_columns(ordered, sure))))
