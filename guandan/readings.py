"""Readings (what a set of cards counts as) and how readings compare (rules spec §3, §4).

A :class:`Reading` is a small frozen value: combination type, key rank, number of cards and, for a straight
flush, its suit. Ranks are natural values (2..14 with A = 14, 15 = small joker, 16 = big joker); a sequence's
rank is its lowest natural card, 1 for an A-low sequence; four jokers have rank 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import RANK_NAME, RANK_VALUES, SMALL_JOKER_RANK, SUITS, single_order
from .errors import InvalidPlayError

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
FULL_HOUSE = "full_house"
STRAIGHT = "straight"
TUBE = "tube"
PLATE = "plate"
BOMB = "bomb"
STRAIGHT_FLUSH = "straight_flush"
FOUR_JOKERS = "four_jokers"

TYPES: tuple[str, ...] = (
    SINGLE, PAIR, TRIPLE, FULL_HOUSE, STRAIGHT, TUBE, PLATE, BOMB, STRAIGHT_FLUSH, FOUR_JOKERS,
)
BOMB_TYPES = frozenset((BOMB, STRAIGHT_FLUSH, FOUR_JOKERS))
SEQUENCE_TYPES = frozenset((STRAIGHT, TUBE, PLATE, STRAIGHT_FLUSH))
#: Fixed size of every non-bomb type (bombs: 4..10).
TYPE_SIZES: dict[str, int] = {
    SINGLE: 1, PAIR: 2, TRIPLE: 3, FULL_HOUSE: 5, STRAIGHT: 5, TUBE: 6, PLATE: 6, STRAIGHT_FLUSH: 5, FOUR_JOKERS: 4,
}
#: Listing order of non-bomb types when several read the same cards (§5).
NON_BOMB_ORDER: dict[str, int] = {
    FULL_HOUSE: 0, STRAIGHT: 1, TUBE: 2, PLATE: 3, TRIPLE: 4, PAIR: 5, SINGLE: 6,
}


@dataclass(frozen=True, slots=True)
class Reading:
    """What a play counts as: ``Reading("pair", 8, 2)``, ``Reading("straight_flush", 7, 5, "D")``."""

    type: str
    rank: int
    size: int
    suit: str | None = None

    @property
    def is_bomb(self) -> bool:
        return self.type in BOMB_TYPES

    def bomb_tier(self) -> float:
        """Position in the bomb order of §4: 4 < 5 < straight flush < 6 < ... < 10 < four jokers."""
        if self.type == BOMB:
            return float(self.size)
        if self.type == STRAIGHT_FLUSH:
            return 5.5
        if self.type == FOUR_JOKERS:
            return 11.0
        return 0.0

    def rank_key(self, level: int) -> int:
        """The value compared between two readings of the same type and size."""
        if self.type in SEQUENCE_TYPES or self.type == FOUR_JOKERS:
            return self.rank
        return single_order(self.rank, level)

    def strength(self, level: int) -> tuple[float, int, int]:
        """Sort key, larger is stronger: bombs by bomb order, then non-bombs by the fixed type order and rank."""
        if self.is_bomb:
            return (1.0 + self.bomb_tier(), 0, self.rank_key(level))
        return (0.0, -NON_BOMB_ORDER[self.type], self.rank_key(level))

    def rank_text(self) -> str | None:
        if self.type == FOUR_JOKERS:
            return None
        if self.rank == 1:
            return "A"
        return RANK_NAME[self.rank]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "rank": self.rank_text(), "size": self.size}
        if self.suit is not None:
            out["suit"] = self.suit
        return out

    @classmethod
    def from_json(cls, data: Any) -> Reading:
        """Parse ``{"type", "rank", "size"[, "suit"]}``; raises :class:`InvalidPlayError` naming the bad field."""
        if not isinstance(data, dict):
            raise InvalidPlayError(f"a reading must be an object with type, rank and size, got {data!r}")
        kind = data.get("type")
        if kind not in TYPES:
            raise InvalidPlayError(f"unknown reading type {kind!r}")
        size = data.get("size", TYPE_SIZES.get(kind))
        if not isinstance(size, int) or isinstance(size, bool):
            raise InvalidPlayError(f"reading size must be an integer, got {size!r}")
        if kind == BOMB and not 4 <= size <= 10:
            raise InvalidPlayError(f"a bomb has 4 to 10 cards, not {size}")
        if kind != BOMB and size != TYPE_SIZES[kind]:
            raise InvalidPlayError(f"a {kind} has {TYPE_SIZES[kind]} cards, not {size}")
        rank = _parse_reading_rank(kind, data.get("rank"))
        suit = data.get("suit")
        if suit is not None and (kind != STRAIGHT_FLUSH or suit not in SUITS):
            raise InvalidPlayError(f"bad suit {suit!r} for a {kind} reading")
        return cls(kind, rank, size, suit)

    def same_as(self, other: Reading) -> bool:
        """Equal, treating a missing straight-flush suit on either side as "any suit"."""
        if self.type != other.type or self.rank != other.rank or self.size != other.size:
            return False
        return self.suit is None or other.suit is None or self.suit == other.suit

    def __str__(self) -> str:
        text = f"{self.type} {self.rank_text()} x{self.size}"
        return f"{text} {self.suit}" if self.suit else text


def _parse_reading_rank(kind: str, rank: Any) -> int:
    if kind == FOUR_JOKERS:
        return 0
    if not isinstance(rank, str):
        raise InvalidPlayError(f"reading rank must be a string such as '8', 'T' or 'SB', got {rank!r}")
    text = rank.strip().upper()
    if text == "10":
        text = "T"
    if text in ("SB", "HR"):
        if kind not in (SINGLE, PAIR):
            raise InvalidPlayError(f"a {kind} cannot be made of jokers (a wild never stands for a joker)")
        return SMALL_JOKER_RANK if text == "SB" else SMALL_JOKER_RANK + 1
    value = RANK_VALUES.get(text)
    if value is None:
        raise InvalidPlayError(f"unknown reading rank {rank!r}")
    if kind in SEQUENCE_TYPES:
        if value == 14:
            return 1  # the lowest card of an A-low sequence
        last = {STRAIGHT: 10, STRAIGHT_FLUSH: 10, TUBE: 12, PLATE: 13}[kind]
        if value > last:
            raise InvalidPlayError(f"no {kind} starts at {text} (no wrap-around past A)")
    return value


def beats(play: Reading, over: Reading, level: int) -> bool:
    """Whether ``play`` may follow ``over`` (§4): same type and size and higher, or a higher bomb."""
    if play.is_bomb:
        if not over.is_bomb:
            return True
        tier_play, tier_over = play.bomb_tier(), over.bomb_tier()
        if tier_play != tier_over:
            return tier_play > tier_over
        return play.rank_key(level) > over.rank_key(level)
    if play.type != over.type or play.size != over.size:
        return False
    return play.rank_key(level) > over.rank_key(level)
