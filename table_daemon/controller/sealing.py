"""What a duplicate board keeps off the public topics (rules §12): its hands and its results stay with the desk
until the desk releases the board, after every table has played it (layer 2, over the state; pure).

A match that plays boards is *sealed*. Its deal records and its match result go out in full only on
``results/sealed`` (read by the desk and referees; never by displays, never bridged to them), each with a
*sealed twin* on the public ``results``: the same ``id``, match, deal and board, ``"sealed": true``, nothing of the
hands, the plays or the outcome. A display still learns that a deal ended. The public state and events of a
sealed match likewise carry no card and no outcome: a play says who played how many cards, not which; nobody's
going-out place, cards left, deal result, levels or match result. What stays public is that the board is being
played: whose turn, the timer, passes, tricks won, a 10-card report, pauses and the referee's actions (without
their cards). The desk publishes each board in full once it is released (``desk/boards/{round}/{board}``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .model import Effect, Publish
from .state import TableState

#: where a sealed match's full deal records and match result go (desk and referees only)
SEALED_TOPIC = "results/sealed"
#: a sealed twin keeps only these fields of a deal record or match result
TWIN_FIELDS = ("id", "format", "event", "table", "match", "deal", "board", "start", "profile", "teams", "deals")
#: said on public topics in place of what a sealed match withholds
SEALED_WORDS = "复式牌封存至全部牌桌打完 | duplicate board sealed until every table has played it"


def match_sealed(c: TableState) -> bool:
    """Whether the match in play (or just over) plays duplicate boards: its results are the desk's until
    released. Decided by the match's boards, or a deal started on a board by command."""
    return bool(c.boards) or (c.deal is not None and c.deal.board is not None)


def sealed_twin(message: dict[str, Any]) -> dict[str, Any]:
    """The public stand-in of a sealed deal record or match result: who, which deal and board, no outcome."""
    twin = {k: message[k] for k in TWIN_FIELDS if k in message}
    twin["sealed"] = True
    twin["note"] = SEALED_WORDS
    return twin


def sealed_copy(message: dict[str, Any]) -> dict[str, Any]:
    """The full message for ``results/sealed``, marked so that a journal's resend knows its topic."""
    return {**message, "sealed_copy": True}


#: event fields that would show a sealed board's cards or outcome (at any depth of the event)
SECRET_FIELDS = frozenset({"cards", "card", "reading", "readings", "candidates", "play", "undone", "hands", "hand",
                           "place", "finish", "winner", "up", "levels", "levels_after", "before", "after", "seen",
                           "tribute_from"})
#: events that are themselves the outcome (the order of going out is the finishing order)
SECRET_EVENTS = frozenset({"seat_out"})
#: events whose cards left the seat says aloud at the table (the 10-card report, 报牌), so public anyway
SAID_ALOUD = frozenset({"report", "report_due"})


def _scrubbed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrubbed(v) for k, v in value.items() if k not in SECRET_FIELDS}
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    return value


def sealed_event(payload: dict[str, Any]) -> dict[str, Any] | None:
    """A public event of a sealed match as it may go out: None for one that is itself an outcome; else without
    its cards and outcome (a play keeps how many cards it was), marked ``sealed``."""
    if payload.get("type") in SECRET_EVENTS:
        return None
    out = _scrubbed(payload)
    if payload.get("type") not in SAID_ALOUD:  # a play's cards left: 0 is a seat out, the finishing order
        out.pop("cards_left", None)
    if out == payload:
        return payload
    if isinstance(payload.get("cards"), list):
        out["count"] = len(payload["cards"])
    out["sealed"] = True
    return out


def seal_effects(c: TableState, effects: list[Effect]) -> list[Effect]:
    """The effects of one input with a sealed match's public events sealed (:func:`sealed_event`); everything
    else (state, which :func:`views.public_state` seals, the referees' topics, lights) as it was."""
    if not match_sealed(c):
        return effects
    out: list[Effect] = []
    for ef in effects:
        if isinstance(ef, Publish) and ef.topic == "events":
            payload = sealed_event(ef.payload)
            if payload is None:
                continue
            ef = replace(ef, payload=payload) if payload is not ef.payload else ef
        out.append(ef)
    return out
