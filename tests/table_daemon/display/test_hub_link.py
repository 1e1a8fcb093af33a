"""The display hub tells screens whether its server still reaches the broker (a stand-alone display server
against a real Mosquitto that stops and starts again), and its level chart is rebuilt from what is left after a
restart (the retained state's last result, deal records sent again or kept by a desk) without mixing matches."""

from __future__ import annotations

import json
import queue
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any

from table_daemon.adapters.broker import LocalBroker
from table_daemon.display.hub import Hub
from table_daemon.display.service import DisplayService

from ..desk.spec_table import SpecTable


def wait_for(what: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if what():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_the_hub_sends_each_change_of_its_link_and_keeps_the_broker_to_itself() -> None:
    hub = Hub("ev")
    assert hub.snapshot()["link"] is None  # nobody said: screens take the data as live
    q = hub.subscribe("T1")
    hub.set_link({"connected": True, "broker": "10.0.0.5:1883", "away_since": None, "reason": ""})
    hub.set_link({"connected": True, "broker": "10.0.0.5:1883", "away_since": None, "reason": ""})  # no change
    hub.set_link({"connected": False, "broker": "10.0.0.5:1883", "away_since": 1796647779.5, "reason": "lost"})
    changes = [q.get_nowait() for _ in range(q.qsize())]
    assert [(kind, data) for kind, _, data, _ in changes] == [
        ("link", {"connected": True, "away_since": None}),
        ("link", {"connected": False, "away_since": 1796647779.5})]
    assert changes[1][3].startswith(b"event: link\ndata: ")
    assert b"10.0.0.5" not in b"".join(c[3] for c in changes)
    assert hub.snapshot("T1")["link"] == {"connected": False, "away_since": 1796647779.5}

    states: list[dict[str, Any]] = [{"connected": True}, {"connected": False, "away_since": 5.0}]

    def link_state() -> dict[str, Any]:
        return states.pop(0) if len(states) > 1 else states[0]

    hub.follow_link(link_state, every=0.05)
    try:
        wait_for(lambda: hub.link() == {"connected": False, "away_since": 5.0}, 5)
    finally:
        hub.stop_following()


def test_the_display_server_tells_its_screens_when_it_loses_the_broker(
        broker_factory: Callable[..., LocalBroker], topic_root: Any) -> None:
    broker = broker_factory()
    table = SpecTable(broker.url, topic_root.event, "T05")
    table.state(phase="playing", turn="E", seats={"S": {"cards_left": 27}})
    table.close()
    service = DisplayService(broker.url, topic_root.event)
    service.start()
    frames: queue.Queue[bytes] = queue.Queue()

    def live() -> dict[str, Any]:
        got = json.loads(urllib.request.urlopen(f"{service.web.url}/api/live", timeout=5).read())
        assert isinstance(got, dict)
        return got

    def listen() -> None:
        try:
            with urllib.request.urlopen(f"{service.web.url}/events?table=T05", timeout=30) as stream:
                for line in stream:
                    frames.put(line)
        except OSError:
            pass

    try:
        wait_for(lambda: (live()["link"] or {}).get("connected") is True and "T05" in live()["tables"])
        threading.Thread(target=listen, daemon=True).start()
        wait_for(lambda: not frames.empty())
        before = time.time()
        broker.stop()
        wait_for(lambda: (live()["link"] or {}).get("connected") is False)
        link = live()["link"]
        assert link["away_since"] is not None and before - 1 <= link["away_since"] <= time.time()
        assert live()["tables"]["T05"]["state"]["phase"] == "playing"  # the last known state is still served
        seen: list[bytes] = []

        def link_frame() -> bool:
            seen.extend(iter_queue(frames))
            return b"event: link\n" in seen

        wait_for(link_frame)
        data = json.loads(seen[seen.index(b"event: link\n") + 1].removeprefix(b"data: "))
        assert data["data"]["connected"] is False
        broker.start()
        wait_for(lambda: (live()["link"] or {}).get("connected") is True, 30)
        assert live()["link"]["away_since"] is None
    finally:
        service.stop()


def iter_queue(q: queue.Queue[bytes]) -> list[bytes]:
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


def record(match: int, deal: int, finish: list[str], up: int, after: dict[str, str]) -> dict[str, Any]:
    """A deal record as published on ``results`` (hands included: the deal is over)."""
    return {"id": f"ev/T1/m{match}/d{deal}", "type": "deal_result", "format": "guandan-deal/1", "match": match,
            "deal": deal, "hands": {"S": ["HR", "SB"]},
            "result": {"finish": finish, "winner": "NS" if finish[0] in "NS" else "EW", "up": up,
                       "levels_after": after}}


def test_after_a_restart_the_chart_is_rebuilt_from_what_is_left_and_keeps_to_its_match() -> None:
    hub = Hub("ev")  # a desk just restarted: the retained state of match 2, deal 5 being played, comes first
    hub.feed("T1", "state", {"epoch": "e", "seq": 50, "phase": "playing", "match": 2, "deal": 5, "deals_played": 4,
                             "levels": {"NS": "7", "EW": "4"},
                             "last_result": {"deal": 4, "finish": ["N", "E", "S"], "winner": "NS", "up": 2,
                                             "levels_after": {"NS": "7", "EW": "4"}}})
    chart = hub.snapshot("T1")["tables"]["T1"]["chart"]
    assert chart == [{"deal": 4, "finish": ["N", "E", "S"], "winner": "NS", "up": 2,
                      "levels": {"NS": "7", "EW": "4"}, "match": 2}]  # one deal known: deals 1-3 are not
    # the deal records a desk kept: those of match 2 are taken, the earlier match's are not
    taken = hub.recall("T1", [record(1, 1, ["E", "W"], 3, {"NS": "2", "EW": "5"}),
                              record(2, 1, ["S", "N"], 3, {"NS": "5", "EW": "2"}),
                              record(2, 2, ["E", "S"], 1, {"NS": "5", "EW": "3"}),
                              record(2, 3, ["N", "W"], 2, {"NS": "7", "EW": "3"}), {"type": "match_result"}])
    tab = hub.snapshot("T1")["tables"]["T1"]
    assert taken == 3
    assert [(p["deal"], p["levels"]["NS"], p["levels"]["EW"]) for p in tab["chart"]] == [
        (1, "5", "2"), (2, "5", "3"), (3, "7", "3"), (4, "7", "4")]
    assert "last_result" not in tab and "HR" not in json.dumps(tab)
    # a deal record that arrives (a table sends it again) is a point of the chart too
    assert hub.feed("T1", "results", record(2, 5, ["W", "E"], 3, {"NS": "7", "EW": "7"}))
    assert hub.snapshot("T1")["tables"]["T1"]["chart"][-1]["deal"] == 5
    # a late record of the earlier match changes nothing
    hub.feed("T1", "results", record(1, 6, ["W", "E"], 3, {"NS": "2", "EW": "A"}))
    assert [p["deal"] for p in hub.snapshot("T1")["tables"]["T1"]["chart"]] == [1, 2, 3, 4, 5]
    # the next match starts a chart of its own
    hub.feed("T1", "events", {"epoch": "e", "seq": 60, "type": "match_started", "match": 3})
    hub.feed("T1", "state", {"epoch": "e", "seq": 61, "phase": "dealing", "match": 3, "last_result": None})
    assert hub.snapshot("T1")["tables"]["T1"]["chart"] == []
