"""The display hub (hidden hands stripped, stale and repeated messages dropped, slow screens cut loose) and
the stand-alone display server against a real Mosquitto."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

from table_daemon.adapters.broker import LocalBroker
from table_daemon.display.hub import Hub
from table_daemon.display.service import DisplayService
from table_daemon.display.summaries import chart_point

from ..desk.spec_table import SpecTable


def test_hub_strips_hands_and_drops_stale_or_repeated_messages() -> None:
    hub = Hub("ev")
    assert hub.feed("T1", "state", {"epoch": "a", "seq": 5, "phase": "playing", "hands": {"S": ["HR"]},
                                    "seats": {"S": {"hand": ["SB"], "cards_left": 3}}})
    assert not hub.feed("T1", "state", {"epoch": "a", "seq": 4, "phase": "idle"})  # older than the one shown
    assert hub.feed("T1", "state", {"epoch": "b", "seq": 1, "phase": "dealing"})  # a new run of the table
    assert not hub.feed("T1", "private/hands", {"S": ["HR"]})
    assert not hub.feed("T1", "alerts", {"what": "not_held", "card": "HR"})
    assert not hub.feed("desk", "status", {"online": True})
    assert hub.feed("T1", "events", {"epoch": "b", "seq": 2, "type": "play"})
    assert not hub.feed("T1", "events", {"epoch": "b", "seq": 2, "type": "play"})
    assert hub.feed("T1", "results", {"id": "x", "deal": 1, "hands": {"S": ["HR"]}, "deal_line": "...",
                                      "result": {"finish": ["S", "N"], "winner": "NS", "up": 3}})
    assert not hub.feed("T1", "state", b"not json")
    snap = json.dumps(hub.snapshot())
    assert "HR" not in snap and "SB" not in snap and "deal_line" not in snap
    tab = hub.snapshot("T1")["tables"]["T1"]
    assert tab["state"]["phase"] == "dealing" and tab["last_result"]["up"] == 3 and len(tab["events"]) == 1


def test_a_screen_that_falls_behind_is_cut_loose_without_blocking() -> None:
    hub = Hub("ev", queue_size=3)
    slow = hub.subscribe()
    fast = hub.subscribe()
    for seq in range(10):
        hub.feed("T1", "events", {"epoch": "e", "seq": seq, "type": "pass"})
        fast.get_nowait()
    assert not hub.listening(slow) and hub.listening(fast)


def test_stand_alone_display_server(mosquitto: LocalBroker, topic_root: Any) -> None:
    table = SpecTable(mosquitto.url, topic_root.event, "T05")
    table.state(phase="tribute", seats={"S": {"cards_left": 27}})
    service = DisplayService(mosquitto.url, topic_root.event)
    service.start()
    try:
        deadline = time.monotonic() + 10
        live: dict[str, Any] = {}
        while time.monotonic() < deadline:
            live = json.loads(urllib.request.urlopen(f"{service.web.url}/api/live", timeout=5).read())
            if "T05" in live["tables"] and "state" in live["tables"]["T05"]:
                break
            time.sleep(0.05)
        assert live["tables"]["T05"]["state"]["phase"] == "tribute"
        with urllib.request.urlopen(f"{service.web.url}/events?table=T05", timeout=5) as stream:
            assert stream.readline() == b"retry: 1000\n" and stream.readline() == b"\n"
            assert stream.readline() == b"event: snapshot\n"
            assert json.loads(stream.readline().removeprefix(b"data: "))["tables"]["T05"]["state"]
        page = urllib.request.urlopen(f"{service.web.url}/display/T05", timeout=5).read().decode()
        assert "/static/display.js" in page
        assert urllib.request.urlopen(f"{service.web.url}/static/display.js", timeout=5).status == 200
        # what every browser asks first: a 404 there was an error in every screen's console (a walk-through)
        with urllib.request.urlopen(f"{service.web.url}/favicon.ico", timeout=5) as icon:
            assert icon.status == 200 and icon.headers["Content-Type"] == "image/svg+xml"
            assert icon.read().startswith(b"<svg")
    finally:
        service.stop()
        table.close()


def test_the_hub_keeps_the_deal_story_and_the_level_chart() -> None:
    hub = Hub("ev")
    seq = iter(range(1, 100))

    def ev(kind: str, **fields: object) -> bool:
        return hub.feed("T1", "events", {"epoch": "e", "seq": next(seq), "type": kind, **fields})

    ev("match_started", match=1)
    ev("deal_started", deal=1)
    assert not ev("card_dealt", index=0, seat="S")  # not part of the story on screen
    ev("play", deal=1, seat="S", cards=["H3"], reading={"type": "single", "rank": "3", "size": 1})
    ev("deal_over", deal=1, finish=["S", "N"], winner="NS", up=3, levels={"NS": "5", "EW": "2"})
    ev("deal_started", deal=2)
    ev("play", deal=2, seat="N", cards=["D4"], reading={"type": "single", "rank": "4", "size": 1})
    tab = hub.snapshot("T1")["tables"]["T1"]
    assert [e["type"] for e in tab["events"]] == ["deal_started", "play"]  # deal 2 only
    assert tab["chart"] == [{"deal": 1, "finish": ["S", "N"], "winner": "NS", "up": 3,
                             "levels": {"NS": "5", "EW": "2"}}]
    for n in range(60):
        ev("pass", deal=2, seat="E", after=n)
    brief = hub.snapshot(brief=True)["tables"]["T1"]["events"]
    # the last 40, and the deal's start: a page reads from it that the story is whole, only trimmed
    assert len(brief) == 41 and brief[0]["type"] == "deal_started" and brief[1:] == hub.snapshot()["tables"]["T1"][
        "events"][-40:]
    ev("match_started", match=2)
    assert hub.snapshot("T1")["tables"]["T1"]["chart"] == []
    q = hub.subscribe()
    hub.set_standings({"version": 3, "computed_at": "2026-12-01T10:00:00.000Z",
                       "rows": [{"rank": 1, "team": 7, "name": "红队", "players": ["甲", "乙"], "match_points": 2,
                                 "level_points": 16, "lot": 123456789012345}]})
    kind, _, data, frame = q.get_nowait()
    assert frame.startswith(b"event: standings\ndata: ") and frame.endswith(b"\n\n")
    assert kind == "standings" and data["rows"][0]["name"] == "红队" and "lot" not in data["rows"][0]
    assert hub.snapshot()["standings"]["version"] == 3


def test_a_screen_of_one_table_is_woken_only_for_that_table() -> None:
    hub = Hub("ev")
    one, every = hub.subscribe("T1"), hub.subscribe()
    hub.feed("T2", "status", {"online": True})
    hub.feed("T1", "status", {"online": True})
    hub.broadcast("standings", {"version": 1})
    assert [one.get_nowait()[:2] for _ in range(one.qsize())] == [("status", "T1"), ("standings", "")]
    assert every.qsize() == 3


def test_a_chart_point_from_the_network_keeps_only_a_points_fields() -> None:
    assert chart_point({"deal": 3, "levels": {"NS": "5", "EW": "2", "hands": ["HR"]}, "winner": "NS",
                        "hands": {"S": ["HR"]}}) == {"deal": 3, "winner": "NS", "levels": {"NS": "5", "EW": "2"}}
    for bad in (None, 7, {"deal": "3", "levels": {"NS": "5", "EW": "2"}}, {"deal": True, "levels": {}},
                {"deal": 3}, {"deal": 3, "levels": {"NS": 5, "EW": "2"}}):
        assert chart_point(bad) is None
    hub = Hub("ev")
    listener = hub.subscribe()
    assert hub.recall_points("T01", [chart_point({"deal": 2, "levels": {"NS": "4", "EW": "2"}})]) == 1
    kind, table, data, _ = listener.get_nowait()
    assert (kind, table, [p["deal"] for p in data]) == ("chart", "T01", [2])
    chart = hub.chart("T01")
    assert chart is not None and chart["points"] == data and hub.chart("T09") is None
