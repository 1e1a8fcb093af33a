"""JSON views of the controller (layer 2, over the state; read only, except ``publish_*`` that queue them): the public table state (``state`` topic), the deal record
(``guandan-deal/1``, deal-record.md) and the match result. The public state never holds a card a seat still


holds: only counts (mqtt-api.md).
"""

from __future__ import annotations

from typing import Any

from guandan import (
    SEATS,
    Settlement,
    build_record,
    deadline,
    format_team_level,
    parse_team_level,
    rank_name,
    scoring,
    team_of,
)
from guandan import deal as engine

from .model import Publish
from .sealing import match_sealed, sealed_twin
from .state import IN_DEAL, TableDeal, TableState

CHOICE_TEXT = "上游选择进贡牌 / 上游 chooses a tribute card"


def _levels(levels: dict[str, int]) -> dict[str, str]:
    return {t: format_team_level(v) for t, v in levels.items()}


def deal_asks(c: TableState) -> tuple[list[str], str]:
    """Whom the deal waits on, and for what (``choose_tribute``, ``declare``, ``play``, ``tribute``, ``return``),
    from the deal alone: ``([], "")`` when it waits on nobody (no deal, or over). One rule for the table's turn
    lamps after a correction, a resume and a restart."""
    d = c.deal
    if d is None or d.state is None:
        return [], ""
    st = d.state
    if d.tribute_choice is not None:
        return [str(d.tribute_choice["seat"])], "choose_tribute"
    if st.phase == engine.PLAYING and st.to_move:
        return [st.to_move], "declare" if d.pending_declare else "play"
    if st.phase == engine.TRIBUTE:
        return [s for s in st.pending_gives() if s not in d.tribute_held], "tribute"
    if st.phase == engine.RETURNING:
        return [s for s, _ in st.pending_returns()], "return"
    return [], ""


def seats_asked(c: TableState) -> tuple[list[str], str]:
    """:func:`deal_asks` while the table is in a deal; nobody while it is not (paused, between deals)."""
    if c.phase not in IN_DEAL:
        return [], "wait"
    seats, what = deal_asks(c)
    return (seats, what) if seats else ([], "wait")


def status_light(c: TableState) -> str:
    """The table's status light by where the table is: ``on`` in a deal, ``blink`` while waiting (no match,
    between deals, match over, paused by the referee). The app blinks it fast over this while the table's health
    has a problem (it alone knows the health of this run)."""
    return "on" if c.phase in IN_DEAL else "blink"


def match_clock(c: TableState) -> dict[str, Any] | None:
    """A timed match's clock, so that a screen joining at any moment shows the time left: when the match
    started and when its time is up (table time, as the turn timer), and whether it is up. None when the match
    is not timed."""
    minutes = c.match.profile.match_minutes
    if not c.match_active or c.match.profile.match_end not in ("time", "time_or_deals") or minutes is None:
        return None
    start = c.match.t_start
    return {"started": round(start, 3), "ends": round(start + minutes * 60.0, 3), "time_up": c.match.time_up}


