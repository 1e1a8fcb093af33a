"""Duplicate boards on the hall screens (rules §12): a sealed match's twins and events add nothing to the level
chart and crash nothing, a board the desk releases (``desk/boards/{round}/{board}``) reaches the hub, its
chart points and every screen, and a table's page says "sealed" until then and the table's result after
(a real headless Chromium, and a real Mosquitto for the stand-alone display server)."""

from __future__ import annotations

import json
import logging
import queue
import time
import urllib.request
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from table_daemon.adapters.broker import LocalBroker
from table_daemon.display import hub as hub_module
from table_daemon.display.commentary import Commentary
from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer
from table_daemon.display.service import DisplayService

from .live_pages import UI, event, seats, table_state

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


# -- the hub ---------------------------------------------------------------------------------------------------------
def test_sealed_twins_and_events_add_no_chart_point() -> None:
    hub = Hub("ev")
    hub.feed("T01", "state", sealed_state(30))
    assert hub.feed("T01", "events", event(31, "deal_over", deal=3, board=3, sealed=True, note=NOTE))
    assert hub.feed("T01", "results", twin())
    assert hub.feed("T01", "events", event(32, "match_over", match=2, sealed=True, note=NOTE))
    assert hub.feed("T01", "results", twin("match_result", id="ev/T01/m2", deals=8))
    assert hub.feed("T01", "state", sealed_state(33, phase="match_over", match_result=twin("match_result")))
    tab = hub.snapshot("T01")["tables"]["T01"]
    assert tab["chart"] == []
    assert tab["last_result"]["sealed"] is True and tab["last_result"]["note"] == NOTE
    assert "levels_after" not in tab["last_result"] and "finish" not in tab["last_result"]
    assert hub.chart("T01") == {"schema": 1, "type": "chart", "event": "ev", "table": "T01", "match": 2,
                                "points": []}
    # a restarted desk recalls its stored records: a duplicate board's (sealed twin, full copy) stays out of the
    # chart until the board's release
    full = {"id": "ev/T01/m2/d2", "match": 2, "deal": 2, "board": 2, "sealed_copy": True,
            "result": {"finish": ["S", "N"], "winner": "NS", "up": 3, "levels_after": {"NS": "8", "EW": "2"}}}
    assert hub.recall("T01", [full, twin()]) == 0 and points(hub, "T01") == []


def test_a_released_board_adds_each_tables_point_and_reaches_every_screen() -> None:
    hub = Hub("ev")
    hub.feed("T01", "state", sealed_state(30))
    hub.feed("T02", "state", sealed_state(30, table="T02"))
    hub.feed("T03", "state", sealed_state(30, table="T03", match=1))  # another round: none of its points
    every, one = hub.subscribe(), hub.subscribe("T02")
    hub.release_board(released())
    assert points(hub, "T01") == [{"deal": 3, "board": 3, "match": 2, "finish": ["S", "N", "E"], "winner": "NS",
                                   "up": 3, "levels": {"NS": "8", "EW": "3"}}]
    assert [p["levels"] for p in points(hub, "T02")] == [{"NS": "5", "EW": "6"}]
    assert points(hub, "T03") == []
    for listener in (every, one):
        kind, table, data, frame = listener.get_nowait()
        assert (kind, table, data["round"], data["board"]) == ("board", "", 2, 3)
        assert frame.startswith(b"event: board\n") and b"HR" not in frame  # the hands stay off the screens
    # a page that connects now gets the board in its snapshot; one table's page only its own result
    snap = hub.snapshot()
    assert [(b["round"], b["board"]) for b in snap["boards"]] == [(2, 3)]
    assert "hands" not in snap["boards"][0] and "HR" not in json.dumps(snap)
    assert [r["table"] for r in hub.snapshot("T02")["boards"][0]["tables"]] == ["T02"]
    assert hub.snapshot("T09")["boards"] == []
    assert [b["board"] for b in hub.snapshot(brief=True)["boards"]] == [3]  # of a round being played
    # released again (the desk reconnected): one board, its points replaced
    hub.release_board(released())
    assert len(hub.boards()) == 1 and len(points(hub, "T01")) == 1
    # a table whose state comes after the release (a server started later) takes its point with the state
    late = Hub("ev")
    late.release_board(released())
    assert late.snapshot()["tables"] == {}
    late.feed("T02", "state", sealed_state(30, table="T02"))
    assert [p["winner"] for p in points(late, "T02")] == ["EW"]
    # the desk publishes the chart with the released point (desk/charts/{table})
    chart = hub.chart("T01")
    assert chart is not None and [p["board"] for p in chart["points"]] == [3]


