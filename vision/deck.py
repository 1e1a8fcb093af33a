"""Deck enrolment: one photo per card teaches the reader an event's deck design.

An enrolled card is stored as a *signature* of its upright face: a standardised 36x52 grey thumbnail of the
whole face (pip layout, court pictures), a 32x44 thumbnail of its top-left corner index at higher detail and a
coarse redness map. A card seen at the table is matched by normalised correlation against every enrolled
signature, in both upright turns (a card has no up). Profiles are small ``.npz`` files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .types import CARD_CODES

FACE = (36, 52)
CORNER = (32, 44)
RED = (9, 13)
WEIGHTS = (1.0, 1.6, 0.6)


class DeckProfileError(ValueError):
    """A deck profile file that cannot be read or is not a profile."""


def _standardise(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.float32).ravel()
    v -= v.mean()
    return v / (np.linalg.norm(v) + 1e-6)


def card_signature(flat: np.ndarray, index_box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Signature of one upright card image (BGR): concatenated, separately standardised parts.

    The corner part is the top-left corner, or, when ``index_box`` (x, y, w, h in ``flat``) is given, the
    index itself with a margin: aligned on the glyphs, it stays comparable when the card outline was found a
    few pixels off.
    """
    h, w = flat.shape[:2]
    gray = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (0, 0), max(1.0, h / 150))
    inset = gray[int(0.02 * h): int(0.98 * h), int(0.02 * w): int(0.98 * w)]
    face = cv2.resize(inset, FACE, interpolation=cv2.INTER_AREA)
    if index_box is not None:
        x, y, bw, bh = index_box
        mx, my = int(0.25 * bw) + 2, int(0.12 * bh) + 2
        crop = gray[max(0, y - my): y + bh + my, max(0, x - mx): x + bw + mx]
    else:
        crop = gray[: int(0.3 * h), : int(0.24 * h)]
    corner = cv2.resize(crop, CORNER, interpolation=cv2.INTER_AREA)
    b, g, r = (flat[:, :, i].astype(np.int16) for i in range(3))
    red = np.clip(r - np.maximum(g, b), 0, 255).astype(np.float32)
    red_map = cv2.resize(red, RED, interpolation=cv2.INTER_AREA)
    parts = [_standardise(face) * WEIGHTS[0], _standardise(corner) * WEIGHTS[1], _standardise(red_map) * WEIGHTS[2]]
    return np.concatenate(parts) / float(np.sqrt(sum(x * x for x in WEIGHTS)))


def ink_redness(flat: np.ndarray) -> np.ndarray:
    """Share of red ink on the whole face and in its top-left corner (0 black, near 1 hearts and diamonds).

    Correlations of standardised thumbnails cannot tell a black card's colourless noise from red ink, so colour
    is compared on its own; the corner alone tells the jokers apart when both show the same coloured picture
    (J-O-K-E-R printed red on the big joker, black on the small one).
    """
    h = flat.shape[0]
    return np.array([_red_share(flat), _red_share(flat[: int(0.3 * h), : int(0.24 * h)])], np.float32)


def _red_share(flat: np.ndarray) -> float:
    b, g, r = (flat[:, :, i].astype(np.int16) for i in range(3))
    dark = np.minimum(np.minimum(b, g), r)
    paper = float(np.percentile(dark, 80))
    ink = dark < 0.7 * paper
    if ink.sum() < 20:
        return 0.0
    redness = (r - np.maximum(g, b))
    paper_red = float(np.median(redness[~ink])) if (~ink).any() else 0.0
    return float(((redness[ink] - paper_red) > 40).mean())


@dataclass(frozen=True)
class DeckProfile:
    """Enrolled signatures: ``codes[i]`` has signature ``signatures[i]`` (several rows per code allowed)."""

    codes: tuple[str, ...]
    signatures: np.ndarray
    reds: np.ndarray  # (rows, 2): ink redness of each enrolled face and of its corner

    def ranked(self, candidates: list[np.ndarray], redness: np.ndarray) -> list[tuple[str, float]]:
        """Enrolled codes by their best correlation with any of the candidate signatures, best first.

        A difference in ink colour (face, corner) costs up to 0.5 each: a red card never matches a black one.
        """
        colour = 0.5 * np.abs(self.reds - redness[None, :]).sum(axis=1)
        scores = (np.stack(candidates) @ self.signatures.T).max(axis=0) - colour
        by_code: dict[str, float] = {}
        for code, s in zip(self.codes, scores, strict=True):
            by_code[code] = max(by_code.get(code, -1.0), float(s))
        return sorted(by_code.items(), key=lambda kv: -kv[1])

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            np.savez_compressed(fh, codes=np.array(self.codes), signatures=self.signatures.astype(np.float32),
                                reds=self.reds.astype(np.float32), kind=np.array("guandan-deck-profile-3"))

    @classmethod
    def load(cls, path: Path) -> DeckProfile:
        try:
            with np.load(path, allow_pickle=False) as data:
                if "kind" in data and str(data["kind"]).startswith("guandan-net-deck"):
                    raise DeckProfileError(f"{path} 是网络读牌的登记文件，请用 --reader net / was enrolled for the "
                                           "net reader: use it with --reader net")
                if "kind" not in data or str(data["kind"]) != "guandan-deck-profile-3":
                    raise DeckProfileError(f"{path} is not a deck profile (or one from an older version: enrol again)")
                codes = tuple(str(c) for c in data["codes"])
                signatures = np.asarray(data["signatures"], np.float32)
                reds = np.asarray(data["reds"], np.float32)
        except (OSError, ValueError, KeyError) as exc:
            if isinstance(exc, DeckProfileError):
                raise
            raise DeckProfileError(f"cannot read deck profile {path}: {exc}") from exc
        if not codes or signatures.shape[0] != len(codes) or reds.shape != (len(codes), 2) \
                or any(c not in CARD_CODES for c in codes):
            raise DeckProfileError(f"{path} is not a valid deck profile")
        return cls(codes, signatures, reds)
