"""Hypothesis strategies for hands that are rich in combinations: few ranks, wild cards, jokers."""

from __future__ import annotations

from hypothesis import strategies as st

from guandan.cards import BIG_JOKER, SMALL_JOKER, SUITS, Card, card_of

levels = st.integers(min_value=2, max_value=14)


@st.composite
def rich_hands(draw: st.DrawFn, max_size: int = 10) -> tuple[int, list[Card]]:
    """A level and a hand of up to ``max_size`` cards concentrated on a run of ranks, with wilds and jokers."""
    level = draw(levels)
    start = draw(st.integers(min_value=1, max_value=13))
    width = draw(st.integers(min_value=1, max_value=5))
    ranks = sorted({((start - 1 + i) % 13) + 2 for i in range(width)} | ({level} if draw(st.booleans()) else set()))
    pool = [card_of(s, r) for r in ranks for s in SUITS for _ in range(2) if not (s == "H" and r == level)]
    if draw(st.booleans()):
        pool += [SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER]
    wilds = draw(st.integers(min_value=0, max_value=2))
    size = draw(st.integers(min_value=1, max_value=max(1, min(len(pool), max_size - wilds))))
    picks = draw(st.lists(st.integers(min_value=0, max_value=len(pool) - 1), min_size=size, max_size=size, unique=True))
    hand = [pool[i] for i in picks] + [card_of("H", level)] * wilds
    order = draw(st.permutations(hand))
    return level, list(order)
