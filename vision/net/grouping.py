"""From index sightings to physical cards: a card lying whole shows two corner indices, a fanned one shows one.

A sighting is one corner index read somewhere in an image, with where it is, which way its "up" points and how
tall its first glyph is. Two sightings are one card when they read the same card and stand as a card's two
corner indices stand: turned half a turn from each other, the second one about a card's height below the first
and a card's width to its right, in the first one's own frame. Two sightings of the same card in the same place and the same
direction (the region seen twice, or by the region reader and by spotting) are one sighting, the surer; but each
is a look at that corner, and a corner that stands as the card's other corner from any look at it is that card,
reported once, though not weighed with it unless it stands so from the surer look (a glyph read in an outline is
measured by its card, a spotted one by its ink, and the two may differ more than two corners may). Two different
readings of one glyph (``one_glyph``: their first glyphs' centres under ``ONE_GLYPH`` of a glyph's height apart)
are one index read twice, and the surer stands; two different readings of one place farther apart are both
kept, the surer first (in a tight fan the next card's index starts 0.6-0.9 glyph heights away). Everything else
stays apart, so two copies of the same card laid together (two decks) are two cards.

The two corners of a card lying whole are two looks at the card, so what they say is weighed together
(``fused``): corners that agree make the reading surer than either alone. Corners that read different cards are
not paired: in fans and four-hand deals an index and some other card's turned index often stand where a
card's two corners would (pairing them by place alone lost about one card in ten of the fanned real deals).

A card outline read in two opposite turns gives its two corners' readings: the second (``Sighting.second``) is weighed
with the card read at the first where the two read the same card and stand no farther apart than a card's corners
(``corners_in_one_outline``), even where their places alone would not pair them (a photo stretched to a square);
it is never a card alone.

A spotted index's "up" is taken from its rank to its suit, so it may be turned off the card's own: two spotted
sightings of one card that stand as its corners only within ``SPOTTED_SLACK`` are reported as one card, as sure
as the surer of them, not weighed together.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..types import JOKERS, PACK_COPIES
from .places import TEN_LINE
from .places import TEN_SECOND_GLYPH as TEN_ZERO_AT_MOST

#: a card's height and width, in glyph heights of its index (small to jumbo indices)
CARD_DOWN = (3.0, 13.0)
CARD_RIGHT = (1.0, 9.5)
#: from one corner index to the other, across over down: about a card's width over its height
ASPECT = (0.35, 1.5)


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
    #: found by spotting alone (no card outline around it, no sure index beside it in a row: ``in_a_row``), which
    #: asks for a surer reading
    spotted: bool = False
    #: its first glyph runs into the edge of the view it was spotted in, so ``glyph_h`` may measure it short
    cut: bool = False
    #: which card outline of the image it was read in (the reader numbers them), if any
    outline: int | None = None
    #: read at the top-left corner of its outline turned half a turn from where the outline's card was read: that
    #: card's other corner, weighed with it but never a card alone (``corners_in_one_outline``)
    second: bool = False


def _frame(s: Sighting, other: Sighting) -> tuple[float, float]:
    """Where ``other`` lies in ``s``'s own frame: (down, right), in ``s``'s glyph heights."""
    up = np.array(s.up)
    right = np.array([-up[1], up[0]])  # up turned a quarter clockwise (image y points down)
    d = np.array(other.centre) - np.array(s.centre)
    return float(-(d @ up)) / s.glyph_h, float(d @ right) / s.glyph_h


#: a row of indices (a fan, a spread hand, a play laid in a line): the next index is turned within about 20 degrees
#: of its neighbour's, at most a glyph's height off its line, 0.6 to 4 glyph heights along it, and of a size with it
ROW_TURN = 0.94  # the cosine of the angle between the two "up"s
ROW_OFF_LINE = 1.0
ROW_ALONG = (0.6, 4.0)
ROW_SIZES = (0.75, 1.33)


#: where a ten's second glyph (the "0") stands from its first, centre to centre along the index's line, in glyph
#: heights (as far as a region's readings allow it, ``places.TEN_SECOND_GLYPH``; off the line at most ``TEN_LINE``)
TEN_SECOND_GLYPH = (0.5, TEN_ZERO_AT_MOST)


def in_a_row(s: Sighting, neighbour: Sighting) -> bool:
    """Whether ``s`` stands beside ``neighbour`` as the next index in a row of cards does. A spotted glyph so placed
    beside a sure index is that row's next card, not a pip or a picture (what the stricter threshold of a spotted
    index is for): pips are not turned, sized and lined up with an index of another card. Not so where ``s`` may be
    a part of a card read as a card, as the held-out designs' fans showed (``bench/held_out_scenes.py``): a queen
    (every such wrong queen there was the "0" of a ten, read with the ten's suit below it), a glyph where a sure
    ten's "0" stands, a joker (a court picture read as one), or the neighbour's own card read again."""
    if s.card in JOKERS or s.card[1:] == "Q" or s.card == neighbour.card:
        return False
    down, right = _frame(s, neighbour)
    if neighbour.card[1:] == "T" and TEN_SECOND_GLYPH[0] <= -right <= TEN_SECOND_GLYPH[1]:
        return False
    return (float(np.dot(s.up, neighbour.up)) > ROW_TURN and abs(down) < ROW_OFF_LINE
            and ROW_ALONG[0] <= abs(right) <= ROW_ALONG[1]
            and ROW_SIZES[0] <= neighbour.glyph_h / s.glyph_h <= ROW_SIZES[1])


def at_a_tens_second_glyph(s: Sighting, ten: Sighting) -> bool:
    """``s``'s first glyph stands where ``ten``'s second (the "0" of "10") does: on its line, just to the right of its
    first glyph, and, read in an outline, turned as it. Read as a card, that glyph is a part of the ten (the "0" over
    the ten's suit reads as a queen: 13 of v7's 53 sure wrong readings of the held-out designs' frames at seeds 7-15
    were such queens, beside a sure reading of the ten they were part of, at one corner or the other). A spotted
    glyph's "up" is not the card's: it runs from the glyph to whatever spotting paired it with (the ten's suit, below
    the "1", or a pip farther off), so only its place is asked (held to ``SPOTTED_SLACK`` instead, two such queens,
    turned 30 and 134 degrees from their tens, were still reported)."""
    if ten.card[1:] != "T" or s.card == ten.card or (not s.spotted and float(np.dot(s.up, ten.up)) <= ROW_TURN):
        return False
    down, right = _frame(ten, s)
    return abs(down) < TEN_LINE and TEN_SECOND_GLYPH[0] <= right <= TEN_SECOND_GLYPH[1]


def same_corner(a: Sighting, b: Sighting) -> bool:
    """The same index seen twice: same card, same direction, within a glyph of each other."""
    if a.card != b.card or float(np.dot(a.up, b.up)) < 0.7:
        return False
    down, right = _frame(a, b)
    return abs(down) < 1.0 and abs(right) < 1.0


#: two readings whose first glyphs' centres are closer than this (in the taller one's glyph heights) read one glyph.
#: On photos never trained on and in no test part (edje's train folder, cardcounter's calibration part), of the
#: 18 pairs of readings of different cards so close, from the reader's floor up, the less sure one was never
#: right (12 times the surer one was); in cardcounter's train part (trained on) 2 of the less sure were right, both
#: under the thresholds (0.88 and 0.88), and no sure reading changed; the closest pair of two right readings, in
#: cardcounter's fanned train photos, stood 0.66 apart
ONE_GLYPH = 0.3


def glyphs_apart(a: Sighting, b: Sighting) -> float:
    """How far apart the first glyphs of ``a`` and ``b`` stand, in the taller one's glyph heights."""
    return float(np.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1])) / max(a.glyph_h, b.glyph_h)


