"""Replaying a deal record action by action (deal-record.md, cli.md ``rules replay``): pure, no I/O.

``replay(record)`` rebuilds the deal from the hands as dealt, checks the pack (108 cards, each code twice,
27 a seat), the tribute and return cards against the profile, the leader, then every action through the same
state machine the table runs (turn order, cards held, combinations, beating, 借风, going out), and finally the
``result`` if present (every field the spec defines: :func:`_check_result`). The answer is ``{"ok",
"first_error": {"index", "reason", "message"[, "field"]} | None, "finish", "levels_after"}``. ``index`` is
the position in ``actions`` of the first refused action; errors found before the actions (header, hands,
tribute, returns, leader) have index -1 and name the ``field``; errors found after them (deal not finished,
wrong result) have index ``len(actions)``.
A missing required field (:data:`REQUIRED_FIELDS`) is reason ``missing_field`` naming it.
Referee entries in ``actions`` (``{"referee": KIND, ...}``, :data:`record.REFEREE_KINDS`) are replayed:
``take_back`` / ``undo_last`` restore the state before the previous step of play (``take_back`` only after a
play; an ``undone`` list, when given, must match that step, and a ``seat`` its seat); before any play they may
undo a tribute or return card (``undone`` names it), which changes nothing since ``tribute`` and ``returns``
hold the final cards. ``skip`` (also read as ``skip_turn``) takes the turn from the seat on turn, as the table
does (:func:`deal.skip_turn`), and can itself be undone; ``skip_trick`` (with its ``seat``) and ``penalty``
(a known ``kind`` and a team or seat) change nothing in the play; ``redo_tribute`` is accepted before play
only. Anything else is refused with reason ``bad_referee`` (``nothing_to_undo`` for an undo with nothing
before it, ``not_your_turn`` for a skip naming the wrong seat), at the entry's index.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .actions import action_from_json, give, return_card
from .cards import SEATS, parse_card, parse_cards, partner, team_of
from .deal import PLAYING, DealState, apply, skip_turn, start_deal
from .errors import GuandanError
from .levels import Settlement, format_team_level, parse_team, parse_team_level, settle
from .profiles import PROFILES, Profile, profile_with
from .record import FORMAT, PENALTY_KINDS, REFEREE_KINDS, REQUIRED

#: the fields a record must have for replay to make every check deal-record.md lists: the deal itself
#: (:data:`record.REQUIRED`), plus ``levels_before`` and ``played`` (without them the levels after the deal,
#: which the answer gives, cannot be computed, nor ``result`` checked) and ``tribute`` and ``returns`` (``[]``
#: when none was due; without them the tribute cannot be checked). ``first_lead``, ``events`` and the
#: event/table/match/deal numbers are not needed to check the deal, so they may be missing; ``result`` is
#: checked "if present".
REQUIRED_FIELDS = (*REQUIRED, "levels_before", "played", "tribute", "returns")
#: the fields of a present ``result`` that must be there (``match_winner`` is present when this deal ended
#: the match, so its absence says that it did not)
RESULT_FIELDS = ("finish", "winner", "up", "levels_after")


class ReplayError(Exception):
    """Internal: the first error found, with where it was found."""

    def __init__(self, index: int, reason: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.index, self.reason, self.message, self.field = index, reason, message, field

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"index": self.index, "reason": self.reason, "message": self.message}
        if self.field is not None:
            out["field"] = self.field
        return out


def _profile_of(record: Mapping[str, Any], profiles: Mapping[str, Profile]) -> Profile:
    name = record["profile"]
    settings = record.get("profile_settings")
    if settings is not None and not isinstance(settings, dict):
        raise ReplayError(-1, "bad_profile", "profile_settings must be an object of settings", "profile_settings")
    if isinstance(settings, dict):
        try:
            return profile_with(profiles.get(name, PROFILES["national"]), settings, source="profile_settings")
        except GuandanError as exc:
            raise ReplayError(-1, "bad_profile", str(exc), "profile_settings") from None
    if not isinstance(name, str) or name not in profiles:
        raise ReplayError(-1, "bad_profile", f"unknown profile {name!r}", "profile")
    return profiles[name]


def _header(record: Mapping[str, Any], profiles: Mapping[str, Profile]) -> tuple[Profile, int, dict[str, Any]]:
    if not isinstance(record, Mapping):
        raise ReplayError(-1, "bad_record", "a deal record must be a JSON object")
    for key in REQUIRED_FIELDS:
        if key not in record:
            raise ReplayError(-1, "missing_field", f"required field {key!r} is missing", key)
    if record["format"] != FORMAT:
        raise ReplayError(-1, "bad_record", f"format must be {FORMAT!r}, got {record['format']!r}", "format")
    profile = _profile_of(record, profiles)
    _check_optional_fields(record)
    try:
        level = parse_team_level(record["level"])
        if level > 14:
            raise GuandanError("a deal cannot be played at A+")
    except GuandanError as exc:
        raise ReplayError(-1, "bad_record", str(exc), "level") from None
    hands = record["hands"]
    if not isinstance(hands, Mapping) or any(s not in hands for s in SEATS):
        raise ReplayError(-1, "bad_deal", "hands must give the cards of S, E, N and W", "hands")
    parsed: dict[str, Any] = {}
    physical: set[str] = set()
    for s in SEATS:
        try:
            if not isinstance(hands[s], list):
                raise GuandanError(f"hand of {s} must be a list of card codes")
            parsed[s] = parse_cards(hands[s], max_copies=None)
        except GuandanError as exc:
            raise ReplayError(-1, "bad_deal", str(exc), f"hands.{s}") from None
        for code in hands[s]:
            if "#" in code:
                if code.upper() in physical:
                    raise ReplayError(-1, "bad_deal", f"physical card {code} dealt twice", f"hands.{s}")
                physical.add(code.upper())
    return profile, level, parsed


def _deal_line_level(line: Any) -> int | None:
    """The level a record's ``deal_line`` (its ``guandan-deals/1`` line, as published) gives, if it gives one."""
    if not isinstance(line, str):
        return None
    try:
        parsed = json.loads(line)
        return parse_team_level(str(parsed["level"])) if isinstance(parsed, dict) and "level" in parsed else None
    except (ValueError, GuandanError, TypeError):
        return None


