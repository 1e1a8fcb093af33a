"""The knockout on the hall screens (a real headless Chromium, fed through the display hub and its web server):
the bracket on /standings, and each table's knockout match named on its page and its overview tile (决赛 · Final),
as a spectator of a final expects. Nothing showed the bracket before; a table's page did not say it was the
final."""

from __future__ import annotations

from typing import Any

from table_daemon.desk import ledger
from table_daemon.desk.standings import Team
from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer
from table_daemon.display.summaries import knockout_summary, standings_summary

from .live_pages import UI, table_state

TEAMS = [Team(1, "泰州队"), Team(2, "扬州队"), Team(3, "苏州队"), Team(4, "常州队")]
#: the semi-finals after three Swiss rounds: T01 1 v 4 (常州队 won it), T02 2 v 3 in play
PAIRINGS = [{"round": 4, "tbl": "T01", "ns": 1, "ew": 4, "method": "knockout"},
            {"round": 4, "tbl": "T02", "ns": 2, "ew": 3, "method": "knockout"}]
RESULTS = [{"id": "m4T01", "kind": "match", "match": 4, "tbl": "T01", "deal": None,
            "payload": {"type": "match_result", "match": 4, "levels": {"NS": "9", "EW": "A+"}, "winner": "EW"}}]


def standings() -> dict[str, Any]:
    return ledger.report(TEAMS, PAIRINGS, RESULTS, [], {"scoring": "standard"}, lot_seed="s", version=5,
                         event="ev", computed_at="2026-12-07T15:00:01Z", knockout_seeds=[1, 2, 3, 4])


def test_screens_get_the_bracket_by_name_without_team_ids() -> None:
    summary = standings_summary(standings())
    semis, finals = summary["knockout"]["rounds"]
    assert semis["round"] == 4 and finals["round"] == 5
    assert semis["matches"][0] == {"stage": "半决赛 · Semi-final", "places": [1, 4], "table": "T01",
                                   "teams": ["泰州队", "常州队"], "winner": 1, "bye": False, "waiting": [False, False]}
    assert [(m["stage"], m["teams"], m["waiting"]) for m in finals["matches"]] == [
        ("决赛 · Final", ["常州队", None], [False, True]), ("三四名决赛 · Third-place match", ["泰州队", None], [False, True])]
    assert standings_summary({"rows": []})["knockout"] is None
    # anything that is not a match is left out, and no other field passes
    odd = knockout_summary({"rows": [{"team": 7, "name": "甲"}], "knockout": {"rounds": [
        "x", {"round": "4", "matches": [{"teams": [7], "stage": "决赛 · Final"}, {"teams": [7, 8], "stage": 3},
                                        {"teams": [7, None], "stage": "决赛 · Final", "winner": 9, "seeds": [7],
                                         "waiting": "yes"}]}]}})
    assert odd == {"rounds": [{"round": None, "matches": [
        {"stage": "决赛 · Final", "places": None, "table": None, "teams": ["甲", None], "winner": None,
         "bye": False, "waiting": [False, False]}]}]}


def test_the_bracket_and_the_stage_of_each_table_on_the_screens(served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.set_standings(standings())
    hub.feed("T02", "state", {**table_state(10, match=4, deal=2), "table": "T02"})
    # T03 played round 3 and has no match in the knockout's round 4: its last result must not pass for round 4's
    hub.feed("T03", "state", {**table_state(11, match=3, deal=6, phase="match_over", turn=None, trick=[]),
                              "table": "T03"})
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{web.url}/standings")
        page.wait_for_selector("#bracket .ko-match", timeout=UI)
        boxes = [b.inner_text().split("\n") for b in page.query_selector_all("#bracket .ko-match")]
        assert boxes == [["半决赛 · Semi-final · 牌桌 T01 Table T01", "泰州队", "常州队"],
                         ["半决赛 · Semi-final · 牌桌 T02 Table T02", "扬州队", "苏州队"],
                         ["决赛 · Final", "常州队", "待定 TBD"], ["三四名决赛 · Third-place match", "泰州队", "待定 TBD"]]
        assert page.inner_text("#bracket .ko-team.won") == "常州队"  # its ✓ is drawn by the style sheet
        assert page.inner_text("#bracket .ko-team.lost") == "泰州队"
        assert [h.inner_text() for h in page.query_selector_all("#bracket .ko-round-head")] == [
            "第 4 轮 · Round 4", "第 5 轮 · Round 5"]
        assert page.query_selector("#bracket .ko-match.final") is not None

        page.goto(f"{web.url}/display/T02")
        page.wait_for_selector(".what .ko-stage", timeout=UI)
        assert page.inner_text(".what .ko-stage") == "淘汰赛 半决赛 · Semi-final"
        page.goto(f"{web.url}/display/")
        page.wait_for_selector("#table-T02 .tile-head .ko-stage", timeout=UI)
        assert page.inner_text("#table-T02 .tile-head .ko-stage") == "半决赛 · Semi-final"
        assert page.inner_text("#table-T03 .tile-head .round-note") == "第3轮 · Round 3 · 第4轮无比赛 · no match in round 4"
        assert page.query_selector("#table-T02 .round-note") is None

        # once the knockout is over, the standings say that its places rank its teams
        finals = [{"round": 5, "tbl": "T01", "ns": 4, "ew": 2, "method": "knockout"},  # 扬州队 won T02 as NS
                  {"round": 5, "tbl": "T02", "ns": 1, "ew": 3, "method": "knockout"}]
        done: list[dict[str, Any]] = [{"id": f"m{r}{t}", "kind": "match", "match": r, "tbl": t, "deal": None,
                 "payload": {"type": "match_result", "match": r, "levels": {"NS": "A+", "EW": "9"}, "winner": "NS"}}
                for r, t in ((4, "T02"), (5, "T01"), (5, "T02"))]
        hub.set_standings(ledger.report(TEAMS, PAIRINGS + finals, [*RESULTS, *done], [], {"scoring": "standard"},
                                        lot_seed="s", version=6, event="ev", computed_at="2026-12-07T16:00:01Z",
                                        knockout_seeds=[1, 2, 3, 4]))
        page.goto(f"{web.url}/standings")
        page.wait_for_selector("#standings .st-sub:has-text('淘汰赛名次')", timeout=UI)
        assert "前 4 名按淘汰赛名次 · places 1-4 by the knockout" in page.inner_text("#standings .st-sub")
        page.goto(f"{web.url}/display/")
        page.wait_for_selector("#table-T02 .tile-head .ko-stage", timeout=UI)

        # a Swiss round's table names no stage, and /standings draws no bracket
        hub.set_standings(ledger.report(TEAMS, [{**p, "method": "swiss"} for p in PAIRINGS], RESULTS, [],
                                        {"scoring": "standard"}, lot_seed="s", version=7, event="ev",
                                        computed_at="2026-12-07T15:00:02Z"))
        page.wait_for_selector("#table-T02 .tile-head .ko-stage", state="detached", timeout=UI)
        page.goto(f"{web.url}/standings")
        page.wait_for_selector("#standings table.standings", timeout=UI)
        assert not page.is_visible("#bracket")
    finally:
        page.close()