def test_malformed_releases_are_ignored(caplog: pytest.LogCaptureFixture) -> None:
    hub = Hub("ev")
    hub.feed("T01", "state", sealed_state(30))
    listener = hub.subscribe()
    bad: list[Any] = [
        {"type": "standings", "round": 2, "board": 3, "tables": []},
        {**released(), "round": "2"}, {**released(), "board": True}, {**released(), "round": 0},
        {**released(), "tables": None}, {**released(), "tables": [{"deal": 3}]}, {**released(), "tables": ["T01"]},
        {**released(), "event": "another"}, [], None,
    ]
    with caplog.at_level(logging.WARNING, logger="table_daemon.display.hub"):
        for message in bad:
            hub.release_board(message)
    assert len([r for r in caplog.records if "ignored a released board" in r.getMessage()]) == len(bad)
    assert hub.boards() == [] and points(hub, "T01") == [] and listener.empty()
    # a row without levels after the deal (a table's record the desk could not read) is kept, no point made
    hub.release_board(released(T01={"deal": 3, "finish": None, "levels_after": None}))
    assert len(hub.boards()) == 1 and points(hub, "T01") == []


def test_the_hub_keeps_the_newest_released_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub_module, "BOARDS_KEPT", 3)
    hub = Hub("ev")
    for board in range(1, 6):
        hub.release_board(released(board=board, T01={"deal": board, "levels_after": {"NS": "3", "EW": "2"}}))
    assert [b["board"] for b in hub.boards()] == [3, 4, 5]
    hub.feed("T01", "state", sealed_state(30))  # the points of the boards no longer kept are gone with them
    assert [p["deal"] for p in points(hub, "T01")] == [3, 4, 5]


def test_the_display_server_takes_the_desks_released_boards(mosquitto: LocalBroker, topic_root: Any) -> None:
    service = DisplayService(mosquitto.url, topic_root.event)
    message = {**released(), "event": topic_root.event}
    publisher = mqtt.Client(CallbackAPIVersion.VERSION2)
    publisher.connect(mosquitto.host, mosquitto.port)
    publisher.loop_start()
    base = f"guandan/v1/{topic_root.event}"
    try:
        publisher.publish(f"{base}/desk/boards/2/3", json.dumps(message), qos=1, retain=True).wait_for_publish(5)
        publisher.publish(f"{base}/T01/state", json.dumps(sealed_state(30)), qos=1, retain=True).wait_for_publish(5)
        service.start()
        deadline = time.monotonic() + 10
        live: dict[str, Any] = {}
        while time.monotonic() < deadline:
            live = json.loads(urllib.request.urlopen(f"{service.web.url}/api/live?table=T01", timeout=5).read())
            if live["boards"] and live["tables"].get("T01", {}).get("chart"):
                break
            time.sleep(0.05)
        assert [(b["round"], b["board"]) for b in live["boards"]] == [(2, 3)]
        assert live["tables"]["T01"]["chart"][0]["levels"] == {"NS": "8", "EW": "3"}
        assert "HR" not in json.dumps(live)
        # a board released while the server runs reaches an open stream
        listener = service.hub.subscribe()
        later = {**released(board=4, T01={"deal": 4}), "event": topic_root.event}
        publisher.publish(f"{base}/desk/boards/2/4", json.dumps(later), qos=1, retain=True).wait_for_publish(5)
        kind, _, data, _ = listener.get(timeout=10)
        while kind != "board":
            kind, _, data, _ = listener.get(timeout=10)
        assert data["board"] == 4
    except queue.Empty:
        pytest.fail("the released board did not reach the display server")
    finally:
        service.stop()
        for topic in ("desk/boards/2/3", "desk/boards/2/4", "T01/state"):  # clear the retained messages
            publisher.publish(f"{base}/{topic}", b"", qos=1, retain=True).wait_for_publish(5)
        publisher.loop_stop()
        publisher.disconnect()


