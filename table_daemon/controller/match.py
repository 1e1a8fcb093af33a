"""A match at the table: starting it, settling each deal (levels, 上游's team), the deal record on ``results``,
the end of the match (pass A, N deals, time) and its result (levels, winner, 场分, 级差分).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from table_daemon.guandan.cards import SEATS
from table_daemon.guandan.levels import PASSED, format_team_level, settle
from table_daemon.guandan.profiles import PROFILES, Profile, ProfileError, profile_with

from .model import Light

if TYPE_CHECKING:
    from .table import TableController

MATCH_END_METHODS = ("pass_a", "deals", "time", "time_or_deals")


#: fields of a ``start_match`` that do not belong to the match's settings (a resent start may differ in them)
NOT_SETTINGS = ("id", "reply_to", "auth", "role")
MAX_DEALS = 1000
MAX_MINUTES = 24 * 60
MAX_BOARDS = 1000


def match_settings(payload: dict[str, Any]) -> dict[str, Any]:
    """What makes two ``start_match`` commands the same match: everything but the delivery fields."""
    return {k: v for k, v in payload.items() if k not in NOT_SETTINGS}


def start_match(c: TableController, payload: dict[str, Any]) -> str | None:
    """Begin a match (command ``start_match``); returns an error text or None.

    The same start again (the desk resends what it has no reply to, e.g. after a broker restart) is accepted
    without starting anything: the match it started goes on, or stays over. A different start is refused
    while a match is being played (the desk retries it when the table is free), so no resend or next round
    can wipe a match in progress. A match number is used once at a table for ever (deal ids
    ``{event}/{table}/m{match}/d{deal}`` must never repeat): a start with a number already played is refused,
    unless it is the same start sent again (same number, same settings: a reply got lost), answered ok."""
    start_id = payload.get("id")
    if isinstance(start_id, str) and start_id and start_id == c.start_id:
        return None
    number = payload.get("match")
    if _whole(number) and number in c.matches_started:
        if c.matches_started[number] == match_settings(payload):
            return None
        return (f"match {number} was already played at table {c.table} (比赛编号已用过): deal ids must not "
                f"repeat; use a new match number")
    if c.phase in ("dealing", "tribute", "playing", "paused"):
        return f"a deal is in progress ({c.phase}): finish or void it first (牌局进行中)"
    if c.match_active:
        return f"match {c.match_no} is in progress ({c.phase}): finish it first (比赛进行中)"
    profile = match_profile(c, payload.get("profile"))
    if isinstance(profile, str):
        return profile
    before = c.profile
    c.use_profile(profile)
    error = _begin(c, payload)
    if error is not None:
        c.profile = before  # a refused command changes nothing
    return error


def match_profile(c: TableController, value: Any) -> Profile | str:
    """The profile a ``start_match`` names (mqtt-api.md: a NAME or {settings}), or an error text. Settings
    change the table's configured profile (or the shipped one named by ``"base"``), e.g. ``{"name":
    "open-2026", "tie_tribute": "winner_chooses"}``; no profile, or the name of the one in use, keeps it."""
    if value is None or value == c.profile.name:
        return c.profile
    if isinstance(value, str):
        if value not in PROFILES:
            return f"unknown profile {value!r} (known: {', '.join(PROFILES)}, or an object of settings)"
        return PROFILES[value]
    if not isinstance(value, dict):
        return "profile must be a profile name or an object of settings"
    settings = dict(value)
    base_name = settings.pop("base", None)
    if base_name is not None and base_name not in PROFILES:
        return f"unknown base profile {base_name!r} (known: {', '.join(PROFILES)})"
    base = PROFILES[base_name] if base_name is not None else c.configured_profile
    try:
        return profile_with(base, settings, source="start_match profile")
    except ProfileError as exc:
        return str(exc)


def _begin(c: TableController, payload: dict[str, Any]) -> str | None:
    end = payload.get("match_end") or {}
    if not isinstance(end, dict):
        return "match_end must be an object"
    method = end.get("method", c.profile.match_end)
    if method not in MATCH_END_METHODS:
        return f"unknown match_end method {method!r} (one of {', '.join(MATCH_END_METHODS)})"
    deals, minutes = end.get("deals", c.profile.match_deals), end.get("minutes", c.profile.match_minutes)
    if method in ("deals", "time_or_deals") and not (_whole(deals) and 0 < deals <= MAX_DEALS):
        return f"match_end.deals must be a whole number from 1 to {MAX_DEALS}"
    if method in ("time", "time_or_deals") and not (
            isinstance(minutes, int | float) and not isinstance(minutes, bool) and 0 < minutes <= MAX_MINUTES):
        return f"match_end.minutes must be a number of minutes above 0, at most {MAX_MINUTES}"
    number = payload.get("match", max(c.matches_started, default=c.match_no) + 1)
    if not _whole(number) or not 1 <= number <= 10**9:
        return "match must be a whole number from 1 (比赛编号)"
    boards = payload.get("boards") or []
    if not isinstance(boards, list) or len(boards) > MAX_BOARDS or not all(
            _whole(b) and 1 <= b <= 10**6 for b in boards):
        return f"boards must be a list of at most {MAX_BOARDS} board numbers from 1 (牌号)"
    deal_file = payload.get("deal_file")
    if deal_file is not None:
        error = _deal_file_error(c, deal_file)
        if error is not None:
            return error
    teams = payload.get("teams") or {}
    if not isinstance(teams, dict):
        return "teams must be an object {NS: {...}, EW: {...}}"
    c.matches_started[number] = match_settings(payload)
    c.match_no = number
    c.start_id = payload.get("id") if isinstance(payload.get("id"), str) else None
    c.match_active = True
    c.match_started = c.now
    c.match_end = {"method": method, "deals": deals, "minutes": minutes}
    c.teams = teams
    c.boards = list(boards)
    c.deal_file = deal_file or c.configured_deal_file or None
    c.levels = {"NS": 2, "EW": 2}
    c.failed_a = {"NS": 0, "EW": 0}
    c.deals_done = 0
    c.last_finish = None
    c.previous_finish = None
    c.last_winner = None
    c.last_result = None
    c.match_winner = None
    c.match_result = None
    c.deal = None
    c.phase = "idle"
    c.penalties = {"NS": c.penalties["NS"].__class__(), "EW": c.penalties["EW"].__class__()}
    c.emit("match_started", match=number, teams=teams, match_end=c.match_end, profile=c.profile.name)
    c.publish_state()
    if c.auto_deal:
        from .flow import start_deal

        start_deal(c)
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _deal_file_error(c: TableController, deal_file: Any) -> str | None:
    """A ``start_match`` may name a deal file only to confirm the one this table's dealer deals from
    (``dealer.deal_file``): the table never opens a file a command names, and never deals random cards when
    the desk expects boards (duplicate play)."""
    if not isinstance(deal_file, str) or not deal_file:
        return "deal_file must be the name of the table's deal file"
    mine = c.configured_deal_file
    if not mine:
        return (f"deal_file {deal_file[:120]!r} refused: this table has no deal file (dealer.deal_file) and "
                f"would deal random cards (本桌未配置牌例文件)")
    if deal_file != mine and deal_file.replace("\\", "/").rsplit("/", 1)[-1] != mine.rsplit("/", 1)[-1]:
        return (f"deal_file {deal_file[:120]!r} refused: this table deals from {mine.rsplit('/', 1)[-1]!r} "
                f"(牌例文件不符)")
    return None


def end_deal(c: TableController) -> None:
    """Settle the finished deal: levels, the deal record on ``results``, then the match end or the next deal."""
    from .flow import start_deal
    from .views import deal_record

    d = c.deal
    assert d is not None and d.state is not None
    finish = d.state.finish_order()
    s = settle(c.profile, d.levels_before, d.played, finish, c.failed_a)
    c.failed_a_before = dict(c.failed_a)
    record = deal_record(c, s)
    c.levels, c.failed_a = dict(s.levels), dict(s.failed_a)
    c.deals_done += 1
    c.last_finish = finish
    c.last_winner = s.winner
    c.last_result = {"deal": d.number, "finish": finish, "winner": s.winner, "up": s.up,
                     "levels_after": s.levels_json()}
    c.phase = "deal_over"
    c.set_turn(None, "wait")
    for seat in SEATS:
        c.effect(Light(seat, "report", False))
    c.emit("deal_over", deal=d.number, finish=finish, winner=s.winner, up=s.up, levels=s.levels_json())
    if s.levels != d.levels_before:
        c.emit("level_change", before={t: format_team_level(v) for t, v in d.levels_before.items()},
               after=s.levels_json())
    c.emit("deal_result", topic="results", id=f"{c.event}/{c.table}/m{c.match_no}/d{d.number}", **record)
    c.publish_hands()
    if s.match_winner:
        c.match_winner = s.match_winner
    if check_match_over(c):
        return
    c.publish_state()
    if c.auto_deal:
        start_deal(c)


def check_match_over(c: TableController, *, force_winner: str | None = None, reason: str = "") -> bool:
    """End the match when its end condition holds (or a forfeit forces it); returns True when it ended."""
    end = c.match_end
    method = end.get("method", "pass_a")
    over = force_winner is not None or c.match_winner is not None
    if not over and method in ("deals", "time_or_deals") and end.get("deals"):
        over = c.deals_done >= int(end["deals"])
    if not over and method in ("time", "time_or_deals") and end.get("minutes"):
        over = c.now - c.match_started >= float(end["minutes"]) * 60.0
    if not over:
        return False
    winner = force_winner or c.match_winner
    if winner is None and c.levels["NS"] != c.levels["EW"]:
        winner = "NS" if c.levels["NS"] > c.levels["EW"] else "EW"
    if winner is None and c.profile.knockout and force_winner is None:
        return False  # 加赛一局: one more deal until there is a winner
    finish_match(c, winner, reason or ("pass_a" if c.match_winner else method))
    return True


def finish_match(c: TableController, winner: str | None, reason: str) -> None:
    from .views import match_result

    c.match_active = False
    c.phase = "match_over"
    c.deal = None
    c.set_turn(None, "wait")
    result = match_result(c, winner, reason)
    c.match_result = result
    c.emit("match_over", match=c.match_no, winner=winner, levels=result["levels"], reason=reason)
    c.emit("match_result", topic="results", **result)
    c.publish_state()


def passed_a(levels: dict[str, int]) -> bool:
    return PASSED in levels.values()
