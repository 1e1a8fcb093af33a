"""A head referee's walk-through of the desk: earlier rounds' results in the pairings (page, CSV, ``desk pair``'s
rows), a referee's correction over the table's result; the tables' phases and the corrections in words; a
paused match shown as paused; no "resend start" for a match that is over."""

from __future__ import annotations

import base64
import csv
import io
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from table_daemon.desk import corrections, export, rounds
from table_daemon.desk.standings import Outcome, Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server
from table_daemon.display.hub import Hub

PASSWORD = "walk-through-secret"
TEAMS = [Team(1, "红队", ("甲", "乙"), "U1"), Team(2, "蓝队", ("丙", "丁"), "U2"),
         Team(3, "金队", ("戊", "己"), "U3"), Team(4, "银队", ("庚", "辛"), "U4")]
PAIRING = {"round": 2, "tbl": "T01", "ns": 1, "ew": 2, "sent_at": "t", "accepted_at": "t", "attempts": 1}


def test_a_paused_match_is_paused_not_playing() -> None:
    start = rounds.start_id("ev", "T01", 2)
    paused = {"state": {"start": start, "phase": "paused", "match_active": True}}
    got = rounds.progress(PAIRING, paused, False, "ev")
    assert got["step"] == "paused" and got["words"] == rounds.STEPS["paused"]
    assert "暂停" in got["words"] and "paused" in got["words"]
    playing = {"state": {"start": start, "phase": "playing", "match_active": True}}
    assert rounds.progress(PAIRING, playing, False, "ev")["step"] == "playing"
    # another start's pause, or a result in, is not this match paused
    other = {"state": {"start": "ev/T01/m1/start", "phase": "paused", "match_active": True}}
    assert rounds.progress(PAIRING, other, False, "ev")["step"] == "accepted"
    assert rounds.progress(PAIRING, paused, True, "ev")["step"] == "result_in"


def test_phase_words() -> None:
    assert rounds.phase_words("deal_over") == "本副结束 deal over"
    assert rounds.phase_words("match_over") == "比赛结束 match over"
    assert rounds.phase_words("tribute") == "进贡 tribute"
    assert rounds.phase_words(None) == "" and rounds.phase_words("odd") == "odd"


def test_match_results_in_the_pairing_rows_and_csv() -> None:
    outcomes = [Outcome(1, "T01", 1, 2, {"NS": "A+", "EW": "5"}, "NS"),
                Outcome(1, "T02", 3, 4, {"NS": "7", "EW": "7"}, None),
                Outcome(1, "T03", 5, None),
                Outcome(2, "T01", 1, 3, void=True)]
    payloads = {(1, "T01"): {"levels": {"NS": "A+", "EW": "5"}, "winner": "NS",
                             "penalties": {"EW": {"warning": 1}}}}
    results = export.match_results(outcomes, payloads)
    assert (1, "T03") not in results  # a bye has no match result
    assert results[(1, "T01")]["ruling"] == rounds.ruling_words(payloads[(1, "T01")])
    pairings = [{"round": 1, "tbl": "T01", "ns": 1, "ew": 2, "method": "swiss"},
                {"round": 1, "tbl": "T02", "ns": 3, "ew": 4, "method": "swiss"},
                {"round": 2, "tbl": "T01", "ns": 1, "ew": 3, "method": "swiss"},
                {"round": 2, "tbl": "T02", "ns": 2, "ew": 4, "method": "swiss"}]
    rows = export.pairing_rows(pairings, {t.id: t.name for t in TEAMS}, None, results)
    assert rows[0]["result"]["winner"] == "NS" and rows[0]["result"]["levels"] == {"NS": "A+", "EW": "5"}
    assert rows[3]["result"] is None  # no result yet
    assert export.pairing_rows(pairings[:1], {})[0]["result"] is None  # `desk pair`: the key is always there
    table = list(csv.reader(io.StringIO(export.pairings_csv(rows))))
    assert table[0][4:] == ["南北级 NS level", "东西级 EW level", "胜方 Winner", "裁判判罚 Ruling"]
    assert table[1][4:7] == ["A+", "5", "NS"] and "警告 warning" in table[1][7]
    assert table[2][4:7] == ["7", "7", "平局 draw"]
    assert table[3][6] == "作废 void"
    assert table[4][4:] == ["", "", "", ""]


