"""A match (一局) across deals as a pure state machine (rules spec §8): levels, end methods, draws, play-on.

``new_match`` → for each deal ``next_setup`` (level, whose level, tribute or not) → play the deal →
``deal_finished(m, finish, t)``; ``clock(m, t, deal_in_play)`` handles the time limits. End methods
(``match_end``): ``pass_a`` (计局制), ``deals`` (计副制, after N deals), ``time`` (计时制, after M minutes),
``time_or_deals`` (计时计副制, whichever first). Passing A ends every kind of match at once. Otherwise the
higher level (or, under ``one_to_three``, the higher deal-point total) wins; equal is a draw, except in
knockout play where one more deal is played, and so on until there is a winner (004 加赛一局). A deal still in
play when time runs out is played out (``time_up_deal = play_out``) or stopped and not counted (``stop``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .cards import SEATS, Card, parse_card
from .effects import DealSettled, DropBack, EngineEffect, ExtraDeal, MatchOver, StopDeal, TimeUp
from .levels import Settlement, format_team_level, next_deal, settle
from .profiles import Profile
from .scoring import one_to_three, score_match

TEAMS = ("NS", "EW")


@dataclass(frozen=True, slots=True)
class DealSetup:
    """How the next deal is played: at ``level`` (team ``played``'s level), with tribute after ``previous_finish``
    (None: no tribute, the first deal; the profile's ``first_lead`` decides the leader)."""

    number: int
    level: int
    played: str
    previous_finish: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class MatchState:
    profile: Profile
    t_start: float = 0.0
    levels: dict[str, int] = field(default_factory=lambda: {"NS": 2, "EW": 2})
    failed_a: dict[str, int] = field(default_factory=lambda: {"NS": 0, "EW": 0})
    deal_points: dict[str, int] = field(default_factory=lambda: {"NS": 0, "EW": 0})
    deals: int = 0
    last_winner: str | None = None
    last_finish: tuple[str, ...] | None = None
    #: Time ran out (or the deal count was reached) with equal scores in knockout: deals go on until a winner.
    play_on: bool = False
    time_up: bool = False
    over: bool = False
    winner: str | None = None
    draw: bool = False
    end_reason: str | None = None
    settlements: tuple[Settlement, ...] = ()

    def levels_json(self) -> dict[str, str]:
        return {t: format_team_level(v) for t, v in self.levels.items()}

    def result(self) -> dict[str, Any]:
        """The match result with its scores (scoring.py), for the desk and the display."""
        return {
            "over": self.over,
            "winner": self.winner,
            "draw": self.draw,
            "reason": self.end_reason,
            "deals": self.deals,
            "levels": self.levels_json(),
            "scores": score_match(self.profile, self.levels, self.winner, deal_points=self.deal_points)
            if self.over else None,
        }


def new_match(profile: Profile, t: float = 0.0) -> MatchState:
    return MatchState(profile, t_start=t)


def next_setup(m: MatchState) -> DealSetup:
    """Level, team and tribute of the next deal (after the first, 上游's team's level; tribute from its finish)."""
    if m.over:
        raise ValueError("the match is over")
    team, level = next_deal(m.profile, m.levels, m.last_winner)
    return DealSetup(m.deals + 1, level, team, m.last_finish)


def _leader_of(m: MatchState) -> str | None:
    """The team ahead (levels, or deal points under one_to_three), None when equal."""
    score = m.deal_points if m.profile.deal_points == "one_to_three" else m.levels
    if score["NS"] == score["EW"]:
        return None
    return "NS" if score["NS"] > score["EW"] else "EW"


def _decide(m: MatchState, reason: str) -> tuple[MatchState, list[EngineEffect]]:
    """End the match on ``reason`` (deals / time): the leader wins; equal is a draw, or play on in knockout."""
    ahead = _leader_of(m)
    if ahead is None and m.profile.knockout:
        return replace(m, play_on=True, end_reason=reason), [ExtraDeal(reason)]
    new = replace(m, over=True, winner=ahead, draw=ahead is None, end_reason=reason)
    return new, [MatchOver(new.winner, new.end_reason, new.result())]


def _limit_reached(m: MatchState, t: float) -> str | None:
    end, p = m.profile.match_end, m.profile
    if end in ("deals", "time_or_deals") and p.match_deals is not None and m.deals >= p.match_deals:
        return "deals"
    if end in ("time", "time_or_deals") and (m.time_up or (
        p.match_minutes is not None and t - m.t_start >= p.match_minutes * 60.0
    )):
        return "time"
    return None


def deal_finished(m: MatchState, finish: Sequence[str], t: float) -> tuple[MatchState, list[EngineEffect]]:
    """Count a finished deal (its finishing order, at time ``t``) and end the match if it is over."""
    setup = next_setup(m)
    s = settle(m.profile, m.levels, setup.played, finish, m.failed_a)
    points = dict(m.deal_points)
    if m.profile.deal_points == "one_to_three":
        team, gained = one_to_three(finish)
        points[team] += gained
    new = replace(
        m, levels=dict(s.levels), failed_a=dict(s.failed_a), deal_points=points, deals=m.deals + 1,
        last_winner=s.winner, last_finish=tuple(finish), settlements=m.settlements + (s,),
    )
    effects: list[EngineEffect] = [DealSettled(new.deals, s.winner, s.up, new.levels_json(), dict(s.failed_a))]
    if s.dropped_back:
        effects.append(DropBack(s.dropped_back))
    if s.match_winner is not None:
        new = replace(new, over=True, winner=s.match_winner, end_reason="pass_a")
        effects.append(MatchOver(new.winner, new.end_reason, new.result()))
        return new, effects
    if new.play_on:
        if _leader_of(new) is not None:
            new, more = _decide(new, new.end_reason or "extra_deal")  # always a winner here
            return new, effects + more
        return new, effects + [ExtraDeal("still equal")]
    reason = _limit_reached(new, t)
    if reason is not None:
        new, more = _decide(new, reason)
        effects += more
    return new, effects


def clock(m: MatchState, t: float, *, deal_in_play: bool) -> tuple[MatchState, list[EngineEffect]]:
    """Advance the match clock to ``t``. When the time limit passes between deals the match is decided now;
    during a deal, the deal is played out (and the match decided after it) or stopped and not counted
    (effect ``stop_deal``), per ``time_up_deal``."""
    p = m.profile
    if m.over or m.time_up or m.play_on or p.match_end not in ("time", "time_or_deals") or p.match_minutes is None:
        return m, []
    if t - m.t_start < p.match_minutes * 60.0:
        return m, []
    timed = replace(m, time_up=True)
    effects: list[EngineEffect] = [TimeUp()]
    if deal_in_play and p.time_up_deal == "play_out":
        return timed, effects
    if deal_in_play:
        effects.append(StopDeal())
    timed, more = _decide(timed, "time")
    return timed, effects + more


def first_leader(
    profile: Profile,
    hands: Mapping[str, Sequence[Card]],
    *,
    deal_sequence: Sequence[tuple[str, Card]] | None = None,
    turned_seat: str | None = None,
) -> str:
    """Who leads the first deal of a match (``first_lead``): ``seat:X``; ``first_dealt:CODE`` (001: the seat
    first dealt that card, from ``deal_sequence`` (seat, card) in dealing order; without it the holder, and of
    two holders the first in play order from S); ``turned_card`` (the seat dealt the turned card, which the
    caller passes as ``turned_seat``)."""
    rule = profile.first_lead
    if rule.startswith("seat:"):
        return rule[5:]
    if rule.startswith("first_dealt:"):
        card = parse_card(rule.partition(":")[2])
        for seat, dealt in deal_sequence or ():
            if dealt is card:
                return seat
        for seat in SEATS:
            if card in hands.get(seat, ()):
                return seat
        raise ValueError(f"no seat was dealt {card.code}")
    if turned_seat is None or turned_seat not in SEATS:
        raise ValueError("first_lead is turned_card: the seat dealt the turned card must be given")
    return turned_seat


def round_winner(match_winners: Sequence[str | None], best_of: int) -> str | None:
    """Winner of a round of one match or best of three (000 二): the first team to win ``best_of // 2 + 1``."""
    need = best_of // 2 + 1
    for team in TEAMS:
        if sum(1 for w in match_winners if w == team) >= need:
            return team
    return None
