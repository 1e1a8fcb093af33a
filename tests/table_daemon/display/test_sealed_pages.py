"""Duplicate boards on the hall pages (rules §12, a real headless Chromium): a table's page says "sealed" until
the desk releases its board and the table's result after; a sealed play shows as card backs; the level boxes come
back once every board of the match is released; a duplicate event's standings show the duplicate total first."""

from __future__ import annotations

from typing import Any

from table_daemon.display.hub import Hub
from table_daemon.display.server import WebServer

from .live_pages import UI, event
from .sealed_pages import (
    NOTE,
    backs,
    board_of_deal,
    feed_sealed_play,
    released,
    sealed_playing,
    sealed_seats,
    sealed_state,
    twin,
)


def test_a_sealed_table_page_says_sealed_then_shows_the_released_result(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    hub.feed("T01", "events", event(20, "deal_started", deal=3))
    hub.feed("T01", "events", event(29, "deal_over", deal=3, board=3, sealed=True, note=NOTE))
    hub.feed("T01", "state", sealed_state(30))
    hub.feed("T01", "results", twin())
    hub.feed("T02", "state", sealed_state(30, table="T02", last_result={"deal": 3, "board": 3, "sealed": True}))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".lastdeal .sealed-note", timeout=UI)
        last = page.inner_text(".lastdeal")
        assert "复式 3 号牌 Board 3 · 本场第3副 Deal 3 · 封存 sealed" in last and "复式牌封存至全部牌桌打完" in last
        assert "上游" not in last and "升" not in last and "本场尚无结果" not in last
        assert page.inner_text(".centre .result-words") == "复式 3 号牌 Board 3 · 本场第3副 Deal 3 · 封存 sealed"
        # where the levels would be: sealed, no level and no "—"
        assert [t.strip() for t in page.eval_on_selector_all(".scoreboard .lvn", "els => els.map(e => e.textContent)")] \
            == ["封存", "封存"]
        assert page.get_attribute(".chart", "data-points") == "0"
        # the overview's tile says the same
        tile = browser.new_page(viewport={"width": 1920, "height": 1080})
        tile.on("pageerror", lambda exc: errors.append(str(exc)))
        tile.goto(f"{web.url}/display/")
        tile.wait_for_selector("#table-T01 .tile-now:has-text('封存')", timeout=UI)
        assert tile.inner_text("#table-T01 .tile-team[data-team='NS'] .lvn") == "封存"

        # the desk releases board 3: the page shows its table's result of it, not another table's
        hub.release_board(released())
        page.wait_for_selector(".lastdeal .result-words:has-text('上游')", timeout=UI)
        last = page.inner_text(".lastdeal")
        assert "复式 3 号牌 Board 3" in last and "双下 double-down" in last and "红队 Red 升3级 up 3" in last
        assert "封存" not in last and "升1级" not in last and "EW" not in page.inner_text(".lastdeal .result-words")
        assert "上游 1st 南 S" in page.inner_text(".centre .result-words")
        assert page.get_attribute(".chart", "data-points") == "1"
        tile.wait_for_selector("#table-T01 .tile-now:has-text('上游')", timeout=UI)
        tile.wait_for_selector("#table-T02 .tile-now:has-text('升1级')", timeout=UI)
        assert "上游 1st 东 E" in tile.inner_text("#table-T02") and "南 S" not in tile.inner_text("#table-T02")
        tile.close()

        # the match ends, still sealed: its result is not shown, no winner, no levels
        hub.feed("T01", "state", sealed_state(40, phase="match_over", match_result=twin("match_result")))
        page.wait_for_selector(".lastdeal .match-words", timeout=UI)
        words = page.inner_text(".lastdeal .match-words")
        assert words == "比赛结束 · 复式牌成绩封存 Match over · duplicate boards sealed"
        assert "胜" not in page.inner_text(".lastdeal") and "—" not in words
        assert errors == []
    finally:
        page.close()


