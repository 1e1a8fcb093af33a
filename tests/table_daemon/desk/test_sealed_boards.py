"""The desk keeps a duplicate board's results from the public until every table of its round has played it
(rules §12), then releases the board: retained on ``desk/boards/{round}/{board}``, and into the public standings.

Before, each table's full deal record of a board went out on the public ``results`` and into the retained public
standings as soon as that table finished it, while the other table of the board had still to play it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from table_daemon.adapters.broker import LocalBroker
from table_daemon.desk import boards
from table_daemon.desk.service import Desk
from table_daemon.desk.standings import BoardPlay, Team, duplicate_scores
from table_daemon.desk.store import Store

from .spec_table import SpecTable

TEAMS = [Team(1, "红队"), Team(2, "蓝队"), Team(3, "金队"), Team(4, "银队")]


def _row(rid: str, tbl: str, kind: str, match: int, deal: int | None, **payload: Any) -> dict[str, Any]:
    return {"id": rid, "tbl": tbl, "kind": kind, "match": match, "deal": deal, "payload": payload}


def test_a_board_is_released_when_every_match_of_its_round_has_played_it_or_is_over() -> None:
    pairings = [{"round": 1, "tbl": "T01", "ns": 1, "ew": 2}, {"round": 1, "tbl": "T02", "ns": 3, "ew": 4},
                {"round": 1, "tbl": "T03", "ns": 5, "ew": None}]  # a bye plays no board
    t01 = [_row("e/T01/m1/d1", "T01", "deal", 1, 1, board=1), _row("e/T01/m1/d2", "T01", "deal", 1, 2, board=2)]
    assert boards.released(pairings, t01, []) == set()
    t02 = [_row("e/T02/m1/d1", "T02", "deal", 1, 1, board=1)]
    assert boards.released(pairings, t01 + t02, []) == {(1, 1)}
    # T02's match ended without board 2 (a forfeit): board 2 is played by every match that will play it
    assert boards.released(pairings, t01 + t02 + [_row("e/T02/m1", "T02", "match", 1, None)], []) == {(1, 1), (1, 2)}
    entered = [{"action": "change", "target": {"round": 1, "table": "T02"}}]
    assert boards.released(pairings, t01 + t02, entered) == {(1, 1), (1, 2)}
    # what the public standings may count: not board 2, not T01's match result (it played board 2)
    matches = [_row("e/T01/m1", "T01", "match", 1, None, levels={"NS": "5", "EW": "2"})]
    shown = boards.public_results(t01 + t02 + matches, {(1, 1)})
    assert [r["id"] for r in shown] == ["e/T01/m1/d1", "e/T02/m1/d1"]
    everything = t01 + t02 + matches
    assert boards.public_results(everything, {(1, 1), (1, 2)}) == everything
    # a referee's correction of T01's match (it played board 2, not released) would tell the board's result too
    fixes = [{"action": "change", "target": {"round": 1, "table": "T01"}, "payload": {"winner": "EW"}},
             {"action": "change", "target": {"round": 1, "table": "T02"}, "payload": {"winner": "NS"}},
             {"action": "withdraw", "target": {"team": 1}, "payload": {}}]
    assert boards.public_corrections(fixes, everything, {(1, 1)}) == fixes[1:]
    assert boards.public_corrections(fixes, everything, {(1, 1), (1, 2)}) == fixes


def test_the_desk_counts_sealed_results_and_releases_each_board_once_both_tables_played_it(
        mosquitto: LocalBroker, topic_root: Any, tmp_path: Path, mqtt_messages: Callable[..., Any]) -> None:
    event = topic_root.event
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, TEAMS, {"tables": ["T01", "T02"], "duplicate": True, "boards": [1, 2]}, "seed")
    store.add_round(1, "swiss", [("T01", 1, 2), ("T02", 3, 4)])
    base = f"guandan/v1/{event}"
    hall = mqtt_messages(mosquitto.url, f"{base}/desk/#")
    tables = {t: SpecTable(mosquitto.url, event, t) for t in ("T01", "T02")}
    desk = Desk(store, mosquitto.url, event)
    desk.start()
    try:
        deadline = time.monotonic() + 15
        while not all(p["accepted_at"] for p in store.pairings(1)) and time.monotonic() < deadline:
            time.sleep(0.05)
        for name, table in tables.items():
            table.state(phase="playing", match_active=True, match=1, start=f"{event}/{name}/m1/start", sealed=True,
                        levels=None, board=1)
        t01 = tables["T01"].deal_record(1, 1, ["N", "E", "S"], 2, board=1, sealed=True,
                                        levels_after={"NS": "4", "EW": "2"})
        tables["T01"].wait_acked([t01["id"]])
        assert [r["payload"]["hands"] for r in store.results("deal")] == [t01["hands"]]  # counted in full
        hall.wait_for(lambda m: any(x.topic.endswith("/desk/standings") and x.payload["version"] == store.revision
                                    for x in m))
        time.sleep(0.6)  # a release would go out with these standings
        assert not hall.on("/desk/boards/1/1")
        standings = hall.on("/desk/standings")[-1].payload
        assert standings["boards"] == []  # T02 has still to play board 1
        restarted = Desk(store, mosquitto.url, event, shared=False, client_id="desk-restarted")  # never started
        restarted.recall_charts()  # a desk restarted now draws no chart point of the sealed board
        assert not (restarted.hub.chart("T01") or {}).get("points")
        plain = {k: v for k, v in t01.items() if k not in ("board", "sealed_copy")}
        restarted.hub.recall("T01", [plain])  # what it would have drawn of a deal of random cards
        assert restarted.hub.chart("T01")["points"]  # type: ignore[index]

        # a stand-in on the public results alone is never counted (nor acknowledged)
        tables["T02"].publish("results", tables["T02"].message("deal_result", id=f"{event}/T02/m1/d9", match=1,
                                                               deal=9, board=2, sealed=True))
        t02 = tables["T02"].deal_record(1, 1, ["E", "W"], 3, board=1, sealed=True,
                                        levels_after={"NS": "2", "EW": "5"})
        tables["T02"].wait_acked([t02["id"]])
        released = hall.wait_for(lambda m: any(x.topic.endswith("/desk/boards/1/1") for x in m))
        (message,) = [x for x in released if x.topic.endswith("/desk/boards/1/1")]
        body = message.payload
        assert body["type"] == "board_released" and body["round"] == 1 and body["board"] == 1
        assert body["hands"] == t01["hands"]
        assert [(t["table"], t["ns"], t["ew"], t["winner"], t["up"]) for t in body["tables"]] == [
            ("T01", "红队", "蓝队", "NS", 2), ("T02", "金队", "银队", "EW", 3)]
        hall.wait_for(lambda m: any(x.topic.endswith("/desk/standings") and x.payload["boards"] for x in m))
        assert {d["table"] for d in hall.on("/desk/standings")[-1].payload["boards"]} == {"T01", "T02"}
        assert [r["id"] for r in store.results()] == [t01["id"], t02["id"]]
        # the level chart the desk keeps for screens started later takes the released board at once
        charts = hall.wait_for(lambda m: any(x.topic.endswith("/desk/charts/T02") and x.payload["points"] for x in m))
        (point,) = [x for x in charts if x.topic.endswith("/desk/charts/T02") and x.payload["points"]][-1].payload[
            "points"]
        assert point["board"] == 1 and point["winner"] == "EW" and point["up"] == 3
        # retained: a screen that joins later gets the released board
        late = mqtt_messages(mosquitto.url, f"{base}/desk/boards/#")
        late.wait_for(lambda m: any(x.retain and x.payload["board"] == 1 for x in m))
    finally:
        desk.stop()
        for t in tables.values():
            t.close()
        store.close()


def test_each_round_plays_the_next_boards_and_each_board_is_compared_within_its_round(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A walk-through: round 2 dealt boards 1-2 again, whose hands the desk had published after round 1; and
    the duplicate scores compared a pair's board with its own play of it in the round before."""
    from firmware_bridge.deal import new_deal
    from table_daemon.cli import main
    from table_daemon.desk.event import EventError, pair_round, start_match_command

    deals = tmp_path / "boards.jsonl"
    deals.write_text("".join(json.dumps(new_deal(b, level="2", leader="S").deal_line()) + "\n" for b in (1, 2, 3, 4)))
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("队名,队员1,队员2,单位\n" + "".join(f"{t.name},{t.name}甲,{t.name}乙,U{t.id}\n" for t in TEAMS),
                     encoding="utf-8")
    db = tmp_path / "d.sqlite"
    init = ["desk", "init", "--db", str(db), "--event", "dup", "--pairs", str(pairs), "--duplicate",
            "--deal-file", str(deals), "--boards", "1-2"]
    assert main([*init, "--match-end", "pass_a"]) == 2  # past board 2 a match would deal board 2 again
    assert "a match of 2 boards plays 2 deals" in capsys.readouterr().err
    assert main(init) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["match_end"] == {"method": "deals", "deals": 2}
    store = Store(db)
    try:
        (first, _) = pair_round(store, 1)
        assert start_match_command(store, first)["boards"] == [1, 2]
        for row in store.pairings(1):  # both matches of round 1 entered by a referee
            store.add_correction("ref", "test", "change", {"round": 1, "table": row["tbl"]},
                                 {"levels": {"NS": "5", "EW": "2"}, "winner": "NS", "walkover": False})
        (second, _) = pair_round(store, 2)
        assert start_match_command(store, second)["boards"] == [3, 4]
        for row in store.pairings(2):
            store.add_correction("ref", "test", "change", {"round": 2, "table": row["tbl"]},
                                 {"levels": {"NS": "5", "EW": "2"}, "winner": "NS", "walkover": False})
        with pytest.raises(EventError, match="lacks 5, 6"):  # the deal file holds no boards for round 3
            pair_round(store, 3)
    finally:
        store.close()
    assert boards.round_boards([1, 3, 5], 2) == [6, 8, 10]
    plays = [BoardPlay(1, "T01", 1, 2, 2, round=1), BoardPlay(1, "T02", 3, 4, -1, round=1),
             BoardPlay(1, "T01", 1, 3, 3, round=2), BoardPlay(1, "T02", 2, 4, 1, round=2),
             BoardPlay(1, "T03", 5, 6, 0, round=2)]
    totals, detail = duplicate_scores(plays)
    assert [(d["round"], d["table"], d["score_ns"], d["compared"]) for d in detail] == [
        (1, "T01", 3.0, 1), (1, "T02", -3.0, 1), (2, "T01", 2.5, 2), (2, "T02", -0.5, 2), (2, "T03", -2.0, 2)]
    assert totals[1] == 5.5 and totals[6] == 2.0


def test_a_released_board_says_when_its_last_result_came_not_when_the_desk_published_it() -> None:
    pairings = [{"round": 1, "tbl": "T01", "ns": 1, "ew": 2}, {"round": 1, "tbl": "T02", "ns": 3, "ew": 4}]
    rows = [{**_row("e/T01/m1/d1", "T01", "deal", 1, 1, board=1), "received_at": "2026-12-07T10:00:00Z"},
            {**_row("e/T02/m1/d1", "T02", "deal", 1, 1, board=1), "received_at": "2026-12-07T10:07:00Z"}]
    names = {t.id: t.name for t in TEAMS}
    once = boards.release_message("e", 1, 1, rows, pairings, names, "2026-12-07T11:00:00Z")
    again = boards.release_message("e", 1, 1, rows, pairings, names, "2026-12-07T12:00:00Z")  # after a restart
    assert once == again and once["released_at"] == "2026-12-07T10:07:00Z"