def public_state(c: TableState) -> dict[str, Any]:
    """The whole public state: seats (counts only), levels, phase, turn and timer, trick, tribute (with the
    cards laid face up and, under ``winner_chooses``, ``tribute_choice``: the table waits for 上游's pick),
    last result, and a timed match's clock."""
    d = c.deal
    st = d.state if d is not None else None
    seats: dict[str, Any] = {}
    for s in SEATS:
        seat: dict[str, Any] = {"team": team_of(s), "cards_left": None, "place": None, "reported": False}
        if st is not None:
            seat["cards_left"] = len(st.hand(s))
            seat["place"] = st.finished.index(s) + 1 if s in st.finished else None
            seat["reported"] = s in st.reported
            seat["report_due"] = s in st.report_due
        elif d is not None:
            seat["cards_left"] = d.dealt[s]
        seats[s] = seat
    out: dict[str, Any] = {
        "phase": str(c.phase),
        "paused_from": str(c.paused_from) if c.paused_from else None,
        "profile": c.profile.name,
        "match": c.match_no,
        "start": c.start_id,
        "match_active": c.match_active,
        "teams": c.teams,
        "levels": _levels(c.levels),
        "deals_played": c.deals_done,
        "deal": d.number if d else None,
        "board": d.board if d else None,  # the duplicate board being played (rules §12), None for random cards
        # a board is played at its own level (rules §12), known once the dealer has read it from the deal file
        "level": rank_name(d.level) if d and (d.board is None or d.state is not None) else None,
        "played": d.played if d else None,
        "seats": seats,
        "turn": None,
        "timer": None,
        "trick": [],
        "trick_passes": 0,
        "tribute": None,
        "pending_declaration": None,
        "tribute_choice": None,
        "last_result": c.last_result,
        "match_result": c.match_result,
        "match_end": c.match_end,
        "match_clock": match_clock(c),
    }
    if d is not None and st is not None:
        out["turn"] = st.to_move
        due = deadline(st)
        out["timer"] = {"since": round(st.turn_since, 3), "deadline": round(due, 3) if due else None}
        # the current trick: each play with seat, cards and reading, oldest first (the last is the play to beat)
        out["trick"] = [{"seat": SEATS[seat], "cards": [x.code for x in cards], "reading": reading.to_json()}
                        for seat, reading, cards in st.trick_plays]
        out["trick_passes"] = st.passes if st.trick_plays else 0  # seats that passed since the play to beat
        if st.plan is not None:
            out["tribute"] = {"resisted": st.plan.resisted,
                              "given": [{"from": g, "to": r, "card": x.code} for g, r, x in st.given],
                              "returned": [{"from": g, "to": r, "card": x.code} for g, r, x in st.returned],
                              "laid": {g: x.code for g, x in d.tribute_held.items()},
                              "pending": [g for g in st.pending_gives() if g not in d.tribute_held]
                              if st.phase == engine.TRIBUTE else [s for s, _ in st.pending_returns()]}
        out["tribute_choice"] = tribute_choice(d, c)
    if d is not None and d.pending_declare is not None:
        out["pending_declaration"] = {k: v for k, v in d.pending_declare.items() if k != "frame"}
    if match_sealed(c):  # duplicate boards: no card, no outcome on a public topic until the desk releases them (§12)
        out["sealed"] = True
        out["levels"] = None
        for seat in seats.values():
            seat["cards_left"] = seat["place"] = None
        out["trick"] = [{"seat": play["seat"], "count": len(play["cards"])} for play in out["trick"]]
        if out["pending_declaration"] is not None:
            out["pending_declaration"] = {"seat": out["pending_declaration"].get("seat")}
        if c.last_result is not None:
            out["last_result"] = {k: c.last_result[k] for k in ("deal", "board") if k in c.last_result}
            out["last_result"]["sealed"] = True
        if c.match_result is not None:
            out["match_result"] = sealed_twin(c.match_result)
    return out


def choice_deadline(c: TableState, d: TableDeal) -> float | None:
    """When 上游's choice times out (the profile's turn timer), or None without one."""
    seconds = c.profile.play_seconds
    if d.tribute_choice is None or seconds is None:
        return None
    return float(d.tribute_choice["since"]) + seconds


def tribute_choice(d: TableDeal, c: TableState) -> dict[str, Any] | None:
    """The public ``tribute_choice`` field: who chooses between which laid cards, the buttons, the timer."""
    choice = d.tribute_choice
    if choice is None:
        return None
    due = choice_deadline(c, d)
    return {"seat": choice["seat"], "cards": dict(choice["cards"]), "default": choice["default"],
            "other": choice["other"], "buttons": {"pass": choice["default"], "confirm": choice["other"]},
            "text": CHOICE_TEXT, "deadline": round(due, 3) if due is not None else None}


def hands_payload(c: TableState) -> dict[str, Any]:
    """The ``private/hands`` message (referees only): every seat's cards now (as dealt before play)."""
    d = c.deal
    hands: dict[str, list[str]] = {}
    if d is not None:
        hands = d.state.hands_json() if d.state else {s: [x.code for x in d.hands.get(s, [])] for s in SEATS}
    return {"type": "hands", "deal": d.number if d else None, "hands": hands}


