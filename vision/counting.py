"""How many cards a fan holds, from its shape alone: a check on the indices the reader found.

A play laid in a seat's zone is a row of cards of one size, each covering the right part of the one before,
so in the upright rectified fan (height = the card's height) the corner indices stand at a steady pitch, the
first near the fan's left edge and the last one card width short of its right edge. An index the reader
missed (a card laid crooked, glare on its corner) leaves a hole in that pattern: a gap of two pitches, a fan
that runs on a card's width past its last index, or a first index far from the edge. ``missing_cards`` counts
such holes, so the table can say "unreadable card" instead of accepting a pair read as a single: a
confidently short reading is the dangerous one.
"""

from __future__ import annotations

from collections.abc import Sequence

from .types import JOKERS

#: a card's width over its height: poker 0.72, bridge 0.64, the simulated table's 0.69
CARD_WIDTH = 0.69
#: the least pitch, over the card width, at which players fan cards (the index must show)
MIN_PITCH = 0.25
#: the widest pitch, over the card width, at which players fan cards: the simulated table's hands fan at most 0.6
#: (628 gaps of fans read right: median 0.40, 99th percentile 0.55)
MAX_PITCH = 0.75
#: how much of a pitch a hole at either end must be to count as a card; a gap between two indices must be
#: this many pitches (``bench/table_reading.py``, 300 plays on the held-out and 300 on the built-in designs:
#: 0.6 and 1.7 missed 3 short reads of 24 with no false alarm; 0.5 and 1.55 miss none, with 2 false alarms on
#: each; a short read taken costs about ten plays laid again. A region's outline can cut into the last card, so
#: a last card's overhang can measure well under its pitch)
HOLE = 0.5
GAP_HOLE = 1.55


