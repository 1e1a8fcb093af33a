"""The hall's ACL (deploy/mosquitto/guandan.acl) with a WebSockets listener on a real Mosquitto: a display
reading MQTT over WebSockets sees public state but never hidden hands nor a duplicate board's sealed results
(rules §12), a table cannot publish under another table's root, and the desk (its own user, with a shared
subscription) gets results, sealed ones too, acknowledges them and gets the tables' replies to start_match."""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from table_daemon.adapters.broker import LocalBroker, free_port, wait_listening
from table_daemon.desk.service import Desk
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store

from ..desk.spec_table import SpecTable


def display_client(port: int, received: list[tuple[str, dict[str, Any]]], user: str = "display",
                   transport: str = "websockets") -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, transport=transport)  # type: ignore[arg-type]
    client.username_pw_set(user)
    ready = threading.Event()

    def on_connect(c: mqtt.Client, *_: Any) -> None:
        c.subscribe("guandan/v1/#", 1)
        ready.set()

    client.on_connect = on_connect
    client.on_message = lambda c, u, m: received.append((m.topic, json.loads(m.payload)))
    client.connect("127.0.0.1", port)
    client.loop_start()
    assert ready.wait(10)
    return client


def test_hall_acl_and_websockets(broker_factory: Callable[..., LocalBroker], topic_root: Any,
                                 tmp_path: Path) -> None:
    deploy = Path(__file__).resolve().parents[3] / "deploy" / "mosquitto"
    if not (deploy / "guandan.acl").is_file():
        pytest.skip("deploy/mosquitto/guandan.acl is missing")
    assert "protocol websockets" in (deploy / "guandan.conf").read_text()
    event = topic_root.event
    # Mosquitto started as root reads its files as the user "mosquitto": a world-readable directory.
    acl_dir = Path(tempfile.mkdtemp(prefix="guandan-acl-"))
    acl_dir.chmod(0o755)
    (acl_dir / "hall.acl").write_text((deploy / "guandan.acl").read_text().replace("huaian-open", event))
    (acl_dir / "hall.acl").chmod(0o644)
    ws = free_port()
    broker = broker_factory(extra_config=[f"acl_file {acl_dir / 'hall.acl'}", f"listener {ws} 127.0.0.1",
                                          "protocol websockets"])
    wait_listening("127.0.0.1", ws)
    host_port = broker.url.removeprefix("mqtt://")
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, [Team(1, "A"), Team(2, "B")], {}, "seed")
    desk = Desk(store, f"mqtt://desk@{host_port}", event)
    desk.start()
    seen: list[tuple[str, dict[str, Any]]] = []
    display = display_client(ws, seen)
    table = SpecTable(broker.url, event, "T01")
    try:
        table.client.username_pw_set("T01")
        table.connected.clear()  # wait for the reconnect as T01, not the first (anonymous) connection
        table.client.reconnect()
        assert table.connected.wait(10)
        time.sleep(0.2)
        table.state(phase="playing", seats={"S": {"cards_left": 9}})
        table.client.publish(f"{table.root}/private/hands", json.dumps({"S": ["HR"]}), qos=1, retain=True)
        table.client.publish(f"guandan/v1/{event}/T02/state", json.dumps({"phase": "forged"}), qos=1, retain=True)
        sealed_rid = table.deal_record(1, 1, ["S", "E", "N", "W"], 3, sealed=True, board=1)["id"]
        rid = table.match_result(1, {"NS": "A+", "EW": "2"}, "NS")["id"]
        table.wait_acked([sealed_rid, rid], timeout=10)
        deadline = time.monotonic() + 10
        while not any(t.endswith("/T01/state") for t, _ in seen) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        topics = {t for t, _ in seen}
        assert f"{table.root}/state" in topics
        assert not any("private" in t for t in topics)
        # a duplicate board: the display gets the sealed twin on results (before the match result), never the
        # full record on results/sealed (published before the match result: once that is here, it would be too)
        deadline = time.monotonic() + 10
        while not any(p.get("id") == rid for _, p in seen) and time.monotonic() < deadline:
            time.sleep(0.02)
        twins = [p for t, p in seen if t == f"{table.root}/results" and p.get("id") == sealed_rid]
        assert twins and all(p.get("sealed") is True and "hands" not in p for p in twins)
        assert not any(t.endswith("/results/sealed") for t, _ in seen)
        assert f"guandan/v1/{event}/T02/state" not in topics  # T01 may not publish as T02
        # the desk got it through the ACL; with no pairing at T01 it is kept as not counted
        rejects = {json.loads(r["payload"])["id"]: r["topic"] for r in store.rejects()}
        assert rejects == {sealed_rid: f"{table.root}/results/sealed", rid: f"{table.root}/results"}
        assert store.results() == []
        store.add_round(1, "swiss", [("T01", 1, 2)])  # the running desk sends it to T01, T01 replies
        deadline = time.monotonic() + 10
        while not store.pairings(1)[0]["accepted_at"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.pairings(1)[0]["accepted_at"], "the table's reply to start_match did not reach the desk"
        # the desk's retained standings and charts reach the displays and the commentary server
        commentary_seen: list[tuple[str, dict[str, Any]]] = []
        commentary = display_client(int(host_port.rpartition(":")[2]), commentary_seen, "commentary", "tcp")
        try:
            for got in (seen, commentary_seen):
                deadline = time.monotonic() + 10
                wanted = {f"guandan/v1/{event}/desk/standings", f"guandan/v1/{event}/desk/charts/T01"}
                while not wanted <= {t for t, _ in got} and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert wanted <= {t for t, _ in got}
        finally:
            commentary.loop_stop()
            commentary.disconnect()
    finally:
        display.loop_stop()
        display.disconnect()
        table.close()
        desk.stop()
        store.close()
        shutil.rmtree(acl_dir, ignore_errors=True)
