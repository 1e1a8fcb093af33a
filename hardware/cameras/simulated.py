"""A simulated overhead camera: renders the simulated table so the real card reader runs on it.

The table daemon drives it with ``lay(seat, cards_in_order)``, ``clear(seat)`` and ``hand_over(seat)``, and
takes pictures with ``frame()``. Cards are drawn in the seat's play area, facing the seat,
fanned left to right as the seat sees them (each card covering the right part of the one before, so every
top-left index shows), with random offsets, rotation, overlap and lighting from the seed. The hall's light
(uneven, tinted, maybe a glare spot) and the lens's focus belong to the camera and stay put from frame to
frame; each frame has its own sensor noise and a flicker of exposure (±1.5 %), as a fixed camera under fixed
lights sees. Four ArUco markers
at the table corners let ``TableCalibration.from_markers`` calibrate on its frames, as on a real table.

The deck design is one of the held-out designs of ``decks/`` (never trained on), chosen by the seed, unless
``deck`` names one of them or ``"builtin"`` (``vision.render``'s own styles, which the card reader was trained
on; a ``style`` given also draws those): what the simulated table reads is then a figure on an unseen deck.

Fault switches, as on a real table: ``bump(dx, dy)`` moves the whole view (a knocked camera or table),
``cover_markers(ids)`` hides corner markers (a sleeve, a cup), ``unplug()`` makes frames fail until ``replug()``
and the daemon's ``reopen()``; ``exposure`` (given when made) is a hall darker or brighter than the camera's fixed
exposure was set for.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import cv2
import numpy as np

from vision.calibration import MARKER_POSITIONS, TableCalibration, marker_image
from vision.render import CARD_RATIO, NOISE_MARGIN, hall_light, render_face, table_cloth
from vision.types import CARD_CODES

from .base import CameraError


class SimulatedTableCamera:
    """``SimulatedTableCamera(seed)``: a 1280x720 overhead view of a simulated table."""

    def __init__(self, seed: int = 0, width: int = 1280, height: int = 720, card_height: int = 140,
                 style: int | None = None, light: bool | None = None, noise: float = 1.0,
                 deck: str | None = None, exposure: float = 1.0) -> None:
        if not 0.0 < exposure <= 4.0:
            raise ValueError(f"exposure must be in (0, 4], not {exposure!r}")
        self.rng = np.random.default_rng(seed)
        #: how much light the sensor gets, 1 as the simulated halls are lit: 0.25 is a hall four times dimmer for
        #: this camera's fixed exposure (the sensor's noise stays as it is, so a dim frame is noisier for its light)
        self.exposure = exposure
        self.width, self.height = width, height
        self.card_height = card_height
        self.style = int(self.rng.integers(0, 6)) if style is None else style
        #: the deck design drawn: "builtin" (``vision.render``'s styles, which the reader was trained on) or a
        #: held-out design of ``decks/`` that it never saw ("held-out": one chosen by the seed)
        if deck is not None:
            check_deck(deck)
        if deck == "held-out" or (deck is None and style is None and DEFAULT_HELD_OUT):
            names = held_out_decks()
            deck = names[seed % len(names)]
        self.deck = deck or "builtin"
        self._deck_faces = load_deck(self.deck) if self.deck != "builtin" else {}
        self.noise = noise
        side = height - 96
        left = (width - side) / 2
        self.marker_centres = {i: (left + u * side, 48 + v * side) for i, (u, v) in MARKER_POSITIONS.items()}
        self.calibration = TableCalibration.from_marker_centres(self.marker_centres)
        self._cloth = table_cloth(height, width, self.rng, light)
        for marker_id, (cx, cy) in self.marker_centres.items():
            m = cv2.cvtColor(marker_image(marker_id, 72), cv2.COLOR_GRAY2BGR)
            x0, y0 = int(cx - 36), int(cy - 36)
            self._cloth[y0:y0 + 72, x0:x0 + 72] = m
        self._light_seed = int(self.rng.integers(0, 2**31))
        fixed = np.random.default_rng((self._light_seed, 1))
        self._strength = 0.5 * noise
        self._sigma = float(fixed.uniform(1, 6) * self._strength)
        self._blur = float(fixed.uniform(0.1, 1.3) * self._strength)
        # the sensor's noise, drawn once at this camera's level and kept in 8 bits (a quarter of float32's
        # memory); each frame takes it at a random offset
        self._noise = _noise_int8(height + NOISE_MARGIN, width + NOISE_MARGIN, self._sigma,
                                  np.random.default_rng(self._light_seed))
        self._lit: np.ndarray | None = None  # the still scene in the hall's light (8 bits)
        self._faces: dict[str, np.ndarray] = {}
        self._laid: dict[str, list[tuple[str, np.ndarray]]] = {}
        self._hands: dict[str, int] = {}
        self._frame_no = 0
        self._still: np.ndarray | None = None  # cloth + laid cards, kept until the cards change
        self._offset = (0.0, 0.0)
        self._covered: set[int] = set()
        self._plugged = True
        self._open = True

    def _face(self, code: str) -> np.ndarray:
        if code not in self._faces:
            self._faces[code] = self._deck_faces[code] if self._deck_faces else render_face(code, 160, self.style)
        return self._faces[code]

    def lay(self, seat: str, cards_in_order: Sequence[str]) -> None:
        """Lay these cards (codes, left to right as the seat sees them) in the seat's play area."""
        zone = self.calibration.zones.get(seat)
        if zone is None:
            raise CameraError(f"unknown seat {seat!r}")
        codes = [c.split("#")[0].upper().replace("10", "T") for c in cards_in_order]
        bad = [c for c in codes if c not in CARD_CODES]
        if bad:
            raise CameraError(f"unknown card code(s) {bad}")
        zw, zh = zone.size
        back = np.linalg.inv(zone.upright_matrix())
        ch = float(self.card_height) * float(self.rng.uniform(0.95, 1.05))
        cw = ch / CARD_RATIO
        step = cw * float(self.rng.uniform(0.36, 0.46))
        total = cw + step * max(len(codes) - 1, 0)
        x0 = (zw - total) / 2 + float(self.rng.uniform(-0.1, 0.1)) * max(zw - total, 0)
        y0 = (zh - ch) / 2 + float(self.rng.uniform(-0.25, 0.25)) * max(zh - ch, 0)
        tilt = float(self.rng.uniform(-8, 8))
        placed: list[tuple[str, np.ndarray]] = []
        for i, code in enumerate(codes):
            cx = x0 + cw / 2 + i * step + float(self.rng.normal(0, 2))
            cy = y0 + ch / 2 + float(self.rng.normal(0, 2))
            angle = np.deg2rad(tilt + float(self.rng.normal(0, 2.5)))
            rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
            local = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]]) @ rot.T
            corners = (local + [cx, cy]).astype(np.float32)
            placed.append((code, cv2.perspectiveTransform(corners[None], back)[0]))
        self._laid[seat] = placed
        self._still = None

    def lay_spread(self, cards_in_order: Sequence[str], per_row: int = 7) -> None:
        """Lay these cards apart across the table in rows of ``per_row``, left to right and top to bottom, each a
        little turned: part of a deck laid out for ``vision enroll --camera`` (rows ♠ ♥ ♣ ♦ from A to K, then the
        jokers, the order running on from photo to photo). ``clear()`` takes them away."""
        codes = [c.upper() for c in cards_in_order]
        bad = [c for c in codes if c not in CARD_CODES]
        if bad or not codes or per_row < 1:
            raise CameraError(f"a spread needs card codes and per_row >= 1: {bad or codes}")
        ch = float(self.card_height)
        cw = ch / CARD_RATIO
        step_x, step_y = cw * 1.35, ch * 1.2  # a finger apart
        rows = (len(codes) + per_row - 1) // per_row
        x0 = (self.width - step_x * min(per_row, len(codes))) / 2 + step_x / 2
        y0 = (self.height - step_y * rows) / 2 + step_y / 2
        placed: list[tuple[str, np.ndarray]] = []
        for i, code in enumerate(codes):
            cx = x0 + (i % per_row) * step_x + float(self.rng.normal(0, 3))
            cy = y0 + (i // per_row) * step_y + float(self.rng.normal(0, 3))
            angle = np.deg2rad(float(self.rng.uniform(-4, 4)))
            rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
            local = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]]) @ rot.T
            placed.append((code, (local + [cx, cy]).astype(np.float32)))
        self._laid["spread"] = placed
        self._still = None

    def clear(self, seat: str | None = None) -> None:
        """Take the cards off one seat's area (or off the whole table)."""
        if seat is None:
            self._laid.clear()
        else:
            self._laid.pop(seat, None)
        self._still = None

    def hand_over(self, seat: str, frames: int = 2) -> None:
        """A player's hand passes over the seat's area during the next ``frames`` frames."""
        self._hands[seat] = frames

    # -- fault switches -----------------------------------------------------------------------------------------
    def bump(self, dx: float, dy: float) -> None:
        """The camera (or the table) is knocked: everything shows ``dx, dy`` pixels further on, from now on."""
        self._offset = (self._offset[0] + dx, self._offset[1] + dy)
        self._still = None

    def cover_markers(self, ids: Sequence[int] = (0, 1, 2, 3)) -> None:
        """Lay something over these corner markers (``uncover_markers`` lifts it)."""
        self._covered = set(ids)
        self._still = None

    def uncover_markers(self) -> None:
        self._covered = set()
        self._still = None

    def unplug(self) -> None:
        """The camera stops delivering frames (a pulled cable), until it is plugged back and reopened."""
        self._plugged = False
        self._open = False

    def replug(self) -> None:
        self._plugged = True

    def reopen(self) -> None:
        """What the daemon does with a lost camera; fails while the camera is unplugged."""
        if not self._plugged:
            raise CameraError("simulated camera: no device")
        self._open = True

    def frame(self) -> np.ndarray:
        """The current view (BGR 1280x720)."""
        if not self._open:
            raise CameraError("simulated camera: no frame (unplugged)")
        if self._still is None:
            self._still = self._cloth.copy()
            for placed in self._laid.values():
                for code, corners in placed:
                    _paste(self._still, self._face(code), corners)
            for marker_id in self._covered:
                cx, cy = self.marker_centres[marker_id]
                cv2.rectangle(self._still, (int(cx - 45), int(cy - 45)), (int(cx + 45), int(cy + 45)), (40, 60, 150), -1)
            if self._offset != (0.0, 0.0):
                shift = np.array([[1, 0, self._offset[0]], [0, 1, self._offset[1]]], dtype=np.float32)
                self._still = cv2.warpAffine(self._still, shift, (self.width, self.height),
                                             borderMode=cv2.BORDER_REPLICATE)
            self._lit = None
        if self._hands:
            scene = self._still.copy()
            for seat in list(self._hands):
                self._draw_hand(scene, seat)
                self._hands[seat] -= 1
                if self._hands[seat] <= 0:
                    del self._hands[seat]
            lit = self._light(scene)
        else:
            if self._lit is None:
                self._lit = self._light(self._still)
            lit = self._lit
        self._frame_no += 1
        rng = np.random.default_rng((self._light_seed, self._frame_no))
        gain = self.exposure * (1.0 + float(rng.uniform(-0.015, 0.015)))
        dy, dx = (int(v) for v in rng.integers(0, NOISE_MARGIN, 2))
        img = cv2.convertScaleAbs(lit, alpha=gain).astype(np.int16)  # exposure flicker, saturating
        img += self._noise[dy:dy + self.height, dx:dx + self.width]
        out = np.clip(img, 0, 255).astype(np.uint8)
        del img
        return cv2.GaussianBlur(out, (0, 0), self._blur) if self._blur > 0.3 else out

    def _light(self, scene: np.ndarray) -> np.ndarray:
        """The hall's light on ``scene``: the same every time (its own generator, seeded per camera)."""
        return hall_light(scene, np.random.default_rng((self._light_seed, 2)), self._strength,
                          out=np.empty_like(scene))

    def _draw_hand(self, scene: np.ndarray, seat: str) -> None:
        zone = self.calibration.zones[seat]
        c = zone.corners
        centre = c.mean(axis=0) + self.rng.normal(0, 10, 2)
        near = (c[2] + c[3]) / 2
        skin = tuple(int(v) for v in self.rng.uniform([120, 150, 190], [150, 180, 230]))
        axis = near - centre
        angle = float(np.degrees(np.arctan2(axis[1], axis[0])))
        cv2.ellipse(scene, (int(centre[0]), int(centre[1])), (70, 50), angle, 0, 360, skin, -1, cv2.LINE_AA)
        cv2.line(scene, (int(centre[0]), int(centre[1])), (int(near[0] + axis[0]), int(near[1] + axis[1])),
                 skin, 60, cv2.LINE_AA)

    def close(self) -> None:
        self._laid.clear()
        self._still = None
        self._lit = None


