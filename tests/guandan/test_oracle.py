"""The classifier against an independent brute-force oracle (wilds by substitution) on random plays."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from guandan.cards import Card
from guandan.classify import classify

from .oracle import oracle_readings
from .strategies import rich_hands


@given(rich_hands(max_size=10), st.randoms(use_true_random=False))
@settings(max_examples=600, deadline=None)
def test_classify_agrees_with_the_oracle(case: tuple[int, list[Card]], rnd: random.Random) -> None:
    level, hand = case
    play = rnd.sample(hand, rnd.randint(1, min(len(hand), 10)))
    got = {(r.type, r.rank, r.size, r.suit) for r in classify(play, level)}
    assert got == oracle_readings(play, level), [c.code for c in play]