def _check_played_team(record: Mapping[str, Any], team: str) -> None:
    """A deal is played at the level of the team that won the previous deal (rules §2): ``played`` must be the
    team of the record's ``previous_finish``'s 上游, when it has one."""
    prev = record.get("previous_finish")
    if not isinstance(prev, list) or not prev or prev[0] not in SEATS:
        return
    won = team_of(prev[0])
    if team != won:
        raise ReplayError(-1, "wrong_level", f"deal played at {team}'s level, but {won} won the previous deal "
                          f"({prev[0]} went out first)", "played")


def _check_optional_fields(record: Mapping[str, Any]) -> None:
    """Fields a record may leave out, but that are wrong when given: a deal or match number that is not one, a
    ``first_lead`` that names no seat (before, ``"first_lead": "Q"`` replayed as ok)."""
    for key in ("match", "deal"):
        value = record.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ReplayError(-1, "bad_record", f"{key} must be a whole number from 1, got {value!r}"[:200], key)
    first = record.get("first_lead")
    if first is not None and (not isinstance(first, Mapping) or first.get("seat") not in SEATS):
        raise ReplayError(-1, "bad_record", f"first_lead must be null or an object naming the seat that leads, got "
                          f"{first!r}"[:200], "first_lead")


def _check_first_lead(record: Mapping[str, Any], leader: str, hands: Mapping[str, Any]) -> None:
    """A first deal's leader is the one its ``first_lead`` names, and a turned or first-dealt card it names is
    in that seat's hand (rules §6: whoever gets it leads)."""
    first = record.get("first_lead")
    if not isinstance(first, Mapping) or first.get("seat") not in SEATS:
        return
    if first["seat"] != leader:
        raise ReplayError(-1, "wrong_leader", f"first_lead names {first['seat']}, but {leader} leads", "leader")
    if first.get("rule") in ("turned_card", "first_dealt") and isinstance(first.get("card"), str):
        try:
            card = parse_card(first["card"])
        except GuandanError:
            raise ReplayError(-1, "bad_record", f"first_lead.card: {first['card']!r} is no card"[:200],
                              "first_lead") from None
        if card not in hands[leader]:
            raise ReplayError(-1, "wrong_leader", f"{leader} leads on {card.code} ({first['rule']}), but does not "
                              f"hold it", "first_lead")


