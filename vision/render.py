"""Rendering card faces and table scenes with OpenCV alone.

Used by the simulated camera (``hardware.cameras.simulated``), by tests and by the training script. Faces have
the usual layout: rank over suit pip in the top-left corner and, turned, in the bottom-right; pips or a framed
court letter in the middle; jokers show J-O-K-E-R down the corner, red for the big joker (大王 ``HR``), black
for the small one (小王 ``SB``). Several font styles give the training data more than one design.
"""

from __future__ import annotations

import cv2
import numpy as np

from .types import BLACK_JOKER, JOKERS, RED_JOKER, RED_SUITS

FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_PLAIN)
RED = (30, 20, 200)
BLACK = (25, 25, 25)
CARD_RATIO = 1.45


def draw_suit(img: np.ndarray, suit: str, cx: float, cy: float, size: float, colour: tuple[int, int, int]) -> None:
    """Draw one suit symbol of height ``size`` centred at (cx, cy)."""
    s = size / 2
    if suit == "D":
        pts = np.array([[cx, cy - s], [cx + 0.75 * s, cy], [cx, cy + s], [cx - 0.75 * s, cy]])
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)
        return
    if suit == "H":
        r = 0.5 * s
        for dx in (-r, r):
            cv2.circle(img, (round(cx + dx), round(cy - 0.35 * s)), round(r * 1.02), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 2 * r, cy - 0.25 * s], [cx + 2 * r, cy - 0.25 * s], [cx, cy + s]])
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)
        return
    if suit == "S":
        r = 0.48 * s
        for dx in (-r, r):
            cv2.circle(img, (round(cx + dx), round(cy + 0.2 * s)), round(r), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 2 * r, cy + 0.12 * s], [cx + 2 * r, cy + 0.12 * s], [cx, cy - s]])
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)
    else:  # clubs
        r = 0.36 * s
        for dx, dy in ((0, -0.5 * s), (-0.55 * s, 0.15 * s), (0.55 * s, 0.15 * s)):
            cv2.circle(img, (round(cx + dx), round(cy + dy)), round(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (round(cx), round(cy)), round(0.25 * s), colour, -1, cv2.LINE_AA)
    stem = np.array([[cx, cy + 0.2 * s], [cx - 0.35 * s, cy + s], [cx + 0.35 * s, cy + s]])
    cv2.fillPoly(img, [np.round(stem).astype(np.int32)], colour, cv2.LINE_AA)


def _text(img: np.ndarray, text: str, x: float, top: float, height: float, font: int, colour: tuple[int, int, int],
          weight: float) -> float:
    """Draw ``text`` with its cap height ``height`` and top-left at (x, top); returns the drawn width."""
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height / max(h, 1)
    thickness = max(1, round(scale * weight))
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    cv2.putText(img, text, (round(x), round(top + h)), font, scale, colour, thickness, cv2.LINE_AA)
    return float(w)


def _index(img: np.ndarray, code: str, width: int, style: int, colour: tuple[int, int, int]) -> None:
    font = FONTS[style % len(FONTS)]
    weight = 1.6 + 0.6 * (style // len(FONTS) % 3)
    glyph_h = width * (0.12 + 0.015 * (style % 3))
    left = width * 0.05
    top = width * 0.06
    if code in JOKERS:
        for i, letter in enumerate("JOKER"):
            _text(img, letter, left, top + i * glyph_h * 0.8, glyph_h * 0.7, font, colour, weight)
        return
    rank = "10" if code[1] == "T" else code[1]
    w = _text(img, rank, left, top, glyph_h, font, colour, weight)
    draw_suit(img, code[0], left + max(w, glyph_h * 0.8) / 2, top + glyph_h * 1.95, glyph_h * 0.9, colour)


def render_face(code: str, width: int = 200, style: int = 0) -> np.ndarray:
    """A card face (BGR, height ``CARD_RATIO`` x width) for ``code``, drawn in one of several styles."""
    height = round(width * CARD_RATIO)
    paper = 255 - (style * 7) % 20
    img = np.full((height, width, 3), paper, np.uint8)
    colour = RED if (code == RED_JOKER or (code[0] in RED_SUITS and code != BLACK_JOKER)) else BLACK
    half = np.full((height // 2, width, 3), paper, np.uint8)
    _index(half, code, width, style, colour)
    img[: height // 2] = np.minimum(img[: height // 2], half)
    img[height - height // 2:] = np.minimum(img[height - height // 2:], half[::-1, ::-1])
    if code in JOKERS:
        centre = (width // 2, height // 2)
        star = [(centre[0] + width * 0.28 * np.sin(a) * (1 if k % 2 == 0 else 0.45),
                 centre[1] - width * 0.28 * np.cos(a) * (1 if k % 2 == 0 else 0.45))
                for k, a in enumerate(np.linspace(0, 2 * np.pi, 11)[:-1])]
        cv2.fillPoly(img, [np.round(np.array(star)).astype(np.int32)], colour, cv2.LINE_AA)
    elif code[1] in "JQK":
        cv2.rectangle(img, (round(width * 0.27), round(height * 0.17)), (round(width * 0.73), round(height * 0.83)),
                      colour, 2, cv2.LINE_AA)
        _text(img, code[1], width * 0.36, height * 0.38, height * 0.2, FONTS[(style + 1) % len(FONTS)], colour, 2.5)
    else:
        n = {"A": 1, "T": 10}.get(code[1]) or int(code[1])
        cols = 1 if n <= 3 else 2
        rows = (n + cols - 1) // cols
        size = width * (0.4 if n == 1 else 0.14)
        for i in range(n):
            col, row = (i % cols, i // cols)
            cx = width * (0.5 if cols == 1 else (0.39 + 0.22 * col))
            cy = height * (0.5 if rows == 1 else 0.28 + 0.44 * row / (rows - 1))
            draw_suit(img, code[0], cx, cy, size, colour)
    cv2.rectangle(img, (0, 0), (width - 1, height - 1), (160, 160, 160), 1)
    return img


def paste_card(scene: np.ndarray, face: np.ndarray, centre: tuple[float, float], angle_deg: float,
               card_h: float, shadow: float = 0.25) -> np.ndarray:
    """Paste ``face`` onto ``scene`` (in place) rotated by ``angle_deg`` with its height ``card_h`` pixels.

    Returns the 4 corners (clockwise from the face's top-left) in scene coordinates.
    """
    fh, fw = face.shape[:2]
    s = card_h / fh
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * s
    offset = np.array(centre) - rot @ np.array([fw / 2, fh / 2])
    matrix = np.hstack([rot, offset[:, None]]).astype(np.float32)
    size = (scene.shape[1], scene.shape[0])
    warped = cv2.warpAffine(face, matrix, size, flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(np.full((fh, fw), 255, np.uint8), matrix, size, flags=cv2.INTER_LINEAR)
    if shadow > 0:
        shift = np.array([[1, 0, card_h * 0.015], [0, 1, card_h * 0.02]], dtype=np.float32)
        soft = cv2.GaussianBlur(cv2.warpAffine(alpha, shift, size), (0, 0), max(1.0, card_h * 0.01))
        scene[:] = (scene * (1 - shadow * soft[..., None] / 255.0)).astype(np.uint8)
    a3 = alpha[..., None].astype(np.float32) / 255.0
    scene[:] = (scene * (1 - a3) + warped * a3).astype(np.uint8)
    corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    return corners @ rot.T.astype(np.float32) + offset.astype(np.float32)


def table_cloth(height: int, width: int, rng: np.random.Generator, light: bool | None = None) -> np.ndarray:
    """A plain table surface: light or dark, a colour tint, fine noise and a soft weave."""
    light = bool(rng.random() < 0.5) if light is None else light
    base = rng.uniform(170, 235) if light else rng.uniform(25, 90)
    tint = rng.uniform(-18, 18, 3)
    cloth = np.empty((height, width, 3), np.float32)
    cloth[:] = np.clip(base + tint, 0, 255)
    raw = np.empty((height, width), np.float32)  # the weave's noise, drawn a band of rows at a time (memory)
    for top in range(0, height, 64):
        raw[top:top + 64] = rng.normal(0, 6, (min(64, height - top), width))
    noise = cv2.GaussianBlur(raw, (0, 0), 1.2)
    del raw
    cloth += noise[..., None]
    return np.clip(cloth, 0, 255, out=cloth).astype(np.uint8)


#: how far a camera that keeps one sensor-noise field (the simulated table camera) shifts it between frames
NOISE_MARGIN = 64


def light_scene(scene: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Uneven light, a colour cast, a glare spot, sensor noise and a little blur (returns a new image).

    Works in float32 with separable (row x column) light fields, so a large image needs a few image-sized
    buffers rather than dozens of megabytes of float64 grids.
    """
    img = hall_light(scene, rng, strength)
    sigma = np.float32(rng.uniform(1, 6) * strength)
    fresh = rng.standard_normal(img.shape, dtype=np.float32)
    fresh *= sigma
    img += fresh
    del fresh
    out = np.clip(img, 0, 255, out=img).astype(np.uint8)
    blur = rng.uniform(0.1, 1.3) * strength
    return cv2.GaussianBlur(out, (0, 0), blur) if blur > 0.3 else out


def hall_light(scene: np.ndarray, rng: np.random.Generator, strength: float = 1.0,
               out: np.ndarray | None = None) -> np.ndarray:
    """The light the scene stands in: uneven across it, a colour cast, maybe a glare spot (float32 image).

    With ``out`` (a uint8 image of the scene's shape) the lit scene is written there, clipped to 8 bits, a band
    of rows at a time: the same light without a frame-sized float buffer (the simulated camera's memory).
    """
    h, w = scene.shape[:2]
    tilt_x, tilt_y = (np.float32(rng.uniform(-0.25, 0.25)) for _ in range(2))
    cast = (1 + strength * rng.uniform(-0.12, 0.12, 3)).astype(np.float32)[None, None, :]
    gx = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    gy = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    glare: tuple[np.ndarray, np.ndarray, np.float32] | None = None
    if rng.random() < 0.4 * strength:
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.05, 0.2) * max(h, w)
        across = np.exp(-((gx * (w / 2) + w / 2 - cx) ** 2) / (2 * r * r)).astype(np.float32)
        down = np.exp(-((gy * (h / 2) + h / 2 - cy) ** 2) / (2 * r * r)).astype(np.float32)
        glare = (across, down, np.float32(rng.uniform(30, 90)))

    def light(rows: slice) -> np.ndarray:
        img = scene[rows].astype(np.float32)
        img *= (1 + np.float32(strength) * (tilt_x * gx + tilt_y * gy[rows]))[..., None]
        img *= cast
        if glare is not None:
            across, down, level = glare
            img += (level * (down[rows] * across))[..., None]
        return img

    if out is None:
        return light(slice(0, h))
    for top in range(0, h, 90):
        band = light(slice(top, top + 90))
        out[top:top + 90] = np.clip(band, 0, 255, out=band)
    return out


def spread_scene(rows: list[list[np.ndarray]], rng: np.random.Generator, card_h: float = 150.0,
                 max_angle: float = 4.0, light_cloth: bool = False) -> np.ndarray:
    """Faces laid apart in rows on a cloth (dark, or light for a dark deck), each turned a little (a rendered
    spread for spread enrolment)."""
    fw = card_h / CARD_RATIO
    step_x, step_y = fw * 1.22, card_h * 1.18
    width = int(step_x * max(len(r) for r in rows) + fw * 0.6)
    height = int(step_y * len(rows) + card_h * 0.3)
    scene = table_cloth(height, width, rng, light=light_cloth)
    for i, row in enumerate(rows):
        for j, face in enumerate(row):
            centre = (fw * 0.3 + step_x * (j + 0.5) + rng.uniform(-3, 3), card_h * 0.15 + step_y * (i + 0.5)
                      + rng.uniform(-3, 3))
            # pasted into the patch around the card only (a view of the scene): 52 whole-scene warps are slow
            r = int(card_h * 0.75)
            x0, y0 = max(0, int(centre[0]) - r), max(0, int(centre[1]) - r)
            patch = scene[y0: int(centre[1]) + r, x0: int(centre[0]) + r]
            paste_card(patch, face, (centre[0] - x0, centre[1] - y0), float(rng.uniform(-max_angle, max_angle)),
                       card_h, shadow=0.2)
    return light_scene(scene, rng, 0.5)