DECKS = Path(__file__).resolve().parent / "decks"
#: whether a camera given no deck and no style draws a held-out design (so that the simulated table's alert
#: counts and latency are figures on designs the reader never saw) or one of ``vision.render``'s styles
DEFAULT_HELD_OUT = True


def check_deck(deck: str) -> str:
    """``deck`` if the simulated camera can draw it ("builtin", "held-out" or a design of ``decks/``), else
    ValueError naming the choices."""
    names = held_out_decks()
    if deck not in ("builtin", "held-out", *names):
        raise ValueError(f"unknown deck design {deck!r}: 'builtin', 'held-out' or one of {', '.join(names)}")
    return deck


def camera_url(deck: str | None) -> str:
    """The ``sim://`` camera URL of a simulated table drawing ``deck`` (None: the default)."""
    return f"sim://?deck={check_deck(deck)}" if deck else "sim://"


def deck_in_url(url: str) -> str | None:
    """The deck design a ``sim://`` camera URL names (``sim://?deck=held-out``, ``sim://?deck=builtin``,
    ``sim://?deck=lato-italic``), None when it names none; ValueError for any other query or design."""
    query = parse_qs(urlsplit(url).query, keep_blank_values=True)
    unknown = sorted(set(query) - {"deck"})
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r} in {url!r} (sim:// takes deck=...)")
    if "deck" not in query:
        return None
    try:
        return check_deck(query["deck"][-1])
    except ValueError as exc:
        raise ValueError(f"{exc} (in {url!r})") from None


def held_out_decks() -> tuple[str, ...]:
    """The shipped deck designs the card reader was not trained on (``decks/README.md``)."""
    return tuple(sorted(p.name for p in DECKS.iterdir() if p.is_dir() and (p / "HR.png").is_file()))


@lru_cache(maxsize=8)
def load_deck(name: str) -> dict[str, np.ndarray]:
    """The 54 faces of a shipped deck design, by card code."""
    folder = DECKS / name
    faces = {code: cv2.imread(str(folder / f"{code}.png"), cv2.IMREAD_COLOR) for code in CARD_CODES}
    missing = [code for code, face in faces.items() if face is None]
    if missing:
        raise ValueError(f"deck design {name!r} lacks faces {missing} in {folder}")
    return {code: face for code, face in faces.items() if face is not None}


def _paste(scene: np.ndarray, face: np.ndarray, corners: np.ndarray) -> None:
    """Warp ``face`` onto the quadrilateral ``corners`` of ``scene`` (in place), working in its bounding box."""
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 3
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, scene.shape[1]), min(y1, scene.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, (corners - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, matrix, size, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(np.full((h, w), 255, np.uint8), matrix, size, flags=cv2.INTER_LINEAR)
    roi = scene[y0:y1, x0:x1]
    shadow = cv2.GaussianBlur(alpha, (0, 0), 2.0)
    shadow = np.roll(shadow, (2, 2), axis=(0, 1))
    roi[:] = (roi * (1 - 0.25 * shadow[..., None] / 255.0)).astype(np.uint8)
    a = alpha[..., None].astype(np.float32) / 255.0
    roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)


def _noise_int8(height: int, width: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Gaussian sensor noise of ``sigma`` grey levels in 8 bits, drawn a band of rows at a time (a frame-sized
    float field would briefly cost tens of megabytes)."""
    out = np.empty((height, width, 3), np.int8)
    for top in range(0, height, 64):
        band = rng.standard_normal((min(64, height - top), width, 3), dtype=np.float32)
        band *= np.float32(sigma)
        np.clip(np.rint(band, out=band), -127, 127, out=band)
        out[top:top + band.shape[0]] = band
    return out
