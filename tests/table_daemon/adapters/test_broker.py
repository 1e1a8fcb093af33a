"""LocalBroker (the embedded Mosquitto): a restart keeps persistent sessions and what was queued for them, also
when it is started as root (CI, containers), where Mosquitto would otherwise drop to a user who cannot write its
persistence file; and the broker does not outlive an owner killed outright."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from table_daemon.adapters.broker import LocalBroker, find_mosquitto


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


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


OWNER = """
import sys, time
from table_daemon.adapters.broker import LocalBroker
broker = LocalBroker().start()
print(broker.port, broker._proc.pid, broker.workdir, flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_the_broker_ends_with_an_owner_killed_outright() -> None:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed (run scripts/setup)")
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).parents[3])
    assert owner.stdout is not None
    port_text, pid_text, workdir = owner.stdout.readline().split()
    port = int(port_text)
    try:
        assert _listening(port)
        owner.kill()  # SIGKILL: no handler, no finally, nobody left to stop the broker
        owner.wait(5)
        deadline = time.monotonic() + 10
        while _listening(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _listening(port), "the broker outlived its killed owner"
    finally:
        owner.kill()
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid_text), signal.SIGKILL)
        shutil.rmtree(workdir, ignore_errors=True)


def test_a_broker_started_from_a_worker_thread_outlives_that_thread() -> None:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed (run scripts/setup)")
    broker = LocalBroker()
    starter = threading.Thread(target=broker.start)
    starter.start()
    starter.join(15)
    try:
        time.sleep(0.5)  # a parent-death signal tied to the ended thread would have come by now
        assert broker.running and _listening(broker.port)
    finally:
        broker.close()
