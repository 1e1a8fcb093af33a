"""Scoring of one match and of one duplicate board (rules spec §9, §12) for the desk: pure functions, no I/O.

The §9 formulas live in the rules engine (``guandan.scoring``); this module maps the desk's
scoring variant names onto them and adds what only a desk needs (byes, walk-overs, duplicate boards). The
desk always recomputes 场分 and 级差分 from a match's final levels and winner rather than trusting the figures
a table sends.

Variants (an event's ``scoring`` setting):
- ``standard``: 场分 2/1/0 and 级差分 on the 26-point table (every profile of §10).
- ``three_point``: 场分 3/0 for a finished match; an unfinished one 2/1 to leader/trailer, 1.5 each when equal.
- ``level_value``: 级差分 by face value (A and A+ count 14): winner value + difference, loser value.
- ``one_to_three``: group play; each deal gives the 上游 team 3/2/1 (partner 2nd/3rd/4th); the match's totals
  take the place of 级差分 and decide the 场分.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from guandan import PASSED, PROFILES, LevelError, Profile, parse_team_level, profile_with, scoring

LEVEL_ORDER: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "A+")
VARIANTS: tuple[str, ...] = ("standard", "three_point", "level_value", "one_to_three")
TEAMS: tuple[str, str] = ("NS", "EW")

#: The engine's scoring settings for each desk variant.
_SETTINGS: dict[str, dict[str, str]] = {
    "standard": {},
    "three_point": {"match_points": "three_point"},
    "level_value": {"level_points": "level_value"},
    "one_to_three": {"deal_points": "one_to_three"},
}
_PROFILES: dict[str, Profile] = {
    name: profile_with(PROFILES["national"], dict(settings), source=f"scoring variant {name}")
    for name, settings in _SETTINGS.items()
}


class ScoringError(ValueError):
    """A match outcome that cannot be scored (unknown level or variant)."""


def _level(level: str) -> int:
    try:
        return parse_team_level(level)
    except LevelError:
        raise ScoringError(f"unknown level {level!r}") from None


def level_index(level: str) -> int:
    """2 -> 0 ... A -> 12, A+ -> 13 (``10`` is accepted for ``T``)."""
    return _level(level) - 2


def level_value(level: str) -> int:
    """Face value of a level for the ``level_value`` variant: 2..10, J 11, Q 12, K 13, A and A+ 14."""
    return scoring.level_face_value(_level(level))


@dataclass(frozen=True)
class MatchScore:
    """What one match gives each team: 场分 (``match``) and 级差分 (``level``), keyed by "NS" / "EW"."""

    match: dict[str, float]
    level: dict[str, float]


def other(team: str) -> str:
    return "EW" if team == "NS" else "NS"


def score_match(
    levels: Mapping[str, str],
    winner: str | None,
    *,
    variant: str = "standard",
    finished: bool | None = None,
    walkover: bool = False,
    deal_points: Mapping[str, float] | None = None,
) -> MatchScore:
    """Score one finished match.

    ``levels`` are the final levels {"NS": .., "EW": ..}; ``winner`` "NS", "EW" or None for a draw;
    ``finished`` whether a team passed A (defaults to "A+" among the levels); ``walkover`` for a match won
    without play; ``deal_points`` the per-team deal totals for ``one_to_three``.
    """
    if variant not in VARIANTS:
        raise ScoringError(f"unknown scoring variant {variant!r}")
    if winner not in (None, "NS", "EW"):
        raise ScoringError(f"winner must be NS, EW or null, not {winner!r}")
    profile = _PROFILES[variant]
    values = {t: _level(levels[t]) for t in TEAMS}
    if finished is None:
        finished = PASSED in values.values()
    if variant == "one_to_three":
        pts = {t: float((deal_points or {}).get(t, 0)) for t in TEAMS}
        if winner is None and pts["NS"] != pts["EW"]:
            winner = "NS" if pts["NS"] > pts["EW"] else "EW"
        return MatchScore(_floats(scoring.match_points(profile, winner, finished=True)), pts)
    if walkover and winner is not None:
        scores = scoring.walkover(profile, winner)
        match = scoring.match_points(profile, winner, finished=finished)
        return MatchScore(_floats(match), {t: float(scores[t]["level_points"]) for t in TEAMS})
    match = scoring.match_points(profile, winner, finished=finished)
    return MatchScore(_floats(match), _floats(scoring.level_points(profile, values, winner)))


def _floats(points: Mapping[str, float]) -> dict[str, float]:
    return {t: float(points[t]) for t in TEAMS}


def bye_score(variant: str = "standard") -> tuple[float, float]:
    """(场分, 级差分) of a bye: a win; 级差分 14 under ``level_value`` (§9), else the neutral 13 (our choice)."""
    if variant == "three_point":
        return 3.0, 13.0
    if variant == "level_value":
        return 2.0, 14.0
    if variant == "one_to_three":
        return 2.0, 0.0
    return 2.0, 13.0


def one_to_three_points(finish: Iterable[str]) -> dict[str, float]:
    """A deal's ``one_to_three`` points from its finishing order: 上游's team 3, 2 or 1 by its partner's place."""
    order = list(finish)
    if not order:
        return {"NS": 0.0, "EW": 0.0}
    first = order[0]
    team = "NS" if first in ("N", "S") else "EW"
    partner = {"N": "S", "S": "N", "E": "W", "W": "E"}[first]
    place = order.index(partner) + 1 if partner in order else 4
    return {team: float({2: 3, 3: 2}.get(place, 1)), other(team): 0.0}


def board_result_ns(winner: str | None, up: int) -> int:
    """A duplicate board's result for the NS cards (§12): +up when NS take 上游, −up when EW do."""
    if winner is None:
        return 0
    return up if winner == "NS" else -up
