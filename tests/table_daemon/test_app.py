"""The daemon end to end on a real Mosquitto: simulated dealer on a pty, mock buttons, bots; commands with
replies, gap-free sequences, retained state and hands, results kept until the desk acknowledges them."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from guandan import replay
from table_daemon.app import TableApp
from table_daemon.config import simulated_config
from table_daemon.simulate import SimTable

SEQUENCED = ("/state", "/events", "/results", "/alerts")


def make_sim(url: str, tr: Any, tmp: Path, *, speed: float = 0.0, seed: int = 3, camera: bool = False) -> SimTable:
    cfg = simulated_config(table=tr.table, event=tr.event, broker=url, journal=str(tmp / "j.sqlite"))
    cfg.panels = replace(cfg.panels, debounce_ms=0)
    cfg.health = replace(cfg.health, interval_seconds=0.2)
    return SimTable(cfg, seed=seed, speed=speed, camera=camera)


def check_sequence(msgs: list[Any]) -> None:
    """Per epoch, after dropping duplicates by (epoch, seq) as consumers do: no gap and no disorder, across a
    broker outage too (what paho kept while the broker was away goes out before anything newer:
    ``MqttConnection.publish``)."""
    seqs: dict[str, list[int]] = {}
    seen: set[tuple[str, int]] = set()
    for m in msgs:
        if m.topic.endswith(SEQUENCED) and isinstance(m.payload, dict) and not m.retain:
            key = (m.payload["epoch"], m.payload["seq"])
            if key not in seen:
                seen.add(key)
                seqs.setdefault(m.payload["epoch"], []).append(m.payload["seq"])
    for epoch, got in seqs.items():
        assert got == list(range(got[0], got[0] + len(got))), f"gap or disorder in {epoch}"


def test_simulated_match_over_mqtt(mosquitto: Any, topic_root: Any, mqtt_messages: Any, tmp_path: Path) -> None:
    log = mqtt_messages(mosquitto.url, topic_root.root + "#")
    sim = make_sim(mosquitto.url, topic_root, tmp_path)
    sim.start({"method": "deals", "deals": 2})
    try:
        log.wait_for(lambda ms: any(m.topic.endswith("/results") and m.payload.get("type") == "match_result"
                                    for m in ms), timeout=60)
        msgs = log.snapshot()
        check_sequence(msgs)
        first = next(m for m in msgs if m.topic.endswith(SEQUENCED))
        assert first.payload["seq"] == 1 and first.payload["schema"] == 1
        records = [m.payload for m in msgs if m.topic.endswith("/results") and m.payload.get("format")]
        assert [r["deal"] for r in records] == [1, 2]
        for r in records:
            assert r["id"] == f"{topic_root.event}/{topic_root.table}/m1/d{r['deal']}"
            assert replay(r)["ok"], replay(r)["first_error"]
        for m in msgs:
            if m.topic.endswith(("/events", "/state", "/alerts", "/health", "/status")):
                assert "hands" not in m.payload
        assert any(m.topic.endswith("/private/hands") for m in msgs)
        assert any(m.topic.endswith("/health") and m.payload.get("dealer") for m in msgs)
        assert any(m.topic.endswith("/status") and m.payload.get("online") for m in msgs)
        # results stay until acknowledged; the desk coming online gets them again, unchanged
        assert len(sim.app.journal.pending_results()) == 3
        log.publish(f"guandan/v1/{topic_root.event}/desk/status", {"online": True}, retain=True)
        log.wait_for(lambda ms: len([m for m in ms if m.topic.endswith("/results")]) >= 6, timeout=10)
        again = [m.payload for m in log.snapshot() if m.topic.endswith("/results")]
        assert again[3:] == again[:3]
        # a desk that connects anew (its status has a fresh ts) while the table thought it online: maybe its
        # session was lost with the broker's, so it gets them once more
        log.publish(f"guandan/v1/{topic_root.event}/desk/status", {"online": True, "ts": "later"}, retain=True)
        log.wait_for(lambda ms: len([m for m in ms if m.topic.endswith("/results")]) >= 9, timeout=10)
        again = [m.payload for m in log.snapshot() if m.topic.endswith("/results")]
        assert again[6:] == again[:3]
        for r in again[:3]:
            log.publish(topic_root.root + "results/ack", {"id": r["id"]})
        deadline = time.monotonic() + 10
        while sim.app.journal.pending_results() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sim.app.journal.pending_results() == []
        retained = mqtt_messages(mosquitto.url, topic_root.root + "state")
        state = retained.wait_for(lambda ms: bool(ms), timeout=5)[0]
        assert state.retain and state.payload["phase"] == "match_over"
        log.publish(f"guandan/v1/{topic_root.event}/desk/status", "", retain=True)
    finally:
        sim.stop()


def _request(url: str, topic: str, payload: Any, *, v5: bool, reply_topic: str | None = None) -> dict[str, Any]:
    host, port = url.removeprefix("mqtt://").split(":")
    got: dict[str, Any] = {}
    done = threading.Event()
    event, table = topic.split("/")[2:4]  # by default the requester's own reply topic at this table
    reply_topic = reply_topic or f"guandan/v1/replies/test{time.monotonic_ns()}/{event}/{table}"
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5 if v5 else mqtt.MQTTv311)

    def on_message(c: Any, u: Any, msg: Any) -> None:
        got["payload"] = json.loads(msg.payload)
        got["correlation"] = getattr(msg.properties, "CorrelationData", None) if v5 else None
        done.set()

    client.on_message = on_message
    client.connect(host, int(port))
    client.loop_start()
    client.subscribe(reply_topic, qos=1)
    time.sleep(0.2)
    props = None
    body = payload if isinstance(payload, str) else json.dumps(payload)
    if v5:
        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = reply_topic
        props.CorrelationData = b"corr-1"
    else:
        body = json.dumps({**payload, "reply_to": reply_topic})
    client.publish(topic, body, qos=1, properties=props)
    assert done.wait(10), "no reply"
    client.loop_stop()
    client.disconnect()
    return got


def test_commands_get_replies_on_both_protocols(mosquitto: Any, topic_root: Any, tmp_path: Path) -> None:
    cfg = simulated_config(table=topic_root.table, event=topic_root.event, broker=mosquitto.url,
                           journal=str(tmp_path / "j.sqlite"))
    cfg.table = replace(cfg.table, auto_deal=False)
    app = TableApp(cfg)
    app.start()
    try:
        root = topic_root.root
        r = _request(mosquitto.url, root + "cmd/start_deal", {"id": 7}, v5=True)
        assert r["correlation"] == b"corr-1"
        assert r["payload"]["ok"] is False and "start_match" in r["payload"]["error"] and r["payload"]["id"] == 7
        r = _request(mosquitto.url, root + "cmd/start_match", {"match_end": {"method": "deals", "deals": 1}},
                     v5=False)
        assert r["payload"] == {"ok": True, "error": None}
        r = _request(mosquitto.url, root + "cmd/resync", "{not json", v5=True)
        assert r["payload"]["ok"] is False and "JSON" in r["payload"]["error"]
        r = _request(mosquitto.url, root + "cmd/penalty", {"team": "NS", "kind": "warning"}, v5=True)
        assert r["payload"]["ok"] is False and "referee" in r["payload"]["error"]
        assert app.controller.match_active
        for v5 in (True, False):  # an outside tool's own reply topic (mqtt-api.md): answered there
            r = _request(mosquitto.url, root + "cmd/resync", {"id": "r1"}, v5=v5,
                         reply_topic=f"tools/replies/{time.monotonic_ns()}")
            assert r["payload"] == {"ok": True, "error": None, "id": "r1"}
    finally:
        app.stop()


def test_a_retained_command_is_not_obeyed(mosquitto: Any, topic_root: Any, mqtt_messages: Any,
                                          tmp_path: Path) -> None:
    """mqtt-api.md: commands are never retained. A start_match left retained on the broker (a tool's mistake)
    reached every table that subscribed later, which played a match nobody had started."""
    log = mqtt_messages(mosquitto.url, topic_root.root + "state")
    log.publish(topic_root.root + "cmd/start_match", {"id": "stale", "match_end": {"method": "deals", "deals": 1}},
                retain=True)
    cfg = simulated_config(table=topic_root.table, event=topic_root.event, broker=mosquitto.url,
                           journal=str(tmp_path / "j.sqlite"))
    cfg.table = replace(cfg.table, auto_deal=False)
    app = TableApp(cfg)
    app.start()
    try:
        assert app.link is not None and app.link.connected.wait(10)
        time.sleep(1.0)
        assert not app.controller.match_active
        r = _request(mosquitto.url, topic_root.root + "cmd/start_match", {"match_end": {"method": "deals", "deals": 1}},
                     v5=True)
        assert r["payload"]["ok"] is True and app.controller.match_active
    finally:
        log.publish(topic_root.root + "cmd/start_match", b"", retain=True)
        app.stop()