@pytest.fixture
def desk(tmp_path: Path) -> Any:
    """Round 1 done (T01 as the table sent it, with a penalty; T02 corrected by a referee), round 2 under way:
    T01's result in, T02 paused by a referee."""
    store = Store(tmp_path / "desk.sqlite")
    store.set_up("ev", TEAMS, {"tables": ["T01", "T02"], "timezone": "Asia/Shanghai"}, "seed")
    store.add_round(1, "swiss", [("T01", 1, 2), ("T02", 3, 4)])
    for t in ("T01", "T02"):
        store.mark_sent(1, t)
    store.add_result("ev/T01/m1", "T01", "match", 1, None,
                     {"id": "ev/T01/m1", "type": "match_result", "match": 1, "levels": {"NS": "A+", "EW": "5"},
                      "winner": "NS", "penalties": {"EW": {"warning": 1}}})
    store.add_result("ev/T02/m1", "T02", "match", 1, None,
                     {"id": "ev/T02/m1", "type": "match_result", "match": 1, "levels": {"NS": "3", "EW": "A+"},
                      "winner": "EW"})
    corrections.change_match(store, "王裁判", "scoresheet", 1, "T02", levels={"NS": "A+", "EW": "6"}, winner="NS")
    corrections.penalty(store, "王裁判", "slow play", 4, "violation")
    store.add_round(2, "swiss", [("T01", 1, 3), ("T02", 2, 4)])
    for t in ("T01", "T02"):
        store.mark_sent(2, t)
    store.add_result("ev/T01/m2", "T01", "match", 2, None,
                     {"id": "ev/T01/m2", "type": "match_result", "match": 2, "levels": {"NS": "9", "EW": "A+"},
                      "winner": "EW"})
    hub = Hub("ev")
    hub.feed("T01", "state", {"phase": "match_over", "start": rounds.start_id("ev", "T01", 2),
                              "match_active": False})
    hub.feed("T02", "state", {"phase": "paused", "start": rounds.start_id("ev", "T02", 2), "match_active": True,
                              "deal": 3, "deals_played": 2, "levels": {"NS": "4", "EW": "3"}})
    web = desk_server(store, hub, password=PASSWORD)
    web.start()
    try:
        yield web
    finally:
        web.stop()
        store.close()


def fetch(web: Any, path: str) -> bytes:
    auth = "Basic " + base64.b64encode(f"referee:{PASSWORD}".encode()).decode()
    req = urllib.request.Request(web.url + path, headers={"Authorization": auth})
    return bytes(urllib.request.urlopen(req, timeout=5).read())


def test_the_exports_give_each_match_its_counted_result(desk: Any) -> None:
    pairs = json.loads(fetch(desk, "/api/pairings"))
    by = {(p["round"], p["table"]): p["result"] for p in pairs}
    assert by[(1, "T01")]["levels"] == {"NS": "A+", "EW": "5"} and by[(1, "T01")]["winner"] == "NS"
    assert "警告 warning" in by[(1, "T01")]["ruling"]
    # the referee's correction stands over the table's result, as in the standings
    assert by[(1, "T02")]["levels"] == {"NS": "A+", "EW": "6"} and by[(1, "T02")]["winner"] == "NS"
    assert by[(2, "T02")] is None
    rows = list(csv.reader(io.StringIO(fetch(desk, "/export/pairings.csv").decode("utf-8-sig"))))
    assert rows[0][4:] == ["南北级 NS level", "东西级 EW level", "胜方 Winner", "裁判判罚 Ruling"]
    assert rows[2][:7] == ["1", "T02", "金队", "银队", "A+", "6", "NS"]
    assert rows[3][4:7] == ["9", "A+", "EW"] and rows[4][4:] == ["", "", "", ""]
    cors = json.loads(fetch(desk, "/api/corrections"))
    assert [(c["action_words"], c["target_words"]) for c in cors] == [
        ("更正成绩 change", "第1轮 T02 round 1"), ("判罚 penalty", "队 银队 team 4")]


def test_the_desk_page_in_words(desk: Any, browser: Any) -> None:
    context = browser.new_context(http_credentials={"username": "referee", "password": PASSWORD})
    page = context.new_page()
    try:
        page.goto(desk.url + "/desk")
        page.wait_for_selector("#round[data-round='2']")
        page.wait_for_selector("#round-tables tr[data-key='T02'] .step-paused")
        assert "暂停中" in page.inner_text("#round-tables tr[data-key='T02'] .step")
        # a match that is over is not started again; one paused still may be
        page.wait_for_selector("#round-tables tr[data-key='T01'] .step-result_in")
        assert page.query_selector("#round-tables tr[data-key='T01'] button.resend") is None
        assert page.query_selector("#round-tables tr[data-key='T02'] button.resend") is not None
        tables = page.inner_text("#tables tbody")
        assert "暂停 paused" in tables and "比赛结束 match over" in tables
        assert "match_over" not in tables
        corrections_text = page.inner_text("#corrections tbody")
        assert "更正成绩 change" in corrections_text and "第1轮 T02" in corrections_text
        assert "判罚 penalty" in corrections_text and "银队" in corrections_text
        assert "{" not in corrections_text
        headers = page.inner_text("#pairings thead")
        assert "成绩 Result" in headers
        first = page.inner_text("#pairings tbody tr:nth-child(2)")
        assert "NS A+ / EW 6" in first and "胜方 winner NS" in first
        assert "警告 warning" in page.inner_text("#pairings tbody tr:nth-child(1)")
    finally:
        context.close()
