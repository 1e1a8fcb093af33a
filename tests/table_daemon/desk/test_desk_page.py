"""The referees' desk page in a real headless Chromium, behind the referee password, against a real Mosquitto
and tables written from the spec: pair and start a round, see a busy table's reason and its start retried,
an alert with its type in Chinese and English, seat, local time and camera picture, acknowledge it, a table's
health problems and devices on its row, a table gone mid-match, a result not counted with its reason, a
correction refused for contradicting its winner, entered by one referee and approved by another, the desk
losing the broker, the page at a phone's width."""

from __future__ import annotations

import base64
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from table_daemon.adapters.broker import LocalBroker
from table_daemon.desk import presence
from table_daemon.desk.service import Desk
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server

from .spec_table import SpecTable

PASSWORD = "desk-page-secret"


def jpeg_data_url() -> str:
    img = np.zeros((60, 90, 3), np.uint8)
    cv2.rectangle(img, (10, 10), (50, 50), (0, 0, 255), -1)
    ok, data = cv2.imencode(".jpg", img)
    assert ok
    return "data:image/jpeg;base64," + base64.b64encode(bytes(data)).decode()


def propose(page: Any, winner: str) -> None:
    """Enter round 1 at T02 as NS 5 / EW A+ with ``winner``, from the page's correction form."""
    page.fill("#c-round", "1")
    page.fill("#c-table", "T02")
    page.fill("#c-ns", "5")
    page.fill("#c-ew", "A+")
    page.select_option("#c-winner", winner)
    page.fill("#c-reason", "scoresheet")
    page.click("#propose")


def step(page: Any, table: str) -> str:
    return page.get_attribute(f"#round-tables tr[data-key='{table}'] .step", "class") or ""


