from __future__ import annotations

from typing import Any

import pytest

from guandan.cards import parse_cards
from guandan.combinations import DECLARE, Reading, candidates, interpret
from guandan.errors import AmbiguousPlayError, InvalidPlayError


def _read(cards: str, level: int = 2, **kw: Any) -> str:
    return str(interpret(parse_cards(cards), level, **kw))


def test_order_picks_the_full_house() -> None:
    # 000 参谋 二 2 / 出牌方式 三: the wild lies where it stands
    assert _read("C6 C6 SK DK H2") == "full_house K x5"
    assert _read("H2 C6 C6 SK DK", wild_reading=DECLARE) == "full_house 6 x5"
    assert _read("C6 C6 SK DK H2", wild_reading=DECLARE) == "full_house K x5"


def test_order_that_does_not_decide_falls_to_the_profile() -> None:
    cards = parse_cards("C6 C6 H2 SK DK")
    assert [str(r) for r in candidates(cards, 2)] == ["full_house K x5", "full_house 6 x5"]
    assert str(interpret(cards, 2)) == "full_house K x5"  # strongest unless declared (000)
    with pytest.raises(AmbiguousPlayError) as info:
        interpret(cards, 2, wild_reading=DECLARE)  # 001: the table must ask
    assert [str(r) for r in info.value.candidates] == ["full_house K x5", "full_house 6 x5"]


def test_declaration_decides() -> None:
    cards = parse_cards("C6 C6 H2 SK DK")
    six = Reading("full_house", 6, 5)
    assert interpret(cards, 2, wild_reading=DECLARE, declared=six) == six
    with pytest.raises(InvalidPlayError, match="not one these cards admit"):
        interpret(cards, 2, declared=Reading("full_house", 9, 5))


def test_tube_or_plate_by_where_the_wilds_lie() -> None:
    assert _read("S7 D7 S8 D8 H2 H2", wild_reading=DECLARE) == "tube 7 x6"
    assert _read("H2 S7 D7 S8 D8 H2", wild_reading=DECLARE) == "plate 7 x6"
    assert _read("H2 H2 S7 D7 S8 D8", wild_reading=DECLARE) == "tube 6 x6"


def test_straight_ends() -> None:
    assert _read("H2 S4 D5 C6 H7", wild_reading=DECLARE) == "straight 3 x5"
    assert _read("S4 D5 C6 H7 H2", wild_reading=DECLARE) == "straight 4 x5"


def test_plays_without_wilds_never_need_a_declaration() -> None:
    assert _read("S3 S4 S5 S6 S7", wild_reading=DECLARE) == "straight_flush 3 x5 S"


def test_not_a_combination() -> None:
    with pytest.raises(InvalidPlayError, match="no combination"):
        interpret(parse_cards("S3 D5"), 2)
