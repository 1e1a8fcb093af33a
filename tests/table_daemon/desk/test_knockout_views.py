"""The knockout's bracket at the desk: in the standings report, on the printed notice, on the desk page (a real
headless Chromium). An organiser's day found no view of the bracket: which match is the final, which the match
for third, who waits for whom could be read off the pairings only, round by round."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from table_daemon.desk import corrections, event
from table_daemon.desk.export import knockout_lines, print_page
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server, routes
from table_daemon.display.hub import Hub

CSV = "team,player1,player2,unit\n红队,a1,a2,X\n蓝队,b1,b2,X\n黄队,c1,c2,Y\n绿队,d1,d2,Y\n白队,e1,e2,Z\n"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p.csv").write_text(CSV, encoding="utf-8")
    s = Store(tmp_path / "d.sqlite")
    s.set_up("ev", event.read_pairs_csv(tmp_path / "p.csv"), {"tables": ["T01", "T02", "T03"]}, "seed")
    return s


def won(store: Store, round_no: int, table: str, winner: str) -> None:
    levels = {"NS": "A+", "EW": "6"} if winner == "NS" else {"NS": "6", "EW": "A+"}
    corrections.change_match(store, "ref", "entered", round_no, table, levels=levels, winner=winner)


def test_the_report_carries_the_bracket_from_the_first_knockout_round(store: Store) -> None:
    event.pair_round(store, 1, "swiss")
    for p in store.pairings(1):
        if p["ew"] is not None:
            won(store, 1, p["tbl"], "NS")
    assert "knockout" not in event.standings_report(store)  # no knockout yet: no bracket
    event.pair_round(store, 2, "knockout", top=4)
    seeds = store.meta("knockout_seeds")
    report = event.standings_report(store)
    semis, finals = report["knockout"]["rounds"]
    assert (semis["round"], semis["paired"], finals["round"], finals["paired"]) == (2, True, 3, False)
    assert [(m["stage"], m["table"], m["teams"]) for m in semis["matches"]] == [
        ("半决赛 · Semi-final", "T01", [seeds[0], seeds[3]]), ("半决赛 · Semi-final", "T02", [seeds[1], seeds[2]])]
    assert [m["stage"] for m in finals["matches"]] == ["决赛 · Final", "三四名决赛 · Third-place match"]
    won(store, 2, "T01", "EW")
    report = event.standings_report(store)
    final, third = report["knockout"]["rounds"][1]["matches"]
    assert final["teams"] == [seeds[3], None] and final["waiting"] == [False, True]
    assert third["teams"] == [seeds[0], None]
    assert event.standings_report(store, public=True)["knockout"] == report["knockout"]

    names = {t.id: t.name for t in store.teams()}
    lines = knockout_lines(report)
    assert lines[0] == {"round": "第2轮 Round 2", "stage": "半决赛 · Semi-final", "table": "T01",
                        "first": names[seeds[0]], "second": names[seeds[3]],
                        "outcome": f"{names[seeds[3]]} 胜 · won"}
    assert lines[1]["outcome"] == "进行中 · in play"
    assert lines[2] == {"round": "第3轮 Round 3 · 待编排 not paired yet", "stage": "决赛 · Final", "table": "",
                        "first": names[seeds[3]], "second": "待定 TBD",
                        "outcome": "待定 · waiting for an earlier match"}

    page = print_page(report, [])
    assert "淘汰赛对阵 · Knockout bracket" in page and '<td class="stage">三四名决赛 · Third-place match</td>' in page
    assert page.index('id="standings"') < page.index('id="knockout"')
    served = routes(store, Hub("ev"))["/api/knockout"]("", {})
    assert served[0] == 200 and json.loads(served[2]) == lines


def test_a_swiss_event_prints_and_serves_no_bracket(store: Store) -> None:
    event.pair_round(store, 1, "swiss")
    report = event.standings_report(store)
    assert knockout_lines(report) == [] and "Knockout" not in print_page(report, [])


def test_the_desk_page_shows_the_bracket(store: Store, browser: Any) -> None:
    event.pair_round(store, 1, "knockout")  # 5 teams: seeds 1-3 have byes in a bracket of 8
    seeds = store.meta("knockout_seeds")
    names = {t.id: t.name for t in store.teams()}
    match = next(p for p in store.pairings(1) if p["ew"] is not None)
    won(store, 1, match["tbl"], "NS")
    web = desk_server(store, Hub("ev"))
    web.start()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{web.url}/desk")
        page.wait_for_selector("#knockout tbody tr", timeout=10_000)
        assert page.is_visible("#knockout-part")
        rows = [[td.inner_text() for td in tr.query_selector_all("td")]
                for tr in page.query_selector_all("#knockout tbody tr")]
        assert rows[0] == ["第1轮 Round 1", "1/4决赛 · Quarter-final", "", names[seeds[0]], "轮空 bye",
                           f"{names[seeds[0]]} 轮空晋级 · goes on (bye)"]
        assert [names[match["ns"]], names[match["ew"]], f"{names[match['ns']]} 胜 · won"] in [r[3:] for r in rows]
        finals = [r for r in rows if r[1] == "决赛 · Final"]
        assert len(finals) == 1 and re.fullmatch(r"第3轮 Round 3 · 待编排 not paired yet", finals[0][0])
    finally:
        page.close()
        web.stop()


def test_a_finalist_withdrawing_before_the_final_waits_for_the_walkover(store: Store) -> None:
    """A knockout day's walk-through: a finalist withdrew with the final paired; the bracket named the other
    team champion at once (and its places ranked the standings) while the final still waited for a result, and
    the team was marked "withdrew after round 2", the round it never played."""
    from table_daemon.desk import ledger

    event.pair_round(store, 1, "knockout", top=4)
    for p in store.pairings(1):
        if p["ew"] is not None:
            won(store, 1, p["tbl"], "NS")
    final, third = event.pair_round(store, 2)
    won(store, 2, third["tbl"], "NS")  # the final alone is left
    corrections.withdraw(store, "ref", "家中有事", final["ns"])
    assert ledger.withdrawn(store.corrections())[final["ns"]]["after_round"] == 1
    report = event.standings_report(store)
    shown = report["knockout"]["rounds"][1]["matches"][0]
    assert shown["stage"] == "决赛 · Final" and shown["winner"] is None and shown["table"] == final["tbl"]
    assert "knockout_places" not in report
    won(store, 2, final["tbl"], "EW")  # the walk-over entered (here as a result) decides it
    report = event.standings_report(store)
    assert report["knockout"]["rounds"][1]["matches"][0]["winner"] == final["ew"]
    assert report["knockout_places"][0] == final["ew"]
    assert "前 4 名按淘汰赛名次排列 · places 1-4 by the knockout" in print_page(report, [])
    from table_daemon.display.summaries import standings_summary

    assert standings_summary(report)["knockout_ranked"] == 4
