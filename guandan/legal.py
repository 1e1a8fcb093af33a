"""Legal plays: every distinct reading a hand can make, lazily, with one card list that makes each.

``legal_plays(hand, level, over)`` is a view in the spirit of python-chess's legal-move generator: iterating
yields :class:`Play` entries, ``readings()`` lists only the readings (no card lists are built), and ``any()``
answers "can this hand beat that?" stopping at the first hit. With ``over=None`` the hand leads and every
reading counts; otherwise only readings that beat ``over`` (same type and size and higher, or a higher bomb).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .cards import BIG_JOKER_RANK, COPIES, SMALL_JOKER_RANK, SUITS, Card, single_order
from .errors import InvalidCardError
from .readings import (
    BOMB,
    FOUR_JOKERS,
    FULL_HOUSE,
    PAIR,
    PLATE,
    SINGLE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPLE,
    TUBE,
    Reading,
    beats,
)

NATURAL_RANKS = range(2, 15)
ACE = 14


@dataclass(frozen=True, slots=True)
class Play:
    """A reading and the cards (from the hand, in laid-out order) that make it."""

    reading: Reading
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, object]:
        return self.reading.to_json() | {"cards": [c.code for c in self.cards]}


class HandIndex:
    """Counts of a hand by rank and by suit, with the cards behind them; built once per hand."""

    __slots__ = ("level", "wilds", "by_rank", "by_suit", "count", "suit_count", "small", "big", "pair_order")

    def __init__(self, hand: Sequence[Card], level: int) -> None:
        self.level = level
        self.wilds: list[Card] = []
        self.small: list[Card] = []
        self.big: list[Card] = []
        self.by_rank: list[list[Card]] = [[] for _ in range(15)]
        self.by_suit: dict[str, list[list[Card]]] = {s: [[] for _ in range(15)] for s in SUITS}
        seen = dup = 0
        for c in hand:
            bit = 1 << c.id
            if seen & bit:
                if dup & bit:
                    raise InvalidCardError(f"card {c.code} appears more than {COPIES} times in the hand")
                dup |= bit
            seen |= bit
            if c.rank == level and c.suit == "H":
                self.wilds.append(c)
            elif c.rank == SMALL_JOKER_RANK:
                self.small.append(c)
            elif c.rank == BIG_JOKER_RANK:
                self.big.append(c)
            else:
                self.by_rank[c.rank].append(c)
                self.by_suit[c.suit][c.rank].append(c)  # type: ignore[index]
        # count[v] for v in 1..14 (1 = A as the low end of a sequence)
        self.count = [len(cards) for cards in self.by_rank]
        self.count[1] = self.count[ACE]
        self.suit_count = {s: [len(x) for x in lists] for s, lists in self.by_suit.items()}
        for counts in self.suit_count.values():
            counts[1] = counts[ACE]
        #: natural ranks from lowest to highest in single-card order (cheapest pair first)
        self.pair_order = sorted(NATURAL_RANKS, key=lambda rank: single_order(rank, level))


def _rank_threshold(over: Reading | None, kind: str, size: int, level: int) -> int | None:
    """Smallest rank key allowed for this type and size, or None when no reading of it can follow."""
    if over is None:
        return -1
    if over.type != kind or over.size != size:
        return None
    return over.rank_key(level)


class LegalPlays:
    """Lazy view of the legal plays of a hand (one entry per distinct reading)."""

    def __init__(self, hand: Sequence[Card], level: int, over: Reading | None = None) -> None:
        self.index = HandIndex(hand, level)
        self.level = level
        self.over = over

    # -- readings ---------------------------------------------------------------------------------------------
    def readings(self) -> Iterator[Reading]:
        """Every distinct reading the hand can make that is legal now (non-bombs first, then bombs)."""
        over = self.over
        if over is None or not over.is_bomb:
            yield from self._non_bombs()
        yield from self._bombs()

    def any(self) -> bool:
        """Whether the hand has at least one legal play (always true when leading a non-empty hand)."""
        return next(iter(self.readings()), None) is not None

    def __iter__(self) -> Iterator[Play]:
        for reading in self.readings():
            yield Play(reading, tuple(self.cards_for(reading)))

    def __len__(self) -> int:
        return sum(1 for _ in self.readings())

    def __contains__(self, reading: object) -> bool:
        return isinstance(reading, Reading) and any(r.same_as(reading) for r in self.readings())

    def _non_bombs(self) -> Iterator[Reading]:
        ix, level, over = self.index, self.level, self.over
        count, w = ix.count, len(ix.wilds)
        t = _rank_threshold(over, SINGLE, 1, level)
        if t is not None:
            for r in NATURAL_RANKS:
                if (count[r] or (r == level and w)) and single_order(r, level) > t:
                    yield Reading(SINGLE, r, 1)
            if ix.small and SMALL_JOKER_RANK + 1 > t:
                yield Reading(SINGLE, SMALL_JOKER_RANK, 1)
            if ix.big and BIG_JOKER_RANK + 1 > t:
                yield Reading(SINGLE, BIG_JOKER_RANK, 1)
        t = _rank_threshold(over, PAIR, 2, level)
        if t is not None:
            for r in NATURAL_RANKS:
                c = count[r]
                if (c >= 2 or (c and w) or (r == level and w == 2)) and single_order(r, level) > t:
                    yield Reading(PAIR, r, 2)
            if len(ix.small) == 2 and SMALL_JOKER_RANK + 1 > t:
                yield Reading(PAIR, SMALL_JOKER_RANK, 2)
            if len(ix.big) == 2 and BIG_JOKER_RANK + 1 > t:
                yield Reading(PAIR, BIG_JOKER_RANK, 2)
        t = _rank_threshold(over, TRIPLE, 3, level)
        if t is not None:
            for r in NATURAL_RANKS:
                c = count[r]
                if c and c + w >= 3 and single_order(r, level) > t:
                    yield Reading(TRIPLE, r, 3)
        t = _rank_threshold(over, FULL_HOUSE, 5, level)
        if t is not None:
            for r in NATURAL_RANKS:
                if single_order(r, level) > t and self._full_house_pair(r) is not None:
                    yield Reading(FULL_HOUSE, r, 5)
        t = _rank_threshold(over, STRAIGHT, 5, level)
        if t is not None:
            for s in range(max(1, t + 1), 11):
                if sum(1 for v in range(s, s + 5) if not count[v]) <= w:
                    yield Reading(STRAIGHT, s, 5)
        t = _rank_threshold(over, TUBE, 6, level)
        if t is not None:
            for s in range(max(1, t + 1), 13):
                need = 0
                for v in range(s, s + 3):
                    if count[v] < 2:
                        need += 2 - count[v]
                if need <= w:
                    yield Reading(TUBE, s, 6)
        t = _rank_threshold(over, PLATE, 6, level)
        if t is not None:
            for s in range(max(1, t + 1), 14):
                need = max(0, 3 - count[s]) + max(0, 3 - count[s + 1])
                if need <= w:
                    yield Reading(PLATE, s, 6)

    def _bombs(self) -> Iterator[Reading]:
        ix, level, over = self.index, self.level, self.over
        count, w = ix.count, len(ix.wilds)
        for size in range(4, 11):
            if size == 6:
                yield from self._straight_flushes()
            for r in NATURAL_RANKS:
                if count[r] + w >= size:
                    reading = Reading(BOMB, r, size)
                    if over is None or beats(reading, over, level):
                        yield reading
        if len(ix.small) == 2 and len(ix.big) == 2:
            reading = Reading(FOUR_JOKERS, 0, 4)
            if over is None or beats(reading, over, level):
                yield reading

    def _straight_flushes(self) -> Iterator[Reading]:
        ix, over = self.index, self.over
        w = len(ix.wilds)
        if over is not None and over.is_bomb and over.bomb_tier() > 5.5:
            return
        low = over.rank + 1 if over is not None and over.type == STRAIGHT_FLUSH else 1
        for suit in SUITS:
            counts = ix.suit_count[suit]
            for s in range(max(1, low), 11):
                if sum(1 for v in range(s, s + 5) if not counts[v]) <= w:
                    yield Reading(STRAIGHT_FLUSH, s, 5, suit)

    def _full_house_pair(self, triple: int) -> int | None:
        """The rank of the cheapest pair to go with this triple (a joker rank, or 0 for two wilds), or None."""
        ix = self.index
        count, w = ix.count, len(ix.wilds)
        c = count[triple]
        if not c or c + w < 3:
            return None
        spare = w - max(0, 3 - c)
        best: int | None = None
        best_cost = 3
        for r in ix.pair_order:
            if r == triple or not count[r]:
                continue
            cost = max(0, 2 - count[r])
            if cost <= spare and cost < best_cost:
                best, best_cost = r, cost
                if cost == 0:
                    break
        if best_cost > 0:
            if len(ix.small) == 2:
                return SMALL_JOKER_RANK
            if len(ix.big) == 2:
                return BIG_JOKER_RANK
        if best is not None:
            return best
        return 0 if spare >= 2 else None

    # -- card lists -------------------------------------------------------------------------------------------
    def cards_for(self, reading: Reading) -> list[Card]:
        """One card list from the hand that makes ``reading``, laid out low to high with wilds in place."""
        ix = self.index
        kind, r = reading.type, reading.rank
        wilds = list(ix.wilds)
        if kind in (SINGLE, PAIR, TRIPLE, BOMB):
            if r == SMALL_JOKER_RANK:
                return ix.small[: reading.size]
            if r == BIG_JOKER_RANK:
                return ix.big[: reading.size]
            naturals = ix.by_rank[r][: reading.size]
            return naturals + wilds[: reading.size - len(naturals)]
        if kind == FOUR_JOKERS:
            return ix.small[:2] + ix.big[:2]
        if kind == FULL_HOUSE:
            triple = ix.by_rank[r][:3]
            triple += [wilds.pop() for _ in range(3 - len(triple))]
            pair_rank = self._full_house_pair(r)
            if pair_rank == SMALL_JOKER_RANK:
                pair = ix.small[:2]
            elif pair_rank == BIG_JOKER_RANK:
                pair = ix.big[:2]
            elif pair_rank:
                pair = ix.by_rank[pair_rank][:2]
                pair += [wilds.pop() for _ in range(2 - len(pair))]
            else:
                pair = [wilds.pop(), wilds.pop()]
            below = pair_rank and single_order(pair_rank, self.level) < single_order(r, self.level)
            return pair + triple if below else triple + pair
        width, copies = {TUBE: (3, 2), PLATE: (2, 3)}.get(kind, (5, 1))
        out: list[Card] = []
        for v in range(r, r + width):
            pool = ix.by_suit[reading.suit][ACE if v == 1 else v] if reading.suit else ix.by_rank[ACE if v == 1 else v]
            have = pool[:copies]
            out += have
            out += [wilds.pop() for _ in range(copies - len(have))]
        return out


def legal_plays(hand: Sequence[Card], level: int, over: Reading | None = None) -> LegalPlays:
    """The lazy view of every legal play of ``hand`` at ``level`` against ``over`` (None: a lead)."""
    return LegalPlays(hand, level, over)
