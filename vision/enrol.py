"""Building a deck profile from one photo per card (``vision enroll``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from .card_regions import is_card_shaped
from .deck import DeckProfile, card_signature, ink_redness
from .files import ImageError, labelled_images, load_image
from .geometry import CARD_H, Region, rectify, whole_image_region
from .reader import SINGLE_CARD_WIDTH, CardReader
from .types import RegionRead


def enrol_folder(folder: Path, reader: CardReader, progress: Callable[[str], None] = lambda _: None,
                 ) -> tuple[DeckProfile, list[str]]:
    """Profile of the deck photographed in ``folder`` and a list of problems (skipped files, missing cards).

    Each photo's card is found like at reading time (largest card-like region, else the whole image), turned
    upright by its own index reading (or as found, when the index cannot be read), and both upright turns
    are stored so that matching does not depend on which end was up.
    """
    codes: list[str] = []
    signatures: list[np.ndarray] = []
    reds: list[np.ndarray] = []
    problems: list[str] = []
    files = list(labelled_images(folder))
    for i, (path, code) in enumerate(files, 1):
        try:
            image = load_image(path)
        except ImageError as exc:
            problems.append(str(exc))
            continue
        region, read = reader.best_card(image)
        views = [(region, _turn(read, image, region))]
        whole = whole_image_region(image)
        if region.area < whole.area and region.area >= 0.5 * whole.area and is_card_shaped(whole):
            # a photo cropped to the card: the region found may be a frame printed on it, so the whole
            # image is enrolled as well (at the table the card's own outline is found)
            views.append((whole, _turn(reader.read_region(image, whole), image, whole)))
        for view, turn in views:
            redness = ink_redness(rectify(image, view, turn)[0])
            for t in (turn, (turn + 2) % 4):
                for scale in (1.0, 0.97, 1.03):  # the card found a little tighter or looser at the table
                    codes.append(code)
                    signatures.append(card_signature(rectify(image, _scaled(view, scale), t)[0]))
                    reds.append(redness)
        if read.flat_boxes:  # aligned on the index, as the reader does when it finds one
            codes.append(code)
            signatures.append(card_signature(read.flat, read.flat_boxes[0]))
            reds.append(ink_redness(read.flat))
        seen = read.readings[0].card if read.readings else "?"
        progress(f"[{i}/{len(files)}] {path.name}: {code} (model reads {seen})")
    missing = sorted(set(_all_codes()) - set(codes))
    if missing:
        problems.append(f"no photo for {len(missing)} card(s): {' '.join(missing)}")
    if not codes:
        raise ImageError(f"no usable card photos named by card code in {folder}")
    return DeckProfile(tuple(codes), np.stack(signatures), np.stack(reds).astype(np.float32)), problems


def _turn(read: RegionRead, image: np.ndarray, region: Region) -> int:
    """The upright turn: the index reading's, else the one that stands the card on its short side."""
    if read.readings:
        return read.turn
    flat, _ = rectify(image, region, 0)
    return 0 if flat.shape[1] <= SINGLE_CARD_WIDTH * CARD_H else 1


def _scaled(region: Region, factor: float) -> Region:
    centre = region.corners.mean(axis=0)
    return Region((centre + (region.corners - centre) * factor).astype(np.float32), region.area * factor * factor)


def _all_codes() -> tuple[str, ...]:
    from .types import CARD_CODES

    return CARD_CODES