# -- a board's live play: who laid how many cards, not which ----------------------------------------------------------
def test_a_sealed_boards_plays_show_as_card_backs_everywhere(served: tuple[Hub, WebServer], browser: Any) -> None:
    """A sealed play has no cards (rules §12): the pages drew an empty row and "余 null 张"; they show the count as
    backs, name the board and the deal apart, and never a card face."""
    hub, web = served
    feed_sealed_play(hub)
    errors: list[str] = []
    faces = ".felt svg.card:not(.back), .history svg.card:not(.back), .tile-now svg.card:not(.back)"
    lvn = "els => els.map(e => e.textContent.trim())"
    for width, height in ((1920, 1080), (390, 844)):  # a hall screen and a phone
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            page.goto(f"{web.url}/display/T01")
            page.wait_for_selector(".seat-E .act .cards.backs", timeout=UI)
            assert backs(page, ".seat-E .act") == 4 and backs(page, ".seat-W .act") == 2
            assert page.inner_text(".seat-E .act .reading") == "出 4 张 · played 4 cards"
            assert page.get_attribute(".seat-E .act", "class").split() == ["act", "best"]
            assert "pass" in page.inner_text(".seat-N .act")
            assert page.eval_on_selector_all(faces, "els => els.length") == 0
            assert "要压 to beat: 出 4 张 · played 4 cards" in page.inner_text(".trick-banner")
            assert "1 家过 · 1 passed" in page.inner_text(".trick-banner")
            # the trick history: each play's backs and its count, the last trick's winner
            assert backs(page, ".history") == 1 + 2 + 4
            history = page.inner_text(".history")
            assert "出 4 张" in history and "南 胜" in history and "此前的出牌未收到" not in history
            # no count of cards left, no place: nothing instead of "余 null 张"; E's report stays public
            text = page.inner_text("body")
            assert "null" not in text and "undefined" not in text and "NaN" not in text and "余" not in text
            assert page.inner_text(".seat-E .info .report") == "报牌 reported"
            # the deal and the board apart
            assert page.inner_text(".what .deal") == "第2轮 本场第6副 · Round 2, Deal 6"
            assert page.inner_text(".what .board") == "复式 2 号牌 · Board 2"
            assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        finally:
            page.close()
    # the overview's tile and its featured table
    tile = browser.new_page(viewport={"width": 1920, "height": 1080})
    tile.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        tile.goto(f"{web.url}/display/")
        tile.wait_for_selector("#table-T01 .tile-now .cards.backs", timeout=UI)
        assert backs(tile, "#table-T01 .tile-now") == 4
        assert "出 4 张" in tile.inner_text("#table-T01 .tile-now")
        assert tile.inner_text("#table-T01 .tile-head .deal") == "复式 2 号牌 Board 2 · 本场第6副 Deal 6"
        tile.wait_for_selector("#featured .seat-E .act .cards.backs", timeout=UI)
        assert backs(tile, "#featured .seat-E .act") == 4
        assert tile.eval_on_selector_all(faces, "els => els.length") == 0
        text = tile.inner_text("body")
        assert "null" not in text and "undefined" not in text and "余" not in text
    finally:
        tile.close()
    # the next trick to lead: the last one's backs stay, faded, the winner's play marked
    hub.feed("T01", "events", event(21, "pass", deal=6, seat="S"))
    hub.feed("T01", "events", event(22, "trick_won", deal=6, seat="E"))
    hub.feed("T01", "state", sealed_playing(23, turn="E", trick=[], trick_passes=0))
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{web.url}/display/T01")
        page.wait_for_selector(".seat-E .act.prev.best .cards.backs", timeout=UI)
        assert backs(page, ".seat-E .act") == 4 and "东 E" in page.inner_text(".trick-banner")
    finally:
        page.close()
    assert errors == []


