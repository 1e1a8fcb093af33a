"""What the hall pages show of a deal and of their own link, in a real headless Chromium (Debian's
/usr/bin/chromium via Playwright), fed through the display hub and its web server (Server-Sent Events): a page
that is not live any more says so and stops its clocks, the tribute stays in view for the whole deal, a timed
match shows its time left, the trick history and the turn banner change together, and a finished deal or match
is told in full. The hub is fed the messages a table publishes (mqtt-api.md) directly: no broker is needed to
see what a page draws of them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer

UI = 10_000  # ms a page may take to show what it was sent
TEAMS = {"NS": {"name": "红队 Red", "players": {"N": "张三", "S": "李四"}},
         "EW": {"name": "银队 Silver", "players": {"E": "周九", "W": "吴十"}}}
PAIR_9 = {"seat": "W", "cards": ["S9", "H9"], "reading": {"type": "pair", "rank": "9", "size": 2}}
BOMB_10 = {"seat": "E", "cards": ["ST", "HT", "CT", "DT"], "reading": {"type": "bomb", "rank": "T", "size": 4}}


def seats(**left: int) -> dict[str, dict[str, Any]]:
    return {s: {"team": "NS" if s in "NS" else "EW", "cards_left": left.get(s, 20), "place": None, "reported": False}
            for s in "SENW"}


def table_state(seq: int, **fields: Any) -> dict[str, Any]:
    """A table's public state as mqtt-api.md gives it (deal 3 of match 2, NS on 5 playing their level)."""
    out: dict[str, Any] = {
        "schema": 1, "table": "T01", "event": "ev", "epoch": "e1", "seq": seq, "type": "state", "phase": "playing",
        "match": 2, "deal": 3, "deals_played": 2, "teams": TEAMS, "levels": {"NS": "5", "EW": "3"}, "level": "5",
        "played": "NS", "seats": seats(), "turn": "W", "timer": {"since": time.time(), "deadline": None},
        "trick": [PAIR_9, BOMB_10], "trick_passes": 1, "tribute": None, "match_clock": None,
        "last_result": {"deal": 2, "finish": ["S", "E", "N"], "winner": "NS", "up": 2,
                        "levels_after": {"NS": "5", "EW": "3"}},
        "match_result": None, "match_end": {"method": "deals", "deals": 8},
    }
    out.update(fields)
    return out


def event(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"schema": 1, "table": "T01", "event": "ev", "epoch": "e1", "seq": seq, "type": kind, **fields}


@pytest.fixture
def served() -> Iterator[tuple[Hub, WebServer]]:
    hub = Hub("ev")
    web = WebServer(hub, 0)
    web.start()
    try:
        yield hub, web
    finally:
        web.stop()


def opacity(page: Any, selector: str) -> float:
    return float(page.evaluate(f"parseFloat(getComputedStyle(document.querySelector({selector!r})).opacity)"))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and a["y"] < b["y"] + b["height"]
            and b["y"] < a["y"] + a["height"])


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


# -- the standings: which round, how many of the teams, and all of them for spectators ------------------------------
def test_spectators_see_which_round_the_standings_stand_after_and_find_every_team(served: tuple[Hub, WebServer],
                                                                                browser: Any) -> None:
    hub, web = served
    rows = [{"rank": i, "team": i, "name": f"队{i} Team {i}", "players": ["甲", "乙"], "match_points": 20 - i,
             "level_points": 100 - i} for i in range(1, 17)]
    hub.set_standings({"version": 9, "computed_at": "2026-12-07T10:00:00.000Z", "rows": rows, "rounds": 3,
                       "pending": []})
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/")
        page.wait_for_selector("#standings .st-sub", timeout=UI)
        sub = page.inner_text("#standings .st-sub")
        assert "第 3 轮后 · after round 3" in sub and "top 12 of 16" in sub and "/standings" in sub
        assert len(page.query_selector_all("#standings table.standings tr")) == 13  # a head and twelve teams
        page.goto(f"{web.url}/standings")  # public: every team
        page.wait_for_selector("#standings table.standings", timeout=UI)
        assert len(page.query_selector_all("#standings table.standings tr")) == 17
        assert "队16 Team 16" in page.inner_text("#standings")
        hub.set_standings({"version": 10, "rows": rows, "rounds": 4, "pending": [{"round": 4}]})
        page.wait_for_selector("#standings .st-sub:has-text('round 4 in play')", timeout=UI)
    finally:
        page.close()


