"""What seats do during a deal (rules spec §6–§7), as small immutable values, and their JSON form.

One :class:`Action` type covers the tribute (``give``), the return (``return``), play (``play`` / ``pass``)
and the 10-card report (``report``). The JSON form is the one of a deal record's ``actions`` entries
(deal-record.md): ``{"seat": "W", "play": ["C3"], "reading": {...}, "t": 1.9}``, ``{"seat": "S", "pass":
true, "t": 4.0}``, ``{"seat": "S", "report": 9, "t": 5.0}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import ALL_CARDS, SEATS, Card, parse_cards
from .errors import GuandanError
from .readings import Reading

GIVE = "give"
RETURN = "return"
PLAY = "play"
PASS = "pass"
REPORT = "report"
KINDS = (GIVE, RETURN, PLAY, PASS, REPORT)
_PLAIN_CODES: dict[str, Card] = {c.code: c for c in ALL_CARDS}


class BadActionError(GuandanError):
    """An action entry that cannot be understood (missing or malformed field)."""

    reason = "bad_action"


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a seat does. ``cards`` keep the laid-out order; ``reading`` is a declared reading (plays);
    ``to`` names the receiver of a tribute card where the profile lets 上游 choose (``winner_chooses``)."""

    seat: str
    kind: str
    cards: tuple[Card, ...] = ()
    reading: Reading | None = None
    to: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat}
        if self.kind == PLAY:
            out["play"] = [c.code for c in self.cards]
            if self.reading is not None:
                out["reading"] = self.reading.to_json()
        elif self.kind == PASS:
            out["pass"] = True
        elif self.kind == REPORT:
            out["report"] = True
        else:
            out[self.kind] = self.cards[0].code if self.cards else None
            if self.to is not None:
                out["to"] = self.to
        return out


def play(seat: str, cards: list[Card] | tuple[Card, ...], reading: Reading | None = None) -> Action:
    return Action(seat, PLAY, tuple(cards), reading)


def pass_turn(seat: str) -> Action:
    return Action(seat, PASS)


def give(seat: str, card: Card, to: str | None = None) -> Action:
    return Action(seat, GIVE, (card,), None, to)


def return_card(seat: str, card: Card) -> Action:
    return Action(seat, RETURN, (card,))


def report(seat: str) -> Action:
    return Action(seat, REPORT)


def action_from_json(entry: Any) -> Action:
    """Parse a deal-record action (play, pass or report); raises :class:`BadActionError` naming the field."""
    if not isinstance(entry, dict):
        raise BadActionError(f"an action must be an object, got {entry!r}")
    seat = entry.get("seat")
    if seat not in SEATS:
        raise BadActionError(f"action has no valid 'seat' (got {seat!r})")
    kinds = [key for key in ("play", "pass", "report") if key in entry and entry[key] is not False]
    if len(kinds) > 1:  # which one happened? a record must say
        raise BadActionError(f"an action is one of 'play', 'pass' or 'report', not {' and '.join(kinds)}")
    if "play" in entry:
        cards = entry["play"]
        if not isinstance(cards, list) or not cards:
            raise BadActionError(f"'play' must be a non-empty list of card codes, got {cards!r}")
        declared = entry.get("reading")
        reading = Reading.from_json(declared) if declared is not None else None
        try:  # fast path: plain codes as the table writes them
            parsed = tuple(_PLAIN_CODES[code] for code in cards)
        except (KeyError, TypeError):
            parsed = tuple(parse_cards(cards))
        return Action(seat, PLAY, parsed, reading)
    if entry.get("pass") is True:
        return Action(seat, PASS)
    if "report" in entry:
        return Action(seat, REPORT)
    raise BadActionError("action has neither 'play', 'pass' nor 'report'")
