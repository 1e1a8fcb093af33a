"""The hall pages in a real headless Chromium (Playwright), fed through the display hub and its web server:
a page that is not live any more says so and stops its clocks:
its server lost the broker, the page lost its server, or the stream stalled without closing."""

from __future__ import annotations

import threading
import time
from typing import Any

from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer

from .live_pages import UI, opacity, overlaps, table_state


# -- 1. the server lost the broker ------------------------------------------------------------------------------
def test_a_page_whose_server_lost_the_broker_says_so_and_stops_the_turn_timer(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.set_link({"connected": True, "broker": "127.0.0.1:1883", "away_since": None, "reason": ""})
    hub.feed("T01", "state", table_state(10, timer={"since": time.time() - 3, "deadline": None}))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".seat-W .timer", timeout=UI)
        assert not page.is_visible(".stale-banner") and opacity(page, ".felt") == 1
        lost = time.time() - 1
        hub.set_link({"connected": False, "broker": "127.0.0.1:1883", "away_since": lost, "reason": "lost"})
        page.wait_for_selector(".stale-banner", state="visible", timeout=UI)
        words = page.inner_text(".stale-banner")
        assert "数据中断" in words and "data lost" in words and time.strftime("%H:%M:%S", time.localtime(lost)) in words
        assert "127.0.0.1" not in words  # the broker's address is not for the audience
        page.wait_for_timeout(300)
        assert opacity(page, ".felt") < 0.7 and opacity(page, ".side-col") < 0.7
        stopped = page.inner_text(".seat-W .timer")
        page.wait_for_timeout(2200)
        assert page.inner_text(".seat-W .timer") == stopped  # the turn timer stands still
        # the banner covers nothing: it is above the page, which makes room for it
        assert not overlaps(page.locator(".stale-banner").bounding_box(), page.locator(".top").bounding_box())

        hub.set_link({"connected": True, "broker": "127.0.0.1:1883", "away_since": None, "reason": ""})
        page.wait_for_selector(".stale-banner", state="hidden", timeout=UI)
        page.wait_for_function("parseFloat(getComputedStyle(document.querySelector('.felt')).opacity) === 1",
                               timeout=UI)
        page.wait_for_function(f"document.querySelector('.seat-W .timer').textContent !== {stopped!r}", timeout=UI)

        # the overview says it too, above everything
        hub.set_link({"connected": False, "away_since": lost})
        page.goto(f"{web.url}/display/")
        page.wait_for_selector(".stale-banner", state="visible", timeout=UI)
        assert "数据中断" in page.inner_text(".stale-banner")
        assert opacity(page, "#table-T01") < 0.7
    finally:
        page.close()


# -- 7. the page lost the server ---------------------------------------------------------------------------------
def test_the_reconnect_banner_covers_nothing_and_dims_the_live_parts(served: tuple[Hub, WebServer],
                                                                     browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "state", table_state(10))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".playing-level .pl-l", timeout=UI)
        web.stop()  # the page's stream breaks: it reconnects, and says so meanwhile
        page.wait_for_selector(".conn", state="visible", timeout=UI)
        # measured in one go in the page: a redraw between two measures (the page redraws at each failed
        # reconnect) detached an element under the test's hands
        boxes = page.evaluate("""parts => Object.fromEntries(parts.map(p => {
            const r = document.querySelector(p).getBoundingClientRect();
            return [p, {x: r.x, y: r.y, width: r.width, height: r.height}]; }))""",
                              [".conn", ".playing-level", ".playing-level .pl-l", ".pl-cards", ".scoreboard", ".title"])
        conn = boxes.pop(".conn")
        assert conn["height"] > 0
        for part, box in boxes.items():
            assert not overlaps(conn, box), part
        assert "正在重连" in page.inner_text(".conn") and "Reconnecting" in page.inner_text(".conn")
        page.wait_for_timeout(300)
        assert opacity(page, ".felt") < 0.7 and opacity(page, ".side-col") < 0.7
        assert page.evaluate("document.documentElement.scrollHeight") <= 721  # the page made room, no scrolling
    finally:
        page.close()

# -- a stream that stalls without closing ---------------------------------------------------------------------------
def test_a_stream_that_goes_silent_is_said_lost_and_connected_again(browser: Any) -> None:
    """A network that stops forwarding without closing the connection (Wi-Fi gone, no reset): the page had
    shown the frozen picture as live, its turn clock running, for as long as it lasted. The server pings a quiet
    stream (its snapshot says how often); three pings' silence is said as a lost connection, and the page
    connects again."""
    hub = Hub("ev")
    web = WebServer(hub, 0, keepalive_s=1.0)
    web.start()
    hub.feed("T01", "state", table_state(10))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".playing-level .pl-l", timeout=UI)
        page.wait_for_timeout(4500)  # pings keep a quiet stream live
        assert page.evaluate("document.body.classList.contains('disconnected')") is False
        # the network stalls: the open stream goes silent (after the wait under way: no event, no ping, no error),
        # and a new connection opens but nothing comes through it
        back = threading.Event()
        send = web._send
        web._send = lambda req, kind, data: (back.wait(60), send(req, kind, data))[1]  # type: ignore[method-assign]
        web.keepalive_s = 3600.0
        page.wait_for_function("document.body.classList.contains('disconnected')", timeout=UI)
        page.wait_for_timeout(1500)  # it stays said while the new connection brings nothing
        assert page.evaluate("document.body.classList.contains('disconnected')") is True
        assert "Reconnecting" in page.inner_text(".conn")
        web.keepalive_s = 1.0  # the network is back: the page's stream is answered and pings again
        back.set()
        hub.feed("T01", "state", table_state(11))
        page.wait_for_function("!document.body.classList.contains('disconnected')", timeout=UI)
    finally:
        page.close()
        web.stop()
