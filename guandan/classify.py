"""Classification: every reading a set of cards admits (rules spec §3, §5), strongest first.

Heart level cards are wild (any non-joker card); a play made only of them reads as level cards. Sequences use
natural rank order with A low or high and no wrap-around. The work is done on rank counts, so it does not
depend on the order the cards were laid out in (that is :mod:`interpret`'s job).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import BIG_JOKER_RANK, COPIES, SMALL_JOKER_RANK, Card
from .errors import InvalidCardError, InvalidPlayError
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
)

MAX_PLAY_SIZE = 10
ACE = 14


def classify(cards: Sequence[Card], level: int) -> list[Reading]:
    """Every reading of ``cards`` at ``level`` (2..14), strongest first; ``[]`` when they form no combination.

    Raises :class:`InvalidPlayError` for an empty play and :class:`InvalidCardError` for more copies of a
    face than the pack holds.
    """
    n = len(cards)
    if n == 0:
        raise InvalidPlayError("empty play: a play needs at least one card")
    wilds = 0
    small = big = 0
    nat: dict[int, int] = {}
    suits: set[str | None] = set()
    seen = 0
    dup = 0
    for c in cards:
        bit = 1 << c.id
        if seen & bit:
            if dup & bit:
                raise InvalidCardError(f"card {c.code} appears more than {COPIES} times; the pack holds only {COPIES}")
            dup |= bit
        seen |= bit
        r = c.rank
        if r == level and c.suit == "H":
            wilds += 1
        elif r == SMALL_JOKER_RANK:
            small += 1
        elif r == BIG_JOKER_RANK:
            big += 1
        else:
            nat[r] = nat.get(r, 0) + 1
            suits.add(c.suit)
    if n > MAX_PLAY_SIZE:
        return []
    jokers = small + big
    if n == 1:
        if wilds:
            return [Reading(SINGLE, level, 1)]
        return [Reading(SINGLE, cards[0].rank, 1)]
    if n == 2:
        return _pair(nat, wilds, small, big, level)
    if jokers:
        if n == 4 and small == 2 and big == 2:
            return [Reading(FOUR_JOKERS, 0, 4)]
        if n == 5 and (small == 2) != (big == 2) and jokers == 2 and len(nat) == 1:
            (rank, count), = nat.items()
            return [Reading(FULL_HOUSE, rank, 5)] if count + wilds == 3 else []
        return []
    readings: list[Reading] = []
    if len(nat) == 1 and n >= 3:
        (rank, count), = nat.items()
        if n == 3:
            return [Reading(TRIPLE, rank, 3)]
        readings.append(Reading(BOMB, rank, n))
        if n == 5 and count == 3:  # three of a rank and two wilds standing for any pair
            readings.append(Reading(FULL_HOUSE, rank, 5))
        return readings
    if n == 5:
        if len(nat) == 2:
            for rank, count in nat.items():
                if count <= 3 and 5 - wilds - count <= 2:
                    readings.append(Reading(FULL_HOUSE, rank, 5))
        elif len(nat) + wilds == 5:
            starts = _sequence_starts(nat, 4, 10)
            if len(suits) == 1:
                suit = next(iter(suits))
                readings.extend(Reading(STRAIGHT_FLUSH, s, 5, suit) for s in starts)
            readings.extend(Reading(STRAIGHT, s, 5) for s in starts)
    elif n == 6:
        if len(nat) <= 3 and max(nat.values()) <= 2:
            readings.extend(Reading(TUBE, s, 6) for s in _sequence_starts(nat, 2, 12))
        if len(nat) == 2 and max(nat.values()) <= 3:
            readings.extend(Reading(PLATE, s, 6) for s in _sequence_starts(nat, 1, 13))
    if len(readings) > 1:
        readings.sort(key=lambda reading: reading.strength(level), reverse=True)
    return readings


def _pair(nat: dict[int, int], wilds: int, small: int, big: int, level: int) -> list[Reading]:
    if wilds == 2:
        return [Reading(PAIR, level, 2)]
    if small == 2:
        return [Reading(PAIR, SMALL_JOKER_RANK, 2)]
    if big == 2:
        return [Reading(PAIR, BIG_JOKER_RANK, 2)]
    if small or big or len(nat) != 1:
        return []
    return [Reading(PAIR, next(iter(nat)), 2)]


def _sequence_starts(nat: dict[int, int], span: int, last_start: int) -> list[int]:
    """Lowest ranks of every run of ``span + 1`` consecutive ranks (A as 1 or 14) holding all ``nat`` ranks.

    The caller has already checked that counts per rank fit the type, so holding every rank is enough:
    the wilds fill exactly what is missing.
    """
    ranks = list(nat)
    options = [ranks]
    if ACE in nat:
        options.append([1 if r == ACE else r for r in ranks])
    starts: list[int] = []
    for option in options:
        lo, hi = min(option), max(option)
        if hi - lo > span:
            continue
        for s in range(max(1, hi - span), min(last_start, lo) + 1):
            if s not in starts:
                starts.append(s)
    return starts
