"""Which result counts for which pairing (desk/rounds.py): only the match the table accepted from the desk."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_daemon.desk import rounds


def _why_not_counted(event: str, table: str, rid: str, match: int | None, start: Any,
                     pairing: Mapping[str, Any] | None) -> str:
    """The reason a result does not count (for a result that does not)."""
    why = rounds.why_not_counted(event, table, rid, match, start, pairing)
    assert why is not None
    return why


PAIRING = {"round": 2, "tbl": "T01", "ns": 3, "ew": 5, "accepted_at": None, "sent_at": "x", "last_error": None}


def test_a_result_counts_only_for_the_desks_start_at_its_own_table() -> None:
    start = rounds.start_id("ev", "T01", 2)
    assert start == "ev/T01/m2/start" and rounds.parse_start_id(start) == ("T01", 2)
    assert rounds.why_not_counted("ev", "T01", "ev/T01/m2", 2, start, PAIRING) is None
    # a T02 publishing an id of T01
    assert "does not name the table T02" in _why_not_counted("ev", "T02", "ev/T01/m2", 2, start, PAIRING)
    # the table's own match (no start) and another start
    assert "did not play it as the desk's match (start none" in _why_not_counted(
        "ev", "T01", "ev/T01/m2", 2, None, PAIRING)
    assert "ev/T01/m1/start" in _why_not_counted("ev", "T01", "ev/T01/m2", 2, "ev/T01/m1/start", PAIRING)
    assert "has no match at table T01" in _why_not_counted("ev", "T01", "ev/T01/m3", 3, None, None)
    # a table that does not say its start counts once it accepted the start
    assert "has not accepted" in _why_not_counted("ev", "T01", "ev/T01/m2", 2, rounds.UNSAID, PAIRING)
    accepted = {**PAIRING, "accepted_at": "2026-12-01T10:00:00Z"}
    assert rounds.why_not_counted("ev", "T01", "ev/T01/m2", 2, rounds.UNSAID, accepted) is None


def test_progress_of_a_pairing() -> None:
    start = rounds.start_id("ev", "T01", 2)
    assert rounds.progress({**PAIRING, "sent_at": None}, None, False, "ev")["step"] == "waiting"
    assert rounds.progress(PAIRING, None, False, "ev")["step"] == "sent"
    busy = rounds.progress({**PAIRING, "last_error": "a deal is in progress"}, None, False, "ev")
    assert busy["step"] == "busy" and busy["refused"] == "a deal is in progress"
    accepted = {**PAIRING, "accepted_at": "t"}
    assert rounds.progress(accepted, {"state": {"start": None, "phase": "playing"}}, False, "ev")["step"] == "accepted"
    live = {"state": {"start": start, "phase": "playing", "match_active": True, "deals_played": 1}}
    assert rounds.progress(accepted, live, False, "ev")["deals_played"] == 1
    assert rounds.progress(accepted, live, False, "ev")["step"] == "playing"
    over = {"state": {"start": start, "phase": "match_over", "match_active": False}}
    assert rounds.progress(accepted, over, False, "ev")["step"] == "finished"
    assert rounds.progress(accepted, over, True, "ev")["step"] == "result_in"
    # a table that is offline: what its match waits for is the table (a start sent to it is only unanswered)
    gone = rounds.progress(PAIRING, None, False, "ev", offline=True)
    # not "its results wait in its journal" (a knockout day's walk-through): it has no result, its start waits
    assert gone["step"] == "sent" and gone["refused"] == rounds.OFFLINE_NOT_STARTED and gone["offline"]
    assert rounds.progress(accepted, live, False, "ev", offline=True)["refused"] == rounds.OFFLINE
    assert rounds.progress(accepted, over, True, "ev", offline=True)["refused"] is None  # its result is in
