"""Reading cards from an image: regions by edges, each turned upright, indices found and classified.

``CardReader.read_image`` is the free-standing reader (``vision classify``): every card-like region of the image
is tried in its four quarter turns and the turn whose indices read best wins; an image that is itself a cropped
card is read whole. ``CardReader.read_region`` serves the table reader, which knows each seat's upright turn.
With a ``DeckProfile`` (``vision enroll``) single cards are also matched against that deck's enrolled faces.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np

from .card_regions import best_card, card_regions, is_card_shaped, top_level
from .classifier import RANK_CLASSES, SUIT_CLASSES, GlyphModel
from .deck import DeckProfile, card_signature, ink_redness
from .geometry import CARD_H, Region, map_box, rectify, whole_image_region
from .index import BAND, IndexCandidate, find_candidates, glyph_features, ink_mask, redness_of
from .spotting import spot
from .types import BLACK_JOKER, LOW_CONFIDENCE, RED_JOKER, RED_SUITS, CardReading, RegionRead

#: Temperature of enrolled-template correlations when weighed against the index reading.
TEMPLATE_T = 0.02
#: A region no wider than this (in card heights) holds one card, not a fan.
SINGLE_CARD_WIDTH = 0.85


def _red_probability(redness: float) -> float:
    return float(1.0 / (1.0 + np.exp(-(redness - 30.0) / 8.0)))


class CardReader:
    """Reads card indices; holds the glyph model and an optional enrolled deck."""

    #: the confidence at which a reading is taken without a check (every reading is reported, surer or not)
    sure = LOW_CONFIDENCE
    #: a region no wider than this (card heights) is one card: only its top-left index is read
    single_card_width = SINGLE_CARD_WIDTH

    def __init__(self, model: GlyphModel | None = None, deck: DeckProfile | None = None) -> None:
        self.model = model or GlyphModel.load()
        self.deck = deck

    def _classify(self, candidates: Sequence[IndexCandidate], mask: np.ndarray,
                  redness: np.ndarray) -> list[tuple[str, float, IndexCandidate]]:
        if not candidates:
            return []
        rank_p = self.model.rank.predict(np.stack([glyph_features(mask, c.rank) for c in candidates]))
        suit_p = self.model.suit.predict(np.stack([glyph_features(mask, c.suit) for c in candidates]))
        out: list[tuple[str, float, IndexCandidate]] = []
        x_rank, x_suit = RANK_CLASSES.index("X"), SUIT_CLASSES.index("X")
        for cand, rp, sp in zip(candidates, rank_p, suit_p, strict=True):
            red = _red_probability(0.5 * (redness_of(redness, mask, cand.rank)
                                          + redness_of(redness, mask, cand.suit)))
            if cand.stack >= 2 and sp[x_suit] > 0.5 and rp[RANK_CLASSES.index("J")] >= 0.4:  # J-O-K-E-R
                out.append((RED_JOKER if red > 0.5 else BLACK_JOKER, float(sp[x_suit] * max(red, 1 - red)), cand))
                continue
            if rp[x_rank] > 0.5 or sp[x_suit] > 0.5:
                continue
            colour = np.array([1 - red if s not in RED_SUITS else red for s in SUIT_CLASSES[:4]])
            suits = sp[:4] * (0.15 + 0.85 * colour)
            suits = suits / max(float(suits.sum()), 1e-9) * (1 - sp[x_suit])
            r = int(np.argmax(rp[:13]))
            s = int(np.argmax(suits))
            out.append((SUIT_CLASSES[s] + RANK_CLASSES[r], float(rp[r] * suits[s]), cand))
        return out

    def read_region(self, image: np.ndarray, region: Region, turns: Iterable[int] = (0, 1, 2, 3), *,
                    faint: bool = False) -> RegionRead:
        """Read one region in each of ``turns`` and keep the turn that reads best (``faint``: fainter ink counts
        too, the table's second look)."""
        best: RegionRead | None = None
        for turn in turns:
            flat, inverse = rectify(image, region, turn)
            band = flat[: int(BAND * CARD_H)]
            mask, redness = ink_mask(band, faint=faint)
            found = self._classify(find_candidates(mask), mask, redness)
            single = flat.shape[1] <= SINGLE_CARD_WIDTH * CARD_H
            if single:
                found = [f for f in found if f[2].rank.x < 0.4 * flat.shape[1]]
                found = sorted(found, key=lambda f: -f[1])[:1]
            else:
                found = _drop_overlaps(found)
            found = sorted(found, key=lambda f: f[2].rank.x)
            readings = [CardReading(code, conf, map_box(inverse, _index_box(cand))) for code, conf, cand in found]
            score = sum(r.confidence for r in readings)
            if best is None or score > best.score + 1e-9:
                best = RegionRead(turn, readings, flat, score, tuple(_index_box(f[2]) for f in found))
        assert best is not None
        if self.deck is not None and is_card_shaped(region):
            best = self._match_deck(image, region, best)
        return best

    def _match_deck(self, image: np.ndarray, region: Region, read: RegionRead) -> RegionRead:
        """Read a single card of the enrolled deck: index reading and template match, weighed together.

        Templates tell a deck's court cards, jokers and odd designs apart, but one deck's 7 of spades and 7 of
        clubs differ by a pip shape; the index reading tells those apart. Each code's log-odds are the
        template correlation over ``TEMPLATE_T`` plus the log of the index model's belief in it, so a sure
        index reading stands unless the templates disagree by more than about 0.15. A card that matches no
        enrolled face (a joker left out of the enrolment, another deck) keeps the index reading.
        """
        assert self.deck is not None
        turns = (read.turn, (read.turn + 2) % 4) if read.readings else (0, 1, 2, 3)
        flats = [rectify(image, region, t)[0] for t in turns]
        signatures = [card_signature(f) for f in flats]
        if read.flat_boxes:  # the index found: its crop aligned on it compares better than a fixed corner
            signatures.append(card_signature(read.flat, read.flat_boxes[0]))
        ranked = self.deck.ranked(signatures, ink_redness(flats[0]))
        if ranked[0][1] < 0.45:
            return read
        model = read.readings[0] if read.readings else None
        codes = [c for c, _ in ranked]
        logits = np.array([score for _, score in ranked]) / TEMPLATE_T
        if model is not None and model.card in codes:
            belief = np.full(len(codes), (1 - min(model.confidence, 0.999)) / 53)
            belief[codes.index(model.card)] = min(model.confidence, 0.999)
            logits = logits + np.log(belief)
        posterior = np.exp(logits - logits.max())
        posterior /= posterior.sum()
        best = int(np.argmax(posterior))
        confidence = float(posterior[best]) * float(np.clip((ranked[best][1] - 0.3) * 4, 0, 1))
        box = model.box if model is not None else region.box
        return RegionRead(read.turn, [CardReading(codes[best], confidence, box)], read.flat, confidence)

    def read_image(self, image: np.ndarray) -> list[CardReading]:
        """Every card read in a free-standing image, left to right (by index box)."""
        if image is None or image.ndim != 3 or min(image.shape[:2]) < 40:  # too small to hold a readable index
            return []
        total = float(image.shape[0] * image.shape[1])
        readings: list[CardReading] = []
        covered = 0.0
        confident_cards = 0
        for region in top_level(card_regions(image))[:40]:
            read = self.read_region(image, region)
            if not is_card_shaped(region) and region.area >= 0.02 * total:
                spotted = self._spot(image, region)  # a fan in an arc: each card turned its own way
                if sum(r.confidence for r in spotted) > read.score:
                    read = RegionRead(read.turn, spotted, read.flat, sum(r.confidence for r in spotted))
            readings.extend(read.readings)
            covered += region.area if read.readings else 0.0
            confident_cards += is_card_shaped(region) and region.area >= 0.02 * total and read.score >= 0.5
        whole_region = whole_image_region(image)
        if confident_cards == 0 or max(image.shape[:2]) >= 800:
            # hands fanned in arcs, or outlines lost in shadow: spotting indices over the whole image may see
            # clearly more cards than the regions did (a lone card never gains that much)
            spotted = self._spot(image, whole_region)
            if sum(r.confidence for r in spotted) > sum(r.confidence for r in readings) + 2.0:
                readings = spotted
        if confident_cards <= 1 and is_card_shaped(whole_region):
            # an image cropped to one card: regions found inside it (pips, the court frame) are not cards
            whole = self.read_region(image, whole_region)
            best_whole = max((r.confidence for r in whole.readings), default=0.0)
            if (best_whole >= 0.5 or covered < 0.5 * total) and whole.score >= sum(r.confidence for r in readings) \
                    or best_whole >= 0.5 and confident_cards == 0:
                readings = whole.readings
        return sorted(readings, key=lambda r: (r.box[0], r.box[1]))

    def _spot(self, image: np.ndarray, region: Region) -> list[CardReading]:
        x, y, w, h = region.box
        x0, y0 = max(0, x), max(0, y)
        crop = image[y0: y + h, x0: x + w]
        if crop.size == 0:
            return []
        scale = min(1.0, 1600.0 / max(crop.shape[:2]))  # big phone photos: indices stay tens of pixels high
        if scale < 1.0:
            crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        found = spot(crop, self._classify)
        return [CardReading(code, conf, (round(bx / scale) + x0, round(by / scale) + y0, round(bw / scale),
                                         round(bh / scale))) for code, conf, (bx, by, bw, bh) in found]

    def best_card(self, image: np.ndarray) -> tuple[Region, RegionRead]:
        """The one card of a single-card photo (:func:`vision.card_regions.best_card`)."""
        return best_card(image, self.read_region)






def _index_box(cand: IndexCandidate) -> tuple[int, int, int, int]:
    g = cand.rank.union(cand.suit)
    return g.x, g.y, g.w, g.h


def _drop_overlaps(found: list[tuple[str, float, IndexCandidate]]) -> list[tuple[str, float, IndexCandidate]]:
    """Keep the surest of index readings whose boxes overlap (a joker's letters pair up more than once)."""
    kept: list[tuple[str, float, IndexCandidate]] = []
    for item in sorted(found, key=lambda f: -f[1]):
        g = item[2].rank.union(item[2].suit)
        if all(min(g.x + g.w, k.x + k.w) - max(g.x, k.x) <= 0 or min(g.bottom, k.bottom) - max(g.y, k.y) <= 0
               for k in (kept_item[2].rank.union(kept_item[2].suit) for kept_item in kept)):
            kept.append(item)
    return kept