# -- between rounds -------------------------------------------------------------------------------------------------
def test_between_rounds_the_finished_tables_take_the_screen_in_table_order(served: tuple[Hub, WebServer],
                                                                          browser: Any) -> None:
    """Every table finished: the featured table (a finished one) and the empty list of tables had kept their
    room, and the finished tiles ran off the bottom of the screen, in the order they finished."""
    hub, web = served
    names = [f"T{i:02d}" for i in range(1, 9)]
    for name in names:
        hub.feed(name, "state", {**table_state(10), "table": name})
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/?page=1")
        page.wait_for_selector("#featured-box:not([hidden])", timeout=UI)
        for name in ("T08", "T05", "T04", "T03", "T07", "T02", "T01", "T06"):  # they finish in this order
            hub.feed(name, "state", {**table_state(20, phase="match_over", turn=None), "table": name})
        page.wait_for_function("document.querySelectorAll('#finished .tile').length === 8", timeout=UI)
        page.wait_for_selector("#featured-box", state="hidden", timeout=UI)
        assert page.eval_on_selector_all("#finished .tile", "els => els.map(e => e.id)") == \
            [f"table-{n}" for n in names]
        assert page.is_hidden(".all")
        box = page.locator(".finished").bounding_box()
        assert box is not None and box["y"] + box["height"] <= 1080  # the list fits the screen (it pages if not)
        assert page.evaluate("document.documentElement.scrollHeight") <= 1081
    finally:
        page.close()


# -- the featured table's cards ---------------------------------------------------------------------------------------
def test_the_featured_tables_cards_are_big_enough_to_read(served: tuple[Hub, WebServer], browser: Any) -> None:
    """The featured table drew the cards played 11-23 px wide on a 1080p hall screen, smaller than a tile's."""
    hub, web = served
    for i in range(1, 9):
        hub.feed(f"T0{i}", "state", {**table_state(10 + i), "table": f"T0{i}"})
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/?featured=T01")
        page.wait_for_selector("#featured .seat svg.card", state="attached", timeout=UI)
        page.wait_for_timeout(500)
        widths = page.eval_on_selector_all("#featured .seat svg.card", "els => els.map(e => e.getBoundingClientRect().width)")
        tile = page.eval_on_selector_all("#grid .tile svg.card", "els => els.map(e => e.getBoundingClientRect().width)")
        assert widths and min(widths) >= 40 and min(widths) > max(tile), (widths, tile[:3])
        assert page.evaluate("document.documentElement.scrollHeight") <= 1081
    finally:
        page.close()


# -- offline tables are not playing --------------------------------------------------------------------------------
def test_an_offline_table_is_counted_and_drawn_as_offline_not_playing(served: tuple[Hub, WebServer],
                                                                      browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "state", table_state(10, turn="W"))
    hub.feed("T02", "state", {**table_state(10, turn="W"), "table": "T02"})
    hub.feed("T02", "status", {"online": False, "table": "T02"})  # its last will: its state is as last heard
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/")
        page.wait_for_selector("#table-T02 .tile-head", timeout=UI)
        assert page.inner_text("#count") == "2 桌 tables · 1 在打 playing · 1 离线 offline"
        assert page.inner_text("#table-T02 .phase") == "离线 · Offline"
        assert page.query_selector("#table-T02 .turn") is None and page.query_selector("#table-T01 .turn")
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


# -- 2, 3. tribute, return and 抗贡 for the whole deal --------------------------------------------------------------
def test_the_tribute_stays_in_view_for_the_whole_deal(served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "events", event(20, "deal_started", deal=3))
    hub.feed("T01", "events", event(21, "tribute_plan", resisted=False, payments=[{"from": "W", "to": "S"}],
                                    leader="W"))
    hub.feed("T01", "events", event(22, "tribute", seat="W", to="S", card="HR"))
    hub.feed("T01", "events", event(23, "return", seat="S", to="W", card="C3"))
    hub.feed("T01", "state", table_state(30, turn="E", trick=[PAIR_9], trick_passes=0, tribute={
        "resisted": False, "given": [{"from": "W", "to": "S", "card": "HR"}],
        "returned": [{"from": "S", "to": "W", "card": "C3"}], "laid": {}, "pending": []}))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".tribute-line", timeout=UI)
        line = page.inner_text(".tribute-line")
        assert "进贡 tribute" in line and "还贡 return" in line and "西 W 领出 · leads" in line
        assert page.query_selector(".tribute-line .tl-give .cw[data-card='HR']") is not None
        assert page.query_selector(".tribute-line .tl-return .cw[data-card='C3']") is not None
        assert "西 W" in page.inner_text(".tribute-line .tl-give") and "南 S" in page.inner_text(".tribute-line .tl-give")
        # on the overview's featured table too
        page.goto(f"{web.url}/display/?featured=T01")
        page.wait_for_selector("#featured .tribute-line .cw[data-card='HR']", timeout=UI)
    finally:
        page.close()


