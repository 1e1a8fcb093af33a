"""Building a deck profile from one photo per card (``vision enroll``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from .deck import DeckProfile, card_signature
from .files import ImageError, labelled_images, load_image
from .geometry import CARD_H, rectify
from .reader import SINGLE_CARD_WIDTH, CardReader


def enrol_folder(folder: Path, reader: CardReader, progress: Callable[[str], None] = lambda _: None,
                 ) -> tuple[DeckProfile, list[str]]:
    """Profile of the deck photographed in ``folder`` and a list of problems (skipped files, missing cards).

    Each photo's card is found like at reading time (largest card-like region, else the whole image), turned
    upright by its own index reading (or as found, when the index cannot be read), and both upright turns
    are stored so that matching does not depend on which end was up.
    """
    codes: list[str] = []
    signatures: list[np.ndarray] = []
    problems: list[str] = []
    files = list(labelled_images(folder))
    for i, (path, code) in enumerate(files, 1):
        try:
            image = load_image(path)
        except ImageError as exc:
            problems.append(str(exc))
            continue
        region, read = reader.best_card(image)
        turn = read.turn
        if not read.readings:
            flat, _ = rectify(image, region, 0)
            turn = 0 if flat.shape[1] <= SINGLE_CARD_WIDTH * CARD_H else 1
        for t in (turn, (turn + 2) % 4):
            codes.append(code)
            signatures.append(card_signature(rectify(image, region, t)[0]))
        seen = read.readings[0].card if read.readings else "?"
        progress(f"[{i}/{len(files)}] {path.name}: {code} (model reads {seen})")
    missing = sorted(set(_all_codes()) - set(codes))
    if missing:
        problems.append(f"no photo for {len(missing)} card(s): {' '.join(missing)}")
    if not codes:
        raise ImageError(f"no usable card photos named by card code in {folder}")
    return DeckProfile(tuple(codes), np.stack(signatures)), problems


def _all_codes() -> tuple[str, ...]:
    from .types import CARD_CODES

    return CARD_CODES
