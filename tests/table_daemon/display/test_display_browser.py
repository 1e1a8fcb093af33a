"""The display pages and the desk page in a real headless Chromium (Debian's /usr/bin/chromium via Playwright),
fed by spec-shaped table messages through a real Mosquitto and the desk's server (Server-Sent Events).
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_daemon.adapters.broker import LocalBroker
from table_daemon.desk.service import Desk
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server

from ..desk.spec_table import SpecTable

SECRET = ["CJ", "DQ", "S9"]  # cards only in hidden hands: they must never reach a screen


def seats(left: dict[str, int]) -> dict[str, dict[str, Any]]:
    return {s: {"team": "NS" if s in "NS" else "EW", "name": f"player {s}", "cards_left": n} for s, n in left.items()}


def mid_deal_state(table: SpecTable, trick: list[dict[str, Any]] | dict[str, Any], turn: str,
                   left: dict[str, int], timer: dict[str, float | None] | None = None) -> None:
    table.state(phase="playing", seats=seats(left), levels={"NS": "5", "EW": "3"}, level="5", played="NS",
                turn=turn, trick=trick, timer=timer or {"since": time.time(), "deadline": None}, teams={"NS": {"name": "红队 Red"}, "EW": {"name": "蓝队 Blue"}},
                hands={"S": SECRET})  # a table must not do this; the desk's hub strips it anyway


def test_live_display_and_desk_pages(broker_factory: Callable[..., LocalBroker], topic_root: Any, tmp_path: Path,
                                     browser: Any) -> None:
    broker = broker_factory()
    event = topic_root.event
    t1 = SpecTable(broker.url, event, "T01")
    t2 = SpecTable(broker.url, event, "T02")
    t1.client.publish(f"{t1.root}/private/hands", json.dumps({"S": SECRET}), qos=1, retain=True)
    mid_deal_state(t1, [{"seat": "S", "cards": ["H3"], "reading": {"type": "single", "rank": "3", "size": 1}}],
                   "E", {"S": 12, "E": 9, "N": 20, "W": 15})
    mid_deal_state(t2, [], "S", {"S": 27, "E": 27, "N": 27, "W": 27})
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, [Team(1, "红队 Red", ("甲", "乙"), "U1"), Team(2, "蓝队 Blue", ("丙", "丁"), "U2")],
                 {}, "seed")
    desk = Desk(store, broker.url, event)
    web = desk_server(store, desk.hub)
    web.start()
    desk.start()
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        # A screen opened mid-deal shows the deal at once (retained state).
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".seat-S .left:has-text('12')", timeout=5000)
        assert page.inner_text(".seat-E .turnmark")
        # A play published for the table appears within a second.
        t1.event_msg("play", seat="E", cards=["H5", "D5"], reading={"type": "pair", "rank": "5", "size": 2})
        mid_deal_state(t1, [{"seat": "S", "cards": ["H3"], "reading": {"type": "single", "rank": "3", "size": 1}},
                            {"seat": "E", "cards": ["H5", "D5"], "reading": {"type": "pair", "rank": "5", "size": 2}}],
                       "N", {"S": 12, "E": 7, "N": 20, "W": 15}, {"since": time.time(), "deadline": time.time() + 60})
        page.wait_for_selector(".seat-E svg.card[data-card='D5']", timeout=5000)
        # the trick's first play, made before the screen opened, is drawn from the state's trick
        assert page.query_selector(".seat-S svg.card[data-card='H3']") is not None
        assert page.inner_text(".seat-E .left") == "余 7 张 · 7 left"
        assert "对子 5" in page.inner_text(".seat-E .act")
        # the turn's clock in words (no emoji clock, which a hall screen's fonts may lack)
        assert re.fullmatch(r"剩 (\d+) 秒 · \1 s left", page.inner_text(".seat-N .timer"))
        shot = Path(os.environ.get("GUANDAN_SCREENSHOTS", tmp_path)) / "display-T01.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000

        # Hidden hands never reach a screen.
        html = page.content()
        live = urllib.request.urlopen(f"{web.url}/api/live", timeout=5).read().decode()
        for card in SECRET:
            assert f'data-card="{card}"' not in html and f'"{card}"' not in live

        # After the broker drops, the display carries on with what the table publishes next.
        t1.connected.clear()
        broker.restart(downtime=0.5)
        assert t1.connected.wait(15)
        mid_deal_state(t1, [], "W", {"S": 12, "E": 7, "N": 18, "W": 15})
        page.wait_for_selector(".seat-N .left:has-text('18')", timeout=15000)

        # After the screen's connection to the desk drops, the page reconnects by itself.
        port = web.port
        web.stop()
        web = desk_server(store, desk.hub, port)
        web.start()
        mid_deal_state(t1, [], "W", {"S": 11, "E": 7, "N": 18, "W": 15})
        page.wait_for_selector(".seat-S .left:has-text('11')", timeout=10000)

        # The overview shows every table, and a table whose hall is too dark for its camera says so.
        t2.publish("health", t2.message("health", camera={"state": "ok", "exposure_gain": 6.0, "dim": True}),
                   retain=True)
        page.goto(f"{web.url}/display/")
        page.wait_for_selector("#table-T02 .tile-team", timeout=5000)
        assert "红队 Red" in page.inner_text("#table-T01")
        page.wait_for_selector("#table-T02:has-text('摄像头过暗 camera too dark')", timeout=5000)
        assert "摄像头过暗" not in page.inner_text("#table-T01")
        page.screenshot(path=str(shot.with_name("overview.png")))

        # The desk page: standings with their version, each table's status.
        page.goto(f"{web.url}/")
        page.wait_for_selector("#standings tbody tr", timeout=5000)
        page.wait_for_selector("#tables tbody tr:has-text('T01')", timeout=5000)
        assert "红队 Red" in page.inner_text("#standings")
        assert page.get_attribute("#version", "data-version") == str(store.revision)
        csv = urllib.request.urlopen(f"{web.url}/export/standings.csv", timeout=5).read().decode("utf-8-sig")
        assert csv.splitlines()[0].startswith("名次 Rank") and "蓝队 Blue" in csv
        printable = urllib.request.urlopen(f"{web.url}/print", timeout=5).read().decode()
        assert f"版本 Version {store.revision}" in printable
    finally:
        page.close()
        desk.stop()
        web.stop()
        t1.close()
        t2.close()
        store.close()