def test_a_refused_tribute_is_shown_for_the_deal(served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "events", event(20, "deal_started", deal=3))
    hub.feed("T01", "events", event(21, "tribute_plan", resisted=True, payments=[], leader="S"))
    hub.feed("T01", "state", table_state(30, turn="S", trick=[], trick_passes=0, tribute={
        "resisted": True, "given": [], "returned": [], "laid": {}, "pending": []}))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".tribute-line .tl-resist", timeout=UI)
        assert page.inner_text(".tribute-line .tl-resist") == "抗贡 · tribute refused"
        assert "南 S 领出 · leads" in page.inner_text(".tribute-line")
    finally:
        page.close()


# -- 10. the tribute as it happens ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 720)])
def test_the_tribute_phase_shows_its_cards_apart_and_who_still_has_to_return(
        width: int, height: int, served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "events", event(20, "deal_started", deal=3))
    hub.feed("T01", "events", event(21, "tribute_plan", resisted=False,
                                    payments=[{"from": "W", "to": "S"}, {"from": "E", "to": "N"}], leader="W"))
    hub.feed("T01", "events", event(22, "tribute", seat="E", to="N", card="SA"))
    hub.feed("T01", "events", event(23, "tribute", seat="W", to="S", card="HR"))
    hub.feed("T01", "state", table_state(30, phase="tribute", turn=None, trick=[], trick_passes=0, seats=seats(
        S=27, E=27, N=27, W=27), tribute={"resisted": False, "given": [{"from": "E", "to": "N", "card": "SA"},
                                                                      {"from": "W", "to": "S", "card": "HR"}],
                                          "returned": [], "laid": {}, "pending": ["S", "N"]}))
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".centre .tribute svg.card", timeout=UI)
        cards = sorted((c.bounding_box() for c in page.query_selector_all(".centre .tribute svg.card")),
                       key=lambda b: b["y"])
        # apart, with a visible gap (they used to touch, the drop shadow of one on the other)
        assert len(cards) == 2 and cards[1]["y"] >= cards[0]["y"] + cards[0]["height"] + 3, cards
        wait = page.inner_text(".centre .tribute .trib-wait")
        assert "待还贡 to return" in wait and "南 S" in wait and "北 N" in wait and "西 W 领出 · leads" in wait
    finally:
        page.close()


# -- 4. the level chart knows which deals it does not know ------------------------------------------------------------
def test_the_level_chart_draws_no_line_through_deals_it_does_not_know(served: tuple[Hub, WebServer],
                                                                      browser: Any) -> None:
    hub, web = served  # a desk restarted in deal 6: the retained state is all it has heard
    hub.feed("T01", "state", table_state(90, deal=6, deals_played=5, levels={"NS": "9", "EW": "4"}, last_result={
        "deal": 5, "finish": ["N", "S"], "winner": "NS", "up": 3, "levels_after": {"NS": "9", "EW": "4"}}))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".chart circle[data-deal='5']", timeout=UI)
        assert page.get_attribute(".chart", "data-gaps") == "1-4"
        assert page.query_selector_all(".chart polyline") == []  # deal 0 and deal 5 are not next to each other
        assert page.query_selector(".chart rect.gap") is not None
        assert "第 1–4 副未知 · deals 1–4 not known" in page.inner_text(".chart .legend")
        # the deal of deal 4 arrives (a result sent again): a line joins 4 and 5 only
        hub.feed("T01", "results", {"id": "ev/T01/m2/d4", "type": "deal_result", "match": 2, "deal": 4,
                                    "hands": {"S": ["HR"]}, "result": {"finish": ["E", "W"], "winner": "EW", "up": 3,
                                                                       "levels_after": {"NS": "6", "EW": "4"}}})
        page.wait_for_selector(".chart polyline.line-NS[data-deals='4,5']", timeout=UI)
        assert page.get_attribute(".chart", "data-gaps") == "1-3"
        # the desk's chart of the match (desk/charts/T01) brings deals 1-3 to a page already open
        assert hub.recall_points("T01", [{"deal": d, "winner": "NS", "up": 1, "match": 2,
                                          "levels": {"NS": lv, "EW": "2"}} for d, lv in ((1, "3"), (2, "4"), (3, "5"))]) == 3
        page.wait_for_selector(".chart polyline.line-NS[data-deals='0,1,2,3,4,5']", timeout=UI)
        assert page.get_attribute(".chart", "data-gaps") in (None, "")
    finally:
        page.close()


