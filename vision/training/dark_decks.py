"""Decks printed light on dark, made from any design: training data for reading black luxury decks.

Real decks with black paper and gold, silver or white indices exist (the shared cardcounter photos hold one); the
reader reads them turned over (``vision.polarity``). Each design is turned dark with
``vision.polarity.turn_over`` (paper black, black ink white, coloured ink as bright as it was), and then given a
look drawn from its name: red suits turned gold or left red, black suits white, silver or pale gold, the paper a
dark tint. The same design is always turned dark the same way.
"""

from __future__ import annotations

import hashlib

import cv2
import numpy as np

from vision.polarity import turn_over


def design_rng(name: str) -> np.random.Generator:
    """The generator of a design's dark look, from its name (stable across machines and runs)."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little"))


def dark_face(face: np.ndarray, name: str) -> np.ndarray:
    """``face`` (BGR, printed dark on light) as the design ``name`` printed light on dark."""
    rng = design_rng(name)
    gold_reds = rng.random() < 0.5
    gold_hue = float(rng.uniform(14, 26))  # OpenCV hue (0-180)
    pale = str(rng.choice(["white", "silver", "gold"], p=[0.5, 0.3, 0.2]))
    paper = rng.uniform(0, 45, 3) * np.array([1.0, rng.uniform(0.4, 1.0), rng.uniform(0.3, 1.0)])
    hsv = cv2.cvtColor(turn_over(face), cv2.COLOR_BGR2HSV).astype(np.float32)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    if gold_reds:
        h = np.where(((h < 12) | (h > 168)) & (s > 60), gold_hue, h)
    grey = s < 40
    tint_hue, tint_sat = {"white": (0.0, 0.0), "silver": (105.0, 20.0), "gold": (gold_hue, 70.0)}[pale]
    h = np.where(grey, tint_hue, h)
    s = np.where(grey, tint_sat * v / 255.0, s)  # the pale tint on the ink, not on the dark paper
    out = cv2.cvtColor(np.dstack([h, s, v]).clip(0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    darkness = 1 - v[..., None] / 255.0  # the paper's tint shows where the face is dark
    return np.clip(out + darkness * paper[None, None, :], 0, 255).astype(np.uint8)
