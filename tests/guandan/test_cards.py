from __future__ import annotations

import pytest

from guandan.cards import (
    ALL_CARDS,
    full_pack,
    next_seat,
    parse_card,
    parse_cards,
    parse_level,
    parse_physical,
    partner,
    previous_seat,
    single_order,
    team_of,
)
from guandan.errors import InvalidCardError


def test_pack_has_108_cards_each_face_twice() -> None:
    pack = full_pack()
    assert len(pack) == 108
    assert len(ALL_CARDS) == 54
    assert all(pack.count(c) == 2 for c in ALL_CARDS)


def test_notation_round_trip_and_ten_input() -> None:
    for card in ALL_CARDS:
        assert parse_card(card.code) is card
    assert parse_card("S10") is parse_card("ST")
    assert parse_card("s10").code == "ST"
    assert parse_physical("HA#2") == (parse_card("HA"), 2)
    assert parse_physical("HA") == (parse_card("HA"), None)


@pytest.mark.parametrize("token", ["SX", "S1", "B", "", "ZZ", "HR#3", "S11"])
def test_bad_tokens_are_named(token: str) -> None:
    with pytest.raises(InvalidCardError, match=repr(token) if token != "HR#3" else "copy suffix"):
        parse_card(token)


def test_third_copy_rejected() -> None:
    with pytest.raises(InvalidCardError, match="H5 appears 3 times"):
        parse_cards(["H5", "H5", "H5"])
    assert len(parse_cards("H5 H5 SB")) == 3


def test_levels_and_single_order() -> None:
    assert parse_level("10") == parse_level("T") == 10
    with pytest.raises(InvalidCardError):
        parse_level("1")
    level = parse_level("7")
    assert single_order(14, level) < single_order(7, level) < single_order(15, level) < single_order(16, level)


def test_seats_in_play_order() -> None:
    assert [next_seat(s) for s in "SENW"] == list("ENWS")
    assert previous_seat("S") == "W"
    assert partner("E") == "W"
    assert team_of("N") == "NS" and team_of("W") == "EW"


def test_one_physical_copy_named_twice_is_rejected() -> None:
    """``S5#1 S5#1`` classified as a pair of 5s: the suffix names one physical card (rules §1)."""
    with pytest.raises(InvalidCardError, match="S5#1 appears twice"):
        parse_cards(["S5#1", "S5#1"])
    assert [c.code for c in parse_cards(["S5#1", "S5#2"])] == ["S5", "S5"]
    assert [c.code for c in parse_cards("S5#1 S5")] == ["S5", "S5"]
