"""What the hall page tests share: a table's public state and events as mqtt-api.md gives them, and measures of
what a page draws (the hub and its web server are conftest's ``served``)."""

from __future__ import annotations

import time
from typing import Any

UI = 10_000  # ms a page may take to show what it was sent
TEAMS = {"NS": {"name": "红队 Red", "players": {"N": "张三", "S": "李四"}},
         "EW": {"name": "银队 Silver", "players": {"E": "周九", "W": "吴十"}}}
PAIR_9 = {"seat": "W", "cards": ["S9", "H9"], "reading": {"type": "pair", "rank": "9", "size": 2}}
BOMB_10 = {"seat": "E", "cards": ["ST", "HT", "CT", "DT"], "reading": {"type": "bomb", "rank": "T", "size": 4}}


def seats(**left: int) -> dict[str, dict[str, Any]]:
    return {s: {"team": "NS" if s in "NS" else "EW", "cards_left": left.get(s, 20), "place": None, "reported": False}
            for s in "SENW"}


def table_state(seq: int, **fields: Any) -> dict[str, Any]:
    """A table's public state as mqtt-api.md gives it (deal 3 of match 2, NS on 5 playing their level)."""
    out: dict[str, Any] = {
        "schema": 1, "table": "T01", "event": "ev", "epoch": "e1", "seq": seq, "type": "state", "phase": "playing",
        "match": 2, "deal": 3, "deals_played": 2, "teams": TEAMS, "levels": {"NS": "5", "EW": "3"}, "level": "5",
        "played": "NS", "seats": seats(), "turn": "W", "timer": {"since": time.time(), "deadline": None},
        "trick": [PAIR_9, BOMB_10], "trick_passes": 1, "tribute": None, "match_clock": None,
        "last_result": {"deal": 2, "finish": ["S", "E", "N"], "winner": "NS", "up": 2,
                        "levels_after": {"NS": "5", "EW": "3"}},
        "match_result": None, "match_end": {"method": "deals", "deals": 8},
    }
    out.update(fields)
    return out


def event(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"schema": 1, "table": "T01", "event": "ev", "epoch": "e1", "seq": seq, "type": kind, **fields}


def opacity(page: Any, selector: str) -> float:
    return float(page.evaluate(f"parseFloat(getComputedStyle(document.querySelector({selector!r})).opacity)"))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and a["y"] < b["y"] + b["height"]
            and b["y"] < a["y"] + a["height"])
