"""The states, events and messages of a match of duplicate boards (rules §12) as the hall screens get them,
shared by the sealed-board tests of the hub, the pages and the commentary."""

from __future__ import annotations

import time
from typing import Any

from table_daemon.display.hub import Hub

from .live_pages import event, seats, table_state

PASSWORD = "裁判-referee-42"

NOTE = "复式牌封存至全部牌桌打完 | duplicate board sealed until every table has played it"
HANDS = {"N": ["HR", "BJ"], "E": ["S2"], "S": ["C3"], "W": ["D4"]}


def sealed_state(seq: int, **fields: Any) -> dict[str, Any]:
    """A table's public state in a match of duplicate boards (views.public_state of a sealed match): deal 3 on
    board 3 of match 2 just over."""
    out = table_state(seq, phase="deal_over", turn=None, trick=[], trick_passes=0, timer=None, sealed=True,
                      levels=None, level="5", seats=seats(S=0, N=0, E=4, W=6),
                      last_result={"deal": 3, "board": 3, "sealed": True})
    out.update(fields)
    return out


def twin(kind: str = "deal_result", **fields: Any) -> dict[str, Any]:
    """A sealed twin on the public ``results`` (sealing.sealed_twin), with the envelope."""
    return {"schema": 1, "epoch": "e1", "seq": 40, "ts": "2026-12-01T10:00:00.000Z", "type": kind,
            "id": "ev/T01/m2/d3", "event": "ev", "table": "T01", "match": 2, "deal": 3, "board": 3,
            "teams": {"NS": "红队 Red", "EW": "银队 Silver"}, "sealed": True, "note": NOTE, **fields}


def released(round_no: int = 2, board: int = 3, **rows: dict[str, Any]) -> dict[str, Any]:
    """The desk's ``desk/boards/{round}/{board}`` (boards.release_message): T01 went up 2 with a 双下 of NS."""
    tables = {"T01": {"id": "ev/T01/m2/d3", "deal": 3, "ns": "红队 Red", "ew": "银队 Silver", "level": "5",
                      "finish": ["S", "N", "E"], "winner": "NS", "up": 3, "levels_after": {"NS": "8", "EW": "3"}},
              "T02": {"id": "ev/T02/m2/d3", "deal": 3, "ns": "蓝队 Blue", "ew": "金队 Gold", "level": "5",
                      "finish": ["E", "S", "W"], "winner": "EW", "up": 1, "levels_after": {"NS": "5", "EW": "6"}}}
    tables.update(rows)
    return {"schema": 1, "type": "board_released", "event": "ev", "round": round_no, "board": board,
            "released_at": "2026-12-01T10:30:00.000+08:00", "hands": HANDS,
            "tables": [{"table": t, **row} for t, row in sorted(tables.items())]}


def points(hub: Hub, table: str) -> list[dict[str, Any]]:
    return list(hub.snapshot(table)["tables"][table]["chart"])


def sealed_seats(**reported: bool) -> dict[str, dict[str, Any]]:
    """The seats of a sealed match's state: no cards left, no place (the ``reported`` flag stays)."""
    return {s: {"team": "NS" if s in "NS" else "EW", "cards_left": None, "place": None,
                "reported": reported.get(s, False)} for s in "SENW"}


def sealed_play(seq: int, seat: str, count: int, n: int) -> dict[str, Any]:
    """A play event of a sealed match (sealing.sealed_event): the count of cards, no cards, no reading."""
    return event(seq, "play", deal=6, n=n, seat=seat, count=count, sealed=True)


def sealed_playing(seq: int, **fields: Any) -> dict[str, Any]:
    """Deal 6 of match 2, on board 2, in play: W laid 2 cards, E beat them with 4, N passed, S to play."""
    out = {"phase": "playing", "deal": 6, "board": 2, "deals_played": 5, "turn": "S",
           "timer": {"since": time.time(), "deadline": None}, "seats": sealed_seats(E=True),
           "trick": [{"seat": "W", "count": 2}, {"seat": "E", "count": 4}], "trick_passes": 1,
           "pending_declaration": None, "last_result": {"deal": 5, "board": 5, "sealed": True}}
    return sealed_state(seq, **{**out, **fields})


def feed_sealed_play(hub: Hub) -> None:
    hub.feed("T01", "events", event(10, "deal_started", deal=6, board=2))
    for seq, ev in enumerate([sealed_play(11, "S", 1, 1), event(12, "pass", deal=6, seat="E"),
                              event(13, "pass", deal=6, seat="N"), event(14, "pass", deal=6, seat="W"),
                              event(15, "trick_won", deal=6, seat="S"), sealed_play(16, "W", 2, 2),
                              event(17, "report", deal=6, seat="E", cards_left=9), sealed_play(18, "E", 4, 3),
                              event(19, "pass", deal=6, seat="N")], start=11):
        assert ev["seq"] == seq and hub.feed("T01", "events", ev)
    hub.feed("T01", "state", sealed_playing(20))


def backs(page: Any, selector: str) -> int:
    return int(page.eval_on_selector_all(f"{selector} svg.card.back", "els => els.length"))


def board_of_deal(deal: int, ns: str, ew: str) -> dict[str, Any]:
    """Board ``deal`` of round 2 released, played as deal ``deal`` at T01: NS went up to ``ns``, EW to ``ew``."""
    return released(board=deal, T01={"deal": deal, "finish": ["S", "N"], "winner": "NS", "up": 3,
                                     "levels_after": {"NS": ns, "EW": ew}},
                    T02={"deal": deal, "levels_after": {"NS": "2", "EW": "3"}})
