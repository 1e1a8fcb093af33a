"""The display pages against a real simulated event: the scoring desk pairs four teams and starts their matches
(``start_match`` with the teams' names) on two simulated tables (dealer, seat buttons and bots of
``guandan-table simulate``, which wait for the desk as at an event) over a real Mosquitto; a real headless Chromium opens
the table view (hall screen and phone), the hall overview, the printed standings and, behind the referee
password, the commentators' delayed view. Screenshots go to ``$GUANDAN_SCREENSHOTS`` (else the test's tmp dir).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import re
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_daemon.adapters.broker import LocalBroker
from table_daemon.cli import main
from table_daemon.config import simulated_config
from table_daemon.desk.service import Desk
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server
from table_daemon.display.service import DisplayService
from table_daemon.simulate import SimTable

PASSWORD = "解说-commentary-7"
PAIRS = """team,player1,player2,unit
红旗队 Red Flag,张伟,李娜,南京
长江队 Yangtze,王芳,刘洋,淮安
紫金队 Zijin,陈静,杨帆,扬州
运河队 Canal,赵磊,周敏,苏州
"""
PLAYERS = {"张伟", "李娜", "王芳", "刘洋", "陈静", "杨帆", "赵磊", "周敏"}
UI = 20_000  # ms a page may take to show what it was sent (generous: the test machine is shared and busy)
HIDDEN_ON_PUBLIC = re.compile(r'"hands"|"private"|deal_line')


def shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("GUANDAN_SCREENSHOTS", tmp_path / "out"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def live(url: str) -> dict[str, Any]:
    got = json.loads(urllib.request.urlopen(url, timeout=5).read())
    assert isinstance(got, dict)
    return got


@pytest.fixture
def event(mosquitto: LocalBroker, topic_root: Any, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A running event: the desk (with its pages), a display server with the commentary view, and two
    simulated tables playing the matches the desk started."""
    name, db = topic_root.event, tmp_path / "desk.sqlite"
    (tmp_path / "pairs.csv").write_text(PAIRS, "utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["desk", "init", "--db", str(db), "--event", name, "--pairs", str(tmp_path / "pairs.csv"),
                     "--match-end", "deals:30"]) == 0
        assert main(["desk", "pair", "--db", str(db), "--round", "1"]) == 0
    store = Store(db)
    desk = Desk(store, mosquitto.url, name)
    web = desk_server(store, desk.hub)
    display = DisplayService(mosquitto.url, name, commentary_delay=1.0, referee_password=PASSWORD)
    sims = [SimTable(simulated_config(table=t, event=name, broker=mosquitto.url, journal=str(tmp_path / f"{t}.db")),
                     seed=11 + i, speed=15, camera=False) for i, t in enumerate(("T01", "T02"))]
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            for sim in sims:
                sim.watch(time.monotonic())

    watcher = threading.Thread(target=watch, daemon=True)
    try:
        web.start()
        desk.start()
        display.start()
        assert desk.link.connected.wait(10)
        for sim in sims:  # online, no match of their own: the desk starts each table's match when it sees it
            sim.app.start()
        watcher.start()
        yield {"name": name, "web": web, "display": display, "desk": desk, "store": store}
    finally:
        stop.set()
        for sim in sims:
            sim.stop()
        display.stop()
        desk.stop()
        web.stop()
        store.close()


def appears(page: Any, selector: str) -> None:
    """Wait until ``selector`` is on the page (checked in one go: the page redraws with every message)."""
    page.wait_for_function("s => !!document.querySelector(s)", arg=selector, timeout=UI, polling=100)


