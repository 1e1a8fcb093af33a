"""The play-level operations of ``guandan-table rules batch`` (cli.md): classify, beats, plays.

Each handler takes one parsed JSON line and returns the answer object; bad input raises a ``ValueError``
(the engine's typed errors are ValueErrors) whose message becomes the line's ``{"error": ...}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from guandan import Card, InvalidPlayError, Reading, beats, classify, legal_plays, parse_cards, parse_level

Op = Callable[[dict[str, Any]], dict[str, Any]]


def _field(line: dict[str, Any], name: str) -> Any:
    if name not in line:
        raise ValueError(f"missing field {name!r}")
    return line[name]


def _cards(line: dict[str, Any], name: str) -> list[Card]:
    value = _field(line, name)
    if not isinstance(value, list):
        raise ValueError(f"field {name!r} must be a list of card codes")
    return parse_cards(value)


def _level(line: dict[str, Any]) -> int:
    return parse_level(_field(line, "level"))


def _reading_of(cards: list[Card], level: int, declared: Any, what: str) -> Reading | None:
    """The declared reading (checked against what the cards admit) or the strongest; None if no combination."""
    readings = classify(cards, level)
    if declared is None:
        return readings[0] if readings else None
    wanted = Reading.from_json(declared)
    for reading in readings:
        if reading.same_as(wanted):
            return reading
    hint = ""
    if wanted.type in ("single", "pair") and wanted.rank >= 15 and any(c.suit == "H" and c.rank == level for c in cards):
        hint = " (a wild card never stands for a joker)"
    raise InvalidPlayError(f"{what} cards do not admit the declared reading {wanted}{hint}")


def op_classify(line: dict[str, Any]) -> dict[str, Any]:
    level = _level(line)
    return {"readings": [r.to_json() for r in classify(_cards(line, "cards"), level)]}


def op_beats(line: dict[str, Any]) -> dict[str, Any]:
    level = _level(line)
    play = _cards(line, "play")
    over = _cards(line, "over")
    over_reading = _reading_of(over, level, line.get("over_reading"), "over")
    if over_reading is None:
        raise InvalidPlayError("the cards in 'over' form no combination")
    if line.get("play_reading") is not None:
        play_reading = _reading_of(play, level, line["play_reading"], "play")
        return {"beats": play_reading is not None and beats(play_reading, over_reading, level)}
    return {"beats": any(beats(r, over_reading, level) for r in classify(play, level))}


def op_plays(line: dict[str, Any]) -> dict[str, Any]:
    level = _level(line)
    hand = _cards(line, "hand")
    over_cards = line.get("over")
    over: Reading | None = None
    if over_cards is not None:
        if not isinstance(over_cards, list):
            raise ValueError("field 'over' must be a list of card codes or null")
        over = _reading_of(parse_cards(over_cards), level, line.get("over_reading"), "over")
        if over is None:
            raise InvalidPlayError("the cards in 'over' form no combination")
    return {"plays": [play.to_json() for play in legal_plays(hand, level, over)]}


PLAY_OPS: dict[str, Op] = {"classify": op_classify, "beats": op_beats, "plays": op_plays}
