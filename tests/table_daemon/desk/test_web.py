"""The running desk's web server, as a spectator's phone and a hall screen reach it: the address the overview's
link and QR code give phones is the hall's public one when the organiser names it (`desk --public-url`), not
the 127.0.0.1 of a screen plugged into the desk's own machine."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from pathlib import Path

from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server
from table_daemon.display.hub import Hub


def test_the_overview_gives_phones_the_public_address(tmp_path: Path) -> None:
    store = Store(tmp_path / "desk.sqlite")
    store.set_up("ev", [Team(1, "红队", ("甲", "乙"), "U1"), Team(2, "蓝队", ("丙", "丁"), "U2")], {}, "seed")
    servers = [desk_server(store, Hub("ev"), public_url="http://hall.example:8080/"), desk_server(store, Hub("ev"))]
    try:
        for web in servers:
            web.start()
        named, default = (json.loads(urllib.request.urlopen(f"{web.url}/api/address?path=/display/",
                                                            timeout=5).read()) for web in servers)
        assert named["url"] == "http://hall.example:8080/display/"
        assert default["url"] == f"{servers[1].url}/display/"  # the address the screen itself used
    finally:
        for web in servers:
            web.stop()
        store.close()


def test_a_standby_desk_serves_its_copy_read_only(tmp_path: Path) -> None:
    """A standby desk keeps a copy of what the desk counts: a referee pairing a round there would write a round
    the counting desk never sends. Its page is behind the password and shows, but does nothing."""
    store = Store(tmp_path / "desk.sqlite")
    store.set_up("ev", [Team(1, "红队", ("甲", "乙"), "U1"), Team(2, "蓝队", ("丙", "丁"), "U2")], {}, "seed")
    web = desk_server(store, Hub("ev"), password="standby-password", read_only=True)
    web.start()
    auth = "Basic " + base64.b64encode(b"li:standby-password").decode()
    try:
        req = urllib.request.Request(f"{web.url}/api/desk", headers={"Authorization": auth})
        assert json.loads(urllib.request.urlopen(req, timeout=5).read())["referee"] is False  # the page: read-only
        req = urllib.request.Request(f"{web.url}/api/pair", data=b"{}", method="POST",
                                     headers={"Authorization": auth, "Content-Type": "application/json"})
        try:
            urllib.request.urlopen(req, timeout=5)
            raise AssertionError("a standby desk paired a round")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404
        assert store.last_round() == 0
    finally:
        web.stop()
        store.close()


def test_each_tables_devices_are_named_in_chinese_and_english(tmp_path: Path) -> None:
    """The desk page's Devices column said "dealer: dealing; camera: ok; panels: ok", English only."""
    from table_daemon.desk.rounds import device_words
    from table_daemon.desk.views import tables_view

    assert device_words({"dealer": {"source": "/dev/ttyUSB0", "state": "fault", "error": "no reply"},
                         "camera": {"state": "ok"}, "panels": {"state": "none"}, "lamp": {"state": "odd"}}) == [
        "发牌机 dealer：故障 fault (no reply)", "摄像头 camera：正常 ok", "座位面板 panels：未配置 not configured",
        "lamp：odd"]
    assert device_words(None) == [] and device_words({"dealer": "dealing"}) == ["发牌机 dealer：发牌中 dealing"]
    store = Store(tmp_path / "desk.sqlite")
    store.set_up("ev", [Team(1, "红队"), Team(2, "蓝队")], {"tables": ["T01"]}, "seed")
    store.set_status("T01", {"online": True, "devices": {"dealer": {"state": "dealing"}}})
    try:
        row = tables_view(store, Hub("ev"))["tables"][0]
        assert row["device_words"] == ["发牌机 dealer：发牌中 dealing"]
    finally:
        store.close()
