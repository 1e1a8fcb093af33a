"""The hall pages in a real headless Chromium (Playwright), fed through the display hub and its web server:
the hall overview: the standings with their round
and every team on /standings, the finished tables between rounds, offline tables, the featured table's cards and
seat names."""

from __future__ import annotations

from typing import Any

from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer

from .live_pages import UI, seats, table_state


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


def test_a_reported_seat_of_the_featured_table_keeps_its_name_whole(served: tuple[Hub, WebServer],
                                                                    browser: Any) -> None:
    """A knockout day's walk-through: at 1920x1080 the featured table's West seat, reported with 4 left, showed
    its player as "王··" (the badge "报牌 4 · reported 4" beside "余 4 张 · 4 left" took the name's room)."""
    hub, web = served
    out = seats(W=4, S=11)
    out["W"]["reported"] = True
    teams = {"NS": {"name": "南京一队", "players": {"N": "李建国", "S": "孙燕"}},
             "EW": {"name": "无锡队", "players": {"E": "周九", "W": "王小明"}}}
    hub.feed("T01", "state", table_state(10, seats=out, teams=teams))
    for width, height in ((1920, 1080), (1280, 720)):
        page = browser.new_page(viewport={"width": width, "height": height})
        try:
            page.goto(f"{web.url}/display/?featured=T01")
            page.wait_for_selector("#featured .seat-W .info .report", timeout=UI)
            assert page.inner_text("#featured .seat-W .pname") == "王小明"
            assert page.evaluate("(e) => e.scrollWidth <= e.clientWidth",
                                 page.query_selector("#featured .seat-W .pname")), (width, "name cut")
        finally:
            page.close()


def test_the_overview_redraws_only_the_tiles_whose_table_changed(served: tuple[Hub, WebServer],
                                                                 browser: Any) -> None:
    """The overview rebuilt every tile on every change, up to five times a second: a hall of many tables on a slow
    screen spent its time redrawing tables that had not moved. A tile is redrawn when its table (or the standings)
    changed; the others keep their elements."""
    hub, web = served
    for i, name in enumerate(("T01", "T02", "T03")):
        hub.feed(name, "state", {**table_state(10 + i, seats=seats(S=20, E=20, N=20, W=20)), "table": name})
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/?featured=T01")
        page.wait_for_selector("#table-T03 .tile-head", timeout=UI)
        page.evaluate("['T02', 'T03'].forEach((n) => { document.querySelector('#table-' + n + ' .tile-head')"
                      ".dataset.mark = 'kept'; })")
        hub.feed("T02", "state", {**table_state(30, seats=seats(S=20, E=20, N=20, W=20), turn="N"), "table": "T02"})
        page.wait_for_selector("#table-T02 .tile-now .turn:has-text('北')", timeout=UI)
        assert page.get_attribute("#table-T03 .tile-head", "data-mark") == "kept"  # T03 did not move
        assert page.query_selector("#table-T02 .tile-head[data-mark]") is None  # T02 was drawn again
    finally:
        page.close()


def test_an_overview_opened_late_in_a_deal_numbers_its_tricks_as_the_table_does(served: tuple[Hub, WebServer],
                                                                                  browser: Any) -> None:
    """A fresh-clone walk-through: the overview opened in deal 4 said 第 5 圈 while the table was at its 8th trick
    (its snapshot keeps a deal's last 40 events, and the tricks were counted from them). Each trick is numbered
    by the table's own count (trick_won's ``trick``)."""
    from .live_pages import event

    hub, web = served
    seq = 1
    hub.feed("T01", "events", event(seq, "deal_started", deal=3))
    for trick in range(1, 16):  # 15 tricks of 5 events: more than the 40 a brief snapshot keeps
        for seat, kind in (("S", "play"), ("E", "pass"), ("N", "pass"), ("W", "pass")):
            seq += 1
            fields = {"cards": ["H3"], "reading": {"type": "single", "rank": "3", "size": 1}} if kind == "play" else {}
            hub.feed("T01", "events", event(seq, kind, deal=3, seat=seat, **fields))
        seq += 1
        hub.feed("T01", "events", event(seq, "trick_won", deal=3, seat="S", trick=trick))
    hub.feed("T01", "state", table_state(seq + 1, trick=[], turn="S", seats=seats(S=12)))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        for url, where in ((f"{web.url}/display/?featured=T01", "#featured"), (f"{web.url}/display/T01", "body")):
            page.goto(url)
            page.wait_for_selector(f"{where} .trick-banner .tb-n", timeout=UI)
            assert page.inner_text(f"{where} .trick-banner .tb-n") == "第 16 圈 · Trick 16", url
    finally:
        page.close()