# -- 5. a timed match's time left ---------------------------------------------------------------------------------
def test_a_timed_match_shows_its_time_left_on_the_table_and_the_overview(served: tuple[Hub, WebServer],
                                                                          browser: Any) -> None:
    hub, web = served
    now = time.time()
    hub.feed("T01", "state", table_state(10, match_end={"method": "time", "minutes": 40},
                                         match_clock={"started": now - 1500, "ends": now + 12.5 * 60,
                                                      "time_up": False}))
    hub.feed("T02", "state", {**table_state(5, match_end={"method": "time_or_deals", "minutes": 40, "deals": 8},
                                            match_clock={"started": now - 2400, "ends": now - 5, "time_up": True}),
                              "table": "T02"})
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".top .mclock", timeout=UI)
        assert page.inner_text(".top .mclock") == "剩 12 分 · 12 min left"
        page.goto(f"{web.url}/display/")
        page.wait_for_selector("#table-T02 .mclock", timeout=UI)
        assert page.inner_text("#table-T01 .mclock") == "剩 12 分 · 12 min left"
        assert page.inner_text("#table-T02 .mclock") == "时间到 · time up"
    finally:
        page.close()


# -- 6. the trick history and the turn banner agree -------------------------------------------------------------------
def test_the_trick_history_waits_for_the_state_of_its_event(served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    s_single = {"seat": "S", "cards": ["H3"], "reading": {"type": "single", "rank": "3", "size": 1}}
    e_pair = {"seat": "E", "cards": ["H5", "D5"], "reading": {"type": "pair", "rank": "5", "size": 2}}
    hub.feed("T01", "events", event(8, "deal_started", deal=3))
    hub.feed("T01", "events", event(9, "play", seat="S", cards=["H3"], reading=s_single["reading"]))
    hub.feed("T01", "state", table_state(10, turn="E", trick=[s_single], trick_passes=0))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".history .tp1[data-seat='S'] svg.card[data-card='H3']", timeout=UI)
        assert "东 E" in page.inner_text(".trick-banner .tb-turn")
        # the table publishes the play, then (a moment later) the state it leads to
        hub.feed("T01", "events", event(11, "play", seat="E", cards=e_pair["cards"], reading=e_pair["reading"]))
        page.wait_for_timeout(700)
        assert page.query_selector(".history .tp1[data-seat='E']") is None  # not before its state
        assert "东 E" in page.inner_text(".trick-banner .tb-turn")
        hub.feed("T01", "state", table_state(12, turn="N", trick=[s_single, e_pair], trick_passes=0))
        page.wait_for_selector(".history .tp1[data-seat='E'] svg.card[data-card='D5']", timeout=UI)
        assert "北 N" in page.inner_text(".trick-banner .tb-turn")
        assert "对子 5" in page.inner_text(".trick-banner .tb-beat")
        # an event whose state never comes is drawn all the same, a moment later
        hub.feed("T01", "events", event(13, "pass", seat="N"))
        page.wait_for_selector(".history .tp1.pass[data-seat='N']", timeout=UI)
    finally:
        page.close()


# -- 8. 借风 ---------------------------------------------------------------------------------------------------------
def test_the_partner_lead_is_called_jiefeng_with_english(served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "events", event(8, "deal_started", deal=3))
    hub.feed("T01", "events", event(9, "play", seat="E", cards=["ST", "HT", "CT", "DT"], reading=BOMB_10["reading"]))
    hub.feed("T01", "events", event(10, "seat_out", seat="E", place=1))
    for n, seat in enumerate("NWS"):
        hub.feed("T01", "events", event(11 + n, "pass", seat=seat))
    hub.feed("T01", "events", event(14, "trick_won", seat="E", jiefeng=True))
    out = seats(E=0)
    out["E"]["place"] = 1
    hub.feed("T01", "state", table_state(15, turn="W", trick=[], trick_passes=0, seats=out))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".trick-row .twin", timeout=UI)
        assert "借风 partner leads" in page.inner_text(".trick-row .twin")
        banner = page.inner_text(".trick-banner .tb-pass")
        assert "借风 西 W" in banner and "partner W leads" in banner
        assert "接风" not in page.inner_text("body")
    finally:
        page.close()


