"""The hall screens at the sizes they meet (a 1080p television, a 720p projector, a 1366x768 laptop, a browser
window with toolbars, a 4K screen): nothing sticks out of its seat or off the screen's width, and the cards laid
in a seat stay large enough to read from the hall. At 1080p the south seat of a busy deal used to spill out of
the table onto the level chart, below 1400 px the overview ran off the right of the screen, and it was taller
than a 1080p screen with four tables."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from table_daemon.adapters.broker import LocalBroker
from table_daemon.desk.service import Desk
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server

from ..desk.spec_table import SpecTable

SIZES = [(1920, 1080), (1280, 720), (1366, 768), (1920, 960), (3840, 2160)]
STRAIGHT = {"seat": "N", "cards": ["S3", "H4", "C5", "D6", "S7"], "reading": {"type": "straight", "rank": "3", "size": 5}}
HIGHER = {"seat": "W", "cards": ["H8", "H9", "HT", "HJ", "HQ"],
          "reading": {"type": "straight_flush", "rank": "8", "size": 5, "suit": "H"}}

@contextlib.contextmanager
def desk_pages(broker_url: str, event: str, db: Path, teams: list[Team]) -> Iterator[str]:
    """A running desk (its hub fed by the broker) and its web server; the server's address."""
    store = Store(db)
    store.set_up(event, teams, {}, "seed")
    desk = Desk(store, broker_url, event)
    web = desk_server(store, desk.hub)
    web.start()
    desk.start()
    try:
        yield web.url
    finally:
        desk.stop()
        web.stop()
        store.close()


TEAMS = [Team(1, "红队", ("甲", "乙"), "U1"), Team(2, "蓝队", ("丙", "丁"), "U2")]


