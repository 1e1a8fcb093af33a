"""Duplicate boards in the hub (rules §12): a sealed match's twins and events add nothing to the level chart and
crash nothing; a board the desk releases (``desk/boards/{round}/{board}``) reaches the hub, its chart points and
every screen (and, through a real Mosquitto, the stand-alone display server)."""

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
from table_daemon.display.hub import Hub
from table_daemon.display.service import DisplayService

from .live_pages import event
from .sealed_pages import (
    NOTE,
    points,
    released,
    sealed_state,
    twin,
)


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
