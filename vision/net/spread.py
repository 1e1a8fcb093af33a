"""Spread enrolment: photos of the whole deck laid out in a known order under the table camera.

The organiser lays the deck out face up in rows, in the order ``ORDER``: spades, hearts, clubs, diamonds, each
from the ace to the king, then the jokers (小王 ``SB``, then 大王 ``HR``); as many cards to a row as fit, the
order running on from row to row and from one photo to the next (``vision enroll --spread IMAGE...``). Cards
must not overlap. In each photo the cards are the card-shaped regions of about the common card size, found by
edges (``vision.card_regions``) and as paper apart from the cloth: a light deck brighter than a darker cloth, a
dark deck (printed light on black) darker than a lighter one (the edge finder merges cards lying a few
millimetres apart; a light deck on a light desk, or a dark one on a dark cloth, only the edges find, and
neighbours must lie further apart); they are
sorted into rows along the cards' own direction (a new row where a card's centre stands more than half a card
below the row's) and, in each row, left to right, and labelled by their place. Each card, rectified upright,
is then enrolled like a photo of one card (``vision.net.enrolment``). The deck counts 52 cards (no jokers) or
54; any other count is refused with what was found in each row, so a misplaced card never enrols silently as
another.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from ..card_regions import card_regions, changed_regions, is_card_shaped, paper_regions, top_level
from ..files import ImageError, load_image
from ..geometry import Region, box_overlap, rectify
from ..types import JOKERS
from .enrolled import DEFAULT_BLEND, Blend, EnrolledDeck
from .enrolment import enrol_images
from .network import IndexNet

ORDER: tuple[str, ...] = tuple(s + r for s in "SHCD" for r in "A23456789TJQK") + JOKERS
#: a card is a card-shaped region of at least this share of the photo, and within this factor of the median
MIN_AREA = 0.001
SIZE_FACTOR = 1.8


class SpreadError(ValueError):
    """A spread photo whose cards cannot be put in the deck's order."""


def _height(region: Region) -> float:
    c = region.corners
    return float(max(np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[1] - c[0])))


def card_candidates(image: np.ndarray, empty: np.ndarray | None = None) -> list[Region]:
    """Card-shaped regions by edges and by paper, one of each overlapping pair kept; with ``empty`` (the same
    table photographed empty by the same camera), by what changed from it."""
    if empty is not None:
        found = [r for r in changed_regions(image, empty) if is_card_shaped(r)]
    else:
        found = [r for r in top_level(card_regions(image)) + paper_regions(image) if is_card_shaped(r)]
    if not found:
        return []
    # where regions overlap (a card found by both, or two neighbours merged by the edge finder), the one
    # nearest the common card size is the card
    median = float(np.median([r.area for r in found]))
    kept: list[Region] = []
    for r in sorted(found, key=lambda r: abs(np.log(max(r.area, 1.0) / median))):
        if not any(box_overlap(r.box, k.box) > 0.5 for k in kept):
            kept.append(r)
    return kept


def spread_rows(image: np.ndarray, empty: np.ndarray | None = None) -> list[list[Region]]:
    """The cards of one spread photo in rows, top to bottom, each left to right (``empty``: as
    ``card_candidates``)."""
    total = float(image.shape[0] * image.shape[1])
    shaped = [r for r in card_candidates(image, empty) if r.area >= MIN_AREA * total]
    if not shaped:
        return []
    median = float(np.median([r.area for r in shaped]))
    cards = [r for r in shaped if median / SIZE_FACTOR <= r.area <= median * SIZE_FACTOR]
    height = float(np.median([_height(r) for r in cards]))
    # the rows run along the cards' own edges: a camera turned a few degrees tilts them all alike, and over a
    # row of thirteen cards that tilt is more than the half card that tells one row from the next
    a = _layout_angle(cards)
    turn = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    centres = {id(r): turn @ r.corners.mean(axis=0) for r in cards}
    rows: list[list[Region]] = []
    for card in sorted(cards, key=lambda r: float(centres[id(r)][1])):
        cy = float(centres[id(card)][1])
        if rows and cy - float(np.mean([centres[id(r)][1] for r in rows[-1]])) <= 0.5 * height:
            rows[-1].append(card)
        else:
            rows.append([card])
    return [sorted(row, key=lambda r: float(centres[id(r)][0])) for row in rows]


