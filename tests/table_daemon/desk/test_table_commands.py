"""Referees command a table from the desk page (暂停 / 继续 / 发牌, 判罚, 更正) through the broker's referee account:
a real table (TableApp) on a real Mosquitto, the real desk and its web server, the page in headless Chromium.
The table obeys a pause and the page says so; a penalty with no match in play shows the table's refusal; a
forfeit is confirmed first; what a referee types in a row's form survives the page's refreshes; who did it is
on the desk's console. Without the referee account the page offers no table commands and says why; the route
refuses an unknown command, a field the command does not take, and a request without the referee login; a
standby desk's page sends nothing; the desk refuses bad referee account options at start, in one line."""

from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from table_daemon.adapters.mqtt_connection import parse_broker_url
from table_daemon.adapters.referee_link import RefereeLink
from table_daemon.app import TableApp
from table_daemon.cli import main
from table_daemon.config import simulated_config
from table_daemon.desk.service import Desk
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server
from table_daemon.display.hub import Hub
from tests.waiting import wait

PASSWORD = "table-commands-secret"
TEAMS = [Team(1, "红队", ("甲", "乙"), "U1"), Team(2, "蓝队", ("丙", "丁"), "U2")]


def post(url: str, body: dict[str, Any], *, auth: bool = True) -> tuple[int, dict[str, Any]]:
    """POST JSON as the page does; (status, answer)."""
    headers = {"Content-Type": "application/json"}
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(f"li:{PASSWORD}".encode()).decode()
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=15) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw)
        except ValueError:
            return exc.code, {"text": raw.decode("utf-8", "replace")}


def test_referees_command_a_table_from_the_desk_page(mosquitto: Any, topic_root: Any, tmp_path: Path,
                                                     browser: Any) -> None:
    event, table = topic_root.event, topic_root.table
    cfg = simulated_config(table=table, event=event, broker=mosquitto.url, journal=str(tmp_path / "j.sqlite"))
    cfg.table = replace(cfg.table, auto_deal=False)
    app = TableApp(cfg)
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, TEAMS, {"timezone": "Asia/Shanghai"}, "seed")
    said: list[str] = []  # the desk's console
    desk = Desk(store, mosquitto.url, event, say=said.append)
    link = RefereeLink(parse_broker_url(mosquitto.url), event)
    web = desk_server(store, desk.hub, password=PASSWORD, desk=desk, referee_link=link)
    asked: list[str] = []
    answer = {"yes": False}

    def dialog(d: Any) -> None:
        asked.append(d.message)
        d.accept() if answer["yes"] else d.dismiss()

    app.start()
    link.start()
    desk.start()
    web.start()
    context = browser.new_context(http_credentials={"username": "referee", "password": PASSWORD})
    page = context.new_page()
    page.on("dialog", dialog)
    row = f"#tables tr[data-key='{table}']"
    try:
        page.goto(web.url + "/")
        page.wait_for_selector("#mode:has-text('referee mode')")
        assert page.is_hidden("#tc-off")
        page.wait_for_selector(f"{row} button.tc-pause", timeout=15000)
        page.fill("#referee", "裁判 Li")

        # 判罚 with no match in play: the table's refusal, its reason in Chinese and English
        page.select_option(f"{row} select.tc-kind", "warning")
        page.select_option(f"{row} select.tc-whom", "N")
        page.fill(f"{row} input.tc-reason", "说话 talking")
        page.evaluate("refresh()")  # what the referee typed outlives the page's refreshes
        page.wait_for_timeout(300)
        assert page.input_value(f"{row} input.tc-reason") == "说话 talking"
        page.click(f"{row} button.tc-penalty")
        refusal = page.wait_for_selector("#msg.err:has-text('no match in play')", timeout=15000).inner_text()
        assert "本桌无进行中的比赛" in refusal and f"table {table} refused penalty" in refusal
        assert any("refused" in line and "kind warning, seat N" in line for line in said), said

        # a forfeit is confirmed first: dismissed, nothing goes out; accepted, the table answers
        page.select_option(f"{row} select.tc-kind", "forfeit")
        page.select_option(f"{row} select.tc-whom", "EW")
        page.evaluate("document.getElementById('msg').textContent = ''")
        sent = len(said)
        page.click(f"{row} button.tc-penalty")
        page.wait_for_timeout(500)
        assert asked and "forfeit" in asked[-1] and table in asked[-1]
        assert len(said) == sent and page.inner_text("#msg") == ""
        answer["yes"] = True
        page.click(f"{row} button.tc-penalty")
        page.wait_for_selector("#msg.err:has-text('no match in play')", timeout=15000)
        assert len(asked) == 2

        # a match at the table (as the desk starts it), no deal yet: now there is something to hold
        app.command("start_match", {"match_end": {"method": "deals", "deals": 1}})
        wait(lambda: app.controller.match_active, 10, "the match to start")

        # 暂停: the table obeys (its phase), the page says so, the console says who did it
        page.click(f"{row} button.tc-pause")
        page.wait_for_selector(f"#msg.ok:has-text('{table} 已执行 obeyed: 暂停 pause')", timeout=15000)
        assert app.controller.phase == "paused"
        assert any(f"referee 裁判 Li sent pause to {table}" in line and "obeyed" in line for line in said), said
        page.click(f"{row} button.tc-resume")
        page.wait_for_selector(f"#msg.ok:has-text('{table} 已执行 obeyed: 继续 resume')", timeout=15000)
        assert app.controller.phase != "paused"

        # 更正 with no deal: refused, with the table's reason
        page.select_option(f"{row} select.tc-action", "undo_last")
        page.click(f"{row} button.tc-correct")
        page.wait_for_selector("#msg.err:has-text('no deal in play')", timeout=15000)
    finally:
        context.close()
        web.stop()
        desk.stop()
        link.stop()
        app.stop()
        store.close()


