"""The ink mask of an upright card band: what counts as ink, and the faint look's lower contrast."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import CARD_H
from vision.index import BAND, ink_mask


def _band_with_strokes(grey: int) -> np.ndarray:
    band = np.full((int(BAND * CARD_H), 200, 3), 240, np.uint8)  # white paper
    cv2.putText(band, "Q", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (grey, grey, grey), 2)
    return band


def test_dark_print_is_ink_in_both_looks_and_pale_print_only_in_the_faint_one() -> None:
    dark, pale = _band_with_strokes(60), _band_with_strokes(190)  # 180 and 50 grey levels under the paper
    assert ink_mask(dark)[0].sum() > 100 and ink_mask(dark, faint=True)[0].sum() > 100
    assert ink_mask(pale)[0].sum() == 0
    assert ink_mask(pale, faint=True)[0].sum() > 100


def test_plain_paper_is_no_ink_even_to_the_faint_look() -> None:
    rng = np.random.default_rng(0)
    paper = np.clip(240 + rng.normal(0, 4, (int(BAND * CARD_H), 200, 3)), 0, 255).astype(np.uint8)
    assert ink_mask(paper, faint=True)[0].sum() == 0
