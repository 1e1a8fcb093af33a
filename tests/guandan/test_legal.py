"""Legal plays against brute force: every subset of a small hand, classified, must give exactly the same readings."""

from __future__ import annotations

import itertools

from hypothesis import given, settings

from guandan.cards import Card, parse_cards
from guandan.classify import classify
from guandan.combinations import Reading, beats, interpret, legal_plays

from .strategies import rich_hands


def _all_subset_readings(hand: list[Card], level: int) -> set[Reading]:
    found: set[Reading] = set()
    for k in range(1, min(len(hand), 10) + 1):
        for combo in itertools.combinations(hand, k):
            found.update(classify(combo, level))
    return found


@given(rich_hands(max_size=9))
@settings(max_examples=150, deadline=None)
def test_lead_readings_equal_brute_force(case: tuple[int, list[Card]]) -> None:
    level, hand = case
    expected = _all_subset_readings(hand, level)
    plays = list(legal_plays(hand, level))
    assert {p.reading for p in plays} == expected
    assert len(plays) == len(expected)  # one entry per distinct reading
    for play in plays:
        assert _is_sub_multiset(play.cards, hand)
        assert play.reading in classify(play.cards, level)
        # laid out as generated, the play means what it claims when it is declared
        assert interpret(play.cards, level, declared=play.reading) == play.reading


@given(rich_hands(max_size=9))
@settings(max_examples=120, deadline=None)
def test_replies_equal_brute_force(case: tuple[int, list[Card]]) -> None:
    level, hand = case
    everything = _all_subset_readings(hand, level)
    for over in sorted(everything, key=str)[:6]:
        expected = {r for r in everything if beats(r, over, level)}
        view = legal_plays(hand, level, over)
        assert set(view.readings()) == expected
        assert view.any() is bool(expected)
        for play in view:
            assert beats(play.reading, over, level)


def _is_sub_multiset(part: tuple[Card, ...], whole: list[Card]) -> bool:
    rest = list(whole)
    for card in part:
        if card not in rest:
            return False
        rest.remove(card)
    return True


def test_view_answers_membership_and_length() -> None:
    hand = parse_cards("S3 D3 C3 S4 D4 H2 SB SB HR HR")
    view = legal_plays(hand, 2)
    assert Reading("plate", 3, 6) in view
    assert Reading("four_jokers", 0, 4) in view
    assert Reading("tube", 9, 6) not in view
    assert len(view) == len(list(view.readings()))


def test_cannot_beat_four_jokers() -> None:
    hand = parse_cards("S3 D3 C3 H3 S3 D3 C3 H3 H2 H2")
    over = Reading("four_jokers", 0, 4)
    assert not legal_plays(hand, 2, over).any()
    assert legal_plays(hand, 2, Reading("bomb", 14, 9)).any()


def test_27_card_hand_lists_expected_kinds() -> None:
    hand = parse_cards(
        "S2 D2 S3 H3 C4 D5 S6 S7 S8 S9 ST SJ SQ SK SA DA CA HA SB HR H5 H5 C9 C9 D9 H9 CT"
    )
    kinds = {p.reading.type for p in legal_plays(hand, 5)}
    assert {"single", "pair", "triple", "full_house", "straight", "tube", "plate", "bomb", "straight_flush"} <= kinds