#: every seat's descendants inside the seat, every seat inside the table, nothing wider than the screen; each
#: seat's card width, in rem of the page
CHECK = """() => {
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize), out = [], cards = {};
  if (document.documentElement.scrollWidth > innerWidth + 1) out.push('page wider than the screen');
  if (document.body.classList.contains('overview') && document.documentElement.scrollHeight > innerHeight + 1)
    out.push('overview taller than the screen');
  for (const felt of document.querySelectorAll('.felt')) {
    const fb = felt.getBoundingClientRect();
    for (const seat of felt.querySelectorAll('.seat')) {
      const sb = seat.getBoundingClientRect();
      if (sb.bottom > fb.bottom + 1 || sb.right > fb.right + 1) out.push(seat.dataset.seat + ' outside the table');
      for (const e of seat.querySelectorAll('*')) {
        const b = e.getBoundingClientRect();
        if (b.height && (b.bottom > sb.bottom + 1 || b.right > sb.right + 1 || b.left < sb.left - 1))
          out.push(seat.dataset.seat + ': ' + e.getAttribute('class') + ' outside its seat');
      }
      const card = seat.querySelector('svg.card');
      if (card) cards[seat.dataset.seat] = card.getBoundingClientRect().width / rem;
    }
  }
  return {problems: out, cards};
}"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_table_and_the_overview_fit_the_screen(width: int, height: int, broker_factory: Callable[..., LocalBroker],
                                                   topic_root: Any, tmp_path: Any, browser: Any) -> None:
    broker = broker_factory()
    event = topic_root.event
    table = SpecTable(broker.url, event, "T01")
    seats = {s: {"team": "NS" if s in "NS" else "EW", "name": f"选手 {s}", "cards_left": 5 if s == "S" else 20,
                 "reported": s == "S"} for s in "SENW"}
    table.state(phase="playing", seats=seats, levels={"NS": "5", "EW": "3"}, level="5", played="NS", deal=3,
                turn="S", trick=[STRAIGHT, HIGHER], trick_passes=0, timer={"since": 0, "deadline": None},
                teams={"NS": {"name": "红旗队 Red Flag"}, "EW": {"name": "长江队 Yangtze"}}, match=1,
                match_clock={"started": time.time(), "ends": time.time() + 2400, "time_up": False},
                tribute={"resisted": False, "given": [{"from": "E", "to": "N", "card": "SA"},  # a double tribute
                                                      {"from": "W", "to": "S", "card": "HR"}],
                         "returned": [{"from": "N", "to": "E", "card": "C4"}, {"from": "S", "to": "W", "card": "D3"}],
                         "laid": {}, "pending": []})
    others = [SpecTable(broker.url, event, f"T0{n}") for n in (2, 3, 4)]  # four tiles on the overview
    for other in others:
        other.state(phase="dealing", seats=seats, levels={"NS": "2", "EW": "2"}, level="2", played="NS", deal=1,
                    trick=[], trick_passes=0, teams={"NS": {"name": "红队"}, "EW": {"name": "蓝队"}})
    teams = [Team(1, "红旗队 Red Flag", ("甲", "乙"), "U1"), Team(2, "长江队 Yangtze", ("丙", "丁"), "U2")]
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        with desk_pages(broker.url, event, tmp_path / "desk.sqlite", teams) as url:
            page.goto(url + "/display/")
            page.wait_for_selector("#table-T04", timeout=10000)
            for path, designed in (("/display/T01", 5.4), ("/display/", 3.6)):
                page.goto(url + path)
                page.wait_for_selector(".felt .seat-W svg.card", timeout=10000)
                page.wait_for_selector(".tribute-line", timeout=10000)
                # live, then with the banner of a lost link above the page (it makes room, nothing moves off)
                for banner in ("", "stale"):
                    if banner:
                        page.evaluate("LIVE.link = {connected: false, away_since: Date.now() / 1000}; showLive()")
                        page.wait_for_selector(".stale-banner", state="visible", timeout=5000)
                    seen = page.evaluate(CHECK)
                    assert seen["problems"] == [], (path, width, height, banner, seen["problems"])
                    # the plays are drawn, each seat's cards at least half the size the layout was drawn for
                    assert set(seen["cards"]) == {"N", "W"}, (path, seen)
                    assert min(seen["cards"].values()) >= designed / 2, (path, width, height, banner, seen["cards"])
    finally:
        page.close()
        for each in (table, *others):
            each.close()


def test_the_overview_features_no_table_that_is_offline(broker_factory: Callable[..., LocalBroker], topic_root: Any,
                                                        tmp_path: Any, browser: Any) -> None:
    """A table gone offline mid-trick stays frozen there: the hall is shown another one playing."""
    broker = broker_factory()
    event = topic_root.event
    tables = [SpecTable(broker.url, event, t) for t in ("T01", "T02")]
    seats = {s: {"team": "NS" if s in "NS" else "EW", "cards_left": 20} for s in "SENW"}
    for table in reversed(tables):  # T01's play is the freshest
        table.publish("status", {"online": True, "table": table.table}, retain=True)
        table.state(phase="playing", seats=seats, levels={"NS": "2", "EW": "2"}, level="2", played="NS",
                    turn="E", trick=[STRAIGHT], trick_passes=0)
        time.sleep(0.05)
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        with desk_pages(broker.url, event, tmp_path / "desk.sqlite", TEAMS) as url:
            page.goto(url + "/display/")
            page.wait_for_selector("#featured[data-table='T01']", timeout=10000)
            tables[0].publish("status", {"online": False, "table": "T01"}, retain=True)
            page.wait_for_selector("#featured[data-table='T02']", timeout=10000)
            tables[1].publish("status", {"online": False, "table": "T02"}, retain=True)
            page.wait_for_selector("#featured-box", state="hidden", timeout=10000)
    finally:
        page.close()
        for table in tables:
            table.close()


def test_a_hall_of_more_tables_than_fit_turns_the_pages_of_its_list(
        broker_factory: Callable[..., LocalBroker], topic_root: Any, tmp_path: Any, browser: Any) -> None:
    """Nobody scrolls a hall screen: the list of tables turns its pages by itself (?page=1: each second)."""
    broker = broker_factory()
    event = topic_root.event
    tables = [SpecTable(broker.url, event, f"T{n:02d}") for n in range(1, 25)]
    seats = {s: {"team": "NS" if s in "NS" else "EW", "cards_left": 27} for s in "SENW"}
    for table in tables:
        table.state(phase="dealing", seats=seats, levels={"NS": "2", "EW": "2"}, level="2", played="NS", deal=1,
                    trick=[], trick_passes=0)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        with desk_pages(broker.url, event, tmp_path / "desk.sqlite", TEAMS) as url:
            page.goto(url + "/display/?page=1")
            page.wait_for_selector("#table-T24", timeout=10000)
            assert page.evaluate("document.documentElement.scrollHeight") <= 721  # the screen never scrolls
            page.wait_for_function("document.querySelector('.all').scrollTop > 0", timeout=10000)
            page.wait_for_function("document.querySelector('.all').scrollTop === 0", timeout=20000)  # round again
    finally:
        page.close()
        for table in tables:
            table.close()