# -- a table's page --------------------------------------------------------------------------------------------------
def test_a_sealed_table_page_says_sealed_then_shows_the_released_result(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "events", event(20, "deal_started", deal=3))
    hub.feed("T01", "events", event(29, "deal_over", deal=3, board=3, sealed=True, note=NOTE))
    hub.feed("T01", "state", sealed_state(30))
    hub.feed("T01", "results", twin())
    hub.feed("T02", "state", sealed_state(30, table="T02", last_result={"deal": 3, "board": 3, "sealed": True}))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".lastdeal .sealed-note", timeout=UI)
        last = page.inner_text(".lastdeal")
        assert "复式牌 第3副 Board 3 · 第3局 Deal 3 · 封存 sealed" in last and "复式牌封存至全部牌桌打完" in last
        assert "上游" not in last and "升" not in last and "本场尚无结果" not in last
        assert page.inner_text(".centre .result-words") == "复式牌 第3副 Board 3 · 第3局 Deal 3 · 封存 sealed"
        # where the levels would be: sealed, no level and no "—"
        assert [t.strip() for t in page.eval_on_selector_all(".scoreboard .lvn", "els => els.map(e => e.textContent)")] \
            == ["封存", "封存"]
        assert page.get_attribute(".chart", "data-points") == "0"
        # the overview's tile says the same
        tile = browser.new_page(viewport={"width": 1920, "height": 1080})
        tile.on("pageerror", lambda exc: errors.append(str(exc)))
        tile.goto(f"{web.url}/display/")
        tile.wait_for_selector("#table-T01 .tile-now:has-text('封存')", timeout=UI)
        assert tile.inner_text("#table-T01 .tile-team[data-team='NS'] .lvn") == "封存"

        # the desk releases board 3: the page shows its table's result of it, not another table's
        hub.release_board(released())
        page.wait_for_selector(".lastdeal .result-words:has-text('上游')", timeout=UI)
        last = page.inner_text(".lastdeal")
        assert "复式牌 第3副 Board 3" in last and "双下 double-down" in last and "红队 Red 升3级 up 3" in last
        assert "封存" not in last and "升1级" not in last and "EW" not in page.inner_text(".lastdeal .result-words")
        assert "上游 1st 南 S" in page.inner_text(".centre .result-words")
        assert page.get_attribute(".chart", "data-points") == "1"
        tile.wait_for_selector("#table-T01 .tile-now:has-text('上游')", timeout=UI)
        tile.wait_for_selector("#table-T02 .tile-now:has-text('升1级')", timeout=UI)
        assert "上游 1st 东 E" in tile.inner_text("#table-T02") and "南 S" not in tile.inner_text("#table-T02")
        tile.close()

        # the match ends, still sealed: its result is not shown, no winner, no levels
        hub.feed("T01", "state", sealed_state(40, phase="match_over", match_result=twin("match_result")))
        page.wait_for_selector(".lastdeal .match-words", timeout=UI)
        words = page.inner_text(".lastdeal .match-words")
        assert words == "比赛结束 · 复式牌成绩封存 Match over · duplicate boards sealed"
        assert "胜" not in page.inner_text(".lastdeal") and "—" not in words
        assert errors == []
    finally:
        page.close()


# -- a board's live play: who laid how many cards, not which ----------------------------------------------------------
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


