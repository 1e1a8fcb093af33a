"""The table reader: one camera frame in, the cards in each seat's play area out (left to right from the seat).

Each seat's zone is warped to that seat's upright view (``vision.calibration``); card regions are found there
by edges and read upright (a card laid by a seat faces that seat), so a fan of overlapping cards reads as its
row of top-left indices, in the seat's own left-to-right order. With ``outside=True`` the rest of the table is
searched as well and cards found there are returned under ``OUTSIDE`` (possible exposed cards).

With ``skip_still=True`` (the table daemon's camera loop) a zone whose picture has not changed since it was
last read, and which read the same way in its last ``SETTLED_READS`` reads, keeps its readings without being
read again (at most ``REFRESH_FRAMES`` frames running): a table has one seat laying cards at a time, so most
frames read one zone instead of four. A zone that is changing is read every frame, so each frame stays
independent evidence for the stabiliser while a play settles.

A frame darker than the camera's exposure was set for (a hall dimmer than at setup) is brightened as a whole,
by how far its whitest parts (the corner markers' white, the cards' paper) fall short of paper's brightness
(``polarity.exposure_gain``): finding regions by edges, the count of a fan and the ink of the indices all judge
grey levels, and a hall half as bright as the camera was set for took 9 of 300 plays a card short silently
(``bench/table_reading.py --exposure 0.5``); brightened, the table reads it as a well lit one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

from .calibration import TableCalibration
from .card_regions import top_level
from .classifier import GlyphModel
from .counting import CARD_WIDTH, CROWDED_DOUBT, crowded, impossible_indices, missing_cards
from .deck import DeckProfile
from .geometry import Region, find_regions, map_box, raised_at_the_top, widened_at_the_start
from .polarity import MAX_GAIN, exposure_gain
from .reader import CardReader
from .types import UNREADABLE, CardReading, RegionRead

OUTSIDE = "outside"
#: reads running that must agree before a still zone may be skipped, and the most frames it is skipped for
SETTLED_READS = 3
REFRESH_FRAMES = 15
#: an outermost region in a zone at least this wide (over its height, upright) with no index read is a card
#: whose index was not read (narrower: a sliver of something else)
MIN_UNREAD_WIDTH = 0.5
#: the change (grey levels, in any 1/8-size block of the zone, less the light's overall change) that counts
STILL_CHANGE = 10.0


class RegionReader(Protocol):
    """What the table reader needs of a card reader: the glyph reader (``vision.reader``) or the learned one
    (``vision.net.reader``)."""

    @property
    def sure(self) -> float:
        """The confidence at which a reading is taken without a check."""
        ...
    #: a region no wider than this (in card heights) is one card to this reader, not a fan: it reads only its
    #: top-left index, so the table's fan rules leave it alone
    single_card_width: float

    def read_region(self, image: np.ndarray, region: Region, turns: Iterable[int] = ..., *,
                    faint: bool = ...) -> RegionRead:
        """The readings of a region in the best of ``turns`` (``faint``: fainter ink counts as ink too)."""
        ...


@dataclass
class _ZoneMemory:
    signature: np.ndarray
    readings: list[CardReading]
    agreeing: int
    skipped: int = 0


class TableReader:
    """``TableReader(calibration, deck_profile=None).read(frame) -> {seat: [CardReading, ...]}``.

    ``card_reader`` replaces the glyph reader (and its ``deck_profile`` and ``model``) by another one, such as
    the learned reader ``vision.net.reader.CardReader``."""

    def __init__(self, calibration: TableCalibration, deck_profile: DeckProfile | None = None,
                 model: GlyphModel | None = None, *, skip_still: bool = False,
                 card_reader: RegionReader | None = None) -> None:
        self.reader: RegionReader = card_reader or CardReader(model=model, deck=deck_profile)
        self.skip_still = skip_still
        self.zones_read = 0
        self.zones_skipped = 0
        #: how much the last frame was brightened (``polarity.exposure_gain``; 1: not at all), and whether it was
        #: darker than brightening can make up for (the gain at its cap: the camera's exposure wants setting again)
        self.exposure_gain = 1.0
        self.too_dim = False
        self._memory: dict[str, _ZoneMemory] = {}
        self.recalibrate(calibration)

    def recalibrate(self, calibration: TableCalibration) -> None:
        """Read the seats' zones where ``calibration`` puts them from now on (the camera or table moved)."""
        self.calibration = calibration
        self._warps = {seat: (zone.upright_matrix(), zone.size) for seat, zone in calibration.zones.items()}
        self._memory.clear()

    def read(self, frame: np.ndarray, outside: bool = False) -> dict[str, list[CardReading]]:
        """Readings per seat (every calibrated seat present, maybe empty); boxes are in frame coordinates."""
        out: dict[str, list[CardReading]] = {}
        if frame is None or frame.ndim != 3 or min(frame.shape[:2]) < 16:
            return {seat: [] for seat in self.calibration.zones}
        gain = exposure_gain(frame)
        self.exposure_gain = gain
        self.too_dim = gain >= MAX_GAIN
        if gain > 1.0:  # the hall is darker than the camera's exposure was set for: the whole view brightened
            frame = cv2.convertScaleAbs(frame, alpha=gain)
        for seat, (matrix, size) in self._warps.items():
            view = cv2.warpPerspective(frame, matrix, size, flags=cv2.INTER_LINEAR)
            if self.skip_still:
                signature = _signature(view)
                memory = self._memory.get(seat)
                if memory is not None and memory.agreeing >= SETTLED_READS and memory.skipped < REFRESH_FRAMES \
                        and _still(memory.signature, signature):
                    memory.skipped += 1
                    self.zones_skipped += 1
                    out[seat] = list(memory.readings)
                    continue
            self.zones_read += 1
            inverse = np.linalg.inv(matrix)
            readings: list[CardReading] = []
            regions = find_regions(view, min_area_frac=0.02)
            outermost = {id(r) for r in top_level(regions)}
            for region in regions:
                read, places = self._read(view, region)
                found = [CardReading(r.card, r.confidence, map_box(inverse, r.box), r.candidates)
                         for r in read.readings]
                if found:
                    readings.extend(_with_unread(found, places, region, inverse))
                elif id(region) in outermost and read.flat.shape[1] >= MIN_UNREAD_WIDTH * read.flat.shape[0]:
                    # a card (or a fan) lying in the zone with no index read: a card not read, not nothing
                    readings.append(CardReading(UNREADABLE, 0.0, map_box(inverse, region.box)))
            order = np.array([[r.box[0] + r.box[2] / 2, r.box[1] + r.box[3] / 2] for r in readings], np.float32)
            if readings:  # sort by x in the seat's upright view
                seat_x = cv2.perspectiveTransform(order[None], matrix)[0][:, 0]
                readings = [readings[i] for i in np.argsort(seat_x, kind="stable")]
            out[seat] = readings
            if self.skip_still:
                before = self._memory.get(seat)
                # only sure readings may settle a zone for skipping: an unsure one is worth reading again
                sure = all(r.confidence >= self.reader.sure for r in readings)
                same = sure and before is not None and [r.card for r in before.readings] == [r.card for r in readings]
                self._memory[seat] = _ZoneMemory(signature, readings, before.agreeing + 1 if same and before else 1)
        if outside:
            out[OUTSIDE] = self._outside(frame)
        return out

    def _read(self, view: np.ndarray, region: Region) -> tuple[RegionRead, UnreadPlaces | None]:
        """One region of a seat's upright view read upright (:meth:`_read_as_found`), read again with its left end
        widened where its outline cut off part of what was found there (:func:`vision.geometry.widened_at_the_start`): the fan's
        first card, index and all, may lie in that sliver, and no count of the fan can see a card outside it (CQ
        HQ DQ CK DK DK taken as the full house without CQ). The wider read is kept only when it reads exactly one
        card more, surely, before the same cards."""
        read, places = self._read_as_found(view, region)
        wider = widened_at_the_start(region, CUT_OFF_START, CUT_OFF_MARGIN)
        if wider is None or not read.readings:
            return read, places
        again, again_places = self._read_as_found(view, wider)
        first, rest = again.readings[:1], again.readings[1:]
        if not first or first[0].confidence < self.reader.sure or first[0].card == UNREADABLE \
                or [r.card for r in rest] != [r.card for r in read.readings]:
            return read, places
        return again, again_places

    def _read_as_found(self, view: np.ndarray, region: Region) -> tuple[RegionRead, UnreadPlaces | None]:
        """One region of a seat's upright view read upright, with where its fan's shape says cards lie whose
        index was not read (:func:`_unread_places`). Such a card makes the seat lay its cards again ("seen but not
        read"), so before saying so the region gets a second look that takes fainter ink (pale, thin print), and
        then one with the ends of its top side raised past what was found above them
        (:func:`vision.geometry.raised_at_the_top`: the fan's top card lying turned, its index above the outline);
        a look is kept when it leaves fewer cards unread, accounts for as many cards (read or unread) and reads
        again every card read surely. Fewer cards read can seem fewer unread: with two indices far apart the fan's
        count could not tell a loose fan from one with cards hidden between (a full house read as its first and
        last card)."""
        # regions come ordered from their top-left corner, so turn 0 keeps a card laid within 45 degrees of facing
        # its seat upright
        read = _with_fan_rules(self.reader.read_region(view, region, turns=(0,)), self.reader.sure,
                               self.reader.single_card_width)
        places = _unread_places(read)
        unread = _cards_unread(read, places)
        if not unread:
            return read, places
        sure = self.reader.sure
        looks = [(region, True)]  # (what is read, whether faint ink counts)
        raised = raised_at_the_top(region, RAISED_LEAST, RAISED_MARGIN, CARD_WIDTH)
        if raised is not None:
            looks.append((raised, False))
        for where, faint in looks:
            second = _with_fan_rules(self.reader.read_region(view, where, turns=(0,), faint=faint), sure,
                                     self.reader.single_card_width)
            second_places = _unread_places(second)
            second_unread = _cards_unread(second, second_places)
            if second_unread >= unread or len(second.readings) + second_unread < len(read.readings) + unread:
                continue
            again = Counter(r.card for r in second.readings if r.confidence >= sure)
            if Counter(r.card for r in read.readings if r.confidence >= sure) - again:
                continue
            return second, second_places
        return read, places

    def _outside(self, frame: np.ndarray) -> list[CardReading]:
        """Sure readings of cards outside every zone (an exposed card is a foul: no seat's hand can settle an
        unsure one, as the table's reader also reports them)."""
        mask = np.full(frame.shape[:2], 255, np.uint8)
        for zone in self.calibration.zones.values():
            cv2.fillConvexPoly(mask, zone.corners.astype(np.int32), 0)
        found: list[CardReading] = []
        for region in find_regions(frame, min_area_frac=0.002, mask=mask)[:12]:
            centre = region.corners.mean(axis=0)
            if self.calibration.zone_of((float(centre[0]), float(centre[1]))) is None:
                found.extend(r for r in self.reader.read_region(frame, region).readings
                             if r.confidence >= self.reader.sure)
        return found


