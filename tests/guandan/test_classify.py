from __future__ import annotations

import pytest
from hypothesis import given, settings

from guandan.cards import Card, parse_cards
from guandan.classify import classify
from guandan.errors import InvalidCardError, InvalidPlayError
from guandan.readings import BOMB_TYPES

from .strategies import rich_hands


def test_empty_play_is_an_error() -> None:
    with pytest.raises(InvalidPlayError, match="empty"):
        classify([], 2)


def test_third_copy_is_an_error() -> None:
    with pytest.raises(InvalidCardError, match="S5"):
        classify(parse_cards(["S5", "S5", "S5"], max_copies=None), 2)


@given(rich_hands())
@settings(max_examples=300, deadline=None)
def test_readings_are_sorted_strongest_first_and_distinct(case: tuple[int, list[Card]]) -> None:
    level, cards = case
    readings = classify(cards, level)
    keys = [r.strength(level) for r in readings]
    assert keys == sorted(keys, reverse=True)
    assert len(set(readings)) == len(readings)
    for r in readings:
        assert r.size == len(cards)
        assert (r.type in BOMB_TYPES) == r.is_bomb


@given(rich_hands())
@settings(max_examples=300, deadline=None)
def test_order_of_cards_does_not_change_the_readings(case: tuple[int, list[Card]]) -> None:
    level, cards = case
    assert classify(cards, level) == classify(list(reversed(cards)), level)