def test_a_sealed_boards_plays_show_as_card_backs_everywhere(served: tuple[Hub, WebServer], browser: Any) -> None:
    """A sealed play has no cards (rules §12): the pages drew an empty row and "余 null 张"; they show the count as
    backs, name the board and the deal apart, and never a card face."""
    hub, web = served
    feed_sealed_play(hub)
    errors: list[str] = []
    faces = ".felt svg.card:not(.back), .history svg.card:not(.back), .tile-now svg.card:not(.back)"
    lvn = "els => els.map(e => e.textContent.trim())"
    for width, height in ((1920, 1080), (390, 844)):  # a hall screen and a phone
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            page.goto(f"{web.url}/display/T01")
            page.wait_for_selector(".seat-E .act .cards.backs", timeout=UI)
            assert backs(page, ".seat-E .act") == 4 and backs(page, ".seat-W .act") == 2
            assert page.inner_text(".seat-E .act .reading") == "出 4 张 · played 4 cards"
            assert page.get_attribute(".seat-E .act", "class").split() == ["act", "best"]
            assert "pass" in page.inner_text(".seat-N .act")
            assert page.eval_on_selector_all(faces, "els => els.length") == 0
            assert "要压 to beat: 出 4 张 · played 4 cards" in page.inner_text(".trick-banner")
            assert "1 家不出" in page.inner_text(".trick-banner")
            # the trick history: each play's backs and its count, the last trick's winner
            assert backs(page, ".history") == 1 + 2 + 4
            history = page.inner_text(".history")
            assert "出 4 张" in history and "南 胜" in history and "此前的出牌未收到" not in history
            # no count of cards left, no place: nothing instead of "余 null 张"; E's report stays public
            text = page.inner_text("body")
            assert "null" not in text and "undefined" not in text and "NaN" not in text and "余" not in text
            assert page.inner_text(".seat-E .info .report") == "报牌 reported"
            # the deal and the board apart
            assert page.inner_text(".what .deal") == "第2场 第6局 · Deal 6"
            assert page.inner_text(".what .board") == "复式牌 第2副 · Board 2"
            assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        finally:
            page.close()
    # the overview's tile and its featured table
    tile = browser.new_page(viewport={"width": 1920, "height": 1080})
    tile.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        tile.goto(f"{web.url}/display/")
        tile.wait_for_selector("#table-T01 .tile-now .cards.backs", timeout=UI)
        assert backs(tile, "#table-T01 .tile-now") == 4
        assert "出 4 张" in tile.inner_text("#table-T01 .tile-now")
        assert tile.inner_text("#table-T01 .tile-head .deal") == "第6局 · 复式牌 第2副"
        tile.wait_for_selector("#featured .seat-E .act .cards.backs", timeout=UI)
        assert backs(tile, "#featured .seat-E .act") == 4
        assert tile.eval_on_selector_all(faces, "els => els.length") == 0
        text = tile.inner_text("body")
        assert "null" not in text and "undefined" not in text and "余" not in text
    finally:
        tile.close()
    # the next trick to lead: the last one's backs stay, faded, the winner's play marked
    hub.feed("T01", "events", event(21, "pass", deal=6, seat="S"))
    hub.feed("T01", "events", event(22, "trick_won", deal=6, seat="E"))
    hub.feed("T01", "state", sealed_playing(23, turn="E", trick=[], trick_passes=0))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".seat-E .act.prev.best .cards.backs", timeout=UI)
        assert backs(page, ".seat-E .act") == 4 and "东 E" in page.inner_text(".trick-banner")
    finally:
        page.close()
    assert errors == []


# -- the desk releases every board of the match: its levels and result are public ------------------------------------
def board_of_deal(deal: int, ns: str, ew: str) -> dict[str, Any]:
    """Board ``deal`` of round 2 released, played as deal ``deal`` at T01: NS went up to ``ns``, EW to ``ew``."""
    return released(board=deal, T01={"deal": deal, "finish": ["S", "N"], "winner": "NS", "up": 3,
                                     "levels_after": {"NS": ns, "EW": ew}},
                    T02={"deal": deal, "levels_after": {"NS": "2", "EW": "3"}})