def _context(record: Mapping[str, Any], level: int, profile: Profile) -> tuple[dict[str, int], str]:
    """The levels of both teams before the deal and the team whose level was played (both required)."""
    before, played = record["levels_before"], record["played"]
    try:
        if not isinstance(before, Mapping):
            raise GuandanError(f"levels_before must be an object with NS and EW, got {before!r}")
        levels = {parse_team(t): parse_team_level(v) for t, v in before.items()}
        if set(levels) != {"NS", "EW"}:
            raise GuandanError("levels_before must give NS and EW")
    except (GuandanError, TypeError, ValueError) as exc:
        raise ReplayError(-1, "bad_record", str(exc), "levels_before") from None
    try:
        team = parse_team(played)
    except GuandanError as exc:
        raise ReplayError(-1, "bad_record", f"played: {exc}", "played") from None
    board = record.get("board")
    if board is not None and not (isinstance(board, int) and not isinstance(board, bool) and board >= 1):
        raise ReplayError(-1, "bad_record", f"board must be a board number, got {board!r}"[:200], "board")
    if board is not None:  # a board is played at its own level (rules §12): its deal line's, if the record has it
        line_level = _deal_line_level(record.get("deal_line"))
        if line_level is not None and line_level != level:
            raise ReplayError(-1, "wrong_level", f"board {board} is played at {format_team_level(line_level)}, "
                              f"not {format_team_level(level)}", "level")
    elif profile.fixed_level is None:
        _check_played_team(record, team)
    if board is None and profile.fixed_level is None and levels[team] != level:
        raise ReplayError(
            -1, "wrong_level", f"deal played at {format_team_level(level)} but {team} is at "
            f"{format_team_level(levels[team])}", "level",
        )
    return levels, team


def _entries(record: Mapping[str, Any], key: str) -> list[tuple[str, str, Any]]:
    """The (from, to, card) entries of ``tribute`` or ``returns``: a list, empty when none was due."""
    items = record[key]
    if not isinstance(items, list):
        raise ReplayError(-1, "bad_record", f"{key} must be a list", key)
    out = []
    for i, e in enumerate(items):
        if not isinstance(e, Mapping) or e.get("from") not in SEATS or e.get("to") not in SEATS or "card" not in e:
            raise ReplayError(-1, "bad_record", f"{key}[{i}] needs from, to (seats) and card", f"{key}[{i}]")
        try:
            out.append((e["from"], e["to"], parse_card(e["card"])))
        except GuandanError as exc:
            raise ReplayError(-1, "bad_record", str(exc), f"{key}[{i}]") from None
    return out


def _finishes_to_try(record: Mapping[str, Any], tribute: list[tuple[str, str, Any]]) -> list[list[str] | None]:
    prev = record.get("previous_finish")
    if isinstance(prev, list):
        return [prev]
    if len(tribute) == 1:
        giver, receiver, _ = tribute[0]
        middle = [s for s in SEATS if s not in (giver, receiver)]
        return [[receiver, *middle, giver]]
    if len(tribute) == 2:
        (_, r1, _), (_, r2, _) = tribute
        if partner(r1) == r2:
            return [[r1, r2], [r2, r1]]
        return [[r1, partner(r1)]]
    return [None]


