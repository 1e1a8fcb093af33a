"""Shared pytest fixtures for every area.

MQTT broker (real Mosquitto on loopback, never a mock):

- ``mosquitto`` (session scope): one Mosquitto child process for the whole test session, on 127.0.0.1 and a
  free port, with a temp config and persistence (``LocalBroker`` from ``table_daemon.adapters.broker``). Use
  ``mosquitto.url`` (``mqtt://127.0.0.1:PORT``), ``mosquitto.host`` and ``mosquitto.port``. Tests share it, so
  give every test its own topic root (the ``topic_root`` fixture gives a unique event id and table id).
  ``mosquitto.restart(downtime=0.5)`` stops it and starts it again on the same port with the same persistence;
  a test that restarts it must leave it running.
- ``broker_factory`` (function scope): ``broker_factory(extra_config=[...])`` starts a private Mosquitto for
  one test (an ACL file, a websockets listener, many restarts) and stops it afterwards.
- ``mqtt_messages``: ``mqtt_messages(url, "guandan/v1/ev/T1/#")`` starts a paho client that records every
  message (topic, decoded JSON payload or raw bytes, retain flag) in a list, and stops it after the test.

Tests are skipped (with the reason) only when no Mosquitto binary exists on the machine; ``scripts/setup``
installs it.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from table_daemon.adapters.broker import LocalBroker, find_mosquitto


@pytest.fixture(scope="session")
def mosquitto() -> Iterator[LocalBroker]:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed (run scripts/setup)")
    broker = LocalBroker().start()
    try:
        yield broker
    finally:
        broker.close()


@pytest.fixture
def broker_factory() -> Iterator[Callable[..., LocalBroker]]:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed (run scripts/setup)")
    started: list[LocalBroker] = []

    def make(**kwargs: Any) -> LocalBroker:
        broker = LocalBroker(**kwargs).start()
        started.append(broker)
        return broker

    yield make
    for broker in started:
        broker.close()


_topic_counter = itertools.count(1)


@dataclass(frozen=True)
class TopicRoot:
    """A unique event/table pair for one test, and its topic root ``guandan/v1/{event}/{table}/``."""

    event: str
    table: str

    @property
    def root(self) -> str:
        return f"guandan/v1/{self.event}/{self.table}/"


@pytest.fixture
def topic_root() -> TopicRoot:
    return TopicRoot(event=f"t{uuid.uuid4().hex[:8]}", table=f"T{next(_topic_counter):02d}")


@dataclass
class Recorded:
    """One received message."""

    topic: str
    payload: Any
    retain: bool
    properties: Any = None


@dataclass
class MessageLog:
    """Messages received by a recording client; ``wait_for`` polls until a predicate holds."""

    messages: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    client: Any = None

    def snapshot(self) -> list[Recorded]:
        with self.lock:
            return list(self.messages)

    def on(self, suffix: str) -> list[Recorded]:
        return [m for m in self.snapshot() if m.topic.endswith(suffix)]

    def wait_for(self, predicate: Callable[[list[Recorded]], bool], timeout: float = 20.0) -> list[Recorded]:
        deadline = time.monotonic() + timeout
        while True:
            msgs = self.snapshot()
            if predicate(msgs):
                return msgs
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s; got {len(msgs)} messages")
            time.sleep(0.02)

    def publish(self, topic: str, payload: Any, *, qos: int = 1, retain: bool = False) -> None:
        data = payload if isinstance(payload, bytes | str) else json.dumps(payload)
        self.client.publish(topic, data, qos=qos, retain=retain).wait_for_publish(5)


@pytest.fixture
def mqtt_messages() -> Iterator[Callable[..., MessageLog]]:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    clients: list[Any] = []

    def start(url: str, *topics: str) -> MessageLog:
        log = MessageLog()
        host, _, port = url.removeprefix("mqtt://").partition(":")
        client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        subscribed = threading.Event()

        def on_connect(c: Any, userdata: Any, flags: Any, rc: Any, props: Any = None) -> None:
            for t in topics:
                c.subscribe(t, qos=1)
            subscribed.set()

        def on_message(c: Any, userdata: Any, msg: Any) -> None:
            try:
                payload: Any = json.loads(msg.payload)
            except ValueError:
                payload = msg.payload
            with log.lock:
                log.messages.append(Recorded(msg.topic, payload, bool(msg.retain), msg.properties))

        client.on_connect = on_connect
        client.on_message = on_message
        client.connect(host, int(port or 1883), keepalive=10)
        client.loop_start()
        if not subscribed.wait(10):
            raise AssertionError(f"could not connect to {url}")
        time.sleep(0.1)  # let the SUBACKs arrive
        log.client = client
        clients.append(client)
        return log

    yield start
    for c in clients:  # disconnect while the loop runs: stopping it first leaves loop_stop waiting ~1 s
        c.disconnect()
        c.loop_stop()