def missing_cards(index_x: Sequence[float], fan_width: float, fan_height: float) -> tuple[int, int, list[int]]:
    """(missing before the first index, missing after the last, missing after each index) for a fan.

    ``index_x``: the left edges of the indices read, left to right, in the rectified fan whose size is
    ``fan_width`` x ``fan_height`` (the card's height). No index at all: nothing is said (the region may be
    something else than cards).
    """
    xs = sorted(float(x) for x in index_x)
    if not xs:
        return 0, 0, []
    card = CARD_WIDTH * fan_height
    gaps = [b - a for a, b in zip(xs, xs[1:], strict=False)]
    steady = [g for g in gaps if g >= MIN_PITCH * card]
    # holes only ever widen a gap, and hands fan unevenly: the lower median of the gaps is the pitch (a lone
    # card: the usual pitch), and only a gap well over one and a half pitches holds a hidden card
    pitch = sorted(steady)[(len(steady) - 1) // 2] if steady else 0.41 * card
    between = [_hidden_in_gap(g, pitch, card) for g in gaps] + [0]
    offset = min(xs[0], 0.12 * card)  # where an index sits from its card's left edge
    before = max(0, round((xs[0] - offset) / pitch)) if xs[0] - offset > HOLE * pitch else 0
    overhang = fan_width - (xs[-1] - offset + card)  # the fan's width beyond the last read card
    # the fan is at least as high as its cards, so ``card`` is if anything too wide (bridge cards, a tilt):
    # the small margin covers wider poker cards
    # a lone index has no pitch to go by: a card fanned as tightly as players fan (``MIN_PITCH``) still counts
    # (a pair fanned tight, its second index missed, is not a single)
    end_pitch = MIN_PITCH * card if len(xs) == 1 else pitch
    after = max(1, round(overhang / pitch)) if overhang > HOLE * end_pitch + 0.05 * card else 0
    return before, after, between


def _hidden_in_gap(gap: float, pitch: float, card: float) -> int:
    """How many cards lie hidden between two indices ``gap`` apart in a fan of ``pitch`` (``card``: its width)."""
    if gap > MAX_PITCH * card:
        # wider than players ever fan, whatever the other gaps: with two indices read there is no other gap to
        # tell a loose pair from a triple whose middle index was not read
        return max(1, round(gap / pitch) - 1)
    # a hidden card stands at least the least pitch from both its neighbours (a hand fanning three cards 56 and 88
    # pixels apart hides none; saying so made the table ask again, 31 plays in 10,200 at the bench)
    if gap > max(GAP_HOLE * pitch, 2 * MIN_PITCH * card):
        return max(0, round(gap / pitch) - 1)
    return 0


#: no index of a fan starts closer than this (card heights) to the fan's right edge: the card on top lies whole
#: there, so whatever is read on that part of it is its picture, pips or words, not a card. The last card's own
#: index stands about a card's width from the edge (0.52-0.70 card heights over 600 plays of
#: ``bench/table_reading.py``'s designs; bridge cards are 0.64 wide, and the region's outline may cut a little
#: into the last card)
TOP_CARD_FACE = 0.45


def on_the_top_card(index_x: Sequence[float], fan_width: float, fan_height: float) -> list[bool]:
    """For each index read in a fan (its left edge in the rectified fan of ``fan_width`` x ``fan_height``, the
    card's height), whether it starts on the face of the card on top, within ``TOP_CARD_FACE`` card heights of
    the fan's right edge, where no card's index can show (a joker's picture or a court card's, read as an
    index, made the table ask for a pair of jokers again)."""
    return [fan_width - float(x) < TOP_CARD_FACE * fan_height for x in index_x]


#: the narrowest card the table expects (bridge cards; poker cards are 0.72 wide): two indices of a fan stand at
#: least ``MIN_PITCH`` of its width apart
NARROWEST_CARD = 0.64


def read_twice(index_x: Sequence[float], codes: Sequence[str], confidences: Sequence[float],
               fan_height: float) -> list[bool]:
    """For each index read in a fan, whether it is a second reading of a card read closer beside it than two
    cards' indices can stand (``MIN_PITCH`` of the narrowest card's width): a word or a picture printed beside
    a joker's index read as the same joker again (a pair of red jokers read as three, surely), or one index read
    twice. Of two such readings the less sure goes, and of equally sure ones the one to the right. Two copies
    of one card fanned as players fan stand further apart and both stay. So does a joker read that close to
    the right of another card's index, no surer than it: the glyph printed beside that index (a black king's or
    jack's suit, beside the rank, read surely as the black joker: noto-sans-beside at the table) or a word."""
    limit = MIN_PITCH * NARROWEST_CARD * fan_height
    order = sorted(range(len(index_x)), key=lambda i: float(index_x[i]))
    gone = [False] * len(index_x)
    kept: int | None = None  # the nearest reading on the left that is still a card
    for b in order:
        a = kept
        if a is None or float(index_x[b]) - float(index_x[a]) >= limit:
            kept = b
        elif codes[a] == codes[b]:
            # of three or more readings of one card within a hair, each is weighed against the one kept
            loser = b if confidences[b] <= confidences[a] else a
            gone[loser] = True
            kept = a if loser == b else b
        elif codes[b] in JOKERS and codes[a] not in JOKERS and confidences[b] <= confidences[a]:
            gone[b] = True
        else:
            kept = b
    return gone


def impossible_indices(index_x: Sequence[float], codes: Sequence[str], confidences: Sequence[float],
                       fan_width: float, fan_height: float) -> list[bool]:
    """For each index read in a fan, whether it cannot start a card: on the face of the card on top
    (:func:`on_the_top_card`), or read twice (:func:`read_twice`) among the indices that are not. In that order,
    so a picture on the top card read surely as a card beside it cannot knock that card's own index out and
    then go itself (the table would ask again for a play it had read right)."""
    off = on_the_top_card(index_x, fan_width, fan_height)
    left = [i for i, face in enumerate(off) if not face]
    twice = read_twice([index_x[i] for i in left], [codes[i] for i in left], [confidences[i] for i in left],
                       fan_height)
    for i, again in zip(left, twice, strict=True):
        off[i] = again
    return off


#: how close (card heights) beside a sure reading of another card an unsure reading stands too close to be a
#: card's own index. Under the least pitch of ``read_twice``: the simulated table's tightest fans put real indices
#: 0.14-0.15 card heights apart (``bench/table_reading.py --frames 1``, 21 runs of 300 plays: doubting up to 0.16
#: left the wild card of a tight pair out, 8 plays taken wrong; up to 0.12, 7; without the doubt, 8)
CROWDED_GAP = 0.12
#: the share of its probability left to such a reading: what its candidates leave over stands for "no card here"
#: (0.3: 85 more of those 6,300 plays read right, 84 fewer asked again; 0.1, tried up to 0.16, took two more wrong)
CROWDED_DOUBT = 0.3


def crowded(index_x: Sequence[float], codes: Sequence[str], confidences: Sequence[float], fan_height: float,
            sure: float) -> list[bool]:
    """For each index read in a fan, whether it is an unsure reading (under ``sure``) of another card than a sure
    reading beside it, closer to it than ``CROWDED_GAP``. Most such readings are a pip, a picture or a word read
    as one more card, a few the index of a card fanned tighter than players fan: the seat's hand may tell which,
    so the table doubts them rather than dropping them."""
    limit = CROWDED_GAP * fan_height
    order = sorted(range(len(index_x)), key=lambda i: float(index_x[i]))
    out = [False] * len(index_x)
    for a, b in zip(order, order[1:], strict=False):
        if float(index_x[b]) - float(index_x[a]) >= limit or codes[a] == codes[b]:
            continue
        if confidences[a] >= sure > confidences[b]:
            out[b] = True
        elif confidences[b] >= sure > confidences[a]:
            out[a] = True
    return out