# -- the desk releases every board of the match: its levels and result are public ------------------------------------
def test_the_level_boxes_say_sealed_until_every_board_of_the_match_is_released(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    hub, web = served
    over = sealed_state(40, phase="match_over", deal=2, board=2, deals_played=2,
                        last_result={"deal": 2, "board": 2, "sealed": True}, match_result=twin("match_result", deal=2))
    hub.feed("T01", "state", over)
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    tile = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    for p in (page, tile):
        p.on("pageerror", lambda exc: errors.append(str(exc)))
    lvn = "els => els.map(e => e.textContent.trim())"
    try:
        page.goto(f"{web.url}/display/T01")
        tile.goto(f"{web.url}/display/")
        page.wait_for_selector(".lastdeal .match-words", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        assert "复式牌成绩封存" in page.inner_text(".lastdeal .match-words")
        # one board of two released: the match still holds a sealed board
        hub.release_board(board_of_deal(1, "5", "2"))
        page.wait_for_function("document.querySelector('.chart').dataset.points === '1'", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        assert "复式牌成绩封存" in page.inner_text(".lastdeal .match-words")
        assert page.query_selector(".lastdeal .sealed-note") is not None
        tile.wait_for_selector("#table-T01 .tile-team .lvn", timeout=UI)
        assert tile.eval_on_selector_all("#table-T01 .tile-team .lvn", lvn) == ["封存", "封存"]
        # both released: the levels after the last board, the match over with its boards released
        hub.release_board(board_of_deal(2, "K", "3"))
        page.wait_for_function("document.querySelector('.chart').dataset.points === '2'", timeout=UI)
        page.wait_for_selector(".scoreboard .lvn:not(.sealed)", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["K", "3"]
        assert page.inner_text(".lastdeal .match-words") == "比赛结束 · 复式牌已公布 Match over · boards released"
        assert page.query_selector(".lastdeal .sealed-note") is None and "封存" not in page.inner_text("body")
        assert "复式 2 号牌 Board 2 · 本场第2副 Deal 2" in page.inner_text(".lastdeal")
        tile.wait_for_selector("#table-T01 .tile-team .lvn:not(.sealed)", timeout=UI)
        assert tile.eval_on_selector_all("#table-T01 .tile-team .lvn", lvn) == ["K", "3"]
        assert "复式牌已公布" in tile.inner_text("#table-T01 .tile-now")
        # a page opened now gets the same from its snapshot
        fresh = browser.new_page(viewport={"width": 1920, "height": 1080})
        fresh.on("pageerror", lambda exc: errors.append(str(exc)))
        fresh.goto(f"{web.url}/display/T01")
        fresh.wait_for_selector(".scoreboard .lvn:not(.sealed)", timeout=UI)
        assert fresh.eval_on_selector_all(".scoreboard .lvn", lvn) == ["K", "3"]
        fresh.close()
        # the next match of boards starts: sealed again
        hub.feed("T01", "state", sealed_state(50, match=3, phase="playing", deal=1, board=1, deals_played=0,
                                              last_result=None, seats=sealed_seats(), trick=[]))
        page.wait_for_selector(".scoreboard .lvn.sealed", timeout=UI)
        assert page.eval_on_selector_all(".scoreboard .lvn", lvn) == ["封存", "封存"]
        assert errors == []
    finally:
        page.close()
        tile.close()


# -- the standings of a duplicate event --------------------------------------------------------------------------------
def test_the_standings_of_a_duplicate_event_show_the_duplicate_total_first(
        served: tuple[Hub, WebServer], browser: Any) -> None:
    """A duplicate event ranks by the duplicate total first (standings.compute): without it on screen a team of
    0 场分 stood above one of 2 with nothing to say why."""
    hub, web = served
    rows = [{"rank": 1, "team": 4, "name": "红队 Red", "players": ["甲", "乙"], "match_points": 0, "level_points": 4,
             "duplicate": 3.5, "lot": 99, "lot_no": 2},
            {"rank": 2, "team": 7, "name": "银队 Silver", "players": ["丙", "丁"], "match_points": 2, "level_points": 9,
             "duplicate": -4 / 3, "lot": 11, "lot_no": 1}]
    report = {"version": 4, "computed_at": "2026-12-01T10:00:00.000Z", "rows": rows, "rounds": 1, "pending": [],
              "boards": [{"board": 1, "table": "T01", "ns": 4, "ew": 7, "result_ns": 2, "score_ns": 3.5,
                          "compared": 1}]}
    hub.set_standings(report)
    summary = hub.snapshot()["standings"]
    assert summary["duplicate"] is True and [r["duplicate"] for r in summary["rows"]] == [3.5, -4 / 3]
    assert "boards" not in summary and all("lot" not in r and "team" not in r for r in summary["rows"])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    cells = "els => els.map(e => e.textContent.trim())"
    try:
        for path in ("/standings", "/display/"):
            page.goto(f"{web.url}{path}")
            page.wait_for_selector("#standings table.standings tr td.dup", timeout=UI)
            assert page.eval_on_selector_all("#standings table.standings th", cells) == \
                ["名次 #", "队 Team", "复式 Dup.", "场分 MP", "级差分 LP"]
            assert page.eval_on_selector_all("#standings table.standings tr:nth-child(2) td.num", cells) == \
                ["3.5", "0", "4"]
            assert page.eval_on_selector_all("#standings table.standings tr:nth-child(3) td.num", cells) == \
                ["-1.33", "2", "9"]
            assert "复式总分优先 · ranked by duplicate total first" in page.inner_text("#standings .st-sub")
        # an event without duplicate boards: no such column
        hub.set_standings({**report, "version": 5, "boards": None})
        page.wait_for_function("!document.querySelector('#standings td.dup')", timeout=UI)
        assert "复式 Dup." not in page.inner_text("#standings") and "复式总分" not in page.inner_text("#standings")
        assert errors == []
    finally:
        page.close()