def test_referees_work_from_the_desk_page(broker_factory: Callable[..., LocalBroker], topic_root: Any,
                                          tmp_path: Path, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(presence, "OFFLINE_ALERT_S", 1.0)  # the clock's fake: a table gone for "long enough"
    broker = broker_factory()
    event = topic_root.event
    t1, t2 = SpecTable(broker.url, event, "T01"), SpecTable(broker.url, event, "T02")
    t2.refuse = "a deal is in progress (playing): finish or void it first"
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, [Team(1, "红队", ("甲", "乙"), "U1"), Team(2, "蓝队", ("丙", "丁"), "U2"),
                         Team(3, "金队", ("戊", "己"), "U3"), Team(4, "银队", ("庚", "辛"), "U4")],
                 {"tables": ["T01", "T02"], "timezone": "Asia/Shanghai"}, "seed")
    said: list[str] = []  # the desk's console
    desk = Desk(store, broker.url, event, say=said.append)
    web = desk_server(store, desk.hub, password=PASSWORD, desk=desk)
    web.start()
    desk.start()
    context = browser.new_context(http_credentials={"username": "referee", "password": PASSWORD})
    page = context.new_page()
    asked: list[str] = []  # starting a round at every table is confirmed first; the referee says yes

    def yes(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", yes)
    try:
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(web.url + "/api/standings", timeout=5)
        assert err.value.code == 401
        page.goto(web.url + "/")
        page.wait_for_selector("#mode:has-text('referee mode')")
        page.click("#pair-next")
        page.wait_for_selector("#msg.err:has-text('referee')")  # who does it must be said first
        page.fill("#referee", "裁判 Li")
        page.click("#pair-next")
        page.wait_for_selector("#round[data-round='1']")
        assert asked and "every table" in asked[-1]
        page.wait_for_selector("#round-tables tr[data-key='T01'] .step-accepted", timeout=10000)
        busy = page.wait_for_selector("#round-tables tr[data-key='T02'] .step-busy", timeout=10000)
        assert "table busy" in busy.inner_text()
        assert "a deal is in progress" in page.inner_text("#round-tables tr[data-key='T02']")
        t2.refuse = None  # the table is free: the desk's next try is accepted
        page.wait_for_selector("#round-tables tr[data-key='T02'] .step-accepted", timeout=10000)
        assert len([c for c in t2.commands if c["name"] == "start_match"]) >= 2

        # An alert: type in Chinese and English, seat, local time (UTC+8), the camera frame; acknowledged.
        t1.publish("alerts", t1.message("alert", code="misread", seat="E", message="the reader is unsure",
                                        evidence={"frame": 812, "seen": ["H5", "ST", "HR"], "image": jpeg_data_url()},
                                        **{"ts": "2026-11-29T10:00:00.000Z"}))
        row = page.wait_for_selector("#alerts tbody tr:has-text('识别不确定')", timeout=10000)
        text = row.inner_text()
        assert "misread" in text and "东 E" in text and "2026-11-29 18:00:00" in text and "T01" in text
        assert "见 seen: ♥5 ♠10 大王" in text  # cards as a referee names them, not the table's codes
        assert row.query_selector("a[target='_blank'] > img.evidence") is not None  # opens the whole frame
        # the picture decodes after its row shows (under load, later than the first look)
        page.wait_for_function("() => { const i = document.querySelector('#alerts img.evidence'); "
                               "return i !== null && i.complete && i.naturalWidth > 0 }", timeout=10000)
        assert page.evaluate("() => document.querySelector('#alerts img.evidence').naturalWidth") == 90
        row.query_selector("button.ack").click()
        page.wait_for_selector("#alerts tbody tr:has-text('识别不确定')", state="detached")  # open ones only
        page.uncheck("#open-only")
        page.wait_for_selector("#alerts tbody tr:has-text('裁判 Li')")
        page.check("#open-only")
        # Misreads (lay the cards again, never a foul) all acknowledged at once; a foul is left to see to.
        for seat in ("S", "N"):
            t1.publish("alerts", t1.message("alert", code="misread", seat=seat, message="the reader is unsure"))
        t1.publish("alerts", t1.message("alert", code="not_held", seat="W", message="W does not hold HA"))
        page.wait_for_function("document.querySelectorAll('#alerts tbody tr').length === 3", timeout=10000)
        page.click("#ack-misreads")
        page.wait_for_function("document.querySelectorAll('#alerts tbody tr').length === 1", timeout=10000)
        assert "所出之牌不在手中" in page.inner_text("#alerts tbody")
        # what referees did is on the desk's console too, with who did it
        assert any("referee 裁判 Li paired round 1" in line for line in said), said
        # the console's clock is the event's zone, said once ("desk 05:22:04" named none: a walk-through)
        assert any("the console's times are Asia/Shanghai's" in line for line in said), said
        assert any("referee 裁判 Li acknowledged 2 misread alerts" in line for line in said), said

        # A table's health problems show on its row, named as its alerts are; its devices by their state.
        t1.publish("status", {"online": True, "table": "T01", "devices": {
            "dealer": {"source": "/dev/ttyACM0", "state": "idle"},
            "camera": {"source": "picamera2://0", "state": "missing", "error": "no camera 0"}}}, retain=True)
        t1.publish("health", {"table": "T01", "problems": ["camera_missing", "journal_write_failed"]}, retain=True)
        row = page.wait_for_selector("#tables tr[data-key='T01']:has(.problems)", timeout=10000)
        assert row.query_selector(".problems").inner_text() == \
            "找不到摄像头 camera not found; 牌局日志无法写入 journal cannot be written"
        assert "摄像头 camera：未找到 missing (no camera 0)" in row.inner_text() and "发牌机 dealer：空闲 idle" in row.inner_text()
        assert page.query_selector("#tables tr[data-key='T02'] .problems") is None

        # A table gone mid-match: what its match waits for is the table itself, and once it has been away long
        # enough, an alert of the desk's own.
        t2.publish("status", {"online": False, "table": "T02"}, retain=True)
        page.wait_for_selector("#round-tables tr[data-key='T02']:has-text('table offline')", timeout=10000)
        page.wait_for_selector("#alerts tbody tr:has-text('牌桌离线 table offline mid-match')", timeout=10000)
        t2.publish("status", {"online": True, "table": "T02"}, retain=True)
        page.wait_for_function("() => !document.querySelector(\"#round-tables tr[data-key='T02']\")"
                               ".innerText.includes('table offline')", timeout=10000)

        # At the centre of several halls: a hall's bridge drops (the central broker's $SYS notification, which
        # no client may publish, handed to the desk as it arrives): a red line names the hall, until it is back.
        desk.on_message(f"$SYS/broker/connection/bridge-{event}-H9/state", b"1")
        desk.on_message(f"$SYS/broker/connection/bridge-{event}-H9/state", b"0")
        page.wait_for_selector("#halls-down:has-text('hall link down: H9')", timeout=10000)
        desk.on_message(f"$SYS/broker/connection/bridge-{event}-H9/state", b"1")
        page.wait_for_selector("#halls-down", state="hidden", timeout=10000)

        # Two devices configured as T01 take the connection from each other: said once, as an alert.
        for epoch in ("boot-a", "boot-b", "boot-a"):
            t1.publish("status", {"online": True, "table": "T01", "epoch": epoch}, retain=True)
        page.wait_for_selector("#alerts tbody tr:has-text('桌号冲突 two devices as one table')", timeout=10000)

        # Results: T01's counts; a T02 publishing an id of T01 does not, and says why.
        t1.match_result(1, {"NS": "A+", "EW": "5"}, "NS", reason="forfeit (EW)",
                        penalties={"NS": {}, "EW": {"forfeit": 1, "violation": 3}})
        t2.result({"type": "match_result", "id": f"{event}/T01/m1", "match": 1, "levels": {"NS": "2", "EW": "A+"},
                   "winner": "EW"})
        page.wait_for_selector("#rejects tbody tr:has-text('does not name the table T02')", timeout=10000)
        page.wait_for_selector("#round-tables tr[data-key='T01'] .step-result_in", timeout=10000)
        row = page.inner_text("#round-tables tr[data-key='T01']")  # why a match was won: the referee's rulings
        assert "判负结束 ended by forfeit (EW)" in row and "EW 判罚 penalties: 判负 forfeit 1, 记违例 violation 3" in row

        # A correction for a match its table is still playing is refused: it would stand over the real result.
        t2.state(phase="playing", start=f"{event}/T02/m1/start", match_active=True, deal=8)
        propose(page, "EW")
        page.wait_for_selector("#msg.err:has-text('still playing round 1 (deal 8)')", timeout=10000)
        t2.state(phase="match_over", start=f"{event}/T02/m1/start", match_active=False, deal=8)

        # A correction for T02: refused when it contradicts its winner, then entered and approved by another.
        propose(page, "NS")
        page.wait_for_selector("#msg.err:has-text('levels contradict the winner')")
        page.select_option("#c-winner", "EW")
        page.click("#propose")
        page.wait_for_selector("#proposals tbody tr button.approve")
        page.click("#proposals tbody tr button.approve")
        page.wait_for_selector("#msg.err:has-text('another referee')")
        page.fill("#referee", "裁判 Wang")
        page.click("#proposals tbody tr button.approve")
        page.wait_for_selector("#corrections tbody tr:has-text('approved by 裁判 Wang')")
        page.wait_for_selector("#round-tables tr[data-key='T02'] .step-result_in", timeout=10000)
        assert store.corrections()[-1]["payload"]["winner"] == "EW"
        # the table's own result arriving after the correction: the correction stands, and the console says so
        t2.match_result(1, {"NS": "2", "EW": "A+"}, "EW")
        deadline = time.monotonic() + 10
        while not any("came first and stands" in line for line in said) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert any("T02" in line and "came first and stands" in line for line in said), said

        # A team withdraws (退赛): asked first, refused without a reason, then marked in the standings and listed
        # with the corrections.
        page.select_option("#w-team", "银队")
        page.click("#withdraw")
        page.wait_for_selector("#msg.err:has-text('a reason')")
        page.fill("#w-reason", "队员生病 a player is ill")
        page.click("#withdraw")
        page.wait_for_selector("#msg.ok:has-text('已退赛 withdrawn')")
        assert "银队 withdraws" in asked[-1]
        page.wait_for_selector("#standings td.withdrawn:has-text('银队 · 第1轮后退赛 withdrew after round 1')",
                               timeout=10000)
        page.wait_for_selector("#corrections tbody tr:has-text('退赛 withdraw'):has-text('队 银队 team 4')")
        page.click("#withdraw")  # twice: refused, with the reason
        page.wait_for_selector("#msg.err:has-text('withdrew already')")

        # Re-request: the tables get the desk's status turning online again.
        page.click("#rerequest")
        page.wait_for_selector("#msg.ok:has-text('send unacknowledged results again')")
        assert any("referee 裁判 Wang asked the tables" in line for line in said), said

        # The desk loses the broker: the page says so at its top, and shows the tables as last heard.
        broker.stop()
        banner = page.wait_for_selector("#lost:has-text('the desk has lost the broker')", timeout=20000)
        assert "记分台与 MQTT 代理断开" in banner.inner_text()
        page.wait_for_selector("#tables .stale", timeout=10000)
        broker.start()
        page.wait_for_selector("#lost", state="hidden", timeout=30000)

        # On a referee's phone the page keeps the screen's width (each wide table scrolls on its own).
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
        desk.stop()
        web.stop()
        t1.close()
        t2.close()
        store.close()
