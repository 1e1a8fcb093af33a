"""The hall pages in a real headless Chromium (Playwright), fed through the display hub and its web server:
the story of a deal: the tribute for the whole deal,
the level chart's gaps, a timed match's time left, the trick history and the turn banner together, 借风, a finished
deal or match told in full."""

from __future__ import annotations

import time
from typing import Any

import pytest

from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer

from .live_pages import BOMB_10, PAIR_9, UI, event, seats, table_state


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
        assert page.inner_text(".tribute-line .tl-resist") == "抗贡 · no tribute (two big jokers)"
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
        for words in ("上游 1st 南 S 李四", "二游 2nd 东 E 周九", "三游 3rd 北 N 张三", "下游 last 西 W 吴十"):
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

def test_a_rise_stopped_at_a_says_so_when_the_level_before_is_known(served: tuple[Hub, WebServer],
                                                                    browser: Any) -> None:
    """K up 2 ends at A, not beyond (rules 000: A must be played): said only when the page knows the level before."""
    hub, web = served
    hub.feed("T01", "state", table_state(40, phase="deal_over", turn=None, trick=[], deal=5, deals_played=5,
                                         levels={"NS": "A", "EW": "4"}, last_result={
        "deal": 5, "finish": ["S", "E", "N"], "winner": "NS", "up": 2, "levels_after": {"NS": "A", "EW": "4"}}))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".lastdeal .result-words", timeout=UI)
        words = page.inner_text(".lastdeal .result-words")
        assert "升2级 up 2 → A" in words and "止于A" not in words  # the level before deal 5 is not known
        assert hub.recall_points("T01", [{"deal": 4, "winner": "NS", "up": 1, "match": 2,
                                          "levels": {"NS": "K", "EW": "4"}}]) == 1
        page.wait_for_selector(".lastdeal .result-words:has-text('止于A')", timeout=UI)
        assert "升2级 up 2 → A（止于A · stops at A）" in page.inner_text(".lastdeal .result-words")
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
