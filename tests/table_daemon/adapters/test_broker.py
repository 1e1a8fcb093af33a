"""LocalBroker (the embedded Mosquitto): a restart keeps persistent sessions and what was queued for them, also
when it is started as root (CI, containers), where Mosquitto would otherwise drop to a user who cannot write its
persistence file."""

from __future__ import annotations

import threading
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


def _client(url: str, client_id: str, *, clean: bool) -> mqtt.Client:
    host, port = url.removeprefix("mqtt://").split(":")
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean,
                         protocol=mqtt.MQTTv311)
    client.connect(host, int(port), keepalive=5)
    return client


def test_restart_keeps_the_messages_queued_for_an_offline_persistent_session(broker_factory: Any) -> None:
    broker = broker_factory()
    sub = _client(broker.url, "desk-persistent", clean=False)
    subscribed = threading.Event()
    sub.on_subscribe = lambda *a: subscribed.set()
    sub.loop_start()
    sub.subscribe("t/#", qos=1)
    assert subscribed.wait(10)
    sub.loop_stop()
    sub.disconnect()
    pub = _client(broker.url, "table", clean=True)
    pub.loop_start()
    pub.publish("t/events", b"while the desk was away", qos=1).wait_for_publish(5)
    pub.loop_stop()
    pub.disconnect()

    broker.restart()
    assert "Error saving" not in (broker.workdir / "broker.log").read_text(errors="replace")

    got: list[bytes] = []
    arrived = threading.Event()
    present: list[bool] = []

    def on_connect(c: Any, u: Any, flags: Any, rc: Any, props: Any) -> None:
        present.append(bool(flags.session_present))

    def on_message(c: Any, u: Any, msg: Any) -> None:
        got.append(msg.payload)
        arrived.set()

    back = _client(broker.url, "desk-persistent", clean=False)
    back.on_connect = on_connect
    back.on_message = on_message
    back.loop_start()
    try:
        assert arrived.wait(10), "the queued message was lost with the restart"
        assert present == [True] and got == [b"while the desk was away"]
    finally:
        back.loop_stop()
        back.disconnect()
