"""Levels (级数) and levelling up after a deal (rules spec §2, §8): pure functions over team levels.

Team levels are kept in notation (``"2"``..``"A"``, ``"A+"``) at the edges and as integers inside:
2..14 for 2..A and 15 for A+ (过A). ``settle`` is the one place that turns a finishing order into the
levels, failed-A counts and match winner after a deal; ``next_deal`` says which level the next deal is
played at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cards import LEVELS, PASSED_A, SEATS, TEAMS, partner, team_of
from .errors import GuandanError
from .profiles import Profile

ACE = 14
PASSED = 15  # A+ (过A)


class LevelError(GuandanError):
    """Bad input to the level rules (unknown level or team, impossible finishing order)."""

    reason = "bad_levels"


def parse_team_level(text: object) -> int:
    """``"2"``..``"A"`` (also ``"10"``) → 2..14, ``"A+"`` → 15."""
    t = str(text).strip().upper()
    if t == "10":
        t = "T"
    if t == PASSED_A:
        return PASSED
    if t not in LEVELS:
        raise LevelError(f"unknown level {text!r} (expected 2..9, T, J, Q, K, A or A+)")
    return LEVELS.index(t) + 2


def format_team_level(value: int) -> str:
    return PASSED_A if value >= PASSED else LEVELS[value - 2]


def level_index(value: int) -> int:
    """Index on the 26-point table: 2 → 0 … A → 12, A+ → 13."""
    return value - 2


def parse_team(text: object) -> str:
    t = str(text).strip().upper()
    if t == "SN":
        t = "NS"
    if t == "WE":
        t = "EW"
    if t not in TEAMS:
        raise LevelError(f"unknown team {text!r} (expected NS or EW)")
    return t


def other_team(team: str) -> str:
    return "EW" if team == "NS" else "NS"


def check_finish(finish: Sequence[str]) -> tuple[str, ...]:
    """Validate a finishing order: distinct seats, 2 seats only for a 双下, otherwise 3 or 4.

    Returns the order completed to 4 seats where the last one is implied (3 given), unchanged after a 双下.
    """
    order = tuple(str(s).strip().upper() for s in finish)
    for s in order:
        if s not in SEATS:
            raise LevelError(f"unknown seat {s!r} in finish (expected S, E, N or W)")
    if len(set(order)) != len(order):
        raise LevelError(f"a seat appears twice in finish {list(order)}")
    if len(order) < 2 or len(order) > 4:
        raise LevelError(f"finish must list 2 to 4 seats, got {len(order)}")
    if partner(order[0]) == order[1]:
        return order
    if len(order) == 2:
        raise LevelError(f"finish {list(order)} has 2 seats but is not a 双下 (give at least 3)")
    if len(order) == 3:
        order = order + tuple(s for s in SEATS if s not in order)
    return order


def up_for(profile: Profile, finish: Sequence[str]) -> int:
    """Levels 上游's team goes up: partner 2nd → double_down_up, 3rd → 2, last → 1."""
    order = check_finish(finish)
    mate = partner(order[0])
    if order[1] == mate:
        return profile.double_down_up
    return 2 if order[2] == mate else 1


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a deal changed: levels and failed-A counts after it, 上游's team and its gain, match winner."""

    levels: dict[str, int]
    failed_a: dict[str, int]
    winner: str
    up: int
    match_winner: str | None
    passed_a: bool
    dropped_back: str | None

    def levels_json(self) -> dict[str, str]:
        return {t: format_team_level(v) for t, v in self.levels.items()}


def settle(
    profile: Profile,
    levels: Mapping[str, int],
    played: str,
    finish: Sequence[str],
    failed_a: Mapping[str, int] | None = None,
) -> Settlement:
    """Levels after a deal played at team ``played``'s level that finished in ``finish`` order (§8).

    - Only 上游's team goes up; a team below A stops at A (A must be played).
    - A team at A passes A only in a deal played at its own A, taking 上游 and meeting ``pass_a``.
    - A deal played at a team's own A that it does not pass counts as a failed A deal for it; with
      ``a_drop_back`` = N, the Nth failed A deal sends it back to 2.
    - With ``fixed_level`` levels do not move (the match is decided by deal points or board results).
    """
    lv = {t: int(levels[t]) for t in TEAMS}
    fa = {t: int((failed_a or {}).get(t, 0)) for t in TEAMS}
    for t, v in lv.items():
        if not 2 <= v <= ACE:
            raise LevelError(f"team {t} is at level {format_team_level(v)}: the match is already over")
    if played not in TEAMS:
        raise LevelError(f"unknown team {played!r} for 'played' (expected NS or EW)")
    order = check_finish(finish)
    winner = team_of(order[0])
    up = up_for(profile, order)
    if profile.fixed_level is not None:
        return Settlement(lv, fa, winner, up, None, False, None)
    match_winner: str | None = None
    passed = False
    if lv[winner] < ACE:
        lv[winner] = min(ACE, lv[winner] + up)
    elif played == winner:
        if profile.pass_a == "double_down":
            can_pass = up == profile.double_down_up
        else:
            can_pass = up >= 2  # partner not last
        if can_pass:
            lv[winner] = PASSED
            passed = True
            match_winner = winner
    dropped: str | None = None
    if levels[played] == ACE and not (passed and played == winner):
        fa[played] += 1
        if profile.a_drop_back and fa[played] >= profile.a_drop_back:
            lv[played] = 2
            fa[played] = 0
            dropped = played
    if passed:
        fa[winner] = 0
    return Settlement(lv, fa, winner, up, match_winner, passed, dropped)


def next_deal(profile: Profile, levels: Mapping[str, int], winner: str | None) -> tuple[str, int]:
    """(team whose level is played, level value) of the next deal: 上游's team of the previous deal; the first
    deal (``winner`` None) is played at 2 (NS's level, both being 2); ``fixed_level`` overrides."""
    team = winner or "NS"
    if profile.fixed_level_value is not None:
        return team, profile.fixed_level_value
    value = levels[team]
    if value >= PASSED:
        raise LevelError(f"team {team} has passed A: the match is over")
    return team, value
