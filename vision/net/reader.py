"""Reading cards from an image: regions by edges, each turned upright, indices proposed and read by the network.

``CardReader.read_image`` is the free-standing reader (``vision classify``): every card-like region of the image
is tried in its four quarter turns and the turn whose indices read best wins; an image that is itself a cropped
card is read whole; hands fanned in arcs are spotted index by index. What is seen is then grouped into physical
cards (``vision.grouping``): a card lying whole shows two indices and is one card. ``CardReader.read_region``
serves the table reader, which knows each seat's upright turn. In each upright region every ink component that
may start an index is a proposal (``vision.proposals``), the index network (``vision.network``) says which
card's index starts there, if any, and ``vision.net.places`` which of those readings are indices of different
cards.

This is the default reader of ``vision classify`` and of the table (chosen in ``vision.readers``): it reads the
held-out designs at the table and the real photos better than the glyph rules (``vision.reader``; ``bench/vision.py``
scores both on the real photos, ``bench/table_reading.py --deck held-out`` at the table).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ..card_regions import (
    SCENE_CARD_SHARE,
    best_card,
    cards_on_surfaces,
    dark_regions,
    is_card_shaped,
    paper_cards,
)
from ..counting import MIN_PITCH, NARROWEST_CARD
from ..geometry import CARD_H, Region, box_overlap, clear_of_edges, map_box, rectify, whole_image_region
from ..index import BAND, Glyph, ink_mask
from ..polarity import as_printed, printed_views
from ..spotting import MAX_GLYPH_SHARE
from ..types import JOKERS, CardReading
from ..types import RegionRead as IndexRegionRead
from .card_calibration import logit
from .grouping import (
    Sighting,
    at_a_tens_second_glyph,
    at_most_a_pack,
    corners_in_one_outline,
    in_a_row,
    physical_cards,
)
from .network import NONE, IndexModel, IndexNet
from .places import IndexSeen, index_places, one_per_place, plausible_starts
from .proposals import Components, anchored, components, crops, propose
from .spotting import least_glyph, scaled_to, spot

#: A region no wider than this (in card heights) holds one card, not a fan: a poker card is 0.72 wide, and single
#: cards at the simulated table measure 0.62-0.73 (120 laid); a pair fanned at the least pitch players use measures
#: 0.86, and one fanned a little tighter (0.83) was read as its top card alone, the pair taken as a single
SINGLE_CARD_WIDTH = 0.80
#: candidates kept with each reading (the table chooses among them with the seat's hand)
CANDIDATES = 3
#: how sure a sighting must be to be weighed at all, before the corners of each card are weighed together
SIGHTING_FLOOR = 0.5
#: how sure a reading must be for the table's reader to report it (unsure, with its candidates, for the seat's hand
#: to settle): under one half, because the model is the mean of two networks, and where each is sure of a
#: different card (a clubs three read by one as the spades three) both cards come out just under one half. Dropped,
#: such a card left a triple read surely as a pair, a play taken silently (2 of 300 builtin frames)
TABLE_FLOOR = 0.45
#: spotting scales an image to at most this many pixels on its longer side (big phone photos: indices stay tens
#: of pixels high)
SPOT_SIDE = 1600
#: the whole image is spotted a second time at half that size, for the glyphs the first pass does not look at: from
#: its largest (``MAX_GLYPH_SHARE``, a twelfth of the image) up to ``CLOSE_UP_SHARE``: a close-up photo's indices.
#: Chosen on cardcounter's calibration photos: of several cards 38 -> 50 read right, of single cards 27 -> 28,
#: no more wrong; spotting every size again there read 52 and 29 right, but 2 more wrong
CLOSE_UP_SHARE = 1 / 6
CLOSE_UP_FROM = MAX_GLYPH_SHARE


@dataclass(frozen=True)
class SpottingPass:
    """One look for indices anywhere: the view scaled to at most ``side`` pixels, glyphs from ``min_share`` (and 8
    pixels) up to ``max_share`` of it."""

    side: int
    max_share: float
    min_share: float

    def view(self, image: np.ndarray) -> tuple[np.ndarray, float, int]:
        """``image`` as this look spots it, the scale from ``image`` to it, and the smallest glyph looked for there:
        how the reader spots, and how training cuts the same windows."""
        view, scale = scaled_to(image, self.side)
        return view, scale, least_glyph(view, self.min_share)


#: the first look over a whole photo, which also spots the regions of fans and of dark cards
WHOLE_PHOTO_PASS = SpottingPass(SPOT_SIDE, MAX_GLYPH_SHARE, 0.0)


@dataclass(frozen=True)
class RegionRead(IndexRegionRead):
    """The readings of one region in one turn, with the upright image they were read from, and where each was
    sighted."""

    #: each reading with where it stands and which way it faces in the image (for grouping into cards)
    sightings: tuple[Sighting, ...] = field(default=())
    #: the region is a card printed light on dark, read turned over (``vision.polarity``)
    dark: bool = False


def seen_at(net: IndexModel, image: np.ndarray, glyphs: list[Glyph], accept: float | None = None) -> list[IndexSeen]:
    """Each proposal of ``image`` (upright) that the network reads as an index start, at least ``accept`` sure
    (default the model's threshold); several may stand at one index place."""
    accept = net.accept if accept is None else accept
    if not glyphs:
        return []
    probs = net.predict(crops(image, glyphs))
    none = net.classes.index(NONE)
    seen: list[IndexSeen] = []
    for glyph, p in zip(glyphs, probs, strict=True):
        cards = p.copy()
        cards[none] = -1.0
        order = np.argsort(-cards)[:CANDIDATES]
        best = int(order[0])
        if p[best] <= p[none] or p[best] < accept:
            continue
        seen.append(IndexSeen(net.classes[best], float(p[best]),
                              tuple((net.classes[int(i)], round(float(p[i]), 4)) for i in order), glyph))
    return seen


def index_box(glyph: Glyph) -> tuple[int, int, int, int]:
    """The box an index starting with ``glyph`` covers (rank over suit; beside, it is as tall)."""
    return glyph.x, glyph.y, max(glyph.w, round(0.9 * glyph.h)), round(2.1 * glyph.h)


def sighting(seen: IndexSeen, inverse: np.ndarray) -> Sighting:
    """``seen`` (in an upright view) placed in the image that view was made from."""
    g = seen.glyph
    pts = cv2.perspectiveTransform(np.array([[[g.cx, g.y], [g.cx, g.y + g.h], [g.cx, g.y + g.h / 2]]], np.float32),
                                   inverse)[0]
    up = pts[0] - pts[1]
    length = float(np.linalg.norm(up))
    unit = (float(up[0] / length), float(up[1] / length)) if length > 0 else (0.0, -1.0)
    return Sighting(seen.card, seen.confidence, map_box(inverse, index_box(g)), (float(pts[2][0]), float(pts[2][1])),
                    unit, max(length, 1.0), seen.candidates)


def _best_turn(reads: list[RegionRead]) -> RegionRead:
    """The read that scores best (the first of equals)."""
    best = reads[0]
    for read in reads[1:]:
        if read.score > best.score + 1e-9:
            best = read
    return best


def reading_of(s: Sighting) -> CardReading:
    return CardReading(s.card, s.confidence, s.box, s.candidates)


class CardReader:
    """Reads card indices with the index network.

    ``unsure=True`` makes the table's reader: ``read_region`` then also reports readings from
    ``TABLE_FLOOR`` up, with their candidates, and the table takes only those at least ``sure`` without a
    check (an unsure one is chosen among its candidates by what the seat holds, or the cards are laid again).
    Dropping them instead leaves the play a card short, and a short play is taken silently or as a foul."""

    #: a region no wider than this (card heights) is one card: only its top-left index is read
    single_card_width = SINGLE_CARD_WIDTH

    def __init__(self, net: IndexModel | None = None, *, unsure: bool = False, dim_rules: bool = True) -> None:
        self.net: IndexModel = net if net is not None else IndexNet()
        self.unsure = unsure
        #: whether a region lit too dimly is brightened before its ink is sought (``polarity.lit``), and one dark and
        #: dim all over read both ways (``polarity.polarities``). The table's reader does neither: the table
        #: brightens its whole frame by the frame's white instead (``vision.table``, ``polarity.exposure_gain``), so
        #: that the regions and the count of a fan (the net under a short reading) see the light the reader does.
        #: Region by region, the cards read in a dim hall turned plays asked again into plays a card short, taken
        #: silently: ``bench/table_reading.py --exposure 0.35``, 300 plays, 4 taken wrong without the rules, 12 with
        #: both, 16 with the two ways but no brightening; with the frame brightened, none
        self.dim_rules = dim_rules

    @property
    def sure(self) -> float:
        """The confidence at which a reading is taken without a check: the model's accept threshold."""
        return self.net.accept

    def read_region(self, image: np.ndarray, region: Region, turns: Iterable[int] = (0, 1, 2, 3), *,
                    accept: float | None = None, faint: bool = False) -> RegionRead:
        """Read one region in each of ``turns`` and keep the turn that reads best (readings at least ``accept``
        sure; by default the model's threshold, or ``TABLE_FLOOR`` for the table's reader). ``faint``: fainter
        ink counts too (the table's second look where a card's index was not read, ``vision.table``)."""
        if accept is None and self.unsure:
            accept = min(TABLE_FLOOR, self.net.accept)
        return _best_turn([self._read_turn(image, region, turn, accept, faint) for turn in turns])

    def _read_turn(self, image: np.ndarray, region: Region, turn: int, accept: float | None,
                   faint: bool = False) -> RegionRead:
        """The readings of one region in one quarter turn (``faint``: fainter ink counts too), in the way it is
        printed (light on dark, read turned over), or with the rules for dim regions (``dim_rules``) brightened if
        dim and in each way it may be printed, the better kept."""
        flat, inverse = rectify(image, region, turn)
        return _best_turn([self._read_upright(view, inverse, turn, dark, accept, faint)
                           for dark, view in printed_views(flat, self.dim_rules)])

    def _read_upright(self, flat: np.ndarray, inverse: np.ndarray, turn: int, dark: bool, accept: float | None,
                      faint: bool) -> RegionRead:
        """The readings of one upright view of a region, as read (``dark``: turned over)."""
        mask, _ = ink_mask(flat[: int(BAND * CARD_H)], faint=faint)
        ink = components(mask)
        seen = self._with_anchored(flat, ink, seen_at(self.net, flat, propose(mask, found=ink), accept))
        found = one_per_place(plausible_starts(seen))
        if flat.shape[1] <= self.single_card_width * CARD_H:  # one card: its top-left index
            found = sorted((f for f in found if f.glyph.x < 0.4 * flat.shape[1]), key=lambda f: -f.confidence)[:1]
        found = index_places(found, self.net.accept)
        sightings = tuple(sighting(f, inverse) for f in found)
        readings = [reading_of(s) for s in sightings]
        # the turn is chosen by its sure readings (a wrong turn has many unsure ones: pips, pictures)
        score = sum(r.confidence for r in readings if r.confidence >= self.net.accept) \
            + 1e-3 * sum(r.confidence for r in readings)
        return RegionRead(turn, readings, flat, score, tuple(index_box(f.glyph) for f in found), sightings, dark)

    def _with_anchored(self, flat: np.ndarray, ink: Components, seen: list[IndexSeen]) -> list[IndexSeen]:
        """``seen`` (a region's readings) with the indices found by proposals anchored at the size of its sure
        readings (:func:`vision.net.proposals.anchored`: an index joined to the art, or blurred into its suit),
        each kept only where sure and a fan's least pitch from every other sure index start."""
        sure = [s.glyph for s in plausible_starts(seen) if s.confidence >= self.net.accept and s.card not in JOKERS]
        if not sure:
            return seen
        apart = MIN_PITCH * NARROWEST_CARD * CARD_H
        extra = [g for g in anchored(ink, float(np.median([g.h for g in sure])))
                 if all(abs(g.x - s.x) >= apart for s in sure)]
        out = list(seen)
        for s in sorted(seen_at(self.net, flat, extra), key=lambda s: -s.confidence):
            if all(abs(s.glyph.x - g.x) >= apart for g in sure):
                out.append(s)
                sure.append(s.glyph)
        return out

    def read_image(self, image: np.ndarray, *, unsure: bool = False) -> list[CardReading]:
        """Every physical card read in a free-standing image, one reading each, left to right (by index box), its
        confidence what it means on real photos (:meth:`reported`); ``unsure``: the readings under the thresholds
        too (:meth:`sightings`)."""
        return [self.reported(s) for s in sorted(self.sightings(image, unsure=unsure),
                                                 key=lambda s: (s.box[0], s.box[1]))]

    def reported(self, s: Sighting) -> CardReading:
        """``s`` as reported: its confidence (and its candidates') the chance that such a reading is the card, by
        the model's card calibration (``vision.net.card_calibration``, fitted on real photos not trained on), or the
        network's own where the model has none. Decisions stay on the network's scale (:meth:`sure_only`)."""
        calibration = self.net.card_calibration
        if calibration is None:
            return reading_of(s)
        return CardReading(s.card, calibration.probability(s.confidence, s.spotted), s.box,
                           calibration.candidates(s.confidence, s.spotted, s.candidates))

    def sightings(self, image: np.ndarray, *, unsure: bool = False) -> list[Sighting]:
        """One sighting per physical card seen in ``image``, at least as sure as the model's thresholds (``unsure``:
        from ``SIGHTING_FLOOR`` up, every decision before the thresholds the same: what the confidence of the
        readings is measured on, ``real_eval.reliability``).

        Everything that may be an index is gathered first, at ``SIGHTING_FLOOR``: the readings of every card-like
        region (a fan's region also spotted, for cards turned their own way in an arc) and of spotting over the
        whole image (outlines are often lost on wood, cloth or in shadow). These are grouped into physical cards,
        weighing the two corners of a card lying whole together, and only then held to the thresholds: two
        corners that agree make a card sure that neither makes alone, and two that disagree make it unsure.
        """
        if image is None or image.ndim != 3 or min(image.shape[:2]) < 40:  # too small to hold a readable index
            return []
        floor = min(SIGHTING_FLOOR, self.net.accept)
        keep = (lambda cards: cards) if unsure else self.sure_only
        total = float(image.shape[0] * image.shape[1])
        regions = cards_on_surfaces(image)[:40] + dark_regions(image)[:12]
        regions += paper_cards(image, regions)[:12]
        whole_region = whole_image_region(image)
        found: list[Sighting] = []
        whole_card = is_card_shaped(whole_region)
        # the image read as one card in each turn, once: for the cropped-card test and the whole-image reading
        by_turn = self._read_turns(image, whole_region, floor) if whole_card else []
        card = self._cropped_card(by_turn)
        if card:
            return card
        if whole_card and not any(r.area >= 0.5 * total for r in regions) and not _several_cards(regions, image.shape):
            # an image cropped to one card: the regions found inside it (pips, a court's frame) are not cards
            whole = _best_turn(by_turn)
            if whole.readings and max(r.confidence for r in whole.readings) >= self.net.accept:
                return at_most_a_pack(keep(physical_cards(list(whole.sightings), self._margin)))
            found.extend(whole.sightings)
        for outline, region in enumerate(regions):
            reads = self._read_turns(image, region, floor)
            read = _best_turn(reads)
            seen = self._both_corners(outline, region, read, reads[(read.turn + 2) % 4], total)
            dark = read.dark
            if dark or (not is_card_shaped(region) and region.area >= SCENE_CARD_SHARE * total):
                # a fan in an arc (each card turned its own way), or dark cards, which the whole image's
                # spotting below does not see (it looks for ink darker than its paper)
                spotted = self._spot(image, region, floor, dark)
                if dark:
                    seen += spotted
                elif self._sure_weight(spotted) > self._sure_weight(seen):
                    seen = spotted
            found.extend(seen)
        for spotting in spotting_passes(image):
            found.extend(self._spot(image, whole_region, floor, spotting=spotting))
        return at_most_a_pack(keep(self._rows(physical_cards(self._tens_second_glyphs(found), self._margin))))

    def _both_corners(self, outline: int, region: Region, read: RegionRead, opposite: RegionRead, total: float
                      ) -> list[Sighting]:
        """``read``'s sightings, numbered as read in ``outline``; if the region is a card of the scene (card-shaped, at
        least ``SCENE_CARD_SHARE`` of the image), with the readings at the top-left corner of ``opposite`` (the region
        turned half a turn) that may be the other corner of a card read at ``read``'s, as ``second`` corners:
        grouping weighs each with its card (``physical_cards``) where their places alone would not pair them."""
        seen = [replace(s, outline=outline) for s in read.sightings]
        if not is_card_shaped(region) or region.area < SCENE_CARD_SHARE * total:
            return seen
        firsts = [s for s, box in zip(seen, read.flat_boxes, strict=True) if _at_corner(box, read.flat)]
        return seen + [replace(b, outline=outline, second=True)
                       for b, box in zip(opposite.sightings, opposite.flat_boxes, strict=True)
                       if _at_corner(box, opposite.flat) and any(corners_in_one_outline(a, b) for a in firsts)]

    def _read_turns(self, image: np.ndarray, region: Region, accept: float) -> list[RegionRead]:
        """``region`` read in each of its four quarter turns (index = turn), none chosen: a card's two corners are
        read in two opposite turns."""
        return [self.read_region(image, region, turns=(t,), accept=accept) for t in range(4)]

    def _cropped_card(self, by_turn: list[RegionRead]) -> list[Sighting]:
        """The card of an image cropped to one card (``by_turn``: the image read as one card in each of its four
        turns), known by its two corner indices (read upright and turned half a turn) reading the same card
        surely; else nothing. The card's own pictures and inner frames cannot then be read as other cards."""
        for turn in (0, 1) if by_turn else ():
            corners = [by_turn[t].sightings for t in (turn, turn + 2)]
            if all(corners) and corners[0][0].card == corners[1][0].card \
                    and min(c[0].confidence for c in corners) >= self.net.accept:
                return physical_cards([corners[0][0], corners[1][0]])
        return []

    def _rows(self, cards: list[Sighting]) -> list[Sighting]:
        """``cards``, each spotted one between the two thresholds that stands beside a sure card as the next index
        of a row (``in_a_row``) no longer held to the stricter threshold of an index spotted alone: in a fan whose
        outline is lost, a card read at 0.999 beside its sure neighbour was missed. Its neighbour must be sure on its
        own (one step). A reading under both thresholds stays spotted, so what is reported of it (the spotted card
        calibration, ``unsure=True``) is as before: the rule was measured only where it decides."""
        sure = self.sure_only(cards)
        return [replace(s, spotted=False) if s.spotted and self.net.accept <= s.confidence < self.net.spot_accept
                and any(in_a_row(s, o) for o in sure) else s for s in cards]

    def _tens_second_glyphs(self, sightings: list[Sighting]) -> list[Sighting]:
        """The sightings gathered, without those read at the second glyph of a sure ten at least as sure as they are
        (``grouping.at_a_tens_second_glyph``): the "0" of a ten, read with the ten's suit below it as a queen. Before
        grouping, so that a whole ten's lower corner, weighed into the card with its upper one, still claims its own
        "0". Of a sure ten and a surer card at its "0", the card stands: there the ten is more likely the card's own
        index misread (a six of clubs read at 1.0, spotted, and as the ten of clubs at 0.9999 in an outline, a glyph
        height away, on a held-out frame)."""
        tens = [t for t in self.sure_only(sightings) if t.card[1:] == "T"]
        return [s for s in sightings
                if not any(t is not s and t.confidence >= s.confidence and at_a_tens_second_glyph(s, t) for t in tens)]

    def threshold(self, s: Sighting) -> float:
        """The confidence ``s`` must reach to be reported: the model's accept threshold, or its stricter one
        (``spot_accept``) for a card spotted alone and for a joker however it was found. A joker's index is a word
        or a picture, not a rank over a suit, and a card's art, a word or a page's stars are read as one inside an
        outline too: over the accept threshold, 5 of the 20 jokers read on photos never trained on (edje's train
        folder, which holds no joker) and the held-out designs' frames were wrong, against 12 of 1,505 other cards
        (``vision/README.md``, *Jokers held to the spotted threshold*)."""
        return self.net.spot_accept if s.spotted or s.card in JOKERS else self.net.accept

    def sure_only(self, cards: list[Sighting]) -> list[Sighting]:
        """The sightings at least as sure as the thresholds they are held to (:meth:`threshold`)."""
        return [s for s in cards if s.confidence >= self.threshold(s)]

    def _margin(self, s: Sighting) -> float:
        """How far ``s`` is over (under, if negative) the threshold it is held to, in log-odds."""
        return logit(s.confidence) - logit(self.threshold(s))

    def _sure_weight(self, sightings: list[Sighting]) -> float:
        """How much sure reading ``sightings`` hold (choosing between two ways of reading one region)."""
        return sum(s.confidence for s in self.sure_only(sightings))

    def _spot(self, image: np.ndarray, region: Region, floor: float, dark: bool = False,
              spotting: SpottingPass = WHOLE_PHOTO_PASS) -> list[Sighting]:
        """The indices spotted in ``region``'s box (``dark``: a dark card's, read turned over) as ``spotting``
        looks."""
        x, y, w, h = region.box
        x0, y0 = max(0, x), max(0, y)
        crop = image[y0: y + h, x0: x + w]
        if crop.size == 0:
            return []
        crop, scale, least = spotting.view(as_printed(crop, dark, self.dim_rules))
        return [Sighting(s.card, s.confidence,
                         (round(s.box[0] / scale) + x0, round(s.box[1] / scale) + y0, round(s.box[2] / scale),
                          round(s.box[3] / scale)),
                         (s.centre[0] / scale + x0, s.centre[1] / scale + y0), s.up, s.glyph_h / scale, s.candidates,
                         spotted=True, cut=s.cut)
                for s in spot(crop, self.net, least, max_share=spotting.max_share)
                if s.confidence >= floor]

    def best_card(self, image: np.ndarray) -> tuple[Region, RegionRead]:
        """The one card of a single-card photo (:func:`vision.card_regions.best_card`)."""
        return best_card(image, self.read_region)


def spotting_passes(image: np.ndarray) -> tuple[SpottingPass, SpottingPass]:
    """The reader's two spotting passes over a whole photo: indices up to a twelfth of it, then a close-up's larger
    ones at half the size. The one place they are set: the real training windows are cut by the same passes
    (``training.real_data.spotted_windows``), so the network learns from what the reader reads."""
    close_up = min(SPOT_SIDE, max(image.shape[:2])) // 2
    return WHOLE_PHOTO_PASS, SpottingPass(close_up, CLOSE_UP_SHARE, CLOSE_UP_FROM)


#: a card's corner index starts within this share of its upright view's width and height from the top-left
CORNER_SHARE = 0.3


def _at_corner(box: tuple[int, int, int, int], flat: np.ndarray) -> bool:
    """Whether an index ``box`` of the upright view ``flat`` starts at its top-left corner."""
    return box[0] < CORNER_SHARE * flat.shape[1] and box[1] < CORNER_SHARE * flat.shape[0]


def _several_cards(regions: list[Region], shape: tuple[int, ...]) -> bool:
    """Whether ``regions`` show two separate cards (card-shaped, card-sized, clear of the photo's edges, neither
    mostly over the other): a photo of a scene, which a 16:9 or 4:3 photo's shape alone would take for one card
    cropped close. In a photo cropped to a card, a corner's index and pip found as one region is card-shaped and
    as large as a scene's card, but runs into the photo's edge (a five of clubs: two such, at opposite corners)."""
    cards = [r for r in regions if r.area >= SCENE_CARD_SHARE * shape[0] * shape[1] and is_card_shaped(r)
             and clear_of_edges(r.box, shape)]
    return any(box_overlap(a.box, b.box) < 0.5 for i, a in enumerate(cards) for b in cards[i + 1:])
