"""Value types of the card reader: one card read from an image, and the card codes it may name.

The vision package knows card codes only as strings (rules spec §1: suit then rank, ``SB``/``HR`` jokers); it
imports nothing of the rules engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SUITS: tuple[str, ...] = ("S", "H", "C", "D")
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
#: the jokers: 小王 (small, black) and 大王 (big, red)
BLACK_JOKER = "SB"
RED_JOKER = "HR"
JOKERS: tuple[str, ...] = (BLACK_JOKER, RED_JOKER)
CARD_CODES: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS) + JOKERS
#: copies of each card in the pack (Guandan is played with two decks; ``guandan.cards.COPIES`` for the rules)
PACK_COPIES = 2
RED_SUITS = frozenset("HD")
#: The code of a card the table reader knows is there (the fan's shape says so) but could not read.
UNREADABLE = "??"
#: Readings below this confidence are flagged (``CardReading.flagged``) and never taken silently.
LOW_CONFIDENCE = 0.6


@dataclass(frozen=True, slots=True)
class CardReading:
    """One card read in an image: the card code, a confidence in 0..1, the index box (x, y, w, h), and the
    reader's best candidates for that index with their probabilities (surest first; the table may choose among
    them with what the seat holds)."""

    card: str
    confidence: float
    box: tuple[int, int, int, int]
    candidates: tuple[tuple[str, float], ...] = ()

    @property
    def flagged(self) -> bool:
        """True when the reading is too unsure to be taken without a person looking."""
        return self.confidence < LOW_CONFIDENCE

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"card": self.card, "confidence": round(float(self.confidence), 4),
                                  "box": list(self.box)}
        if self.candidates:
            out["candidates"] = [[code, round(float(p), 4)] for code, p in self.candidates]
        return out


def normalise_label(stem: str) -> str | None:
    """Card code from a file stem: our codes (``SQ``, ``S10``, ``HR``) or bidly's (``10h``, ``Qs``); else None."""
    text = stem.strip().split("#")[0].split("_")[0].split("-")[0]
    upper = text.upper()
    if upper in JOKERS:
        return upper
    if len(upper) >= 2 and upper[0] in SUITS:
        rank = upper[1:].replace("10", "T")
        if rank in RANKS:
            return upper[0] + rank
    if len(upper) >= 2 and upper[-1] in SUITS:
        rank = upper[:-1].replace("10", "T")
        if rank in RANKS:
            return upper[-1] + rank
    return None


@dataclass(frozen=True)
class RegionRead:
    """The readings of one region in one turn, with the upright image they were read from (what either card reader,
    the glyph one or the learned one, gives the table reader for a region)."""

    turn: int
    readings: list[CardReading]
    flat: np.ndarray
    score: float
    #: the index box of each reading in ``flat`` (for aligning enrolled templates), when read from it
    flat_boxes: tuple[tuple[int, int, int, int], ...] = ()