def wait_for(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


GATHER = """() => {
    feed.drawNow();  // the page as drawn from what it holds now
    if (!(document.querySelectorAll('.trick-row').length >= 4 && document.querySelector(".chart .dot[data-deal='1']")
          && document.querySelector('.seat svg.card'))) return null;
    const tab = feed.snap.tables.T01, played = {S: [], E: [], N: [], W: []}, shown = {};
    (tab.events || []).forEach(ev => { if (ev.type === 'play') played[ev.seat].push(...ev.cards); });
    ['S', 'E', 'N', 'W'].forEach(s => { shown[s] = Array.from(document.querySelectorAll('.seat-' + s + ' svg.card'))
        .map(e => e.dataset.card); });
    const texts = sel => Array.from(document.querySelectorAll(sel)).map(e => e.innerText.trim());
    return {names: texts('.seat .pname'), teams: texts('.scoreboard .tn'), played, shown,
            tricks: document.querySelectorAll('.trick-row').length,
            history_cards: document.querySelectorAll('.history svg.card').length,
            history: document.querySelector('.history').innerText,
            chart_deal1: document.querySelectorAll(".chart .dot[data-deal='1']").length,
            last: document.querySelector('.lastdeal .result-words').innerText};
}"""


def test_hall_screens_of_a_simulated_event(event: dict[str, Any], browser: Any, tmp_path: Path) -> None:
    web, out = event["web"], shots(tmp_path)

    def second_deal_under_way() -> bool:
        tab = live(f"{web.url}/api/live?table=T01")["tables"].get("T01", {})
        state = tab.get("state") or {}
        tricks = sum(1 for ev in tab.get("events", []) if ev.get("type") == "trick_won")
        return bool(tab.get("chart")) and state.get("phase") == "playing" and tricks >= 2

    wait_for(second_deal_under_way, 90, "T01 to finish a deal and play four tricks of the next")

    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        # Joining late: the whole deal so far at once (deal 1's point on the level chart came before the page).
        page.goto(f"{web.url}/display/T01")
        # everything at one instant, once four tricks are shown (the tables keep playing meanwhile)
        seen = page.wait_for_function(GATHER, timeout=UI, polling=100).json_value()
        page.screenshot(path=str(out / "table-T01-1920x1080.png"), timeout=UI * 3)
        assert len(set(seen["names"]) & PLAYERS) == 4, seen["names"]
        assert seen["teams"][0] in PAIRS and seen["teams"][1] in PAIRS
        assert seen["tricks"] >= 4 and seen["history_cards"] >= 4
        assert seen["chart_deal1"] == 2
        assert "上游" in seen["last"]
        assert re.search("单张|对子|三同张|三带对|顺子|三连对|三同连张|炸弹|同花顺|四大天王", seen["history"])
        assert not re.search(r"\b(single|pair|triple|bomb)\b [0-9TJQKA]|\bT\b", seen["history"])
        # no hidden hand on the public page: every card a seat shows is one it has played
        for seat, shown in seen["shown"].items():
            assert set(shown) <= set(seen["played"][seat]), (seat, shown)
        tab = live(f"{web.url}/api/live?table=T01")["tables"]["T01"]
        assert not HIDDEN_ON_PUBLIC.search(json.dumps(tab))
        # a seat that is out never shows 报牌
        for box in page.locator(".seat.out").all():
            assert "报牌" not in box.inner_text()

        assert not errors
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        phone.goto(f"{web.url}/display/T02")
        appears(phone, ".seat .pname")
        assert not errors
        phone.wait_for_timeout(300)
        phone.screenshot(path=str(out / "table-T02-phone.png"), full_page=True, timeout=UI * 3)
        assert len(set(phone.locator(".seat .pname").all_inner_texts()) & PLAYERS) == 4
        phone.close()

        # The hall overview: every table, a featured one, the standings, a link and QR code for phones.
        page.goto(f"{web.url}/display/")
        appears(page, "#table-T02 .tile-team")
        appears(page, "#featured .seat")
        appears(page, "table.standings tr td.name")
        page.wait_for_function("document.getElementById('qr').naturalWidth > 0", timeout=UI)
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / "overview-1920x1080.png"), timeout=UI * 3)
        assert page.locator(".tile").count() == 2
        assert "/display/" in page.inner_text("#url")
        assert "红旗队 Red Flag" in page.inner_text("#standings")
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(f"{web.url}/display/")
        appears(phone, "#table-T02 .tile-team")
        phone.screenshot(path=str(out / "overview-phone.png"), full_page=True, timeout=UI * 3)
        phone.close()
        qr = urllib.request.urlopen(f"{web.url}/qr.svg?path=/display/", timeout=5).read()
        assert qr.startswith(b"<svg") and b"<path" in qr

        # The printed standings: CJK font, local time, no internal numbers, one A4 page.
        page.goto(f"{web.url}/print")
        html = page.content()
        assert "WenQuanYi" in html or "Noto Sans CJK" in html
        assert "+08:00" in html or "北京时间" in html
        assert not re.search(r"\d{9,}", page.inner_text("body"))
        page.screenshot(path=str(out / "print.png"), full_page=True)
        pdf = page.pdf(format="A4")
        (out / "print.pdf").write_bytes(pdf)
        assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1
    finally:
        page.close()

    # The commentators' delayed view: behind the password, four sorted hands around the table.
    display = event["display"]
    assert urllib.request.urlopen(f"{display.web.url}/api/live", timeout=5).status == 200
    context = browser.new_context(viewport={"width": 1920, "height": 1080},
                                  http_credentials={"username": "解说", "password": PASSWORD})
    page = context.new_page()
    try:
        page.goto(f"{display.web.url}/commentary/T01")
        seen = page.wait_for_function("""() => lastView && (lastView.state || {}).level
            && document.querySelector('.hand svg.card') && document.querySelector('.trick-row') && ({
            level: lastView.state.level,
            names: Array.from(document.querySelectorAll('.hand .pname')).map(e => e.innerText.trim()),
            hands: ['S', 'E', 'N', 'W'].map(s => Array.from(document.querySelectorAll('#seat-' + s + ' svg.card'))
                .map(e => e.dataset.card)),
            wild: document.querySelectorAll('.hand svg.card.wild').length})""", timeout=UI, polling=200).json_value()
        page.screenshot(path=str(out / "commentary-T01-1920x1080.png"), timeout=UI * 3)
        assert len(set(seen["names"]) & PLAYERS) == 4, seen["names"]
        level = seen["level"]
        for hand in seen["hands"]:
            keys = [_hand_key(c, level) for c in hand]
            assert keys == sorted(keys, reverse=True), hand
        assert seen["wild"] == sum(hand.count("H" + level) for hand in seen["hands"])
    finally:
        context.close()
    req = urllib.request.Request(f"{display.web.url}/commentary/T01")
    with pytest.raises(urllib.error.HTTPError) as denied:
        urllib.request.urlopen(req, timeout=5)
    assert denied.value.code == 401
    auth = base64.b64encode(f"x:{PASSWORD}".encode()).decode()
    body = urllib.request.urlopen(urllib.request.Request(f"{display.web.url}/api/commentary?table=T01",
                                                         headers={"Authorization": "Basic " + auth}), timeout=5)
    assert json.loads(body.read())["events"]


RANKS = "23456789TJQKA"


def _hand_key(code: str, level: str) -> float:
    """The sort order a commentator expects, written out independently of cards.js: jokers, then the level
    cards (wild hearts first), then A down to 2."""
    if code in ("HR", "SB"):
        return 100 + (code == "HR")
    suit, rank = code[0], code[1:]
    if rank == level:
        return 90 + (0.5 if suit == "H" else 0)
    return RANKS.index(rank)
