"""The screens a desk serves after it restarts: each table's level chart comes back from the deal records the
desk keeps (the hub keeps nothing on disk), and the screens hear when the desk has lost the broker. A display
server of its own (``desk display``, a hall's) started later gets the same charts from the desk's retained
``desk/charts/{table}``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from table_daemon.adapters.broker import LocalBroker
from table_daemon.desk.service import Desk
from table_daemon.desk.store import Store
from table_daemon.display.service import DisplayService
from tests.desk_setup import pair_round_one


def test_a_restarted_desk_gives_the_screens_their_charts_back(mosquitto: LocalBroker, topic_root: Any,
                                                             tmp_path: Path, mqtt_messages: Any) -> None:
    event = topic_root.event
    store = Store(tmp_path / "desk.sqlite")
    pair_round_one(store, event, ["T01"], 3)
    for deal, ns in ((1, "3"), (2, "5")):
        store.add_result(f"{event}/T01/m1/d{deal}", "T01", "deal", 1, deal,
                         {"id": f"{event}/T01/m1/d{deal}", "type": "deal_result", "format": "guandan-deal/1",
                          "match": 1, "deal": deal, "result": {"finish": ["S", "N"], "winner": "NS", "up": 3,
                                                                "levels_after": {"NS": ns, "EW": "2"}}})
    desk = Desk(store, mosquitto.url, event)
    desk.start()
    try:
        chart = desk.hub.snapshot("T01")["tables"]["T01"]["chart"]
        assert [(p["deal"], p["levels"]["NS"]) for p in chart] == [(1, "3"), (2, "5")]
        deadline = time.monotonic() + 10
        while (desk.hub.snapshot()["link"] or {}).get("connected") is not True and time.monotonic() < deadline:
            time.sleep(0.05)
        assert desk.hub.snapshot()["link"]["connected"] is True
        # a hall's display server started mid-match: the desk's retained chart, and a broken one ignored
        other = mqtt_messages(mosquitto.url)
        other.publish(f"guandan/v1/{event}/desk/charts/T02", b'{"points": [{"deal": "x"}, 7]}', retain=True)
        other.publish(f"guandan/v1/{event}/desk/charts/T03", b"\xff not json", retain=True)
        display = DisplayService(mosquitto.url, event)
        display.start()
        try:
            deadline = time.monotonic() + 10
            while not display.hub.snapshot().get("tables", {}).get("T01", {}).get("chart") \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            chart = display.hub.snapshot("T01")["tables"]["T01"]["chart"]
            assert [(p["deal"], p["levels"]["NS"], p["match"]) for p in chart] == [(1, "3", 1), (2, "5", 1)]
            assert not display.hub.snapshot().get("tables", {}).get("T02", {}).get("chart")
        finally:
            display.stop()
    finally:
        desk.stop()