def _layout_angle(cards: list[Region]) -> float:
    """The median direction of the cards' edges, folded to within 45 degrees of the image's x axis (radians)."""
    angles = []
    for r in cards:
        d = r.corners[1] - r.corners[0]
        angles.append((np.arctan2(d[1], d[0]) + np.pi / 4) % (np.pi / 2) - np.pi / 4)
    return float(np.median(angles))


def upright_card(image: np.ndarray, region: Region) -> np.ndarray:
    """The card of ``region`` flattened standing on its short side (either end up: indices are at both)."""
    flat, _ = rectify(image, region, 0)
    return flat if flat.shape[1] <= flat.shape[0] else rectify(image, region, 1)[0]


def annotated(image: np.ndarray, rows: list[list[Region]], start: int = 0) -> np.ndarray:
    """``image`` with the cards of ``rows`` outlined and each labelled with the card its place makes it (the
    order's ``start``-th onwards; "?" past the order): what the organiser checks before the spread is enrolled."""
    out = image.copy()
    place = start
    for row in rows:
        for region in row:
            label = ORDER[place] if place < len(ORDER) else "?"
            corners = region.corners.astype(np.int32)
            cv2.polylines(out, [corners], True, (0, 200, 0) if label != "?" else (0, 0, 255), 3, cv2.LINE_AA)
            x, y = (int(v) for v in corners.mean(axis=0))
            for colour, width in (((255, 255, 255), 6), ((0, 0, 0), 2)):
                cv2.putText(out, label, (x - 22, y + 12), cv2.FONT_HERSHEY_SIMPLEX, 1.2, colour, width, cv2.LINE_AA)
            place += 1
    return out


def label_spread(images: list[tuple[str, np.ndarray]], empty: np.ndarray | None = None
                 ) -> list[tuple[str, str, np.ndarray]]:
    """(code, name, card image) for every card of the spread photos (name: photo, row and place); ``empty``: the
    table photographed empty by the camera that took them, where the cards are found by what changed."""
    found: list[tuple[str, int, int, np.ndarray, Region]] = []
    counts: list[str] = []
    for name, image in images:
        try:
            rows = spread_rows(image, empty)
        except ValueError as exc:
            raise SpreadError(f"{name}: {exc}") from exc
        counts.append(f"{name}: " + (" + ".join(str(len(r)) for r in rows) or "0"))
        for i, row in enumerate(rows, 1):
            for j, region in enumerate(row, 1):
                found.append((name, i, j, image, region))
    if len(found) not in (52, 54):
        raise SpreadError(f"摆牌照片里找到 {len(found)} 张牌，应为 52 或 54 张 / found {len(found)} cards in the "
                          f"spread, not 52 or 54 (cards per row: {'; '.join(counts)}); lay the cards apart, "
                          "not overlapping, in rows ♠ ♥ ♣ ♦ from A to K, then the jokers"
                          + ("" if empty is not None else "; and photograph the table empty too (--empty, or "
                             "vision enroll --camera), so that the cards are found on any cloth"))
    return [(code, f"{name} row {i} card {j}", upright_card(image, region))
            for code, (name, i, j, image, region) in zip(ORDER, found, strict=False)]


def enrol_spread(paths: list[Path], net: IndexNet, progress: Callable[[str], None] = lambda _: None,
                 mix: Blend = DEFAULT_BLEND, empty: Path | None = None) -> tuple[EnrolledDeck, list[str]]:
    """Enrol the deck laid out in the photos ``paths`` (in order; ``empty``: a photo of the table empty, from the
    same camera); raises SpreadError or ImageError."""
    images = [(path.name, load_image(path)) for path in paths]
    if not images:
        raise ImageError("没有摆牌照片 / no spread photos given")
    return enrol_spread_images(images, net, progress, mix, load_image(empty) if empty is not None else None)


