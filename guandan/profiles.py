"""Rule profiles (rules spec §10): every setting where the seed texts disagree, as data.

A :class:`Profile` is a frozen bag of settings. Four profiles ship (``national``, ``competitive-2017``,
``jiangsu``, ``club-004``); an event may describe its own in a TOML text whose keys override a ``base``
profile. The loader is pure (it takes the text, not a path) and rejects unknown keys and bad values with an
error naming the key, so a typo in a profile file never silently changes the rules.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields, replace
from typing import Any

from .cards import LEVELS, SEATS, parse_card
from .errors import GuandanError


class ProfileError(GuandanError):
    """A profile name, key or value that is not allowed; the message names the key."""

    reason = "bad_profile"


#: Allowed values of the enumerated settings.
CHOICES: dict[str, tuple[str, ...]] = {
    "pass_a": ("partner_not_last", "double_down"),
    "tie_tribute": ("clockwise", "counter_clockwise", "winner_chooses"),
    "return_limit": ("ten_to_partner", "ten_always", "below_level_to_partner"),
    "wild_reading": ("strongest_unless_declared", "declare"),
    "report": ("player", "auto"),
    "timeout_action": ("alert", "auto"),
    "match_end": ("pass_a", "deals", "time", "time_or_deals"),
    "time_up_deal": ("play_out", "stop"),
    "match_points": ("two_one_zero", "three_point"),
    "level_points": ("twenty_six", "level_value"),
    "deal_points": ("none", "one_to_three"),
}


@dataclass(frozen=True, slots=True)
class Profile:
    """The settings of one rule profile. Times are seconds (``None``: no limit, the event sets none)."""

    name: str = "national"
    #: Levels gained by 上游's team when the partner is 2nd (双下): 3 (000) or 4 (001, 004).
    double_down_up: int = 3
    #: When a team at its own A passes it: 上游 with partner not last, or only with a 双下.
    pass_a: str = "partner_not_last"
    #: After this many failed A deals the team drops back to 2 (0: never, 三次A打不过不回头).
    a_drop_back: int = 0
    #: Every deal at this level ("2".."A"), or None (levels move).
    fixed_level: str | None = None
    #: First deal of a match: "turned_card", "first_dealt:H3" (any card code), or "seat:S".
    first_lead: str = "turned_card"
    tie_tribute: str = "clockwise"
    return_limit: str = "ten_to_partner"
    wild_reading: str = "strongest_unless_declared"
    #: 借风: the partner of a seat that went out on the last play of a trick leads.
    jiefeng: bool = True
    report: str = "player"
    report_on_ask: bool = False
    play_seconds: float | None = None
    first_lead_seconds: float | None = None
    return_seconds: float | None = None
    #: What a turn time-out does: "alert" (slow-play alert for the referee) or "auto" (001: lead the
    #: smallest single, otherwise pass). Software seats may be given "auto" by the caller regardless.
    timeout_action: str = "alert"
    match_end: str = "pass_a"
    match_deals: int | None = None
    match_minutes: float | None = None
    #: A deal in play when match time runs out: played to its end, or stopped and not counted.
    time_up_deal: str = "play_out"
    #: Knockout: equal levels at the end mean one more deal (加赛一局), not a draw.
    knockout: bool = False
    #: A round is one match or the best of three (000 二).
    best_of: int = 1
    match_points: str = "two_one_zero"
    level_points: str = "twenty_six"
    #: "one_to_three" (004 knockout): each deal scores 3/2/1 for 上游's team; the match goes by points.
    deal_points: str = "none"
    #: Keep pairs of the same unit apart in the draw (004: 不回避 = false).
    separate_units: bool = False

    @property
    def fixed_level_value(self) -> int | None:
        """The fixed level as a natural rank value (2..14), or None."""
        return None if self.fixed_level is None else LEVELS.index(self.fixed_level) + 2

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


PROFILES: dict[str, Profile] = {
    "national": Profile(name="national"),
    "competitive-2017": Profile(
        name="competitive-2017",
        double_down_up=4,
        first_lead="first_dealt:H3",
        wild_reading="declare",
        report="auto",
        play_seconds=25.0,
        first_lead_seconds=40.0,
        timeout_action="auto",
    ),
    "jiangsu": Profile(
        name="jiangsu",
        tie_tribute="counter_clockwise",
        return_limit="below_level_to_partner",
        report_on_ask=True,
        play_seconds=30.0,
        first_lead_seconds=30.0,
        return_seconds=40.0,
        match_end="time",
        match_minutes=50.0,
    ),
    "club-004": Profile(
        name="club-004",
        double_down_up=4,
        pass_a="double_down",
        report_on_ask=True,
        play_seconds=20.0,
        first_lead_seconds=20.0,
        match_end="time",
        match_minutes=40.0,
    ),
}
DEFAULT_PROFILE = "national"


def get_profile(name: str) -> Profile:
    """A shipped profile by name; :class:`ProfileError` names the known ones otherwise."""
    profile = PROFILES.get(name)
    if profile is None:
        raise ProfileError(f"unknown profile {name!r} (known: {', '.join(PROFILES)})")
    return profile


_TYPES: dict[str, str] = {f.name: str(f.type) for f in fields(Profile)}


def _check(key: str, value: Any) -> Any:
    """Validate and normalise one setting value; raise ProfileError naming ``key``."""
    kind = _TYPES[key]

    def bad(expected: str) -> ProfileError:
        return ProfileError(f"bad value for {key!r}: {value!r} (expected {expected})")

    if key in CHOICES:
        if value not in CHOICES[key]:
            raise bad("one of " + ", ".join(CHOICES[key]))
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if key == "double_down_up":
        if isinstance(value, bool) or value not in (3, 4):
            raise bad("3 or 4")
        return value
    if key == "best_of":
        if isinstance(value, bool) or value not in (1, 3):
            raise bad("1 or 3")
        return value
    if value is None and key in ("match_deals", "play_seconds", "first_lead_seconds", "return_seconds",
                                 "match_minutes"):
        return None  # JSON profile settings (a record's profile_settings) may say null for "none"
    if key in ("a_drop_back", "match_deals"):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad("a whole number >= 0")
        return value or (0 if key == "a_drop_back" else None)
    if key in ("play_seconds", "first_lead_seconds", "return_seconds", "match_minutes"):
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise bad("a number of seconds/minutes >= 0 (0: none)")
        return float(value) or None
    if key == "fixed_level":
        if value in ("", "none", None):
            return None
        if not isinstance(value, str) or value.upper().replace("10", "T") not in LEVELS:
            raise bad("a level 2..A, or \"none\"")
        return value.upper().replace("10", "T")
    if key == "first_lead":
        if value == "turned_card":
            return value
        if isinstance(value, str) and value.startswith("first_dealt:"):
            try:
                parse_card(value.partition(":")[2])
            except GuandanError:
                raise bad("turned_card, first_dealt:<card code> or seat:<S|E|N|W>") from None
            return value
        if isinstance(value, str) and value.startswith("seat:") and value[5:] in SEATS:
            return value
        raise bad("turned_card, first_dealt:<card code> or seat:<S|E|N|W>")
    if key == "name":
        if not isinstance(value, str) or not value.strip():
            raise bad("a non-empty string")
        return value
    raise ProfileError(f"unknown key {key!r}")  # pragma: no cover - every field is handled above


def profile_with(base: Profile, overrides: dict[str, Any], *, source: str = "profile") -> Profile:
    """``base`` with the given settings replaced, each validated; unknown keys are rejected by name."""
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in _TYPES:
            raise ProfileError(f"{source}: unknown key {key!r} (known: {', '.join(sorted(_TYPES))})")
        try:
            changes[key] = _check(key, value)
        except ProfileError as exc:
            raise ProfileError(f"{source}: {exc}") from None
    profile = replace(base, **changes)
    if profile.match_end in ("deals", "time_or_deals") and profile.match_deals is None:
        raise ProfileError(f"{source}: 'match_deals' must be set when match_end is {profile.match_end!r}")
    if profile.match_end in ("time", "time_or_deals") and profile.match_minutes is None:
        raise ProfileError(f"{source}: 'match_minutes' must be set when match_end is {profile.match_end!r}")
    return profile


def profile_from_toml(text: str, *, source: str = "profile file", default_name: str = "custom") -> Profile:
    """A custom profile from TOML text: optional ``base = "<shipped name>"`` then any settings.

    Example::

        base = "national"
        name = "my-event"
        double_down_up = 4
        match_end = "time"
        match_minutes = 45
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{source}: not valid TOML: {exc}") from None
    base_name = data.pop("base", DEFAULT_PROFILE)
    if not isinstance(base_name, str) or base_name not in PROFILES:
        raise ProfileError(f"{source}: bad value for 'base': {base_name!r} (expected one of {', '.join(PROFILES)})")
    for key, value in data.items():
        if isinstance(value, dict):
            raise ProfileError(f"{source}: unknown table [{key}] (settings are top-level keys)")
    data.setdefault("name", default_name)
    return profile_with(PROFILES[base_name], data, source=source)