def one_glyph(a: Sighting, b: Sighting) -> bool:
    """``a`` and ``b`` take one glyph for their first, whatever they read and whichever way they face: one index
    read twice (edje's IMG_2562: a king of spades read in its outline, and spotted turned 47 degrees as the king
    of hearts, both sure)."""
    return glyphs_apart(a, b) < ONE_GLYPH


#: how far (degrees) a spotted index's "up" may be off the card's own: spotting takes it from the rank to the suit
#: below or beside it, which a big rank over a small suit set off to its side turns (two real queens lying whole
#: were spotted with "up" 15-20 degrees off, and each was reported twice). Under 33 degrees, so that two copies
#: of a card lying head to toe side by side, whose indices stand level, stay two cards.
SPOTTED_SLACK = 25.0
SLACK_STEP = 5.0


#: the smaller of a card's two corner glyphs is at least this share of the larger: a spotted glyph is measured by
#: its ink, a glyph read in an outline by its card, and shadow or blur thins the ink (edje's IMG_2466, train folder:
#: a ten of hearts' two corners, 14.5 and 23.4 px, 0.62)
CORNER_SIZES = 0.6


def _may_be_two_corners(a: Sighting, b: Sighting) -> bool:
    """``a`` and ``b`` read one card, turned half a turn from each other, their glyphs of a size (the smaller one may
    be ``cut`` short by the edge of the view): what a card's two corner indices show wherever they stand."""
    if a.card != b.card or float(np.dot(a.up, b.up)) > -0.7:
        return False
    smaller, larger = sorted((a, b), key=lambda s: s.glyph_h)
    return smaller.glyph_h >= CORNER_SIZES * larger.glyph_h or smaller.cut


