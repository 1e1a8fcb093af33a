"""Faults end to end: a broker restart mid-match loses no result; ``kill -9`` of the daemon mid-deal comes
back in the same deal and turn (killed between two deals, with the next deal), with nothing published twice under a
new id; the last will marks it offline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from guandan import replay

from .test_app import check_sequence, make_sim


class Desk:
    """A scoring-desk stand-in: persistent session, acknowledges every result it gets."""

    def __init__(self, url: str, root: str) -> None:
        host, port = url.removeprefix("mqtt://").split(":")
        self.root = root
        self.results: dict[str, dict[str, Any]] = {}
        self.messages: list[Any] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"desk-{root}", clean_session=False,
                                  protocol=mqtt.MQTTv311)
        self.client.on_connect = lambda c, *a: c.subscribe(root + "#", qos=1)
        self.client.on_message = self._on_message
        # paho annotates the delays as int, but takes any seconds: it adds them to time.monotonic() and waits
        self.client.reconnect_delay_set(0.1, 0.5)  # type: ignore[arg-type]
        self.client.connect(host, int(port), keepalive=5)
        self.client.loop_start()

    def _on_message(self, c: Any, u: Any, msg: Any) -> None:
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            return
        with self.lock:
            self.messages.append(type("M", (), {"topic": msg.topic, "payload": payload, "retain": msg.retain}))
        if msg.topic.endswith("/results") and "id" in payload:
            with self.lock:
                self.results.setdefault(payload["id"], payload)
            c.publish(self.root + "results/ack", json.dumps({"id": payload["id"]}), qos=1)

    def wait(self, predicate: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(self):
                    return
            time.sleep(0.05)
        raise AssertionError(f"timed out; results so far: {sorted(self.results)}")

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_broker_restart_loses_no_result(broker_factory: Any, topic_root: Any, tmp_path: Path) -> None:
    broker = broker_factory()
    desk = Desk(broker.url, topic_root.root)
    sim = make_sim(broker.url, topic_root, tmp_path, speed=300, seed=8)
    sim.start({"method": "deals", "deals": 3})
    try:
        desk.wait(lambda d: any(k.endswith("/d1") for k in d.results), timeout=60)
        broker.restart(downtime=1.0)
        desk.wait(lambda d: any(r.get("type") == "match_result" for r in d.results.values()), timeout=90)
        ids = sorted(desk.results, key=lambda i: i.rsplit("/", 1)[-1])
        assert [i.rsplit("/", 1)[-1] for i in ids] == ["d1", "d2", "d3", "m1"]
        for rid in ids[:3]:
            assert replay(desk.results[rid])["ok"]
        deadline = time.monotonic() + 15
        while sim.app.journal.pending_results() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sim.app.journal.pending_results() == []
        check_sequence(desk.messages)  # nothing missing, nothing overtaken across the outage
    finally:
        sim.stop()
        desk.close()


def _simulate(url: str, tr: Any, journal: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "table_daemon.cli", "simulate", "--broker", url, "--table", tr.table,
           "--event", tr.event, "--deals", "2", "--speed", "300", "--seed", "5", "--journal-dir", str(journal), "--direct"]
    # killed as a power cut, it leaves its temporary files (the dealer's pty folder) with the journal
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(journal)})


def test_kill_9_mid_deal_recovers_the_same_deal(mosquitto: Any, topic_root: Any, mqtt_messages: Any,
                                               tmp_path: Path) -> None:
    log = mqtt_messages(mosquitto.url, topic_root.root + "#")
    proc = _simulate(mosquitto.url, topic_root, tmp_path)
    try:
        log.wait_for(lambda ms: len([m for m in ms if m.payload.get("type") == "play"]) >= 30, timeout=60)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        log.wait_for(lambda ms: any(m.topic.endswith("/status") and m.payload.get("online") is False
                                    for m in ms), timeout=20)  # the last will
        before = log.snapshot()
        epoch1 = before[-1].payload.get("epoch") or next(m.payload["epoch"] for m in reversed(before)
                                                          if "epoch" in m.payload)
        # the will is a message like any other (mqtt-api.md "Every message"), of the run that died
        will = next(m.payload for m in reversed(before) if m.topic.endswith("/status"))
        assert will["online"] is False and will["type"] == "status" and will["schema"] == 1
        assert (will["table"], will["event"]) == (topic_root.table, topic_root.event) and will["ts"]
        assert will["epoch"] == next(m.payload["epoch"] for m in reversed(before) if m.topic.endswith("/events"))
        proc = _simulate(mosquitto.url, topic_root, tmp_path)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()[-2000:]
        msgs = log.snapshot()
        epochs = [m.payload["epoch"] for m in msgs if m.topic.endswith("/events")]
        epoch2 = epochs[-1]
        assert epoch2 != epoch1
        plays: dict[tuple[Any, Any], set[Any]] = {}
        for m in msgs:
            if m.topic.endswith("/events") and m.payload["type"] == "play":
                key = (m.payload["deal"], m.payload["n"])
                plays.setdefault(key, set()).add(m.payload["epoch"])
        assert all(len(e) == 1 for e in plays.values()), "a play was published again under a new epoch"
        first_new = next(m.payload for m in msgs if m.topic.endswith("/events") and m.payload["epoch"] == epoch2)
        dealt_again = [m for m in msgs if m.payload.get("type") == "deal_started" and m.payload["epoch"] == epoch2]
        # where the kill fell: in a deal, or after one deal was over and before the next was dealt
        last_deal = next(m.payload for m in reversed(before) if m.topic.endswith("/events")
                         and m.payload.get("type") in ("deal_started", "deal_over"))
        if last_deal["type"] == "deal_over":  # between deals: the next deal is dealt, none voided or dealt again
            assert first_new["type"] == "deal_started" and first_new["deal"] == last_deal["deal"] + 1, first_new
            assert not any(m.payload.get("type") == "deal_void" and m.payload["epoch"] == epoch2 for m in msgs)
        else:  # same deal, same turn: the next play, or the next tribute or return where the kill fell in that phase
            assert first_new["type"] in ("play", "pass", "report", "trick_won", "tribute", "return") or (
                first_new["type"] == "deal_void" and dealt_again), first_new
            # the console goes on counting the deal's tricks where the killed run left them
            won_before = [m.payload["trick"] for m in before if m.payload.get("type") == "trick_won"
                          and m.payload["deal"] == last_deal["deal"]]
            if won_before and not dealt_again:
                first_line = next(line for line in err.decode().splitlines() if "圈" in line)
                assert f"第{won_before[-1] + 1}圈" in first_line, first_line
        records = {m.payload["id"]: m.payload for m in msgs if m.topic.endswith("/results")}
        d1 = records[f"{topic_root.event}/{topic_root.table}/m1/d1"]
        assert replay(d1)["ok"] and len(d1["actions"]) > 30
        check_sequence(msgs)
        assert "比赛结束" in err.decode() and "match over" in err.decode()
    finally:
        if proc.poll() is None:
            proc.kill()
