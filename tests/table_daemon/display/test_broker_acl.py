"""The example hall ACL and WebSockets listener on a real Mosquitto: a display reading MQTT over WebSockets
sees public state but never hidden hands or results, a table cannot publish under another table's root, and
the desk (its own user, with a shared subscription) still gets and acknowledges results."""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from importlib import resources
from pathlib import Path

import paho.mqtt.client as mqtt

from table_daemon.adapters.broker import free_port, wait_listening
from table_daemon.desk.service import Desk
from table_daemon.desk.store import Store

from ..desk.spec_table import SpecTable


def display_client(port: int, received: list[tuple[str, dict]]) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, transport="websockets")
    client.username_pw_set("display")
    ready = threading.Event()
    client.on_connect = lambda c, *a: (c.subscribe("guandan/v1/#", 1), ready.set())
    client.on_message = lambda c, u, m: received.append((m.topic, json.loads(m.payload)))
    client.connect("127.0.0.1", port)
    client.loop_start()
    assert ready.wait(10)
    return client


def test_hall_acl_and_websockets(broker_factory, topic_root, tmp_path: Path) -> None:
    acl = resources.files("table_daemon.display").joinpath("mosquitto/hall.acl")
    conf = resources.files("table_daemon.display").joinpath("mosquitto/hall.conf").read_text()
    assert "protocol websockets" in conf and "acl_file" in conf
    # Mosquitto started as root reads its files as the user "mosquitto": a world-readable directory.
    acl_dir = Path(tempfile.mkdtemp(prefix="guandan-acl-"))
    acl_dir.chmod(0o755)
    (acl_dir / "hall.acl").write_text(acl.read_text())
    (acl_dir / "hall.acl").chmod(0o644)
    ws = free_port()
    broker = broker_factory(extra_config=[f"acl_file {acl_dir / 'hall.acl'}", f"listener {ws} 127.0.0.1",
                                          "protocol websockets"])
    wait_listening("127.0.0.1", ws)
    event = topic_root.event
    host_port = broker.url.removeprefix("mqtt://")
    store = Store(tmp_path / "desk.sqlite")
    desk = Desk(store, f"mqtt://desk@{host_port}", event)
    desk.start()
    seen: list[tuple[str, dict]] = []
    display = display_client(ws, seen)
    table = SpecTable(broker.url, event, "T01")
    try:
        table.client.username_pw_set("T01")
        table.client.reconnect()
        assert table.connected.wait(10)
        time.sleep(0.2)
        table.state(phase="playing", seats={"S": {"cards_left": 9}})
        table.client.publish(f"{table.root}/private/hands", json.dumps({"S": ["HR"]}), qos=1, retain=True)
        table.client.publish(f"guandan/v1/{event}/T02/state", json.dumps({"phase": "forged"}), qos=1, retain=True)
        rid = table.match_result(1, {"NS": "A+", "EW": "2"}, "NS")["id"]
        table.wait_acked([rid], timeout=10)
        deadline = time.monotonic() + 10
        while not any(t.endswith("/T01/state") for t, _ in seen) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        topics = {t for t, _ in seen}
        assert f"{table.root}/state" in topics
        assert not any("private" in t or t.endswith("/results") for t in topics)
        assert f"guandan/v1/{event}/T02/state" not in topics  # T01 may not publish as T02
        assert [r["id"] for r in store.results()] == [rid]
    finally:
        display.loop_stop()
        display.disconnect()
        table.close()
        desk.stop()
        store.close()
        shutil.rmtree(acl_dir, ignore_errors=True)
