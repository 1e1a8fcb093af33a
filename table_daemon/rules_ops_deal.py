"""The deal-level operations of ``guandan-table rules batch`` (settle, tribute, return_ok) and ``rules replay``.

Contract: cli.md. Each batch handler takes one parsed JSON line and returns the answer dict; bad input raises
a ``GuandanError`` / ``ValueError`` whose message names the field (``cli_rules`` turns it into the line's
``{"error": ...}``). ``"profile"`` is a shipped profile name or the path of a TOML profile file.

``tribute``'s ``leader``: the seat that leads the first trick. It is known before any card is chosen,
because all of a payer's candidates rank equally; with equal double tributes it follows ``tie_tribute`` (for
``winner_chooses``, 上游's 下家 on the assumption that 上游 takes that card; if 上游 takes the other one, its
giver leads instead). When the tribute is resisted, ``payments`` is empty and 上游 leads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from guandan import (
    DEFAULT_PROFILE,
    PROFILES,
    SEATS,
    TEAMS,
    Card,
    GuandanError,
    Profile,
    ProfileError,
    format_team_level,
    parse_card,
    parse_cards,
    parse_level,
    parse_seat,
    parse_team,
    parse_team_level,
    plan_tribute,
    profile_from_toml,
    replay,
    return_allowed,
    settle,
)
from table_daemon import safe_json
from table_daemon.text_files import NotUtf8Error, utf8_text

Op = Callable[[dict[str, Any]], dict[str, Any]]


def resolve_profile(name: Any) -> Profile:
    """A shipped profile by name, or a custom one from a TOML file path (``*.toml``)."""
    if name is None:
        name = DEFAULT_PROFILE
    if not isinstance(name, str):
        raise ProfileError(f"profile must be a name or a .toml path, got {name!r}")
    if name in PROFILES:
        return PROFILES[name]
    if name.endswith(".toml"):
        path = Path(name)
        try:
            text = utf8_text(path)
        except OSError as exc:
            raise ProfileError(f"cannot read profile file {name}: {exc.strerror or exc}") from None
        except NotUtf8Error as exc:
            raise ProfileError(f"profile file {name}: {exc}") from None
        return profile_from_toml(text, source=name, default_name=path.stem)
    raise ProfileError(f"unknown profile {name!r} (known: {', '.join(PROFILES)}, or a .toml file)")


def _field(line: dict[str, Any], name: str) -> Any:
    if name not in line:
        raise ValueError(f"missing field {name!r}")
    return line[name]


def _finish(line: dict[str, Any]) -> list[str]:
    finish = _field(line, "finish")
    if not isinstance(finish, list):
        raise ValueError("field 'finish' must be a list of seats")
    return [parse_seat(s) for s in finish]


def _team_map(value: Any, name: str, parse: Callable[[Any], int]) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ValueError(f"field {name!r} must be an object with NS and EW")
    out = {parse_team(k): parse(v) for k, v in value.items()}
    if set(out) != set(TEAMS):
        raise ValueError(f"field {name!r} must give both NS and EW")
    return out


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"failed_a counts must be whole numbers >= 0, got {value!r}")
    return value


def op_settle(line: dict[str, Any]) -> dict[str, Any]:
    profile = resolve_profile(line.get("profile"))
    levels = _team_map(_field(line, "levels"), "levels", parse_team_level)
    played = parse_team(_field(line, "played"))
    finish = _finish(line)
    failed = _team_map(line["failed_a"], "failed_a", _count) if line.get("failed_a") is not None else None
    s = settle(profile, levels, played, finish, failed)
    return {
        "levels": {t: format_team_level(s.levels[t]) for t in TEAMS},
        "failed_a": {t: s.failed_a[t] for t in TEAMS},
        "match_winner": s.match_winner,
    }


def _hands(line: dict[str, Any]) -> dict[str, list[Card]]:
    value = _field(line, "hands")
    if not isinstance(value, dict):
        raise ValueError("field 'hands' must be an object of seat -> card list")
    hands: dict[str, list[Card]] = {s: [] for s in SEATS}
    for seat, cards in value.items():
        if not isinstance(cards, list):
            raise ValueError(f"hand of {seat!r} must be a list of card codes")
        hands[parse_seat(seat)] = parse_cards(cards)
    parse_cards([c.code for h in hands.values() for c in h])  # no face more than twice in all
    return hands


def op_tribute(line: dict[str, Any]) -> dict[str, Any]:
    profile = resolve_profile(line.get("profile"))
    level = parse_level(_field(line, "level"))
    plan = plan_tribute(profile, level, _finish(line), _hands(line))
    return plan.to_json()


def op_return_ok(line: dict[str, Any]) -> dict[str, Any]:
    profile = resolve_profile(line.get("profile"))
    level = parse_level(_field(line, "level"))
    returner = parse_seat(_field(line, "from"))
    receiver = parse_seat(_field(line, "to"))
    card = parse_card(_field(line, "card"))
    hand_value = _field(line, "hand")
    if not isinstance(hand_value, list):
        raise ValueError("field 'hand' must be a list of card codes")
    hand = parse_cards(hand_value)
    ok, reason = return_allowed(profile.return_limit, level, returner, receiver, card, hand)
    return {"ok": ok, "reason": reason}


DEAL_OPS: dict[str, Op] = {"settle": op_settle, "tribute": op_tribute, "return_ok": op_return_ok}


def replay_file(path: str) -> dict[str, Any]:
    """Replay the deal record in ``path`` (OSError when it cannot be read; a file that is not a JSON object
    answers ``ok: false`` with reason ``bad_record``)."""
    text = Path(path).read_text(encoding="utf-8-sig")
    try:
        record = safe_json.loads(text, max_bytes=4 << 20)
    except safe_json.JsonLimitError as exc:
        error = {"index": -1, "reason": "bad_record", "message": str(exc)}
        return {"ok": False, "first_error": error, "finish": [], "levels_after": None}
    try:
        return replay(record)
    except GuandanError as exc:  # pragma: no cover - replay reports its errors itself
        error = {"index": -1, "reason": exc.reason, "message": str(exc)}
        return {"ok": False, "first_error": error, "finish": [], "levels_after": None}