def enrol_spread_images(images: list[tuple[str, np.ndarray]], net: IndexNet,
                        progress: Callable[[str], None] = lambda _: None, mix: Blend = DEFAULT_BLEND,
                        empty: np.ndarray | None = None) -> tuple[EnrolledDeck, list[str]]:
    """``enrol_spread`` of (name, image) pairs: the cards found and labelled by their places, enrolled, and the
    spread refused when too many of them read as another card than their place (``out_of_order``)."""
    cards = label_spread(images, empty)
    progress(f"found {len(cards)} cards in {len(images)} photo(s), labelled in the order ♠ ♥ ♣ ♦ A-K"
             + (", jokers" if len(cards) == 54 else ""))
    deck, problems = enrol_images(net, cards, len(cards), progress, mix)
    misread = deck.report.get("misread_by_place", {})
    out_of_order({name: read for name, read in misread.items()} if isinstance(misread, dict) else {},
                 [name for _, name, _ in cards])
    sure = deck.report.get("surely_misread", {})
    against_the_order({name: read for name, read in sure.items()} if isinstance(sure, dict) else {},
                      {name: code for code, name, _ in cards})
    return deck, problems


#: a card missed (or one found twice) shifts every place after it: this many cards read as the card one or two
#: places along are a shift, not the network's misreadings (it misread 0-3 of a held-out design's 54 laid out right,
#: rendered, and up to 9 photographed by the simulated table's camera, scattered)
SHIFTED_LEAST = 3


def out_of_order(misread_by_place: dict[str, str], names: list[str]) -> None:
    """``SpreadError`` when the cards read as another card than their place are shifted along the order: 54 cards
    laid out of which two went unfound are 52 found, a whole deck without jokers to the count, and every card after
    the first one missed would be enrolled as its neighbour."""
    place = {name: i for i, name in enumerate(names)}
    steps = [ORDER.index(read) - place[name] for name, read in misread_by_place.items()
             if name in place and read in ORDER]
    shifted = max((steps.count(d) for d in (-2, -1, 1, 2)), default=0)
    if shifted >= SHIFTED_LEAST:
        first = "; ".join(f"{name} looks like {read}" for name, read in list(misread_by_place.items())[:3])
        raise SpreadError(f"摆牌顺序不对或漏找了牌 / {shifted} cards read as a card one or two places along ({first} "
                          "...): a card was not found, or is out of order; lay the deck out again, apart, in rows ♠ ♥ "
                          "♣ ♦ from A to K, then the jokers")


#: this many cards read surely as another card than their place are a spread laid (or photographed) out of order:
#: of 54 laid out right the network read at most one surely as another card (none at eleven of twelve held-out
#: designs of the simulated table's camera); rows swapped, photos given out of order or a camera turned round gave
#: 16-49 (two designs measured); two cards swapped are two, each read as the other, and refused as such
SURE_AGAINST_LEAST = 3


def against_the_order(surely_misread: dict[str, str], code_at: dict[str, str]) -> None:
    """``SpreadError`` when the network is sure that cards are not the ones their places say: rows laid in another
    order than ♠ ♥ ♣ ♦, photos given out of their order, a camera turned round, or two cards swapped (each read
    surely as the other). Enrolled, every one of them would teach the reader the wrong card."""
    swapped = [name for name, read in surely_misread.items()
               if any(code_at.get(other) == read and surely_misread.get(other) == code_at.get(name)
                      for other in surely_misread)]
    if len(surely_misread) < SURE_AGAINST_LEAST and not swapped:
        return
    shown = list(dict.fromkeys(swapped + list(surely_misread)))[:4]
    said = "; ".join(f"{name} ({code_at.get(name, '?')}) reads as {surely_misread[name]}" for name in shown)
    raise SpreadError(f"摆牌顺序不对：{len(surely_misread)} 张牌清楚地读作别的牌 / {len(surely_misread)} card(s) read surely "
                      f"as another card than their place ({said} ...): lay the rows ♠ ♥ ♣ ♦ from A to K, then the "
                      "jokers, give the photos in the order they were laid out, with the camera the right way up")
