"""The match flow (layer 5, over dealing): starting a match, settling each finished deal through the engine's
match (levels, 上游's team, deal points), the deal record on ``results``, the match clock (pass A, N deals,
time) and the end of the match with its result (levels, winner, 场分, 级差分).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeGuard

from guandan import (
    PASSED,
    PROFILES,
    SEATS,
    EngineEffect,
    MatchOver,
    Profile,
    ProfileError,
    StopDeal,
    TimeUp,
    clock,
    deal_finished,
    format_team_level,
    new_match,
    profile_with,
)

from .dealing import start_deal, void_deal
from .model import Light
from .sealing import SEALED_TOPIC, SEALED_WORDS, match_sealed, sealed_copy, sealed_twin
from .state import IN_DEAL, Phase, TableState
from .views import deal_record, match_result, publish_hands, publish_state

MATCH_END_METHODS = ("pass_a", "deals", "time", "time_or_deals")


#: fields of a ``start_match`` that do not belong to the match's settings (a resent start may differ in them)
NOT_SETTINGS = ("id", "reply_to", "auth", "role")
MAX_DEALS = 1000
#: the fields of a ``start_match`` (mqtt-api.md) and of its ``match_end``: a misspelt one (``matchEnd``, ``team``)
#: would otherwise start a match of the profile's defaults without a word
START_FIELDS = ("teams", "profile", "match_end", "match", "deal_file", "boards", *NOT_SETTINGS)
MATCH_END_FIELDS = ("method", "deals", "minutes")
MAX_MINUTES = 24 * 60
MAX_BOARDS = 1000


def match_settings(payload: dict[str, Any]) -> dict[str, Any]:
    """What makes two ``start_match`` commands the same match: everything but the delivery fields."""
    return {k: v for k, v in payload.items() if k not in NOT_SETTINGS}


def start_match(c: TableState, payload: dict[str, Any]) -> str | None:
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
        return (f"第{number}场已在本桌打过，比赛编号不能重复 | match {number} was already played at table {c.table}: "
                f"deal ids must not repeat; use a new match number")
    if c.phase in ("dealing", "tribute", "playing", "paused"):
        return f"本桌有一副牌正在进行，须先打完或作废 | a deal is in progress ({c.phase}): finish or void it first"
    if c.match_active:
        return f"本桌第{c.match_no}场比赛进行中，须先打完 | match {c.match_no} is in progress ({c.phase}): finish it first"
    unknown = _unknown_fields(payload, START_FIELDS, "start_match") \
        or _unknown_fields(payload.get("match_end"), MATCH_END_FIELDS, "start_match.match_end")
    if unknown and not c.replaying:  # a start a former version accepted is replayed as accepted
        return unknown
    profile = match_profile(c, payload.get("profile"))
    if isinstance(profile, str):
        return profile
    before = c.profile
    c.use_profile(profile)
    error = _begin(c, payload)
    if error is not None:
        c.profile = before  # a refused command changes nothing
    return error


def _unknown_fields(payload: Any, known: tuple[str, ...], where: str) -> str | None:
    """Why a command object has fields it does not know (named, with the known ones), or None."""
    if not isinstance(payload, dict):
        return None
    unknown = [str(k)[:40] for k in payload if k not in known]
    if not unknown:
        return None
    return (f"开赛指令含未知字段 {', '.join(unknown[:5])} | {where}: unknown field(s) {', '.join(unknown[:5])} "
            f"(known: {', '.join(k for k in known if k not in ('auth', 'role', 'reply_to'))})")


def match_profile(c: TableState, value: Any) -> Profile | str:
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


def _begin(c: TableState, payload: dict[str, Any]) -> str | None:
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
    if len(set(boards)) != len(boards):
        return "boards: a match plays each board once (牌号重复)"
    if boards and (method not in ("deals", "time_or_deals") or deals != len(boards)):
        # past its last board a match would deal that board again, and the desk score it again
        return (f"boards: a match of {len(boards)} boards ends after {len(boards)} deals: match_end must be "
                f'{{"method": "deals", "deals": {len(boards)}}} (or time_or_deals) (复式牌每副打一次)')
    if boards and not c.configured_deal_file:  # random cards labelled as boards would be scored as duplicates
        return ("boards refused: this table has no deal file (dealer.deal_file) and would deal random cards under "
                "board numbers (本桌未配置牌例文件，不能打复式牌)")
    lacking = [b for b in boards if c.deal_file_boards and b not in c.deal_file_boards]
    if lacking and not c.replaying:  # accepted then (the file since replaced?): the match goes on as it began
        held = c.deal_file_boards
        return (f"牌例文件中没有第 {', '.join(map(str, lacking[:8]))} 副 | boards {lacking[:8]} are not in this table's "
                f"deal file {c.configured_deal_file.rsplit('/', 1)[-1]!r} ({len(held)} boards, {min(held)} to "
                f"{max(held)}): is it the event's file?")
    deal_file = payload.get("deal_file")
    if deal_file is not None:
        error = _deal_file_error(c, deal_file)
        if error is not None:
            return error
    teams = payload.get("teams") or {}
    error = _teams_error(teams)
    if error is not None:
        return error
    c.matches_started[number] = match_settings(payload)
    c.match_no = number
    c.start_id = payload.get("id") if isinstance(payload.get("id"), str) else None
    c.match_active = True
    c.match_end = {"method": method, "deals": deals, "minutes": minutes}
    # the engine's match plays by the profile with this start's end method (the desk's match_end)
    c.match = new_match(replace(c.profile, match_end=method, match_deals=deals if _whole(deals) else None,
                                match_minutes=float(minutes) if minutes is not None else None), c.now)
    c.teams = teams
    c.boards = list(boards)
    c.deal_file = deal_file or c.configured_deal_file or None
    c.previous_finish = None
    c.last_result = None
    c.match_result = None
    c.deal = None
    c.phase = Phase.IDLE
    c.penalties = {"NS": c.penalties["NS"].__class__(), "EW": c.penalties["EW"].__class__()}
    c.emit("match_started", match=number, teams=teams, match_end=c.match_end, profile=c.profile.name)
    publish_state(c)
    if c.auto_deal:
        start_deal(c)
    return None


#: the seats of each team, as ``start_match``'s ``teams.{team}.players`` names them
TEAM_SEATS = {"NS": ("N", "S"), "EW": ("E", "W")}
#: the longest team or player name a table shows (a screen line; the desk's names are far shorter)
MAX_NAME = 120


def _teams_error(teams: Any) -> str | None:
    """Why ``start_match``'s ``teams`` is malformed, or None. Teams may be left out (a match without names), but
    teams that are given are both given, each with a name and its own seats' players as text: the state, the
    screens and every deal record show them, and a table must not start a match it would show wrongly. Other
    keys of a team (the desk's ``unit`` and ``id``) are kept."""
    shape = 'teams must be {"NS": {"name": ..., "players": {"N": ..., "S": ...}}, "EW": {...}}'
    if not isinstance(teams, dict):
        return shape
    if not teams:
        return None
    if set(teams) != set(TEAM_SEATS):
        return f"{shape}: got the teams {sorted(map(str, teams))[:4]}"
    for team, seats in TEAM_SEATS.items():
        side = teams[team]
        if not isinstance(side, dict):
            return f"teams.{team} must be an object with name and players"
        name = side.get("name")
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            return f"teams.{team}.name must be the team's name, 1 to {MAX_NAME} characters (队名)"
        players = side.get("players", {})
        if not isinstance(players, dict) or not set(players) <= set(seats):
            return f"teams.{team}.players must name the seats {' and '.join(seats)} only, e.g. {{\"{seats[0]}\": ...}}"
        for seat, player in players.items():
            if not isinstance(player, str) or len(player) > MAX_NAME:
                return f"teams.{team}.players.{seat} must be the player's name, at most {MAX_NAME} characters"
    return None


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _deal_file_error(c: TableState, deal_file: Any) -> str | None:
    """A ``start_match`` may name a deal file only to confirm the one this table's dealer deals from
    (``dealer.deal_file``): the table never opens a file a command names, and never deals random cards when
    the desk expects boards (duplicate play)."""
    if not isinstance(deal_file, str) or not deal_file:
        return "deal_file must be the name of the table's deal file"
    mine = c.configured_deal_file
    if not mine:
        return (f"本桌未配置复式牌例文件，会发随机牌 | deal_file {deal_file[:120]!r} refused: this table has no deal "
                f"file (dealer.deal_file) and would deal random cards")
    if deal_file != mine and deal_file.replace("\\", "/").rsplit("/", 1)[-1] != mine.rsplit("/", 1)[-1]:
        return (f"牌例文件不符：本桌用 {mine.rsplit('/', 1)[-1]!r} | deal_file {deal_file[:120]!r} refused: this "
                f"table deals from {mine.rsplit('/', 1)[-1]!r}")
    return None


def end_deal(c: TableState) -> None:
    """Settle the finished deal through the engine's match (levels, failed A deals, deal points), publish the
    deal record on ``results``, then end the match or go on to the next deal as the engine says."""
    d = c.deal
    assert d is not None and d.state is not None
    finish = d.state.finish_order()
    c.failed_a_before = dict(c.match.failed_a)
    c.match, outcome = deal_finished(c.match, finish, c.now)
    s = c.match.settlements[-1]
    record = deal_record(c, s)
    over = next((ef for ef in outcome if isinstance(ef, MatchOver)), None)
    if over is not None and isinstance(record.get("result"), dict):  # deal-record.md: present when this deal
        record["result"]["match_winner"] = over.winner                # ended the match, by any limit
    c.last_result = {"deal": d.number, "finish": finish, "winner": s.winner, "up": s.up,
                     "levels_after": s.levels_json()}
    if d.board is not None:
        c.last_result["board"] = d.board
    c.phase = Phase.DEAL_OVER
    c.set_turn(None, "wait")
    for seat in SEATS:
        c.effect(Light(seat, "report", False))
    record = {"id": f"{c.event}/{c.table}/m{c.match_no}/d{d.number}", **record}
    if match_sealed(c):  # a duplicate board: the outcome is the desk's until it releases the board (rules §12)
        c.emit("deal_over", deal=d.number, board=d.board, sealed=True, note=SEALED_WORDS)
        c.emit("deal_result", topic="results", **sealed_twin(record))
        c.emit("deal_result", topic=SEALED_TOPIC, **sealed_copy(record))
    else:
        c.emit("deal_over", deal=d.number, finish=finish, winner=s.winner, up=s.up, levels=s.levels_json())
        if s.levels != d.levels_before:
            c.emit("level_change", before={t: format_team_level(v) for t, v in d.levels_before.items()},
                   after=s.levels_json())
        c.emit("deal_result", topic="results", **record)
    publish_hands(c)
    if match_outcome(c, outcome):
        return
    publish_state(c)
    if c.auto_deal:
        start_deal(c)


def on_clock(c: TableState) -> None:
    """Let the engine's match see the time (``match_end`` by time): between deals the match is decided now;
    a deal in play is played out, or stopped and not counted (``time_up_deal = "stop"``)."""
    if not c.match_active or c.match.over:
        return
    phase = c.paused_from if c.phase == "paused" else c.phase
    in_play = c.deal is not None and phase in IN_DEAL
    c.match, outcome = clock(c.match, c.now, deal_in_play=in_play)
    if any(isinstance(ef, TimeUp) for ef in outcome):
        c.emit("time_up", match=c.match_no, deal=c.deal.number if in_play and c.deal else None,
               deal_in_play=in_play, time_up_deal=c.match.profile.time_up_deal)
    if any(isinstance(ef, StopDeal) for ef in outcome) and c.deal is not None:
        void_deal(c, "match time is up: the deal is stopped and not counted (比赛时间到，本副牌停止不计)")
    match_outcome(c, outcome)


def match_outcome(c: TableState, outcome: list[EngineEffect]) -> bool:
    """Carry out the engine's match effects; returns True when the match ended."""
    for ef in outcome:
        if isinstance(ef, MatchOver):
            finish_match(c, ef.winner, ef.reason or "")
            return True
    return False


def forfeit(c: TableState, winner: str, reason: str) -> None:
    """The referee's 判负: the match ends now with ``winner``, whatever the engine's match says."""
    c.match = replace(c.match, over=True, winner=winner, draw=False, end_reason=reason)
    finish_match(c, winner, reason)


def finish_match(c: TableState, winner: str | None, reason: str) -> None:
    sealed = match_sealed(c)
    c.match_active = False
    c.phase = Phase.MATCH_OVER
    c.deal = None
    c.set_turn(None, "wait")
    result = match_result(c, winner, reason)
    c.match_result = result
    if sealed:  # a match of duplicate boards: its result would tell the boards' (rules §12)
        c.emit("match_over", match=c.match_no, sealed=True, note=SEALED_WORDS)
        c.emit("match_result", topic="results", **sealed_twin(result))
        c.emit("match_result", topic=SEALED_TOPIC, **sealed_copy(result))
    else:
        c.emit("match_over", match=c.match_no, winner=winner, levels=result["levels"], reason=reason)
        c.emit("match_result", topic="results", **result)
    publish_state(c)


def passed_a(levels: dict[str, int]) -> bool:
    return PASSED in levels.values()
