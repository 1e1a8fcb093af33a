"""What the rules engine tells its caller happened (deal, timers, match), as small frozen records.

Each effect is a type of its own, so a caller dispatches on the type (``match``/``case`` or ``isinstance``)
instead of a string field, and a typo is an error the type checker sees. ``kind`` names each type in its JSON
form (``to_json()``: the engine's documented dicts, e.g. ``{"kind": "play", "seat": "S", "cards": [...],
"reading": {...}}``), for logs and tests.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar


def _json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class EngineEffect:
    """Base of every engine effect."""

    kind: ClassVar[str] = "effect"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **{f.name: _json(getattr(self, f.name)) for f in fields(self)}}


# -- a deal ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TributePlanned(EngineEffect):
    """The tribute of the deal: who pays whom (``payments``: from, to, candidates), resisted or not."""

    kind: ClassVar[str] = "tribute"
    resisted: bool
    payments: tuple[dict[str, Any], ...]
    leader: str


@dataclass(frozen=True, slots=True)
class Turn(EngineEffect):
    """``seat`` is to act (``lead``: to lead a new trick)."""

    kind: ClassVar[str] = "turn"
    seat: str
    lead: bool


@dataclass(frozen=True, slots=True)
class Foul(EngineEffect):
    """A foul the engine sees by itself (``missing_report``)."""

    kind: ClassVar[str] = "foul"
    what: str
    seat: str


@dataclass(frozen=True, slots=True)
class Passed(EngineEffect):
    kind: ClassVar[str] = "pass"
    seat: str


@dataclass(frozen=True, slots=True)
class Played(EngineEffect):
    """A play: the cards as laid out and the reading they count as."""

    kind: ClassVar[str] = "play"
    seat: str
    cards: tuple[str, ...]
    reading: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Jiefeng(EngineEffect):
    """借风: the trick's winner went out, its partner ``seat`` leads."""

    kind: ClassVar[str] = "jiefeng"
    seat: str


@dataclass(frozen=True, slots=True)
class TrickEnd(EngineEffect):
    kind: ClassVar[str] = "trick_end"
    winner: str
    leader: str


@dataclass(frozen=True, slots=True)
class Reported(EngineEffect):
    """A 10-card report (``auto``: made by the table for the seat)."""

    kind: ClassVar[str] = "report"
    seat: str
    count: int
    auto: bool


@dataclass(frozen=True, slots=True)
class ReportDue(EngineEffect):
    kind: ClassVar[str] = "report_due"
    seat: str
    count: int


@dataclass(frozen=True, slots=True)
class WentOut(EngineEffect):
    """``seat`` emptied its hand, in ``place`` (1: 上游)."""

    kind: ClassVar[str] = "out"
    seat: str
    place: int


@dataclass(frozen=True, slots=True)
class DealOver(EngineEffect):
    kind: ClassVar[str] = "deal_over"
    finish: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Given(EngineEffect):
    """A tribute card given (进贡)."""

    kind: ClassVar[str] = "give"
    seat: str
    to: str
    card: str


@dataclass(frozen=True, slots=True)
class ReturnDue(EngineEffect):
    kind: ClassVar[str] = "return_due"
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Returned(EngineEffect):
    """A card returned (还贡)."""

    kind: ClassVar[str] = "return"
    seat: str
    to: str
    card: str


# -- timers ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SlowPlay(EngineEffect):
    kind: ClassVar[str] = "slow_play"
    seat: str
    late_by: float


@dataclass(frozen=True, slots=True)
class TimedOut(EngineEffect):
    """The profile's automatic action for a seat whose time ran out (``action`` in its JSON form)."""

    kind: ClassVar[str] = "timeout"
    seat: str
    action: dict[str, Any]


# -- a match ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DealSettled(EngineEffect):
    kind: ClassVar[str] = "deal_settled"
    deal: int
    winner: str
    up: int
    levels: dict[str, str]
    failed_a: dict[str, int]


@dataclass(frozen=True, slots=True)
class DropBack(EngineEffect):
    """A team dropped back to 2 after its failed A deals (``a_drop_back``)."""

    kind: ClassVar[str] = "drop_back"
    team: str


@dataclass(frozen=True, slots=True)
class ExtraDeal(EngineEffect):
    """Equal at the end in knockout play: one more deal (004 加赛一局)."""

    kind: ClassVar[str] = "extra_deal"
    reason: str


@dataclass(frozen=True, slots=True)
class MatchOver(EngineEffect):
    """The match ended; ``result`` is :meth:`MatchState.result` (winner, draw, reason, levels, scores)."""

    kind: ClassVar[str] = "match_over"
    winner: str | None
    reason: str | None
    result: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.result}


@dataclass(frozen=True, slots=True)
class TimeUp(EngineEffect):
    kind: ClassVar[str] = "time_up"


@dataclass(frozen=True, slots=True)
class StopDeal(EngineEffect):
    """Time ran out under ``time_up_deal = "stop"``: the deal in play is stopped and not counted."""

    kind: ClassVar[str] = "stop_deal"


__all__ = [
    "DealOver", "DealSettled", "DropBack", "EngineEffect", "ExtraDeal", "Foul", "Given", "Jiefeng", "MatchOver",
    "Passed", "Played", "ReportDue", "Reported", "ReturnDue", "Returned", "SlowPlay", "StopDeal", "TimeUp",
    "TimedOut", "TrickEnd", "TributePlanned", "Turn", "WentOut",
]