def _signature(view: np.ndarray) -> np.ndarray:
    """The zone's picture at 1/8 size, grey, less its mean (the light's overall flicker does not count)."""
    small = cv2.resize(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), None, fx=0.125, fy=0.125,
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    return small - small.mean()


def _still(before: np.ndarray, now: np.ndarray) -> bool:
    """No 2x2 block of the small picture (16x16 px of the zone) changed by more than ``STILL_CHANGE``."""
    if before.shape != now.shape:
        return False
    diff = np.abs(now - before)
    h, w = (diff.shape[0] // 2) * 2, (diff.shape[1] // 2) * 2
    blocks = diff[:h, :w].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    return float(blocks.max()) <= STILL_CHANGE


#: cards whose index was not read: before the first index read, after the last, and after each
UnreadPlaces = tuple[int, int, list[int]]


def _with_fan_rules(read: RegionRead, sure: float, single_card_width: float) -> RegionRead:
    """``read`` as the fan's geometry allows. Without the readings that cannot start a card's index in a fan
    (:func:`vision.counting.impossible_indices`): on the face of its top card (a picture, pips or a joker's word
    read as one more card), or, among the rest, closer beside another reading than two indices stand (a card read
    twice, a suit printed beside a rank read as a joker). Then each unsure reading that stands too close beside a
    sure reading of another card to be a card's own index (:func:`vision.counting.crowded`) is made less
    probable, by ``CROWDED_DOUBT``: what its candidates leave over is "no card here", which the table may then
    choose with the seat's hand (a pip of a ten read as a queen beside the ten's index made a full house of a
    bomb, silently). A single card (no wider than the reader's ``single_card_width``) keeps its reading (the
    reader takes only its top-left index), and so does a read whose readings and boxes do not match. The read's
    ``score`` stays as read: it served only to choose the turn, which the table has already chosen."""
    height, width = read.flat.shape[:2]
    if width <= single_card_width * height or not read.readings or len(read.flat_boxes) != len(read.readings):
        return read
    gone = impossible_indices([box[0] for box in read.flat_boxes], [r.card for r in read.readings],
                              [r.confidence for r in read.readings], float(width), float(height))
    kept = [i for i, impossible in enumerate(gone) if not impossible]
    boxes = [read.flat_boxes[i] for i in kept]
    doubted = crowded([box[0] for box in boxes], [read.readings[i].card for i in kept],
                      [read.readings[i].confidence for i in kept], float(height), sure)
    if not any(gone) and not any(doubted):
        return read
    changes: dict[str, object] = {
        "readings": [replace(r, confidence=r.confidence * CROWDED_DOUBT,
                             candidates=tuple((code, p * CROWDED_DOUBT) for code, p in r.candidates))
                     if doubt else r for r, doubt in zip((read.readings[i] for i in kept), doubted, strict=True)],
        "flat_boxes": tuple(boxes)}
    sightings = getattr(read, "sightings", ())
    if len(sightings) == len(read.readings):
        changes["sightings"] = tuple(sightings[i] for i in kept)
    return replace(read, **changes)  # type: ignore[arg-type]


#: how far (card heights) what was found may stick out of a region's outline at its left end before the region
#: is read again widened there: ordinary fans stick out up to about 0.06 (99th percentile, 390 plays of
#: ``bench/table_reading.py``), the two fans whose first index was cut off 0.06 and 0.09
CUT_OFF_START = 0.05
#: how much wider than what sticks out the widened region is (card heights)
CUT_OFF_MARGIN = 0.02
#: how far (card heights) what was found may stick out above a region's top side near either end before a fan with
#: a card unread is read again with that end raised, and by how much more
RAISED_LEAST = 0.02
RAISED_MARGIN = 0.02


def _unread_places(read: RegionRead) -> UnreadPlaces | None:
    """Where the fan's shape says cards lie whose index was not read (:func:`vision.counting.missing_cards`),
    or None where nothing was read (or the readings and their boxes do not match)."""
    if not read.readings or len(read.flat_boxes) != len(read.readings):
        return None
    height, width = read.flat.shape[:2]
    return missing_cards([box[0] for box in read.flat_boxes], float(width), float(height))


def _cards_unread(read: RegionRead, places: UnreadPlaces | None) -> int:
    """How many cards of the region ``read`` read no index of: one when nothing was read, else those the fan's
    shape says are there (its ``places``)."""
    if places is None:
        return 1 if not read.readings else 0
    before, after, between = places
    return before + after + sum(between)


def _with_unread(found: list[CardReading], places: UnreadPlaces | None, region: Region,
                 inverse: np.ndarray) -> list[CardReading]:
    """``found`` with an ``UNREADABLE`` reading (confidence 0) at each of the ``places`` (:func:`_unread_places`)
    where a card lies whose index was not read."""
    if places is None:
        return found
    before, after, between = places
    if not (before or after or any(between)):
        return found
    unread = CardReading(UNREADABLE, 0.0, map_box(inverse, region.box))  # where the fan is, in the frame
    out = [unread] * before
    for reading, extra in zip(found, between, strict=True):
        out.append(reading)
        out.extend([unread] * extra)
    return out + [unread] * after
