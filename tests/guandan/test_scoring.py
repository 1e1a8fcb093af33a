"""场分 and 级差分 with the variants of rules spec §9 (003 级差与积分换算表, 004 庆元旦 and knockout)."""

from __future__ import annotations

import pytest

from guandan.levels import parse_team_level
from guandan.profiles import PROFILES, profile_with
from guandan.scoring import level_points, match_points, one_to_three, score_match, walkover

NAT = PROFILES["national"]
THREE = profile_with(NAT, {"match_points": "three_point", "level_points": "level_value"})


def lv(ns: str, ew: str) -> dict[str, int]:
    return {"NS": parse_team_level(ns), "EW": parse_team_level(ew)}


@pytest.mark.parametrize(
    ("ns", "ew", "win", "lose"),
    [("A+", "2", 26, 0), ("5", "5", 13, 13), ("K", "T", 16, 10), ("A+", "A", 14, 12), ("3", "2", 14, 12)],
)
def test_twenty_six_point_table(ns: str, ew: str, win: int, lose: int) -> None:
    assert level_points(NAT, lv(ns, ew), "NS") == {"NS": win, "EW": lose}


def test_draw_scores() -> None:
    assert level_points(NAT, lv("7", "7"), None) == {"NS": 13, "EW": 13}
    assert match_points(NAT, None, finished=False) == {"NS": 1.0, "EW": 1.0}
    assert match_points(NAT, "EW", finished=False) == {"EW": 2.0, "NS": 0.0}


def test_level_value_example_of_004() -> None:
    # 胜方已打过（或打到）A级，负方打到6: 14 + 8 = 22 and 6
    assert level_points(THREE, lv("A", "6"), "NS") == {"NS": 22, "EW": 6}
    assert level_points(THREE, lv("6", "A+"), "EW") == {"EW": 22, "NS": 6}
    assert walkover(THREE, "EW") == {"NS": {"match_points": 0.0, "level_points": 0},
                                    "EW": {"match_points": 3.0, "level_points": 14}}


def test_three_point_finished_and_unfinished() -> None:
    assert match_points(THREE, "NS", finished=True) == {"NS": 3.0, "EW": 0.0}
    assert match_points(THREE, "NS", finished=False) == {"NS": 2.0, "EW": 1.0}
    assert match_points(THREE, None, finished=False) == {"NS": 1.5, "EW": 1.5}
    assert score_match(THREE, lv("A+", "6"), "NS")["NS"] == {"match_points": 3.0, "level_points": 22}
    assert score_match(THREE, lv("K", "6"), "NS")["NS"] == {"match_points": 2.0, "level_points": 20}


@pytest.mark.parametrize(
    ("finish", "team", "points"),
    [(["E", "W"], "EW", 3), (["S", "E", "N", "W"], "NS", 2), (["S", "E", "W", "N"], "NS", 1)],
)
def test_one_to_three(finish: list[str], team: str, points: int) -> None:
    assert one_to_three(finish) == (team, points)