def test_the_level_boxes_say_sealed_until_every_board_of_the_match_is_released(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    over = sealed_state(40, phase="match_over", deal=2, board=2, deals_played=2,
                        last_result={"deal": 2, "board": 2, "sealed": True}, match_result=twin("match_result", deal=2))
    hub.feed("T01", "state", over)
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    tile = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    for p in (page, tile):
        p.on("pageerror", lambda exc: errors.append(str(exc)))
    lvn = "els => els.map(e => e.textContent.trim())"
    try:
        page.goto(f"{web.url}/display/T01")
        tile.goto(f"{web.url}/display/")
        page.wait_for_selector(".lastdeal .match-words", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        assert "复式牌成绩封存" in page.inner_text(".lastdeal .match-words")
        # one board of two released: the match still holds a sealed board
        hub.release_board(board_of_deal(1, "5", "2"))
        page.wait_for_function("document.querySelector('.chart').dataset.points === '1'", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        assert "复式牌成绩封存" in page.inner_text(".lastdeal .match-words")
        assert page.query_selector(".lastdeal .sealed-note") is not None
        tile.wait_for_selector("#table-T01 .tile-team .lvn", timeout=UI)
        assert tile.eval_on_selector_all("#table-T01 .tile-team .lvn", lvn) == ["封存", "封存"]
        # both released: the levels after the last board, the match over with its boards released
        hub.release_board(board_of_deal(2, "K", "3"))
        page.wait_for_function("document.querySelector('.chart').dataset.points === '2'", timeout=UI)
        page.wait_for_selector(".scoreboard .lvn:not(.sealed)", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["K", "3"]
        assert page.inner_text(".lastdeal .match-words") == "比赛结束 · 复式牌已公布 Match over · boards released"
        assert page.query_selector(".lastdeal .sealed-note") is None and "封存" not in page.inner_text("body")
        assert "复式牌 第2副 Board 2 · 第2局 Deal 2" in page.inner_text(".lastdeal")
        tile.wait_for_selector("#table-T01 .tile-team .lvn:not(.sealed)", timeout=UI)
        assert tile.eval_on_selector_all("#table-T01 .tile-team .lvn", lvn) == ["K", "3"]
        assert "复式牌已公布" in tile.inner_text("#table-T01 .tile-now")
        # a page opened now gets the same from its snapshot
        fresh = browser.new_page(viewport={"width": 1920, "height": 1080})
        fresh.on("pageerror", lambda exc: errors.append(str(exc)))
        fresh.goto(f"{web.url}/display/T01")
        fresh.wait_for_selector(".scoreboard .lvn:not(.sealed)", timeout=UI)
        assert fresh.eval_on_selector_all(".scoreboard .lvn", lvn) == ["K", "3"]
        fresh.close()
        # the next match of boards starts: sealed again
        hub.feed("T01", "state", sealed_state(50, match=3, phase="playing", deal=1, board=1, deals_played=0,
                                              last_result=None, seats=sealed_seats(), trick=[]))
        page.wait_for_selector(".scoreboard .lvn.sealed", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        assert errors == []
    finally:
        page.close()
        tile.close()


# -- the standings of a duplicate event --------------------------------------------------------------------------------
def test_the_standings_of_a_duplicate_event_show_the_duplicate_total_first(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    """A duplicate event ranks by the duplicate total first (standings.compute): without it on screen a team of
    0 场分 stood above one of 2 with nothing to say why."""
    hub, web = served
    rows = [{"rank": 1, "team": 4, "name": "红队 Red", "players": ["甲", "乙"], "match_points": 0, "level_points": 4,
             "duplicate": 3.5, "lot": 99, "lot_no": 2},
            {"rank": 2, "team": 7, "name": "银队 Silver", "players": ["丙", "丁"], "match_points": 2, "level_points": 9,
             "duplicate": -4 / 3, "lot": 11, "lot_no": 1}]
    report = {"version": 4, "computed_at": "2026-12-01T10:00:00.000Z", "rows": rows, "rounds": 1, "pending": [],
              "boards": [{"board": 1, "table": "T01", "ns": 4, "ew": 7, "result_ns": 2, "score_ns": 3.5,
                          "compared": 1}]}
    hub.set_standings(report)
    summary = hub.snapshot()["standings"]
    assert summary["duplicate"] is True and [r["duplicate"] for r in summary["rows"]] == [3.5, -4 / 3]
    assert "boards" not in summary and all("lot" not in r and "team" not in r for r in summary["rows"])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    cells = "els => els.map(e => e.textContent.trim())"
    try:
        for path in ("/standings", "/display/"):
            page.goto(f"{web.url}{path}")
            page.wait_for_selector("#standings table.standings tr td.dup", timeout=UI)
            assert page.eval_on_selector_all("#standings table.standings th", cells) == \
                ["名次 #", "队 Team", "复式 Dup.", "场分 MP", "级差分 LP"]
            assert page.eval_on_selector_all("#standings table.standings tr:nth-child(2) td.num", cells) == \
                ["3.5", "0", "4"]
            assert page.eval_on_selector_all("#standings table.standings tr:nth-child(3) td.num", cells) == \
                ["-1.33", "2", "9"]
            assert "复式总分优先 · ranked by duplicate total first" in page.inner_text("#standings .st-sub")
        # an event without duplicate boards: no such column
        hub.set_standings({**report, "version": 5, "boards": None})
        page.wait_for_function("!document.querySelector('#standings td.dup')", timeout=UI)
        assert "复式 Dup." not in page.inner_text("#standings") and "复式总分" not in page.inner_text("#standings")
        assert errors == []
    finally:
        page.close()


# -- the commentators' view -------------------------------------------------------------------------------------------
def test_the_commentary_shows_no_hand_of_a_sealed_board_until_its_release() -> None:
    hub = Hub("ev")
    c = Commentary(delay=0)
    c.feed("T01", "hands", {"type": "hands", "deal": 6, "hands": {"S": ["HR", "SA"], "E": ["D7"]}}, now=10.0)
    c.feed("T01", "state", sealed_playing(20), now=10.5)
    c.feed("T01", "events", {**sealed_play(18, "E", 4, 3), "cards": ["S9", "H9", "C9", "D9"]}, now=10.6)
    view = c.view("T01", now=11.0)
    assert view is not None and view["sealed"] is True and view["hands"] == {}
    assert view["events"] == [sealed_play(18, "E", 4, 3)]  # were a table to send a sealed play's cards
    assert "HR" not in json.dumps(view) and "S9" not in json.dumps(view)
    c.released = hub.board_released  # as the display service hands it over
    view = c.view("T01", now=11.0)
    assert view is not None and view["sealed"] is True and view["hands"] == {}
    hub.release_board(released(board=3))  # another board of the round: still sealed
    assert not hub.board_released(2, 2) and hub.board_released(2, 3)
    view = c.view("T01", now=11.0)
    assert view is not None and view["sealed"] is True and view["hands"] == {}
    hub.release_board(released(board=2, T01={"deal": 6}))
    view = c.view("T01", now=11.0)
    assert view is not None and view["sealed"] is False and view["hands"] == {"S": ["HR", "SA"], "E": ["D7"]}
    # the hub keeps no hand of a released board for the screens
    assert "HR" not in json.dumps(hub.snapshot()) and "hands" not in json.dumps(hub.boards())
    # a table that plays random deals is shown as before; one whose release cannot be asked stays sealed
    c.feed("T02", "hands", {"type": "hands", "deal": 3, "hands": {"N": ["C9"]}}, now=12.0)
    c.feed("T02", "state", table_state(5, table="T02"), now=12.0)
    view = c.view("T02", now=13.0)
    assert view is not None and view["sealed"] is False and view["hands"] == {"N": ["C9"]}

    def broken(round_no: int, board: int) -> bool:
        raise RuntimeError("no hub")

    c.released = broken
    view = c.view("T01", now=11.0)
    assert view is not None and view["sealed"] is True and view["hands"] == {}


def test_the_commentary_page_of_a_sealed_board_says_its_hands_come_after_release(browser: Any) -> None:
    service = DisplayService("mqtt://127.0.0.1:1", "ev", commentary_delay=0.0, referee_password=PASSWORD)
    assert service.commentary is not None
    commentary = service.commentary
    commentary.released = service.hub.board_released
    now = service.clock()
    commentary.feed("T01", "hands", {"type": "hands", "deal": 6, "hands": {"S": ["HR", "SA"], "E": ["D7"]}}, now)
    commentary.feed("T01", "state", sealed_playing(20), now)
    for ev in (event(10, "deal_started", deal=6, board=2), sealed_play(16, "W", 2, 2), sealed_play(18, "E", 4, 3)):
        commentary.feed("T01", "events", ev, now)
    service.web.start()
    context = browser.new_context(http_credentials={"username": "解说", "password": PASSWORD})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{service.web.url}/commentary/T01")
        page.wait_for_selector("#seat-S .sealed-hand", timeout=UI)
        assert page.inner_text("#seat-S .sealed-hand") == "复式牌封存，公布后可看 · sealed board: hands shown after release"
        assert page.eval_on_selector_all(".hand svg.card", "els => els.length") == 0
        assert backs(page, "#trick") == 4 and "出 4 张" in page.inner_text(".ccentre")
        assert "复式牌 第2副 Board 2 · 第6局 Deal 6" in page.inner_text("#status")
        assert "null" not in page.inner_text("body") and "undefined" not in page.inner_text("body")
        assert "报牌" in page.inner_text("#seat-E")
        # board 2 released: the hands
        service.hub.release_board(released(board=2, T01={"deal": 6}))
        page.wait_for_selector("#seat-S svg.card[data-card='HR']", timeout=UI)
        assert page.query_selector(".sealed-hand") is None
        assert errors == []
    finally:
        context.close()
        service.web.stop()
