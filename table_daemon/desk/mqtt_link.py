"""A small paho-mqtt adapter shared by the desk and the display server: connect from a URL (read as the table
daemon reads it: mqtt, mqtts, ws, wss), keep a persistent session, (re)subscribe on every connect, hand each
message to one callback, publish JSON.

MQTT 3.1.1 so that any broker will do; the session is persistent (``clean_session=False`` under a fixed client
id) so that QoS 1 messages published while the desk is away wait at the broker. paho reconnects by itself
after the broker or the network drops; subscriptions are renewed in ``on_connect``.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import paho.mqtt.client as mqtt

from ..adapters.mqtt import BrokerAddress, parse_broker_url

log = logging.getLogger(__name__)
Handler = Callable[[str, bytes], None]


class LinkError(ValueError):
    """A broker URL that cannot be used."""


def parse_broker(url: str) -> BrokerAddress:
    """The table daemon's reading of a broker URL: ``mqtt://[user:pass@]host[:port]``, ``mqtts://`` (TLS),
    ``ws://`` / ``wss://`` (WebSockets); a bad one raises LinkError."""
    try:
        return parse_broker_url(url if "://" in url else f"mqtt://{url}")
    except ValueError as exc:
        raise LinkError(str(exc)) from exc


def dumps(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


class MqttLink:
    """One client: ``subscriptions`` (topic, qos) renewed on each connect; ``handler(topic, payload)`` per message."""

    def __init__(
        self,
        url: str,
        client_id: str,
        subscriptions: Sequence[tuple[str, int]],
        handler: Handler,
        *,
        will: tuple[str, bytes] | None = None,
        persistent: bool = True,
        on_connect: Callable[[], None] | None = None,
        keepalive: int = 10,
        ca_file: str | None = None,
    ) -> None:
        address = parse_broker(url)
        self.host, self.port = address.host, address.port
        self.subscriptions = list(subscriptions)
        self.handler = handler
        self.keepalive = keepalive
        self._on_connect_cb = on_connect
        self.connected = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                                  clean_session=not persistent, protocol=mqtt.MQTTv311,
                                  transport="websockets" if address.websockets else "tcp")
        if address.username:
            self.client.username_pw_set(address.username, address.password)
        if address.tls or ca_file:
            self.client.tls_set(ca_certs=ca_file or None)
        if will:
            self.client.will_set(will[0], will[1], qos=1, retain=True)
        self.client.reconnect_delay_set(0.2, 5)
        self.client.max_queued_messages_set(0)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self, final: tuple[str, bytes] | None = None) -> None:
        """Publish ``final`` (e.g. an offline status) if connected, then disconnect cleanly."""
        if final and self.connected.is_set():
            info = self.client.publish(final[0], final[1], qos=1, retain=True)
            try:
                info.wait_for_publish(2)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, topic: str, payload: dict[str, Any] | bytes, *, qos: int = 1, retain: bool = False) -> None:
        data = payload if isinstance(payload, bytes) else dumps(payload)
        self.client.publish(topic, data, qos=qos, retain=retain)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("broker refused the connection: %s", reason)
            return
        if self.subscriptions:
            client.subscribe([(t, q) for t, q in self.subscriptions])
        self.connected.set()
        if self._on_connect_cb:
            self._on_connect_cb()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self.handler(msg.topic, msg.payload)
        except Exception:  # one bad message must never stop the client's thread
            log.exception("handling a message on %s failed", msg.topic)
