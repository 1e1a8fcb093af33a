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
#: a region whose brightest parts (this percentile of its brightest channel: the paper of a light card, the ink of
#: a dark one) are darker than ``DIM`` was lit too dimly: it is brightened (``lit``) until they reach ``LIT``, by
#: at most ``MAX_GAIN`` (darker still, the photo's noise would be read as ink)
BRIGHT_PERCENTILE = 95
DIM, LIT, MAX_GAIN = 150, 220, 6.0
#: chroma (0-1) under which a pixel is grey and turns over, and the width of the blend to coloured ink
GREY_CHROMA = 0.1
BLEND = 0.2


def _levels(image: np.ndarray) -> np.ndarray:
    """Every fourth pixel's brightest channel (a frame's budget; ``max(axis=2)`` takes twenty times as long)."""
    every_fourth = image[::4, ::4]
    return np.maximum(np.maximum(every_fourth[..., 0], every_fourth[..., 1]), every_fourth[..., 2])


def _brightest_parts(levels: np.ndarray, percentile: float = BRIGHT_PERCENTILE) -> float:
    """The ``percentile`` of ``levels``, the nearest rank (a partition: a sort costs a table frame a millisecond)."""
    flat = levels.reshape(-1)
    rank = int(percentile / 100 * (flat.size - 1))
    return float(np.partition(flat, rank)[rank])


def _gain(white: float) -> float:
    """How much brighter a view whose white is ``white`` grey levels bright should be: 1 from ``DIM`` up, else
    until it reaches ``LIT``, by at most ``MAX_GAIN``."""
    return 1.0 if white >= DIM else min(MAX_GAIN, LIT / max(white, 1.0))


def exposure_gain(frame: np.ndarray, percentile: float = 99.0) -> float:
    """How much brighter ``frame`` (BGR, a whole camera view) should be for its whitest parts (``percentile`` of its
    brightest channel: at a table, the corner markers' white and the cards' paper) to be as bright as paper in a
    well exposed view (``LIT``): 1 where they reach ``DIM`` already, else at most ``MAX_GAIN``."""
    return 1.0 if frame.size == 0 else _gain(_brightest_parts(_levels(frame), percentile))


def lit(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR) brightened if it was lit too dimly (a card in a dark room or a shadow), else as it is.

    Finding ink judges grey levels: a white card whose paper is 40 grey levels bright holds no ink by those
    rules. Brightening by the region's own brightest parts keeps every ratio (a dark card's ink stays lighter
    than its paper)."""
    gain = 1.0 if image.size == 0 else _gain(_brightest_parts(_levels(image)))
    return image if gain == 1.0 else cv2.convertScaleAbs(image, alpha=gain)


def is_light_on_dark(image: np.ndarray) -> bool:
    """Whether ``image`` (BGR, an upright card region) is mostly dark: a card printed light on dark."""
    if image.size == 0:
        return False
    return float(np.median(_levels(image))) < DARK_PAPER


def polarities(image: np.ndarray) -> tuple[bool, ...]:
    """The ways ``image`` (BGR, an upright card region) may be printed, to be read in turn: ``(True,)`` light on
    dark, ``(False,)`` dark on light, or both (first what :func:`is_light_on_dark` says) where the region is
    mostly dark and dim all over (``DIM``): a white card in a dark room and a black card on a dark table then
    look alike to any rule of grey levels (their typical to brightest levels overlap on the real photos)."""
    if image.size == 0:
        return (False,)
    levels = _levels(image)
    if float(np.median(levels)) >= DARK_PAPER:
        return (False,)
    return (True,) if _brightest_parts(levels) >= DIM else (True, False)


def as_printed(image: np.ndarray, dark: bool, brighten: bool = True) -> np.ndarray:
    """``image`` (BGR) as the reader reads it printed one way: turned over if ``dark`` (light on dark), else
    brightened if lit too dimly (``lit``; not if ``brighten`` is false)."""
    if dark:
        return turn_over(image)
    return lit(image) if brighten else image


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


def printed_views(image: np.ndarray, dim_rules: bool = True) -> list[tuple[bool, np.ndarray]]:
    """``image`` (BGR, an upright card region) as the reader reads it, each way it may be printed: (``dark``, the
    view) for each of :func:`polarities`, shown by :func:`as_printed`; without ``dim_rules`` only the way
    :func:`is_light_on_dark` says, not brightened (the table's reader: the table brightens whole frames)."""
    ways = polarities(image) if dim_rules else (is_light_on_dark(image),)
    return [(dark, as_printed(image, dark, dim_rules)) for dark in ways]


def as_read(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR, an upright card region) as the reader reads it: turned over if it is printed light on
    dark, else brightened if lit too dimly (``lit``)."""
    return as_printed(image, is_light_on_dark(image))
