"""A duplicate event's desk page: referees see each table's boards and their results as the desk holds them; a
desk page anyone may open (no referee password: read-only, as a hall may show it) tells nothing of a board the
desk has not released (rules §12).

Before, the open page served every result the desk held: a board finished at one table only was in its
standings, its pairings' results, its CSV and printed standings, and a misread alert listed the cards seen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.views import board_results
from table_daemon.desk.web import routes
from table_daemon.display.hub import Hub

TEAMS = [Team(1, "红队"), Team(2, "蓝队"), Team(3, "金队"), Team(4, "银队")]
HANDS = {"S": ["HR", "SB"], "E": ["C7"], "N": ["D9"], "W": ["SQ"]}


def _deal(table: str, deal: int, board: int, winner: str, up: int) -> dict[str, Any]:
    return {"type": "deal_result", "format": "guandan-deal/1", "id": f"ev/{table}/m1/d{deal}", "match": 1,
            "deal": deal, "board": board, "level": "2", "hands": HANDS, "actions": [],
            "result": {"finish": ["S", "E", "N"] if winner == "NS" else ["E", "S", "W"], "winner": winner, "up": up}}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """Round 1 of boards 1-2 at T01 and T02: T01 has played both boards (NS +2, then EW +1), T02 board 1 only
    (NS +3): board 1 is released, board 2 is not."""
    s = Store(tmp_path / "desk.sqlite")
    s.set_up("ev", TEAMS, {"tables": ["T01", "T02"], "duplicate": True, "boards": [1, 2]}, "seed")
    s.add_round(1, "swiss", [("T01", 1, 2), ("T02", 3, 4)])
    for table, deal, board, winner, up in (("T01", 1, 1, "NS", 2), ("T01", 2, 2, "EW", 1), ("T02", 1, 1, "NS", 3)):
        rec = _deal(table, deal, board, winner, up)
        s.add_result(rec["id"], table, "deal", 1, deal, rec)
    s.add_result("ev/T01/m1", "T01", "match", 1, None, {"type": "match_result", "id": "ev/T01/m1", "match": 1,
                                                        "levels": {"NS": "4", "EW": "3"}, "winner": "NS"})
    s.add_alert("T01", {"type": "misread", "code": "misread", "seat": "S", "deal": 2, "message": "请重新摆牌",
                        "evidence": {"seen": ["HR", "SB"], "frame": 7}})
    return s


def _get(pages: dict[str, Any], path: str, **q: str) -> Any:
    status, kind, body = pages[path]("", q)
    assert status == 200
    return json.loads(body) if "json" in kind else body.decode()


def test_referees_see_each_tables_boards_and_the_open_page_nothing_unreleased(store: Store) -> None:
    assert board_results(store, 1) == {"T01": [{"board": 1, "result_ns": 2}, {"board": 2, "result_ns": -1}],
                                       "T02": [{"board": 1, "result_ns": 3}]}
    referees = routes(store, Hub("ev"), referee=True)
    t01 = next(t for t in _get(referees, "/api/tables")["tables"] if t["table"] == "T01")
    assert t01["match"]["boards"] == [{"board": 1, "result_ns": 2}, {"board": 2, "result_ns": -1}]
    rows = {r["name"]: r for r in _get(referees, "/api/standings")["rows"]}
    assert rows["红队"]["played"] == 1  # the desk counts everything it holds

    public = routes(store, Hub("ev"), public=True)
    tables = _get(public, "/api/tables")["tables"]
    assert all("boards" not in (t.get("match") or {}) for t in tables)
    standings = _get(public, "/api/standings")
    rows = {r["name"]: r for r in standings["rows"]}
    assert rows["红队"]["played"] == 0 and rows["红队"]["match_points"] == 0  # T01's match played board 2
    assert [(b["board"], b["table"]) for b in standings["boards"]] == [(1, "T01"), (1, "T02")]
    assert all(p.get("result") is None for p in _get(public, "/api/pairings"))
    alert = _get(public, "/api/alerts")[0]
    assert alert["seen"] is None and alert["type"]  # what kind of alert, not which cards
    # nor on the tables' list, nor among what referees weigh (found by a helper: /api/tables listed the cards,
    # /api/rejects a sealed record the desk could not count, with its hands and outcome)
    store.reject("ev/T09/results/sealed", "unknown table", json.dumps(_deal("T09", 1, 2, "NS", 3)))
    store.propose("ref", "typo", "match", {"round": 1, "table": "T01", "winner": "EW"})
    assert all(a["seen"] is None for t in _get(public, "/api/tables")["tables"] for a in t["alerts"])
    assert _get(public, "/api/rejects") == [] and _get(public, "/api/proposals") == []
    assert "HR" in json.dumps(_get(referees, "/api/rejects")) and _get(referees, "/api/proposals")
    assert any(a["seen"] for t in _get(referees, "/api/tables")["tables"] for a in t["alerts"])
    standings_csv = _get(public, "/export/standings.csv").splitlines()
    red = next(line for line in standings_csv if "红队" in line)
    fields = red.split(",")  # 场分 0, played 0: T01's match is not counted yet; board 1 is (released): 复式 -1
    assert (fields[3], fields[7], fields[9]) == ("0", "0", "-1"), red
    pairings_csv = _get(public, "/export/pairings.csv")
    assert "T01,红队,蓝队,,,," in pairings_csv and "NS" not in pairings_csv.split("\n", 1)[1], pairings_csv
    assert "4,3,NS" in _get(routes(store, Hub("ev"), referee=True), "/export/pairings.csv")


def test_the_referees_desk_page_lists_a_sealed_tables_boards(store: Store, browser: Any) -> None:
    """A sealed table's state has no levels: the page showed "NS — / EW —". It lists its boards' results."""
    from table_daemon.desk.web import desk_server

    hub = Hub("ev")
    hub.feed("T01", "state", {"schema": 1, "table": "T01", "event": "ev", "epoch": "e", "seq": 5, "type": "state",
                              "phase": "playing", "match": 1, "start": "ev/T01/m1/start", "match_active": True,
                              "deal": 3, "deals_played": 2, "board": 2, "levels": None, "sealed": True})
    web = desk_server(store, hub, password="pw-123456")
    web.start()
    context = browser.new_context(http_credentials={"username": "referee", "password": "pw-123456"})
    page = context.new_page()
    try:
        page.goto(f"{web.url}/desk")
        page.wait_for_selector("#round-tables tbody tr", timeout=10_000)
        row = page.inner_text("#round-tables tbody tr:first-child")
        assert "已打 2 副 boards · 2 号牌 board 2 · B1 南北 NS +2, B2 东西 EW +1" in row, row
        assert "—" not in row
    finally:
        context.close()
        web.stop()
