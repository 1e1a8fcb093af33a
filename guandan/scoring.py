"""Scoring a match (rules spec §9): 场分 (match points) and 级差分 (level-difference points), with variants.

- ``match_points``: ``two_one_zero`` (win 2, draw 1, loss 0) or ``three_point`` (004 庆元旦: a finished match
  3/0; an unfinished one 2 to the leader and 1 to the trailer, 1.5 each when equal).
- ``level_points``: ``twenty_six`` (003's table: index 2→0 … A→12, A+→13; difference d → winner 13+d, loser
  13−d, a draw 13 each) or ``level_value`` (004: face value, A and A+ 14; winner value + difference, loser its
  value; a walk-over or bye 14 and 0).
- ``deal_points``: ``one_to_three`` (004 knockout group play): each deal gives 上游's team 3 (partner 2nd),
  2 (3rd) or 1 (4th); the match goes by the totals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cards import partner, team_of
from .levels import ACE, PASSED, check_finish, level_index
from .profiles import Profile

TEAMS = ("NS", "EW")


def _other(team: str) -> str:
    return "EW" if team == "NS" else "NS"


def one_to_three(finish: Sequence[str]) -> tuple[str, int]:
    """(上游's team, points) of one deal under the 1-3 rule: partner 2nd → 3, 3rd → 2, 4th → 1."""
    order = check_finish(finish)
    mate = partner(order[0])
    points = 3 if order[1] == mate else 2 if order[2] == mate else 1
    return team_of(order[0]), points


def match_points(profile: Profile, winner: str | None, *, finished: bool) -> dict[str, float]:
    """场分 of both teams. ``winner`` None is a draw (or, unfinished, equal levels); ``finished``: a team
    passed A (only ``three_point`` tells finished and unfinished matches apart)."""
    if profile.match_points == "three_point":
        if winner is None:
            return {t: 1.5 for t in TEAMS}
        return {winner: 3.0 if finished else 2.0, _other(winner): 0.0 if finished else 1.0}
    if winner is None:
        return {t: 1.0 for t in TEAMS}
    return {winner: 2.0, _other(winner): 0.0}


def level_face_value(level: int) -> int:
    """Face value for ``level_value``: 2..10, J 11, Q 12, K 13, A and A+ 14."""
    return min(level, ACE)


def level_points(profile: Profile, levels: Mapping[str, int], winner: str | None) -> dict[str, int]:
    """级差分 of both teams from the final levels (2..14, 15 = A+). ``winner`` None: a draw."""
    if profile.level_points == "level_value":
        value = {t: level_face_value(levels[t]) for t in TEAMS}
        if winner is None:
            return value
        loser = _other(winner)
        return {winner: value[winner] + max(0, value[winner] - value[loser]), loser: value[loser]}
    if winner is None:
        return {t: 13 for t in TEAMS}
    loser = _other(winner)
    d = max(0, min(13, level_index(levels[winner]) - level_index(levels[loser])))
    return {winner: 13 + d, loser: 13 - d}


def walkover(profile: Profile, winner: str) -> dict[str, dict[str, float]]:
    """Scores of a walk-over or bye: 场分 as a win; 级差分 14/0 under ``level_value``, 26/0 otherwise."""
    mp = match_points(profile, winner, finished=True)
    top = 14 if profile.level_points == "level_value" else 26
    return {t: {"match_points": mp[t], "level_points": top if t == winner else 0} for t in TEAMS}


def score_match(
    profile: Profile,
    levels: Mapping[str, int],
    winner: str | None,
    *,
    deal_points: Mapping[str, int] | None = None,
) -> dict[str, dict[str, Any]]:
    """Both teams' 场分 and 级差分 (and deal points under ``one_to_three``) for a match that ended with
    ``levels`` and ``winner`` (None: a draw)."""
    finished = any(v >= PASSED for v in levels.values())
    mp = match_points(profile, winner, finished=finished)
    lp = level_points(profile, levels, winner)
    out: dict[str, dict[str, Any]] = {t: {"match_points": mp[t], "level_points": lp[t]} for t in TEAMS}
    if profile.deal_points == "one_to_three":
        for t in TEAMS:
            out[t]["deal_points"] = int((deal_points or {}).get(t, 0))
    return out
