"""Levelling up, passing A, failed A deals and drop-back, the next deal's level (rules spec §8; 000 十, 001)."""

from __future__ import annotations

import pytest

from guandan.levels import (
    LevelError,
    check_finish,
    format_team_level,
    next_deal,
    parse_team_level,
    settle,
    up_for,
)
from guandan.profiles import PROFILES, Profile, profile_with

NAT = PROFILES["national"]
COMP = PROFILES["competitive-2017"]
CLUB = PROFILES["club-004"]


def lv(ns: str, ew: str) -> dict[str, int]:
    return {"NS": parse_team_level(ns), "EW": parse_team_level(ew)}


def shown(levels: dict[str, int]) -> dict[str, str]:
    return {t: format_team_level(v) for t, v in levels.items()}


@pytest.mark.parametrize(
    ("profile", "finish", "up"),
    [
        (NAT, ["S", "N"], 3), (COMP, ["S", "N"], 4), (CLUB, ["E", "W"], 4),
        (NAT, ["S", "E", "N", "W"], 2), (NAT, ["S", "E", "N"], 2), (NAT, ["S", "E", "W", "N"], 1),
        (NAT, ["E", "N", "S"], 1),
    ],
)
def test_up_by_partner_place(profile: Profile, finish: list[str], up: int) -> None:
    assert up_for(profile, finish) == up


def test_only_upstream_team_goes_up_and_stops_at_a() -> None:
    s = settle(NAT, lv("5", "9"), "EW", ["N", "E", "S", "W"])
    assert shown(s.levels) == {"NS": "7", "EW": "9"} and s.winner == "NS" and s.up == 2
    s = settle(NAT, lv("Q", "2"), "NS", ["S", "N"])  # Q + 3 would pass A: stops at A (A must be played)
    assert shown(s.levels) == {"NS": "A", "EW": "2"} and s.match_winner is None


def test_pass_a_national_needs_partner_not_last_at_own_a() -> None:
    s = settle(NAT, lv("A", "5"), "NS", ["S", "E", "N", "W"])
    assert shown(s.levels)["NS"] == "A+" and s.match_winner == "NS" and s.passed_a
    s = settle(NAT, lv("A", "5"), "NS", ["S", "E", "W", "N"])  # partner last: stays on A, a failed A deal
    assert shown(s.levels)["NS"] == "A" and s.match_winner is None and s.failed_a == {"NS": 1, "EW": 0}
    s = settle(NAT, lv("A", "5"), "EW", ["S", "N"])  # played at EW's level: only makes the next deal at A
    assert shown(s.levels)["NS"] == "A" and s.match_winner is None and s.failed_a == {"NS": 0, "EW": 0}
    assert next_deal(NAT, s.levels, s.winner) == ("NS", 14)


def test_pass_a_club_004_only_with_a_double_down() -> None:
    assert settle(CLUB, lv("A", "5"), "NS", ["S", "E", "N", "W"]).match_winner is None
    s = settle(CLUB, lv("5", "A"), "EW", ["W", "E"])
    assert s.match_winner == "EW" and shown(s.levels)["EW"] == "A+"


def test_failed_a_deals_lost_or_won_and_drop_back() -> None:
    drop3 = profile_with(NAT, {"a_drop_back": 3})
    s = settle(drop3, lv("A", "K"), "NS", ["E", "S", "W", "N"], {"NS": 1, "EW": 0})  # lost at own A
    assert s.failed_a["NS"] == 2 and shown(s.levels)["NS"] == "A" and s.dropped_back is None
    s = settle(drop3, s.levels, "NS", ["N", "E", "W", "S"], s.failed_a)  # won, partner last: third failure
    assert shown(s.levels)["NS"] == "2" and s.failed_a["NS"] == 0 and s.dropped_back == "NS"
    s = settle(NAT, lv("A", "K"), "NS", ["E", "S", "W", "N"], {"NS": 7, "EW": 0})  # 庆元旦: never drops back
    assert shown(s.levels)["NS"] == "A" and s.failed_a["NS"] == 8


def test_fixed_level_keeps_levels_and_next_deal_level() -> None:
    fixed = profile_with(NAT, {"fixed_level": "2"})
    s = settle(fixed, lv("2", "2"), "NS", ["S", "N"])
    assert shown(s.levels) == {"NS": "2", "EW": "2"} and s.up == 3
    assert next_deal(fixed, lv("5", "9"), "EW") == ("EW", 2)
    assert next_deal(NAT, lv("5", "9"), None) == ("NS", 5)


@pytest.mark.parametrize(
    "finish", [["S", "E"], ["S", "S", "N"], ["S"], ["S", "E", "X"], ["S", "E", "N", "W", "S"]]
)
def test_bad_finish_orders_are_refused(finish: list[str]) -> None:
    with pytest.raises(LevelError):
        check_finish(finish)


def test_bad_levels_are_refused() -> None:
    with pytest.raises(LevelError):
        parse_team_level("1")
    with pytest.raises(LevelError, match="already over"):
        settle(NAT, lv("A+", "2"), "NS", ["S", "N"])
