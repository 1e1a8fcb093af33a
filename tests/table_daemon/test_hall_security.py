"""The hall's own Mosquitto config and ACL (deploy/mosquitto/) with real passwords, and a real table on it:
nobody can forge a table's reply, command a table it does not run, or make a table write outside its reply
topic (issue 14 items 3, 4 and 8).

One Mosquitto for the module: the repo's guandan.conf (its authentication lines) with a password file made
by ``mosquitto_passwd`` and the repo's ACL for this test's event, on loopback without TLS.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from table_daemon.adapters.broker import LocalBroker, find_mosquitto
from table_daemon.app import TableApp
from table_daemon.config import MqttSection, simulated_config
from table_daemon.controller.auth import sign_command

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto"
EVENT = f"sec{uuid.uuid4().hex[:6]}"
USERS = {"T01": "pw-table-01", "T02": "pw-table-02", "desk": "pw-desk-0", "referee": "pw-referee",
         "display": "pw-display", "commentary": "pw-comment"}
REFEREE_KEY = b"referee-signing-key-for-tests"
SETTLE = 0.4  # what a refused publish would need to arrive if the broker let it through


@pytest.fixture(scope="module")
def hall() -> Iterator[LocalBroker]:
    if find_mosquitto() is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto is not installed (run scripts/setup)")
    folder = Path(tempfile.mkdtemp(prefix="guandan-hall-"))
    folder.chmod(0o755)  # Mosquitto started as root reads its files as the user "mosquitto"
    passwd = folder / "hall.passwd"
    passwd.touch()
    for user, password in USERS.items():
        subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, password], check=True, capture_output=True)
    passwd.chmod(0o644)
    acl = folder / "hall.acl"
    acl.write_text((DEPLOY / "guandan.acl").read_text().replace("huaian-open", EVENT))
    acl.chmod(0o644)
    conf = (DEPLOY / "guandan.conf").read_text().splitlines()
    auth = [line for line in conf if line.split(" ")[0] in ("per_listener_settings", "allow_anonymous")]
    assert "allow_anonymous false" in auth
    broker = LocalBroker(extra_config=[*auth, f"password_file {passwd}", f"acl_file {acl}"]).start()
    try:
        yield broker
    finally:
        broker.close()
        shutil.rmtree(folder, ignore_errors=True)


class Client:
    """A paho client logged in as one hall account, recording what it receives."""

    def __init__(self, hall: LocalBroker, user: str | None, password: str | None = None, *subs: str) -> None:
        self.got: list[tuple[str, Any, Any]] = []
        self.lock = threading.Lock()
        self.refused = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if user is not None:
            self.client.username_pw_set(user, USERS.get(user) if password is None else password)
        ready = threading.Event()

        def on_connect(c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
            if reason.is_failure:
                self.refused.set()
                return
            for topic in subs:
                c.subscribe(topic, qos=1)
            ready.set()

        def on_message(c: Any, u: Any, msg: Any) -> None:
            try:
                payload: Any = json.loads(msg.payload)
            except ValueError:
                payload = msg.payload
            with self.lock:
                self.got.append((msg.topic, payload, msg.properties))

        self.client.on_connect = on_connect
        self.client.on_message = on_message
        self.client.connect(hall.host, hall.port, keepalive=10)
        self.client.loop_start()
        deadline = time.monotonic() + 5
        while not (ready.is_set() or self.refused.is_set()) and time.monotonic() < deadline:  # a refusal is no wait
            time.sleep(0.01)
        self.ok = ready.is_set()
        time.sleep(0.1)  # SUBACKs

    def publish(self, topic: str, payload: Any, **kw: Any) -> None:
        data = payload if isinstance(payload, bytes | str) else json.dumps(payload)
        self.client.publish(topic, data, qos=1, **kw).wait_for_publish(5)

    def on(self, topic: str) -> list[Any]:
        with self.lock:
            return [p for t, p, _ in self.got if t == topic]

    def wait(self, topic: str, n: int = 1, timeout: float = 10.0) -> list[Any]:
        deadline = time.monotonic() + timeout
        while len(self.on(topic)) < n and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.on(topic)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def clients(hall: LocalBroker) -> Iterator[Any]:
    made: list[Client] = []

    def make(user: str | None, *subs: str, password: str | None = None) -> Client:
        c = Client(hall, user, password, *subs)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


def root(table: str) -> str:
    return f"guandan/v1/{EVENT}/{table}/"


def reply_topic(requester: str, table: str) -> str:
    return f"guandan/v1/replies/{requester}/{EVENT}/{table}"


def test_only_known_accounts_get_in(clients: Any) -> None:
    assert clients("T01").ok
    assert not clients(None).ok  # anonymous
    assert not clients("T01", password="wrong").ok


def test_replies_cannot_be_forged(clients: Any) -> None:
    desk = clients("desk", reply_topic("desk", "+"))
    t1, t2, display, referee = clients("T01"), clients("T02"), clients("display"), clients("referee")
    for forger in (display, t2, referee, desk):
        forger.publish(reply_topic("desk", "T01"), {"id": f"{EVENT}/T01/m1/x", "ok": True, "error": None})
    display.publish(reply_topic("desk", "display"), {"ok": True})
    time.sleep(SETTLE)
    assert desk.got == []
    t1.publish(reply_topic("desk", "T01"), {"id": f"{EVENT}/T01/m1/x", "ok": True, "error": None})
    assert len(desk.wait(reply_topic("desk", "T01"))) == 1
    # each requester reads only its own replies
    snoop = clients("referee", reply_topic("desk", "+"))
    t1.publish(reply_topic("desk", "T01"), {"ok": True})
    assert len(desk.wait(reply_topic("desk", "T01"), 2)) == 2
    time.sleep(SETTLE)
    assert snoop.got == []


def test_referee_commands_only_from_the_referee(clients: Any) -> None:
    table = clients("T01", root("T01") + "cmd/#")
    for sender in ("desk", "T01", "T02", "display", "commentary"):
        clients(sender).publish(root("T01") + "cmd/penalty", {"team": "NS", "kind": "warning", "by": sender})
        clients(sender).publish(root("T01") + "cmd/correct", {"action": "undo_last", "by": sender})
    time.sleep(SETTLE)
    assert table.got == []
    clients("referee").publish(root("T01") + "cmd/penalty", {"team": "NS", "kind": "warning"})
    assert len(table.wait(root("T01") + "cmd/penalty")) == 1
    clients("desk").publish(root("T01") + "cmd/start_match", {"match": 1})  # the desk starts matches
    assert len(table.wait(root("T01") + "cmd/start_match")) == 1


def test_tables_write_only_their_own_topics(clients: Any) -> None:
    desk = clients("desk", f"guandan/v1/{EVENT}/+/results", f"guandan/v1/{EVENT}/+/state")
    clients("T02").publish(root("T01") + "results", {"id": f"{EVENT}/T01/m1/d1"})
    clients("display").publish(root("display") + "results", {"id": f"{EVENT}/display/m1/d1"})
    clients("referee").publish(root("referee") + "state", {"phase": "forged"})
    time.sleep(SETTLE)
    assert desk.got == []
    clients("T01").publish(root("T01") + "results", {"id": f"{EVENT}/T01/m1/d1"})
    assert len(desk.wait(root("T01") + "results")) == 1


def test_sealed_results_reach_only_the_desk_and_referees(clients: Any) -> None:
    """A duplicate board's full results (``results/sealed``, rules §12) are the desk's and the referees' until the
    board is released: only the table writes its own, and displays and commentary subscribed to the whole event
    (and to ``+/results/sealed`` by name) never get them."""
    sealed, public = root("T01") + "results/sealed", root("T01") + "results"
    everything = f"guandan/v1/{EVENT}/#"
    desk = clients("desk", f"guandan/v1/{EVENT}/+/results/sealed")
    referee = clients("referee", everything)
    watchers = [clients(user, everything, f"guandan/v1/{EVENT}/+/results/sealed") for user in ("display", "commentary")]
    for forger in ("T02", "desk", "referee", "display", "commentary"):
        clients(forger).publish(sealed, {"id": f"{EVENT}/T01/m1/d1", "by": forger})
    clients("T02").publish(root("T02") + "results/sealed", {"id": f"{EVENT}/T02/m1/d1"})  # its own: allowed
    assert len(desk.wait(root("T02") + "results/sealed")) == 1
    assert desk.on(sealed) == [] and referee.on(sealed) == []  # the forgeries came first: none passed
    t1 = clients("T01")
    full = {"id": f"{EVENT}/T01/m1/d1", "board": 1, "hands": {"S": ["HR"]}, "result": {"finish": ["S"]}}
    t1.publish(sealed, full)
    t1.publish(public, {"id": f"{EVENT}/T01/m1/d1", "board": 1, "sealed": True})  # the public twin, after it
    assert desk.wait(sealed) == [full] and referee.wait(sealed) == [full]
    for watcher in watchers:
        # the twin came after the full result: had the full one been let through, it would be here already
        assert len(watcher.wait(public)) == 1
        with watcher.lock:
            assert not [topic for topic, _, _ in watcher.got if topic.endswith("/results/sealed")]


def _request(c: Client, topic: str, payload: dict[str, Any], reply: str) -> Any:
    props = Properties(PacketTypes.PUBLISH)
    props.ResponseTopic = reply
    props.CorrelationData = uuid.uuid4().bytes
    before = len(c.on(reply))
    c.client.publish(topic, json.dumps(payload), qos=1, properties=props).wait_for_publish(5)
    got = c.wait(reply, before + 1)
    assert len(got) > before, f"no reply to {topic}"
    return got[-1]


def test_table_checks_referee_signature_and_reply_topic(hall: LocalBroker, clients: Any, tmp_path: Path) -> None:
    key_file = tmp_path / "referee.key"
    key_file.write_text(REFEREE_KEY.decode() + "\n")
    cfg = simulated_config(table="T01", event=EVENT, broker=hall.url, journal=str(tmp_path / "j.sqlite"))
    cfg.table = replace(cfg.table, auto_deal=False, referee_key_file=str(key_file))
    cfg.mqtt = MqttSection(url=hall.url, username="T01", password=USERS["T01"])
    app = TableApp(cfg)
    referee = clients("referee", reply_topic("referee", "T01"), reply_topic("referee", "T02"),
                      root("T01") + "results", root("T01") + "state")
    app.start()
    try:
        assert app.link is not None and app.link.connected.wait(10)
        time.sleep(0.2)
        start = {"match_end": {"method": "deals", "deals": 1}}  # a penalty counts in a match
        assert _request(referee, root("T01") + "cmd/start_match", start, reply_topic("referee", "T01"))["ok"]
        topic = root("T01") + "cmd/penalty"
        body = {"team": "NS", "kind": "verbal_warning", "reason": "talking", "role": "referee"}
        r = _request(referee, topic, body, reply_topic("referee", "T01"))
        assert r["ok"] is False and "签名" in r["error"]
        signed = sign_command(REFEREE_KEY, "T01", "penalty", body, "nonce-0001")
        r = _request(referee, topic, signed, reply_topic("referee", "T01"))
        assert r == {"ok": True, "error": None}
        r = _request(referee, topic, signed, reply_topic("referee", "T01"))  # the same command again
        assert r["ok"] is False and "already" in r["error"]
        other = sign_command(REFEREE_KEY, "T02", "penalty", body, "nonce-0002")  # signed for another table
        assert _request(referee, topic, other, reply_topic("referee", "T01"))["ok"] is False
        tampered = {**sign_command(REFEREE_KEY, "T01", "penalty", body, "nonce-0003"), "kind": "forfeit"}
        assert _request(referee, topic, tampered, reply_topic("referee", "T01"))["ok"] is False
        # reply_to naming the table's own results (one of the tables' own topics) is refused, and not obeyed
        states = len(referee.on(root("T01") + "state"))
        referee.publish(root("T01") + "cmd/resync", {"reply_to": root("T01") + "results", "id": "x"})
        time.sleep(SETTLE)
        assert referee.on(root("T01") + "results") == []
        assert len(referee.on(root("T01") + "state")) == states  # refused: not obeyed either
        # another table's reply topic: obeyed (mqtt-api.md: the reply goes where the command says), but the ACL
        # lets T01 answer only on reply topics ending in T01, so nothing passes for T02's answer
        referee.publish(root("T01") + "cmd/resync", {"reply_to": reply_topic("referee", "T02"), "id": "y"})
        assert len(referee.wait(root("T01") + "state", states + 1)) == states + 1
        time.sleep(SETTLE)
        assert referee.on(reply_topic("referee", "T02")) == []
        r = _request(referee, root("T01") + "cmd/resync", {"id": "z"}, reply_topic("referee", "T01"))
        assert r == {"ok": True, "error": None, "id": "z"}
        assert len(referee.wait(root("T01") + "state", states + 2)) == states + 2
    finally:
        app.stop()
