"""Tribute, resistance, double tribute ties and return limits (rules spec §7; 000 贡牌与还牌, 003 五, 004 八)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from guandan.cards import Card, parse_card, parse_cards
from guandan.profiles import PROFILES, Profile, profile_with
from guandan.tribute import (
    lowest_allowed_return,
    plan_tribute,
    return_allowed,
    tribute_candidates,
)

NAT = PROFILES["national"]
JS = PROFILES["jiangsu"]
CHOOSE = profile_with(NAT, {"tie_tribute": "winner_chooses"})


def hands(**kw: str) -> dict[str, list[Card]]:
    return {s: parse_cards(kw.get(s, "")) for s in "SENW"}


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


def test_candidates_are_the_highest_cards_without_heart_level_cards() -> None:
    # at level 7 the level cards rank above A; the heart 7 is wild and never a tribute
    assert codes(tribute_candidates(parse_cards("H7 SA D7 C7 S3"), 7)) == ["C7", "D7"]
    assert codes(tribute_candidates(parse_cards("H7 H7 SA DA"), 7)) == ["SA", "DA"]
    assert codes(tribute_candidates(parse_cards("SB HR SB"), 7)) == ["HR"]
    assert codes(tribute_candidates(parse_cards("H7"), 7)) == ["H7"]  # nothing else to give


def test_single_tribute_giver_leads() -> None:
    plan = plan_tribute(NAT, 5, ["N", "E", "W", "S"], hands(S="SB S3 D4", N="C2"))
    assert not plan.resisted and plan.leader == "S" and not plan.double
    (p,) = plan.payments
    assert (p.giver, p.receiver, codes(p.candidates)) == ("S", "N", ["SB"])  # to 上游, its own partner


def test_single_tribute_resisted_with_both_big_jokers() -> None:
    plan = plan_tribute(NAT, 5, ["N", "E", "W", "S"], hands(S="HR HR S3"))
    assert plan.resisted and plan.payments == () and plan.leader == "N"


@pytest.mark.parametrize(("e", "w"), [("HR S3", "HR D4"), ("HR HR", "D4")])
def test_double_tribute_resisted_when_losers_hold_both_big_jokers(e: str, w: str) -> None:
    plan = plan_tribute(NAT, 5, ["S", "N"], hands(E=e, W=w))
    assert plan.resisted and plan.leader == "S"


def test_double_tribute_higher_card_to_upstream_and_its_giver_leads() -> None:
    plan = plan_tribute(NAT, 5, ["N", "S"], hands(E="SA S3", W="D5 C2"))  # level 5: D5 outranks SA
    assert plan.double and plan.leader == "W"
    assert [(p.giver, p.receiver) for p in plan.payments] == [("W", "N"), ("E", "S")]


@pytest.mark.parametrize(
    ("profile", "pairs", "leader"),
    [
        # 000: each loser gives to its 上家 (previous in play order S→E→N→W); 上游's 下家 leads
        (NAT, [("E", "S"), ("W", "N")], "E"),
        # 003: each loser gives to its 下家; 上游's 上家 leads
        (JS, [("E", "N"), ("W", "S")], "W"),
        (CHOOSE, [("E", "S"), ("W", "N")], "E"),
    ],
)
def test_equal_double_tributes_follow_the_tie_rule(profile: Profile, pairs: list[tuple[str, str]],
                                                  leader: str) -> None:
    plan = plan_tribute(profile, 5, ["S", "N"], hands(E="SA S3", W="DA C2"))
    assert [(p.giver, p.receiver) for p in plan.payments] == pairs and plan.leader == leader
    assert plan.winner_chooses == (profile is CHOOSE)


@pytest.mark.parametrize(
    ("limit", "card", "partner_ok", "opponent_ok"),
    [
        ("ten_to_partner", "ST", True, True),
        ("ten_to_partner", "SJ", False, True),
        ("ten_to_partner", "S5", False, True),  # a level card ranks above A
        ("ten_always", "SJ", False, False),
        ("ten_always", "S9", True, True),
        ("below_level_to_partner", "SA", True, True),
        ("below_level_to_partner", "S5", False, True),
        ("below_level_to_partner", "SB", False, True),
    ],
)
def test_return_limits(limit: str, card: str, partner_ok: bool, opponent_ok: bool) -> None:
    c = parse_card(card)
    hand = [c, *parse_cards("C3 D4")]
    assert return_allowed(limit, 5, "N", "S", c, hand)[0] is partner_ok
    assert return_allowed(limit, 5, "N", "E", c, hand)[0] is opponent_ok


def test_returner_without_an_allowed_card_returns_its_lowest() -> None:
    hand = parse_cards("SJ DK HA SB C5")  # level 5: nothing at most 10 that is not a level card
    assert return_allowed("ten_to_partner", 5, "N", "S", parse_card("SJ"), hand) == (True, "ok")
    assert return_allowed("ten_to_partner", 5, "N", "S", parse_card("DK"), hand) == (False, "not_lowest")
    assert return_allowed("ten_to_partner", 5, "N", "S", parse_card("SJ"), [*hand, parse_card("S4")]) == (
        False, "over_limit")
    assert return_allowed("ten_to_partner", 5, "N", "S", parse_card("S2"), hand) == (False, "not_held")
    assert lowest_allowed_return("ten_to_partner", 5, "N", "S", hand).code == "SJ"
    assert lowest_allowed_return("ten_to_partner", 5, "N", "E", hand).code == "SJ"
