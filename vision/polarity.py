"""Cards printed light on dark (a black deck with gold, silver or white indices), read as dark on light.

Everything that finds and reads an index looks for ink darker than its paper. A dark card's indices are lighter
than its paper, so a region whose paper is dark is read turned over (``as_read``): grey turns over (black
paper becomes white, white or silver ink black) while coloured ink keeps its colour and brightness (red and
gold stay red and gold), so a red suit is still told from a black one by its ink. Colour is judged by chroma
(the spread of the three channels), not by saturation: the noise of dark paper is saturated but has no chroma.
"""

from __future__ import annotations

import cv2
import numpy as np

#: a region whose typical brightness (median of the brightest channel) is below this is dark paper
DARK_PAPER = 100
#: chroma (0-1) under which a pixel is grey and turns over, and the width of the blend to coloured ink
GREY_CHROMA = 0.1
BLEND = 0.2


def is_light_on_dark(image: np.ndarray) -> bool:
    """Whether ``image`` (BGR, an upright card region) is mostly dark: a card printed light on dark."""
    if image.size == 0:
        return False
    return float(np.median(image[::4, ::4].max(axis=2))) < DARK_PAPER  # every fourth pixel: a frame's budget


def turn_over(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR) with its grey turned over and its coloured ink kept: light on dark becomes dark on light,
    and dark on light becomes light on dark."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.float32)
    h, s, v = hsv[..., 0], hsv[..., 1] / 255.0, hsv[..., 2] / 255.0
    colour = np.clip((s * v - GREY_CHROMA) / BLEND, 0.0, 1.0)
    v_new = colour * v + (1 - colour) * (1 - v)
    s_new = colour * s
    return cv2.cvtColor(np.dstack([h, s_new * 255.0, v_new * 255.0]).clip(0, 255).astype(np.uint8),
                        cv2.COLOR_HSV2BGR)


def as_read(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR, an upright card region) as the reader reads it: turned over if it is printed light on
    dark, else as it is."""
    return turn_over(image) if is_light_on_dark(image) else image
