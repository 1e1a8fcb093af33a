"""The commentators' view of a duplicate board (rules §12): no hand of a sealed board until the desk releases it."""

from __future__ import annotations

import json
from typing import Any

from table_daemon.display.commentary import Commentary
from table_daemon.display.hub import Hub
from table_daemon.display.service import DisplayService

from .live_pages import UI, event, table_state
from .sealed_pages import (
    PASSWORD,
    backs,
    released,
    sealed_play,
    sealed_playing,
)


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
        assert "复式 2 号牌 Board 2 · 本场第6副 Deal 6" in page.inner_text("#status")
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
