"""The commentators' delayed view: hands and state as they were ``delay`` seconds ago, behind the referee
password, in a real headless Chromium against a real Mosquitto; the public routes never carry a hand."""

from __future__ import annotations

import base64
import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from table_daemon.adapters.broker import LocalBroker
from table_daemon.display.commentary import Commentary
from table_daemon.display.referees import Referees, add_account
from table_daemon.display.service import DisplayService

from ..desk.spec_table import SpecTable
from .live_pages import UI, seats, table_state

PASSWORD = "裁判-referee-42"


def test_a_commentator_sees_hands_and_state_only_as_they_were_delay_seconds_ago() -> None:
    c = Commentary(delay=60)
    c.feed("T01", "hands", {"type": "hands", "hands": {"S": ["H3", "H4"]}}, now=100.0)
    c.feed("T01", "state", {"phase": "playing", "turn": "S"}, now=100.5)
    assert c.view("T01", now=150.0) is None  # nothing is 60 s old yet
    c.feed("T01", "hands", {"type": "hands", "hands": {"S": ["H4"]}}, now=170.0)  # S played H3
    c.feed("T01", "state", {"phase": "playing", "turn": "E"}, now=170.2)
    view = c.view("T01", now=200.0)
    assert view is not None and view["hands"] == {"S": ["H3", "H4"]} and view["state"]["turn"] == "S"
    later = c.view("T01", now=230.3)
    assert later is not None and later["hands"] == {"S": ["H4"]} and later["state"]["turn"] == "E"
    assert c.view("T02", now=230.0) is None
    assert not c.feed("T01", "results", {"type": "deal_result"}, now=231.0)
    assert c.feed("T01", "events", {"type": "play", "seat": "E", "cards": ["D7"]}, now=231.0)
    assert not c.feed("T01", "events", {"type": "card_dealt", "seat": "E"}, now=231.0)  # not part of the story
    early = c.view("T01", now=231.5)
    assert early is not None and early["events"] == []  # the play is not yet `delay` seconds old
    aged = c.view("T01", now=291.0)
    assert aged is not None and [e["type"] for e in aged["events"]] == ["play"]
    assert not c.feed("T01", "hands", b"not json", now=231.0)


def test_old_entries_go_but_the_last_one_before_the_delay_stays() -> None:
    c = Commentary(delay=10, keep=100)
    for t in range(0, 1000, 5):
        c.feed("T01", "hands", {"hands": {"S": [f"t{t}"]}}, now=float(t))
    view = c.view("T01", now=1000.0)
    assert view is not None and view["hands"] == {"S": ["t990"]}
    assert len(c._log["T01"]["hands"]) < 40
    with pytest.raises(ValueError):
        Commentary(delay=-1)


def _get(url: str, password: str | None = None) -> tuple[int, str]:
    req = urllib.request.Request(url)
    if password is not None:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"desk:{password}".encode()).decode())
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_commentary_page_behind_the_password_shows_delayed_hands(mosquitto: LocalBroker, topic_root: Any,
                                                                  tmp_path: Path, browser: Any) -> None:
    event = topic_root.event
    service = DisplayService(mosquitto.url, event, commentary_delay=1.0, referee_password=PASSWORD)
    service.start()
    table = SpecTable(mosquitto.url, event, "T01")
    try:
        table.client.publish(f"{table.root}/private/hands", json.dumps(
            {"type": "hands", "deal": 1, "hands": {"S": ["SA", "HR"], "E": ["D7"], "N": ["C9"], "W": ["H2"]}}),
            qos=1, retain=True).wait_for_publish(5)
        table.state(phase="playing", deal=1, level="5", turn="S", trick=None)
        base = service.web.url
        assert _get(f"{base}/commentary/T01")[0] == 401
        assert _get(f"{base}/api/commentary?table=T01", "wrong")[0] == 401
        status, body = _get(f"{base}/api/commentary?table=T01", PASSWORD)
        assert status == 200 and json.loads(body).get("waiting")  # within the delay: nothing yet
        context = browser.new_context(http_credentials={"username": "解说", "password": PASSWORD})
        page = context.new_page()
        page.goto(f"{base}/commentary/T01")
        page.wait_for_selector("#seat-S svg.card[data-card='HR']", timeout=5000)
        assert "1 s delay" in page.inner_text("#delay")
        assert "turn" in page.locator("#seat-S").get_attribute("class").split()
        # sorted by rank: the big joker before the ace
        assert page.eval_on_selector_all("#seat-S svg.card", "els => els.map(e => e.dataset.card)") == ["HR", "SA"]
        shot = Path(os.environ.get("GUANDAN_SCREENSHOTS", tmp_path)) / "commentary-T01.png"
        page.screenshot(path=str(shot))
        assert "as of" in page.inner_text("#delay")  # the moment the view shows, by the wall clock
        # the server stops answering without an error (a network that stalls): said, with the picture's moment
        answer = service._commentary

        def stalled(table: str) -> tuple[int, str, bytes]:
            time.sleep(8)
            return answer(table)

        service._commentary = stalled  # type: ignore[method-assign]
        page.wait_for_function("document.body.classList.contains('disconnected')", timeout=15000)
        assert "connection lost" in page.inner_text("#status") and "showing" in page.inner_text("#status")
        service._commentary = answer  # type: ignore[method-assign]
        page.wait_for_function("!document.body.classList.contains('disconnected')", timeout=20000)
        for width, height in ((768, 1024), (390, 844)):  # a tablet and a phone: nothing cut off at the side
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(300)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, width
            assert page.locator("#seat-S").bounding_box()["width"] <= width
        context.close()
        # the public routes never carry a hand
        time.sleep(0.2)
        for path in ("/api/live", "/api/live?table=T01"):
            status, body = _get(base + path)
            assert status == 200 and "HR" not in body and "SA" not in body
    finally:
        table.close()
        service.stop()