def corners_of_one_card(a: Sighting, b: Sighting, slack: float = 0.0) -> bool:
    """``a`` and ``b`` are the two corner indices of one card lying whole: the same card, standing so in the
    first one's frame, or in a frame turned at most ``slack`` degrees from it. Their glyphs are of a size, unless
    the smaller one is ``cut`` by the edge of the view: a card the photo cuts has no outline to join its corners,
    and its cut index, read from what is left of it, measures short (edje's IMG_2561, a test photo: a nine of
    diamonds whose upper "9" the top edge cuts to 9 px, against 16 px at its whole lower corner, was two cards)."""
    if not _may_be_two_corners(a, b):
        return False
    turns = np.radians(np.arange(-slack, slack + SLACK_STEP / 2, SLACK_STEP)) if slack else np.zeros(1)
    for first, second in ((a, b), (b, a)):
        down0, right0 = _frame(first, second)
        for t in turns:
            down = down0 * np.cos(t) - right0 * np.sin(t)
            right = down0 * np.sin(t) + right0 * np.cos(t)
            if CARD_DOWN[0] <= down <= CARD_DOWN[1] and CARD_RIGHT[0] <= right <= CARD_RIGHT[1] \
                    and ASPECT[0] <= right / down <= ASPECT[1]:
                return True
    return False


#: the farthest a card's two corner indices stand apart, in glyph heights: the diagonal of the largest card
CARD_DIAGONAL = float(np.hypot(CARD_DOWN[1], CARD_RIGHT[1]))


def corners_in_one_outline(a: Sighting, b: Sighting) -> bool:
    """``a`` and ``b``, read at the top-left corners of one card outline in two opposite turns, may be its two corner
    indices: the same card, turned half a turn from each other, of a size, as far apart as a card's corners stand.
    The outline vouches for the rest, so their places are not held to a card's shape (``corners_of_one_card``): a
    photo stretched to a square, as cardcounter's are, makes a card wider than cards are, and its corners fail that
    test (a five of clubs' two corners 7.3 glyph heights down and 10.4 to the right). But one outline may hold
    several cards (a king of spades' corner and a king of clubs' read as spades, 29.5 glyph heights apart)."""
    if not _may_be_two_corners(a, b):
        return False
    down, right = _frame(a, b)
    return CARD_DOWN[0] <= down and CARD_RIGHT[0] <= right and float(np.hypot(down, right)) <= CARD_DIAGONAL


def maybe_corners_of_one_card(a: Sighting, b: Sighting) -> bool:
    """``a`` and ``b`` may be the two corners of one card, one of them spotted, its "up" not quite the card's:
    they stand so within ``SPOTTED_SLACK``. Such a pair is reported once, but not weighed as two looks at one
    card (``fused``): two pips of one card that look like some index also stand so, and together they would
    make a sure wrong reading (seen on a real photo)."""
    return (a.spotted or b.spotted) and corners_of_one_card(a, b, SPOTTED_SLACK)


#: cards a sighting can be of (the 54 card codes)
CARDS = 54
#: least probability any card keeps in a sighting's distribution (the network's figures are rounded)
FLOOR = 1e-6


def _distribution(s: Sighting) -> tuple[dict[str, float], float]:
    """What ``s`` says of the cards it names (its candidates, else its own reading alone), and the share left to
    each card it does not name: what its candidates leave (other cards, or no index at all) spread evenly."""
    named = dict(s.candidates) if s.candidates else {s.card: s.confidence}
    left = max(1.0 - sum(named.values()), 0.0) / max(CARDS - len(named), 1)
    return named, max(left, FLOOR)


def fused(a: Sighting, b: Sighting) -> Sighting:
    """``a`` with what both sightings say weighed together: for each card the product of the two
    probabilities, renormalised over all cards. The confidence is the best card's share: agreeing sightings
    raise it; a disagreeing one lowers it as far as it is sure of something else (a partner that is unsure,
    perhaps no index at all, leaves the reading nearly as it was)."""
    (pa, la), (pb, lb) = _distribution(a), _distribution(b)
    names = sorted(set(pa) | set(pb))
    joint = {c: max(pa.get(c, la), FLOOR) * max(pb.get(c, lb), FLOOR) for c in names}
    total = sum(joint.values()) + max(CARDS - len(names), 0) * la * lb
    ranked = sorted(joint.items(), key=lambda kv: -kv[1])
    best, weight = ranked[0]
    candidates = tuple((c, round(w / total, 4)) for c, w in ranked[:len(a.candidates) or 3])
    return Sighting(best, weight / total, a.box, a.centre, a.up, a.glyph_h, candidates,
                    a.spotted and b.spotted, a.cut)