def _start(record: Mapping[str, Any], profile: Profile, level: int, hands: dict[str, Any]) -> DealState:
    tribute = _entries(record, "tribute")
    returns = _entries(record, "returns")
    leader = record["leader"]
    if leader not in SEATS:
        raise ReplayError(-1, "bad_record", f"leader must be a seat, got {leader!r}", "leader")
    if not tribute and record.get("previous_finish") is None:
        _check_first_lead(record, leader, hands)
    first_error: ReplayError | None = None
    for finish in _finishes_to_try(record, tribute):
        try:
            state, _ = start_deal(profile, level, hands, previous_finish=finish, leader=leader)
        except GuandanError as exc:
            raise ReplayError(-1, exc.reason, str(exc), "hands") from None
        try:
            for i, (g, r, card) in enumerate(tribute):
                try:
                    state, _ = apply(state, give(g, card, r), 0.0)
                except GuandanError as exc:
                    raise ReplayError(-1, "wrong_tribute" if exc.reason != "not_held" else "not_held",
                                      str(exc), f"tribute[{i}]") from None
            for i, (g, r, card) in enumerate(returns):
                owed = dict(state.pending_returns())
                if owed.get(g) not in (None, r):
                    raise ReplayError(-1, "wrong_return", f"{g} returns to {owed[g]}, not {r}", f"returns[{i}]")
                try:
                    state, _ = apply(state, return_card(g, card), 0.0)
                except GuandanError as exc:
                    raise ReplayError(-1, "wrong_return" if exc.reason != "not_held" else "not_held",
                                      str(exc), f"returns[{i}]") from None
            if state.phase != PLAYING:
                missing = "tribute" if state.pending_gives() else "returns"
                raise ReplayError(-1, "wrong_tribute" if missing == "tribute" else "wrong_return",
                                  f"the record's {missing} are incomplete", missing)
            if state.leader != leader:
                raise ReplayError(-1, "wrong_leader", f"{state.leader} leads, not {leader}", "leader")
            return state
        except ReplayError as exc:
            first_error = first_error or exc
    assert first_error is not None
    raise first_error


def _check_result(record: Mapping[str, Any], finish: list[str], s: Settlement, n: int) -> None:
    """Compare the record's ``result``, if present, with what the replay computed: every field deal-record.md
    defines (``finish``, ``winner``, ``up``, ``levels_after``, ``match_winner``); other fields are ignored.

    ``result`` null counts as absent (:func:`record.build_record` writes it for a deal with no result); any
    other value that is not an object is refused, and so is a result missing one of :data:`RESULT_FIELDS`, so
    that a result claiming nothing cannot pass as checked. ``match_winner`` is present when the deal ended the
    match: passing A must name that team; a match ended by its deal or time limit names the team ahead after
    the deal (the record cannot show the limit, so only that is checked); absent or null, no winner."""
    result = record.get("result")
    if result is None:
        return
    if not isinstance(result, Mapping):
        raise ReplayError(n, "bad_record", f"result must be an object, got {result!r}"[:200], "result")
    for key in RESULT_FIELDS:
        if key not in result:
            raise ReplayError(n, "missing_field", f"required field 'result.{key}' is missing", f"result.{key}")
    given = list(result["finish"]) if isinstance(result["finish"], list) else None
    # the last seat may be left implied (3 of 4 listed); after a 双下 the losers' order is not compared
    if given is None or (given != finish and given != finish[:3] and given[:2] != finish):
        raise ReplayError(n, "wrong_result", f"finish is {finish}, not {result['finish']}", "result.finish")
    if result["winner"] != s.winner:
        raise ReplayError(n, "wrong_result", f"winner is {s.winner}, not {result['winner']!r}", "result.winner")
    if type(result["up"]) is not int or result["up"] != s.up:
        raise ReplayError(n, "wrong_result", f"up is {s.up}, not {result['up']!r}", "result.up")
    levels_after = s.levels_json()
    given_levels = ({t: str(v).upper().replace("10", "T") for t, v in result["levels_after"].items()}
                    if isinstance(result["levels_after"], Mapping) else result["levels_after"])
    if given_levels != levels_after:
        raise ReplayError(n, "wrong_result", f"levels after are {levels_after}, not {given_levels!r}",
                          "result.levels_after")
    claimed = result.get("match_winner")
    if s.match_winner is not None and claimed != s.match_winner:  # passing A ends the match: the record knows
        raise ReplayError(n, "wrong_result", f"match winner is {s.match_winner}, not {claimed!r}",
                          "result.match_winner")
    if s.match_winner is None and claimed is not None:
        # a match ended by its deal or time limit with this deal (what the record alone cannot show): the
        # winner named must be the team ahead after it
        other = "EW" if claimed == "NS" else "NS"
        if claimed not in ("NS", "EW") or parse_team_level(levels_after[claimed]) <= parse_team_level(levels_after[other]):
            raise ReplayError(n, "wrong_result", f"match winner {claimed!r} is not ahead after this deal "
                              f"({levels_after})", "result.match_winner")