# -- 9. a finished deal and a finished match, in full ----------------------------------------------------------------
def test_a_finished_match_names_the_winner_its_points_and_every_place(served: tuple[Hub, WebServer],
                                                                      browser: Any) -> None:
    hub, web = served
    out = seats(S=0, E=0, N=0, W=4)
    for seat, place in (("S", 1), ("E", 2), ("N", 3)):
        out[seat]["place"] = place
    hub.feed("T01", "state", table_state(
        40, phase="match_over", turn=None, trick=[], deal=7, deals_played=7, seats=out, levels={"NS": "A+", "EW": "5"},
        last_result={"deal": 7, "finish": ["S", "E", "N"], "winner": "NS", "up": 2,
                     "levels_after": {"NS": "A+", "EW": "5"}},
        match_result={"levels": {"NS": "A+", "EW": "5"}, "winner": "NS", "match_points": {"NS": 2, "EW": 0},
                      "level_points": {"NS": 26, "EW": 0}}))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".lastdeal .places", timeout=UI)
        places = page.inner_text(".lastdeal .places")
        for words in ("上游 1st 南 S 李四", "二游 2nd 东 E 周九", "三游 3rd 北 N 张三", "下游 4th 西 W 吴十"):
            assert words in places, (words, places)
        assert page.inner_text(".lastdeal .match-points") == "场分 match points 2 : 0 · 级差分 level points 26 : 0"
        assert page.inner_text(".centre .match-points") == page.inner_text(".lastdeal .match-points")
        page.goto(f"{web.url}/display/")
        page.wait_for_selector("#finished #table-T01 .tile-team", timeout=UI)
        tile = page.inner_text("#table-T01")
        assert "领先" not in tile and "leads" not in tile
        assert page.inner_text("#table-T01 .tile-team[data-team='NS'] .lead") == "胜 wins"
        assert page.query_selector("#table-T01 .tile-team[data-team='EW'] .lead") is None
    finally:
        page.close()


def test_a_double_down_names_both_seats_left_last(served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "state", table_state(40, phase="deal_over", turn=None, trick=[], last_result={
        "deal": 2, "finish": ["E", "W"], "winner": "EW", "up": 3, "levels_after": {"NS": "5", "EW": "6"}}))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".lastdeal .places", timeout=UI)
        places = page.inner_text(".lastdeal .places")
        assert "上游 1st 东 E 周九" in places and "二游 2nd 西 W 吴十" in places
        assert "下游 last 南 S 李四、北 N 张三" in places
    finally:
        page.close()


# -- 10. the overview at 1280x720 -------------------------------------------------------------------------------------
#: how many lines the words of ``seat`` take in the first text node of ``selector`` that holds them
LINES_OF = """([selector, words]) => {
  const root = document.querySelector(selector);
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const i = n.data.indexOf(words);
    if (i < 0) continue;
    const r = document.createRange();
    r.setStart(n, i);
    r.setEnd(n, i + words.length);
    return new Set(Array.from(r.getClientRects()).map((b) => Math.round(b.top))).size;
  }
  return -1;
}"""


def test_the_featured_table_keeps_seat_names_whole_and_says_the_level(served: tuple[Hub, WebServer],
                                                                      browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "state", table_state(10))
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{web.url}/display/?featured=T01")
        page.wait_for_selector("#featured .trick-banner .tb-beat", timeout=UI)
        assert "4张炸弹 10" in page.inner_text("#featured .tb-beat")
        assert page.evaluate(LINES_OF, ["#featured .tb-beat", "东 E"]) == 1
        assert page.is_visible("#featured .what .wl")
        assert page.inner_text("#featured .what .wl") == "打 5 · playing 5"
    finally:
        page.close()


def test_a_server_that_missed_the_start_of_a_deal_says_so_not_no_play_yet(served: tuple[Hub, WebServer],
                                                                          browser: Any) -> None:
    """A display server restarted mid-deal has the state (cards gone from hands) but not the plays before: the
    history said "尚未出牌 · no play yet" of a deal played half through."""
    hub, web = served
    hub.feed("T01", "state", table_state(80, seats=seats(S=12, E=14, N=12, W=16)))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".history .tricks li.unknown", timeout=UI)
        assert "earlier play of this deal not received" in page.inner_text(".history")
        assert "no play yet" not in page.inner_text(".history")
        # a deal the server saw from its start: no such note, however long it is (the overview's brief list too)
        hub.feed("T01", "events", event(90, "deal_started", deal=4))
        for n in range(45):
            hub.feed("T01", "events", event(91 + n, "pass", seat="SENW"[n % 4]))
        hub.feed("T01", "state", table_state(200, deal=4, seats=seats(S=25, E=26, N=27, W=27)))
        page.goto(f"{web.url}/display/?featured=T01")
        page.wait_for_selector("#featured .history", timeout=UI)
        page.wait_for_timeout(500)
        assert page.query_selector("#featured .history li.unknown") is None
    finally:
        page.close()
