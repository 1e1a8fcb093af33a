"""Scoring of one match and of one duplicate board (rules spec §9, §12): pure functions, no I/O.

The deal-state engineer's ``table_daemon.guandan.scoring`` did not exist when the desk was written, so the desk
carries its own small copy of the §9 formulas here; the desk always recomputes 场分 and 级差分 from a match's
final levels and winner rather than trusting the figures a table sends.

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

LEVEL_ORDER: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "A+")
VARIANTS: tuple[str, ...] = ("standard", "three_point", "level_value", "one_to_three")
TEAMS: tuple[str, str] = ("NS", "EW")
_FACE: dict[str, int] = {"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14, "A+": 14}


class ScoringError(ValueError):
    """A match outcome that cannot be scored (unknown level or variant)."""


def level_index(level: str) -> int:
    """2 -> 0 ... A -> 12, A+ -> 13 (``10`` is accepted for ``T``)."""
    text = str(level).strip().upper()
    text = "T" if text == "10" else text
    if text not in LEVEL_ORDER:
        raise ScoringError(f"unknown level {level!r}")
    return LEVEL_ORDER.index(text)


def level_value(level: str) -> int:
    """Face value of a level for the ``level_value`` variant: 2..10, J 11, Q 12, K 13, A and A+ 14."""
    text = LEVEL_ORDER[level_index(level)]
    return _FACE.get(text) or int(text)


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
    idx = {t: level_index(levels[t]) for t in TEAMS}
    if finished is None:
        finished = 13 in idx.values()
    if variant == "one_to_three":
        pts = {t: float((deal_points or {}).get(t, 0)) for t in TEAMS}
        if winner is None and pts["NS"] != pts["EW"]:
            winner = "NS" if pts["NS"] > pts["EW"] else "EW"
        return MatchScore(_two_one_zero(winner), pts)
    match = _three_point(winner, finished) if variant == "three_point" else _two_one_zero(winner)
    if variant == "level_value":
        level = _level_value_points(levels, winner, walkover)
    else:
        level = _twenty_six(idx, winner, walkover)
    return MatchScore(match, level)


def _two_one_zero(winner: str | None) -> dict[str, float]:
    if winner is None:
        return {"NS": 1.0, "EW": 1.0}
    return {winner: 2.0, other(winner): 0.0}


def _three_point(winner: str | None, finished: bool) -> dict[str, float]:
    if winner is None:
        return {"NS": 1.5, "EW": 1.5}
    if finished:
        return {winner: 3.0, other(winner): 0.0}
    return {winner: 2.0, other(winner): 1.0}


def _twenty_six(idx: Mapping[str, int], winner: str | None, walkover: bool) -> dict[str, float]:
    if winner is None:
        return {"NS": 13.0, "EW": 13.0}
    if walkover:
        return {winner: 26.0, other(winner): 0.0}
    d = min(13, max(0, idx[winner] - idx[other(winner)]))
    return {winner: float(13 + d), other(winner): float(13 - d)}


def _level_value_points(levels: Mapping[str, str], winner: str | None, walkover: bool) -> dict[str, float]:
    value = {t: level_value(levels[t]) for t in TEAMS}
    if winner is None:
        return {t: float(value[t]) for t in TEAMS}
    if walkover:
        return {winner: 14.0, other(winner): 0.0}
    loser = other(winner)
    diff = max(0, value[winner] - value[loser])
    return {winner: float(value[winner] + diff), loser: float(value[loser])}


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
