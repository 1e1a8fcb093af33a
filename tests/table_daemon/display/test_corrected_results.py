"""A finished match the referees corrected at the desk, on the hall screens (a real headless Chromium, fed through
the display hub and its web server): the table page and the overview tile showed the table's own result (泰州队
胜 5:4, 场分 2:0) to the end of the day, as they took it from the table's retained state only. They now show the
desk's result, from the standings' ``matches`` (``ledger.round_matches``, ``hub.standings_summary``), once a
referee's correction set it: the corrected levels and winner, or the walk-over, or the void match."""

from __future__ import annotations

from typing import Any

from table_daemon.desk import ledger
from table_daemon.desk.standings import Team
from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer
from table_daemon.display.summaries import standings_summary

from .live_pages import UI, seats, table_state

TEAMS = {"NS": {"name": "泰州队", "players": {"N": "张三", "S": "李四"}},
         "EW": {"name": "扬州队", "players": {"E": "周九", "W": "吴十"}}}
PAIRINGS = [{"round": 2, "tbl": "T03", "ns": 1, "ew": 2, "method": "swiss"},
            {"round": 3, "tbl": "T03", "ns": 1, "ew": 2, "method": "swiss"},
            {"round": 3, "tbl": "T04", "ns": 3, "ew": 4, "method": "swiss"}]
#: what the tables sent: T03 NS won 5:4 (the result the referees corrected), T04 EW won 8:J
RESULTS = [{"id": "m3T03", "kind": "match", "match": 3, "tbl": "T03", "deal": None,
            "payload": {"type": "match_result", "match": 3, "levels": {"NS": "5", "EW": "4"}, "winner": "NS"}},
           {"id": "m3T04", "kind": "match", "match": 3, "tbl": "T04", "deal": None,
            "payload": {"type": "match_result", "match": 3, "levels": {"NS": "8", "EW": "J"}, "winner": "EW"}}]


def correction(round_no: int, action: str, **payload: Any) -> dict[str, Any]:
    return {"n": 1, "action": action, "target": {"round": round_no, "table": "T03"}, "payload": payload,
            "who": "裁判 A (批准 approved by 裁判 B)", "why": "记分错误", "at": "2026-12-07T15:00:00Z"}


def standings(*corrections: dict[str, Any], version: int = 1) -> dict[str, Any]:
    """The desk's public standings report, as ``ledger.report`` builds it from these results and corrections."""
    teams = [Team(1, "泰州队"), Team(2, "扬州队"), Team(3, "苏州队"), Team(4, "常州队")]
    return ledger.report(teams, PAIRINGS, RESULTS, list(corrections), {"scoring": "standard"}, lot_seed="s",
                         version=version, event="ev", computed_at="2026-12-07T15:00:01Z")


CORRECTED = correction(3, "change", levels={"NS": "4", "EW": "5"}, winner="EW", walkover=False)


def finished_t03(seq: int = 40) -> dict[str, Any]:
    """T03's retained state at the end of match 3 as the table gave it: 泰州队 (NS) won 5:4, 场分 2:0."""
    out = seats(S=0, E=0, N=0, W=4)
    for seat, place in (("S", 1), ("E", 2), ("N", 3)):
        out[seat]["place"] = place
    return {**table_state(
        seq, phase="match_over", match=3, turn=None, trick=[], deal=7, deals_played=7, seats=out, teams=TEAMS,
        levels={"NS": "5", "EW": "4"},
        last_result={"deal": 7, "finish": ["S", "E", "N"], "winner": "NS", "up": 1,
                     "levels_after": {"NS": "5", "EW": "4"}},
        match_result={"levels": {"NS": "5", "EW": "4"}, "winner": "NS", "match_points": {"NS": 2, "EW": 0},
                      "level_points": {"NS": 14, "EW": 12}}), "table": "T03"}


def test_the_standings_summary_gives_screens_each_match_as_counted() -> None:
    summary = standings_summary(standings(CORRECTED))
    t03 = next(m for m in summary["matches"] if m["table"] == "T03")
    assert {k: t03[k] for k in ("round", "levels", "winner", "walkover", "void", "corrected")} == {
        "round": 3, "levels": {"NS": "4", "EW": "5"}, "winner": "EW", "walkover": False, "void": False,
        "corrected": True}
    assert t03["match_points"] == {"NS": 0.0, "EW": 2.0}
    t04 = next(m for m in summary["matches"] if m["table"] == "T04")
    assert t04["corrected"] is False and t04["winner"] == "EW"
    # anything that is not a match is left out; no other field passes
    odd = standings_summary({"rows": [], "matches": [{"round": "3", "table": "T03"}, {"round": 3}, "x",
                                                     {"round": 3, "table": "T05", "levels": {"NS": "4"},
                                                      "hands": {"S": ["CJ"]}, "corrected": 1}]})
    assert odd["matches"] == [{"round": 3, "table": "T05", "levels": None, "winner": None, "walkover": False,
                               "void": False, "corrected": False}]