#: referee actions that are a step of play (an undo can take them back)
_PLAY_STEPS = ("skip", "skip_turn")
_TRIBUTE_STEPS = ("give", "return")


def _without_t(entry: Any) -> Any:
    return {k: v for k, v in entry.items() if k != "t"} if isinstance(entry, Mapping) else entry


def _referee(entry: dict[str, Any], i: int, state: DealState, history: list[tuple[DealState, Any]],
             began: bool) -> DealState:
    """Replay one ``{"referee": ...}`` action (see :data:`record.REFEREE_KINDS`); returns the new state.

    ``history`` holds (state before, recorded entry) for every step of play so far; ``began`` says whether
    any step of play came before (tribute corrections must come before play)."""
    kind, where = entry["referee"], f"actions[{i}]"
    seat = entry.get("seat")
    if kind not in REFEREE_KINDS:
        raise ReplayError(i, "bad_referee", f"unknown referee action {kind!r} (known: "
                          f"{', '.join(REFEREE_KINDS)})", where)
    if seat is not None and seat not in SEATS:
        raise ReplayError(i, "bad_referee", f"referee action {kind} names no seat: {seat!r}", where)
    if kind in ("take_back", "undo_last"):
        undone = entry.get("undone")
        if undone is not None and (not isinstance(undone, list) or not undone):
            raise ReplayError(i, "bad_referee", f"{kind}: 'undone' must be a non-empty list of actions", where)
        if not began and undone and all(isinstance(u, Mapping) and any(k in u for k in _TRIBUTE_STEPS)
                                         for u in undone):
            return state  # a tribute or return card undone before play: the record's tribute is the final one
        if not history:
            raise ReplayError(i, "nothing_to_undo", f"{kind} but no action of play comes before it", where)
        before, last = history[-1]
        if kind == "take_back" and not (isinstance(last, Mapping) and "play" in last):
            raise ReplayError(i, "bad_referee", f"take_back, but the last action is not a play: {last}", where)
        if undone is not None and [_without_t(u) for u in undone] != [_without_t(last)]:
            raise ReplayError(i, "bad_referee", f"{kind} undoes {undone}, but the last action is "
                              f"{_without_t(last)}", where)
        if seat is not None and isinstance(last, Mapping) and last.get("seat") != seat:
            raise ReplayError(i, "bad_referee", f"{kind} names {seat}, but the last action is "
                              f"{last.get('seat')}'s", where)
        history.pop()
        return before
    if kind in _PLAY_STEPS:
        if seat is not None and seat != state.to_move:
            raise ReplayError(i, "not_your_turn", f"skip of {seat}, but it is {state.to_move}'s turn", where)
        try:
            new, _ = skip_turn(state, _seconds(entry.get("t")))
        except GuandanError as exc:
            raise ReplayError(i, exc.reason, str(exc), where) from None
        history.append((state, entry))
        return new
    if kind == "skip_trick" and seat is None:
        raise ReplayError(i, "bad_referee", "skip_trick needs the seat that sits out the trick", where)
    if kind == "redo_tribute" and began:
        raise ReplayError(i, "bad_referee", "redo_tribute after play began", where)
    if kind == "penalty":
        if entry.get("kind") not in PENALTY_KINDS:
            raise ReplayError(i, "bad_referee", f"unknown penalty {entry.get('kind')!r} (known: "
                              f"{', '.join(PENALTY_KINDS)})", where)
        if entry.get("team") not in ("NS", "EW", None) or (entry.get("team") is None and seat is None):
            raise ReplayError(i, "bad_referee", "a penalty names its team (NS or EW) or a seat", where)
    return state  # skip_trick (its passes are recorded), redo_tribute, penalty: nothing changes in the play