def publish_state(c: TableState) -> None:
    """Queue the whole public state on ``state``."""
    c.emit("state", topic="state", **public_state(c))


def publish_hands(c: TableState) -> None:
    """Queue every seat's cards on ``private/hands`` (referees only)."""
    c.effect(Publish("private/hands", hands_payload(c)))


def deal_record(c: TableState, s: Settlement) -> dict[str, Any]:
    """The ``guandan-deal/1`` record of the finished deal (the rules engine's builder, plus the table's
    evidence: its own ``actions`` log with the referee's corrections as ``{"referee": ...}`` actions, fouls,
    faults and referee notes in ``events``, the commitment and salted deal line)."""
    d = c.deal
    assert d is not None and d.state is not None
    first_lead = None
    if d.first_lead:
        rule, _, card = d.first_lead.partition(":")
        first_lead = {"rule": rule, "card": card or None, "seat": d.state.leader}
    record = build_record(
        d.state, levels_before=d.levels_before, played=d.played, failed_a=c.failed_a_before,
        previous_finish=c.previous_finish, first_lead=first_lead,
        meta={"event": c.event, "table": c.table, "match": c.match_no, "deal": d.number}, events=d.events,
        actions=d.actions,
    )
    record["start"] = c.start_id  # the desk's start_match this deal was played under (None: a local start)
    if d.board is not None:
        record["board"] = d.board
    if d.commitment:
        record["commitment"] = d.commitment
    if d.deal_line:
        record["deal_line"] = d.deal_line
    return record


def match_result(c: TableState, winner: str | None, reason: str) -> dict[str, Any]:
    """One match's result: final levels, winner, 场分 and 级差分 (desk-compatible)."""
    levels = _levels(c.levels)
    finished = "A+" in levels.values()
    # a match ended by 判负 scores as one won without play (弃权, 004: 14/0 or 26/0): the levels at the moment of
    # the forfeit would otherwise give the team that forfeited a draw's 级差分 or more
    walkover = reason.startswith("forfeit") and winner is not None
    out: dict[str, Any] = {"id": f"{c.event}/{c.table}/m{c.match_no}", "match": c.match_no,
                           "levels": levels, "winner": winner, "finished": finished, "reason": reason,
                           "deals": c.deals_done, "teams": c.teams, "profile": c.profile.name,
                           "start": c.start_id, "walkover": walkover}
    points = score(c, levels, winner, finished, walkover=walkover)
    if points is not None:
        out["match_points"], out["level_points"] = points
    if c.profile.deal_points == "one_to_three":
        out["deal_points"] = dict(c.match.deal_points)
    # every penalty of the match, escalations included, per team: the desk counts the violations from here, since
    # one given between deals, or with a forfeit that ends the deal, is in no deal record
    out["penalties"] = {team: {k: n for k, n in sorted(c.penalties[team].items()) if n} for team in ("NS", "EW")}
    return out


def score(c: TableState, levels: dict[str, str], winner: str | None, finished: bool, *,
          walkover: bool = False) -> tuple[dict[str, float], dict[str, float]] | None:
    """场分 and 级差分 by the profile's scoring settings (the rules engine's §9 formulas).

    Under ``one_to_three`` the deal-point totals the engine's match counted (3/2/1 a deal) stand in for
    级差分 (``match_result`` also gives them as ``deal_points``).
    """
    p = c.profile
    if walkover and winner is not None:
        won = scoring.walkover(p, winner)
        return ({t: float(won[t]["match_points"]) for t in won}, {t: float(won[t]["level_points"]) for t in won})
    try:
        values = {team: parse_team_level(level) for team, level in levels.items()}
        match = scoring.match_points(p, winner, finished=finished or p.deal_points == "one_to_three")
        if p.deal_points == "one_to_three":
            level: dict[str, float] = {team: float(c.match.deal_points[team]) for team in ("NS", "EW")}
        else:
            level = {team: float(v) for team, v in scoring.level_points(p, values, winner).items()}
    except (ValueError, KeyError):
        return None
    return {team: float(v) for team, v in match.items()}, level