def test_the_commentary_view_needs_a_password() -> None:
    with pytest.raises(ValueError, match="password"):
        DisplayService("mqtt://127.0.0.1:1", "ev", commentary_delay=5)


def test_display_command_refuses_a_commentary_view_without_a_good_password(tmp_path: Path) -> None:
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "table_daemon.cli", "desk", "display", "--broker",
                               "mqtt://127.0.0.1:1", "--event", "ev", "--http", "0", *args],
                              capture_output=True, text=True, timeout=30)

    done = run("--commentary-delay", "30")
    assert done.returncode == 2 and "--referee-password-file or --referee-accounts" in done.stderr
    short = tmp_path / "pw"
    short.write_text("abc\n", "utf-8")
    done = run("--commentary-delay", "30", "--referee-password-file", str(short))
    assert done.returncode == 2 and "8 characters" in done.stderr


def test_the_commentary_view_behind_referees_own_accounts(tmp_path: Path) -> None:
    """`desk display --referee-accounts`: commentators log in as themselves, as at the desk."""
    accounts = tmp_path / "referees"
    add_account(accounts, "解说甲", "password-jia", rounds=1000)
    service = DisplayService("mqtt://127.0.0.1:1", "ev", commentary_delay=5.0,
                             referees=Referees.with_accounts(accounts))
    service.web.start()
    try:
        req = urllib.request.Request(f"{service.web.url}/api/commentary?table=T01")
        req.add_header("Authorization", "Basic " + base64.b64encode("解说甲:password-jia".encode()).decode())
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.status == 200
        assert _get(f"{service.web.url}/api/commentary?table=T01", "password-jia")[0] == 401  # user "desk"
    finally:
        service.web.stop()


def test_hands_of_another_deal_are_not_shown_under_the_state_of_the_next() -> None:
    """While deal 2 is dealt, the retained hands were still deal 1's leftovers: a commentator saw three cards of
    the last deal (with its wild) under "deal 2, dealing"."""
    c = Commentary(delay=0)
    c.feed("T01", "hands", {"type": "hands", "deal": 1, "hands": {"N": ["CJ", "D8", "H2"]}}, now=10.0)
    c.feed("T01", "state", {"phase": "dealing", "deal": 2}, now=11.0)
    view = c.view("T01", now=12.0)
    assert view is not None and view["hands"] == {}
    c.feed("T01", "hands", {"type": "hands", "deal": 2, "hands": {"N": ["S3"]}}, now=13.0)
    view = c.view("T01", now=14.0)
    assert view is not None and view["hands"] == {"N": ["S3"]}


def test_while_the_dealer_deals_the_commentary_counts_the_cards_dealt(browser: Any) -> None:
    """The hands come only once the dealer is done: the commentary showed "0 张" a seat for the whole deal; the
    public count of cards dealt stands in, with the deal said to be dealing."""
    service = DisplayService("mqtt://127.0.0.1:1", "ev", commentary_delay=0.0, referee_password="裁判-ref-7")
    assert service.commentary is not None
    now = service.clock()
    service.commentary.feed("T01", "hands", {"type": "hands", "deal": 3, "hands": {}}, now)
    service.commentary.feed("T01", "state", table_state(5, phase="dealing", seats=seats(N=13, E=13, S=14, W=13),
                                                       trick=[], turn=None), now)
    service.web.start()
    context = browser.new_context(http_credentials={"username": "解说", "password": "裁判-ref-7"})
    page = context.new_page()
    try:
        page.goto(f"{service.web.url}/commentary/T01")
        page.wait_for_selector("#seat-S .dealing-hand", timeout=UI)
        assert "14 张" in page.inner_text("#seat-S h2") and "13 张" in page.inner_text("#seat-E h2")
        assert "0 张" not in page.inner_text("#ctable") and "发牌中" in page.inner_text("#seat-N")
    finally:
        context.close()
        service.web.stop()