def _seconds(t: Any) -> float:
    return float(t) if isinstance(t, int | float) and not isinstance(t, bool) else 0.0


def _check_time(entry: Any, i: int) -> float:
    """The action's ``t`` (seconds since the deal started, deal-record.md) as a float, 0.0 when it has none; a
    ``t`` that is not a number is a malformed field of that action (reason ``bad_action``, as for its other
    fields)."""
    if not isinstance(entry, Mapping) or "t" not in entry:
        return 0.0
    t = entry["t"]
    if isinstance(t, bool) or not isinstance(t, int | float) or t != t:
        raise ReplayError(i, "bad_action", f"'t' must be a number of seconds since the deal started, got {t!r}"[:200],
                          f"actions[{i}].t")
    return float(t)


def replay(record: Any, profiles: Mapping[str, Profile] = PROFILES) -> dict[str, Any]:
    """Check a deal record; see the module docstring for the answer's shape."""
    finish: list[str] = []
    levels_after: dict[str, str] | None = None
    try:
        profile, level, hands = _header(record, profiles)
        levels, played = _context(record, level, profile)
        state = _start(record, profile, level, hands)
        actions = record["actions"]
        if not isinstance(actions, list):
            raise ReplayError(-1, "bad_record", "actions must be a list", "actions")
        history: list[tuple[DealState, Any]] = []
        began = False  # a step of play came before
        for i, entry in enumerate(actions):
            t = _check_time(entry, i)
            if type(entry) is dict and "referee" in entry:
                state = _referee(entry, i, state, history, began)
                began = began or entry["referee"] in _PLAY_STEPS
                continue
            try:
                history.append((state, entry))
                began = True
                action = action_from_json(entry)
                state, _ = apply(state, action, t)
            except GuandanError as exc:
                raise ReplayError(i, exc.reason, str(exc), f"actions[{i}]") from None
        finish = state.finish_order()
        if not state.over:
            raise ReplayError(len(actions), "deal_not_finished", f"the deal is not over after {len(actions)} "
                              f"actions ({len(state.finished)} seat(s) out)")
        failed = record.get("failed_a_before") if isinstance(record.get("failed_a_before"), dict) else None
        try:
            s = settle(profile, levels, played, finish, failed)
        except (GuandanError, TypeError, ValueError) as exc:
            raise ReplayError(-1, "bad_record", f"failed_a_before or levels: {exc}", "failed_a_before") from None
        levels_after = s.levels_json()
        _check_result(record, finish, s, len(actions))
    except ReplayError as exc:
        return {"ok": False, "first_error": exc.to_json(), "finish": finish, "levels_after": levels_after}
    return {"ok": True, "first_error": None, "finish": finish, "levels_after": levels_after}