def test_without_the_referee_account_the_page_offers_no_table_commands(tmp_path: Path, browser: Any) -> None:
    store = Store(tmp_path / "desk.sqlite")
    store.set_up("ev", TEAMS, {"tables": ["T01"]}, "seed")
    store.add_round(1, "swiss", [("T01", 1, 2)])  # a row for T01 on the page
    web = desk_server(store, Hub("ev"), password=PASSWORD)
    web.start()
    context = browser.new_context(http_credentials={"username": "referee", "password": PASSWORD})
    page = context.new_page()
    try:
        page.goto(web.url + "/")
        page.wait_for_selector("#tables tr[data-key='T01']")
        reason = page.wait_for_selector("#tc-off:has-text('table commands need the referee account')")
        assert "--referee-broker-user" in reason.inner_text()
        assert page.query_selector("button.tc-pause") is None and page.query_selector("td.cmds") is None
        assert page.is_hidden("#tc-head")
        status, said = post(web.url + "/api/table-command",
                            {"table": "T01", "command": "pause", "fields": {}, "by": "li"})
        assert status == 409 and "--referee-broker-user" in said["error"]
    finally:
        context.close()
        web.stop()
        store.close()


def test_the_route_refuses_unknown_commands_and_requests_without_the_login(
        mosquitto: Any, topic_root: Any, tmp_path: Path, mqtt_messages: Any) -> None:
    event = topic_root.event
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, TEAMS, {}, "seed")
    link = RefereeLink(parse_broker_url(mosquitto.url), event)
    commands = mqtt_messages(mosquitto.url, f"guandan/v1/{event}/+/cmd/#")
    web = desk_server(store, Hub(event), password=PASSWORD, referee_link=link)
    standby = desk_server(store, Hub(event), password=PASSWORD, referee_link=link, read_only=True)
    link.start()
    web.start()
    standby.start()
    url = web.url + "/api/table-command"
    try:
        assert link.wait_connected(10)
        status, said = post(url, {"table": "T01", "command": "pause", "by": "li"}, auth=False)
        assert status == 401
        status, said = post(url, {"table": "T01", "command": "start_match", "fields": {}, "by": "li"})
        assert status == 400 and "unknown table command 'start_match'" in said["error"]
        status, said = post(url, {"table": "T01", "command": "resume", "fields": {"kind": "forfeit"}, "by": "li"})
        assert status == 400 and "resume 不接受 does not take 'kind'" in said["error"]
        status, said = post(url, {"table": "T01/#", "command": "pause", "by": "li"})
        assert status == 400 and "bad table id" in said["error"]
        status, said = post(url, {"table": "T01", "command": "penalty", "by": "li",
                                  "fields": {"kind": "warning", "team": "NS", "seat": "E"}})
        assert status == 400 and "not both" in said["error"]
        status, said = post(url, {"table": "T01", "command": "pause", "by": ""})
        assert status == 400 and "referee's name" in said["error"]
        # a standby desk's page is read-only: no table commands offered, none taken
        status, said = post(standby.url + "/api/table-command", {"table": "T01", "command": "pause", "by": "li"})
        assert status == 404
        req = urllib.request.Request(standby.url + "/api/desk", headers={
            "Authorization": "Basic " + base64.b64encode(f"li:{PASSWORD}".encode()).decode()})
        info = json.loads(urllib.request.urlopen(req, timeout=5).read())
        assert info["referee"] is False and info["table_commands"] is False
        time.sleep(0.3)
        assert commands.snapshot() == []  # nothing refused went out to a table
    finally:
        web.stop()
        standby.stop()
        link.stop()
        store.close()


@pytest.mark.parametrize("extra, words", [
    (["--referee-broker-user", "referee", "--referee-broker-password-file", "{missing}"],
     "--referee-broker-password-file {missing}: cannot read it"),
    (["--referee-broker-user", "referee", "--referee-broker-password-file", "{empty}"], "{empty}: empty"),
    (["--referee-broker-user", "referee", "--referee-broker-password-file", "{pw}", "--referee-key-file",
      "{empty}"], "--referee-key-file {empty}: empty"),
    (["--referee-broker-user", "referee"], "needs --referee-broker-password-file"),
    (["--referee-key-file", "{pw}"], "--referee-key-file needs --referee-broker-user"),
    (["--referee-broker-user", "ref/+", "--referee-broker-password-file", "{pw}"], "letters, digits"),
])
def test_the_desk_refuses_bad_referee_account_options_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], words: str) -> None:
    files = {"missing": tmp_path / "missing.txt", "empty": tmp_path / "empty.txt", "pw": tmp_path / "pw.txt"}
    files["empty"].write_text("\n", "utf-8")
    files["pw"].write_text("broker-password\n", "utf-8")
    page_password = tmp_path / "page.txt"
    page_password.write_text(PASSWORD, "utf-8")
    names = {k: str(v) for k, v in files.items()}
    code = main(["desk", "--broker", "mqtt://127.0.0.1:1", "--event", "ev", "--db", str(tmp_path / "d.sqlite"),
                 "--http", "0", "--referee-password-file", str(page_password),
                 *[a.format(**names) for a in extra]])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and words.format(**names) in err, err
    assert not (tmp_path / "d.sqlite").exists()  # refused before the desk started