def test_a_corrected_match_shows_the_desks_result_on_the_table_page_and_the_overview(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T03", "state", finished_t03())
    # the referees corrected T03's match of round 2 (not the one it shows) and nothing of round 3 yet
    hub.set_standings(standings(correction(2, "change", levels={"NS": "2", "EW": "9"}, winner="EW", walkover=False)))
    table = browser.new_page(viewport={"width": 1920, "height": 1080})
    hall = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        table.goto(f"{web.url}/display/T03")
        table.wait_for_selector(".centre .result-words", timeout=UI)
        hall.goto(f"{web.url}/display/")
        hall.wait_for_selector("#finished #table-T03 .tile-now", timeout=UI)
        # the table's own result, while no correction of it is counted
        words = table.inner_text(".centre .result-words")
        assert "泰州队 胜 wins" in words and "泰州队 5 : 4 扬州队" in words and "裁判更正" not in words
        assert table.inner_text(".centre .match-points") == "场分 match points 2 : 0 · 级差分 level points 14 : 12"
        assert hall.inner_text("#table-T03 .tile-team[data-team='NS'] .lead") == "胜 wins"
        assert "泰州队 胜 wins" in hall.inner_text("#table-T03 .tile-now")

        # the referees' correction (NS=4, EW=5, EW wins) reaches the standings: the screens follow them
        hub.set_standings(standings(CORRECTED, version=2))
        table.wait_for_selector(".centre .result-words:has-text('裁判更正')", timeout=UI)
        words = table.inner_text(".centre .result-words")
        assert words == "比赛结束 · 扬州队 胜 wins — 泰州队 4 : 5 扬州队 · 裁判更正 corrected by the referees", words
        assert "扬州队 胜 wins" in table.inner_text(".lastdeal .match-words")
        assert "泰州队 胜" not in table.inner_text("body")
        assert table.inner_text(".centre .match-points").startswith("场分 match points 0 : 2")
        assert table.inner_text(".scoreboard .team-NS .lvn") == "4"
        assert table.inner_text(".scoreboard .team-EW .lvn") == "5"

        hall.wait_for_selector("#table-T03 .tile-now:has-text('裁判更正')", timeout=UI)
        assert hall.inner_text("#table-T03 .tile-team[data-team='EW'] .lead") == "胜 wins"
        assert hall.query_selector("#table-T03 .tile-team[data-team='NS'] .lead") is None
        assert hall.inner_text("#table-T03 .tile-team[data-team='NS'] .lvn") == "4"
        assert hall.inner_text("#table-T03 .tile-team[data-team='EW'] .lvn") == "5"
        assert "扬州队 胜 wins" in hall.inner_text("#table-T03 .tile-now")

        # a screen opened now gets the desk's result at once (the snapshot's standings)
        table.goto(f"{web.url}/display/T03")
        table.wait_for_selector(".centre .result-words:has-text('裁判更正')", timeout=UI)

        # a walk-over entered for a late pair, then the match voided
        hub.set_standings(standings(correction(3, "change", levels={"NS": "2", "EW": "2"}, winner="EW",
                                               walkover=True), version=3))
        table.wait_for_selector(".centre .result-words:has-text('弃权 walk-over')", timeout=UI)
        assert table.inner_text(".centre .result-words") == "比赛结束 · 扬州队 胜 wins — 弃权 walk-over"
        hall.wait_for_selector("#table-T03 .tile-now:has-text('弃权 walk-over')", timeout=UI)
        assert hall.inner_text("#table-T03 .tile-team[data-team='EW'] .lead") == "胜 wins"
        hub.set_standings(standings(correction(3, "void"), version=4))
        table.wait_for_selector(".centre .result-words:has-text('作废 void')", timeout=UI)
        assert "胜 wins" not in table.inner_text(".centre .result-words")
        assert table.query_selector(".centre .match-points") is None  # a void match counts no points
        hall.wait_for_selector("#table-T03 .tile-now:has-text('作废 void')", timeout=UI)
        assert hall.query_selector("#table-T03 .tile-team .lead") is None
    finally:
        table.close()
        hall.close()


def test_a_table_that_started_its_next_match_no_longer_shows_the_correction(served: tuple[Hub, WebServer],
                                                                           browser: Any) -> None:
    """The desk's entry is of a round: a table whose state is of another match (or not over) shows its own."""
    hub, web = served
    hub.set_standings(standings(CORRECTED))
    hub.feed("T03", "state", {**table_state(60, match=4, deal=1, teams=TEAMS), "table": "T03"})
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T03")
        page.wait_for_selector(".scoreboard .team-NS .lvn", timeout=UI)
        assert "裁判更正" not in page.inner_text("body")
        assert page.inner_text(".scoreboard .team-NS .lvn") == "5"  # the state's levels, of its match in play
    finally:
        page.close()
