"""Printed pages to lay cards on: newspaper and book text, headlines, columns.

Photos of cards are taken on whatever lies on the table, and printed text is the hardest of it for the index
network: a column of capitals or a word set on end looks like a joker's J-O-K-E-R, and a letter over a
smaller one like a rank over its suit (on the shared edje photos, laid on newspaper, most wrong readings were
newspaper text read as the black joker). Training scenes on such pages teach the network that text is no
index. Only training fonts are used (``font_faces.held_out`` fonts stay unseen).

Training only: needs Pillow (``pip install -e '.[train]'``).
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.training import font_faces

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _word(rng: np.random.Generator, capitals: bool) -> str:
    word = "".join(rng.choice(list(LETTERS), int(rng.integers(2, 10))))
    return word.upper() if capitals else word.capitalize() if rng.random() < 0.2 else word


def printed_page(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A BGR page ``h`` x ``w``: columns of body text, a headline or two, sometimes a word set on end."""
    fonts = [f for f in font_faces.latin_fonts() if not font_faces.held_out(f)]
    paper = int(rng.uniform(200, 245))
    tint = rng.uniform(-12, 6, 3)
    page = Image.new("RGB", (w, h), tuple(int(np.clip(paper + t, 0, 255)) for t in tint))
    draw = ImageDraw.Draw(page)
    ink = tuple(int(v) for v in rng.uniform(10, 70, 3))
    body = ImageFont.truetype(str(fonts[int(rng.integers(len(fonts)))]), int(rng.integers(9, 26)))
    columns = int(rng.integers(1, 4))
    line = int(body.size * rng.uniform(1.1, 1.5))
    for c in range(columns):
        x0 = c * w // columns + 4
        for y in range(int(rng.integers(-line, line)), h, line):
            x = x0
            while x < x0 + w // columns - 20:
                word = _word(rng, rng.random() < 0.1)
                draw.text((x, y), word, font=body, fill=ink)
                x += int(draw.textlength(word + " ", font=body))
    for _ in range(int(rng.integers(0, 3))):  # headlines, often in capitals
        head = ImageFont.truetype(str(fonts[int(rng.integers(len(fonts)))]), int(rng.integers(28, 80)))
        draw.text((int(rng.integers(-20, w // 2)), int(rng.integers(-20, h))),
                  " ".join(_word(rng, rng.random() < 0.5) for _ in range(int(rng.integers(1, 4)))),
                  font=head, fill=ink)
    out = cv2.cvtColor(np.asarray(page), cv2.COLOR_RGB2BGR)
    if rng.random() < 0.4:  # a word set on end, as a joker's letters run down its corner
        size = int(rng.integers(16, 60))
        strip = Image.new("RGB", (size * 8, size + size // 2), (paper,) * 3)
        ImageDraw.Draw(strip).text((0, 0), _word(rng, True), font=ImageFont.truetype(
            str(fonts[int(rng.integers(len(fonts)))]), size), fill=ink)
        turned = cv2.rotate(cv2.cvtColor(np.asarray(strip), cv2.COLOR_RGB2BGR), cv2.ROTATE_90_CLOCKWISE)
        th, tw = turned.shape[:2]
        y, x = int(rng.integers(0, max(1, h - th))), int(rng.integers(0, max(1, w - tw)))
        region = out[y: y + th, x: x + tw]
        np.minimum(region, turned[: region.shape[0], : region.shape[1]], out=region)
    return out
