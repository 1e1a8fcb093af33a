"""An independent, deliberately naive reading oracle for tests: wilds by brute-force substitution.

It shares no code with the engine's classifier: every wild is replaced by each of the 52 non-joker faces in
turn and the resulting natural cards are read by the plain definitions of rules spec §3.
"""

from __future__ import annotations

import itertools
from collections import Counter

from guandan.cards import ALL_CARDS, Card

NON_JOKERS = [c for c in ALL_CARDS if not c.is_joker]

# (type, rank, size, suit): the fields of a reading, suit None except for a straight flush.
OracleReading = tuple[str, int, int, str | None]


def _runs(ranks: list[int], width: int) -> list[int]:
    """Lowest values of the runs of ``width`` consecutive values equal to the distinct ``ranks`` (A = 1 or 14)."""
    out = []
    for low_ace in (False, True):
        values = sorted(1 if (low_ace and r == 14) else r for r in ranks)
        if len(set(values)) == width and values[-1] - values[0] == width - 1 and all(v <= 14 for v in values):
            if low_ace and 14 not in ranks:
                continue
            out.append(values[0])
    return out


def natural_readings(cards: list[Card]) -> set[OracleReading]:
    """(type, rank, size, suit) readings of cards with no wilds, by the definitions alone."""
    n = len(cards)
    ranks = [c.rank for c in cards]
    count = Counter(ranks)
    jokers = [r for r in ranks if r >= 15]
    found: set[OracleReading] = set()
    if n == 1:
        found.add(("single", ranks[0], 1, None))
    if n == 2 and len(count) == 1:
        found.add(("pair", ranks[0], 2, None))
    if n == 3 and len(count) == 1 and not jokers:
        found.add(("triple", ranks[0], 3, None))
    if n == 4 and sorted(ranks) == [15, 15, 16, 16]:
        found.add(("four_jokers", 0, 4, None))
    if 4 <= n <= 10 and len(count) == 1 and not jokers:
        found.add(("bomb", ranks[0], n, None))
    if n == 5 and sorted(count.values()) == [2, 3]:
        triple = next(r for r, k in count.items() if k == 3)
        if triple < 15:
            found.add(("full_house", triple, 5, None))
    if n == 5 and not jokers:
        for low in _runs(ranks, 5):
            found.add(("straight", low, 5, None))
            if len({c.suit for c in cards}) == 1:
                found.add(("straight_flush", low, 5, cards[0].suit))
    if n == 6 and not jokers and set(count.values()) == {2}:
        found.update(("tube", low, 6, None) for low in _runs(list(count), 3))
    if n == 6 and not jokers and set(count.values()) == {3}:
        found.update(("plate", low, 6, None) for low in _runs(list(count), 2))
    return found


def oracle_readings(cards: list[Card], level: int) -> set[OracleReading]:
    wild_positions = [i for i, c in enumerate(cards) if c.suit == "H" and c.rank == level]
    if len(wild_positions) == len(cards):  # only heart level cards: read as level cards
        return natural_readings(list(cards))
    found: set[OracleReading] = set()
    for faces in itertools.product(NON_JOKERS, repeat=len(wild_positions)):
        trial = list(cards)
        for i, face in zip(wild_positions, faces, strict=True):
            trial[i] = face
        found |= natural_readings(trial)
    return found