def physical_cards(sightings: list[Sighting], sureness: Callable[[Sighting], float] | None = None
                   ) -> list[Sighting]:
    """One sighting per physical card, what its two corners say weighed together (see the module's docstring),
    surest first. ``sureness`` orders them (by default their confidence): of two sightings of one index, the surer
    stands. The reader orders by the margin over the threshold each is held to, so that an index read in a card's
    outline over the threshold there is not lost to its spotted reading, surer by number but short of the
    stricter threshold of indices spotted alone. ``second`` corners come last, each only to its card."""
    order = sureness or (lambda s: s.confidence)
    ranked = sorted(sightings, key=lambda s: -order(s))
    cards: list[_Card] = []
    for corner in _corners([s for s in ranked if not s.second]):
        s = corner[0]
        home = next((c for c in cards if len(c.seen) == 1 and corners_of_one_card(c.seen[0], s)), None)
        if home is not None:
            home.reading, home.weighed = fused(home.reading, s), True
            home.seen.append(s)
            continue
        home = next((c for c in cards if len(c.seen) == 1 and _looks_pair(c.looks, corner)), None)
        if home is not None:  # the surer reading stands for the card, as it was
            home.seen.append(s)
            continue
        cards.append(_Card(s, [s], corner))
    for s in ranked:
        if s.second:
            _weigh_second_corner(cards, s, order)
    return sorted((card.reading for card in cards), key=lambda s: -order(s))


def _corners(ranked: list[Sighting]) -> list[list[Sighting]]:
    """The corner indices seen, surest first, each as its looks: the surest sighting of it, which stands for it,
    then the sightings of it found again (``same_corner``). A sighting that reads the same glyph as another card
    (``one_glyph``) is no corner and no look."""
    corners: list[list[Sighting]] = []
    for s in ranked:
        again = [c for c in corners if same_corner(c[0], s) or one_glyph(c[0], s)]
        if not again:
            corners.append([s])
        for corner in again:
            if same_corner(corner[0], s):
                corner.append(s)
    return corners


def _looks_pair(looks: list[Sighting], others: list[Sighting]) -> bool:
    """Whether a look at one corner and a look at another stand as a card's two corners do, or, one of them spotted,
    may (``maybe_corners_of_one_card``): the two are then reported as one card, not weighed together."""
    return any(corners_of_one_card(a, b) or maybe_corners_of_one_card(a, b) for a in looks for b in others)


@dataclass
class _Card:
    """A physical card while sightings are grouped: its reading, its corners' sightings, the looks at its first
    corner (``_corners``) and whether two corners were weighed together in the reading."""

    reading: Sighting
    seen: list[Sighting]
    #: a corner seen twice is measured twice (spotted by its ink, read in an outline by the card), and the other
    #: corner may stand as a card's second corner from either look: edje's IMG_2481 (train folder) read with
    #: cardcounter's deck, a jack whose corner read in an outline measured 8.1 px and spotted 14.0 px, while its
    #: other corner, spotted, measured 14.5 px, was two jacks. Paired by a look, the two are one card but are not
    #: weighed together (as ``maybe_corners_of_one_card``): weighed, two spotted pips paired by their looks made a
    #: sure ace of diamonds on a held-out frame
    looks: list[Sighting]
    weighed: bool = False


def _weigh_second_corner(cards: list[_Card], s: Sighting, order: Callable[[Sighting], float]) -> None:
    """``s`` (a ``second`` corner) weighed with the card read at its outline's first corner, unless that card was
    weighed with another corner already or something else stands for it elsewhere; a sighting already standing
    where ``s`` does, paired with the card by place alone (``maybe_corners_of_one_card``), gives way to it. The
    card then reads as the surer of what it read and the two corners weighed together."""
    for card in cards:
        first = next((k for k in card.seen if k.outline == s.outline and not k.second
                      and corners_in_one_outline(k, s)), None)
        if first is None:
            continue
        if not card.weighed and all(same_corner(k, s) or one_glyph(k, s) for k in card.seen if k is not first):
            both = fused(first, s)
            card.reading = both if order(both) > order(card.reading) else card.reading
            card.weighed = True
            card.seen.append(s)
        return


def at_most_a_pack(cards: list[Sighting]) -> list[Sighting]:
    """``cards`` with no more of one code than the pack holds (``PACK_COPIES``), the surest kept, in their order:
    more sightings of one card than can exist are at least partly false (newspaper letters read as the black
    joker six times in one photo)."""
    seen: dict[str, int] = {}
    kept: set[int] = set()
    for s in sorted(cards, key=lambda s: -s.confidence):
        seen[s.card] = seen.get(s.card, 0) + 1
        if seen[s.card] <= PACK_COPIES:
            kept.add(id(s))
    return [s for s in cards if id(s) in kept]
