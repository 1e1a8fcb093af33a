"""The MQTT link of the event's consumers, the desk and the display server: a broker URL read as the table
daemon reads it (mqtt, mqtts, ws, wss; a bare ``host:port`` means mqtt), subscriptions renewed on every connect,
each message handed to one ``handler(topic, payload)``, JSON published. It sits with the adapters so that the
display server does not import the desk (the desk's page uses the display's hub and web server).

MQTT 3.1.1 so that any broker will do; the session is persistent (``clean_session=False`` under a fixed client
id) so that QoS 1 messages published while the desk is away wait at the broker. The connection itself (TLS,
last will, reconnects, resubscribing) is :class:`~table_daemon.adapters.mqtt_connection.MqttConnection`,
shared with the table's link.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import paho.mqtt.client as mqtt

from .mqtt_connection import BrokerAddress, MqttConnection, parse_broker_url

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
    """One client: ``subscriptions`` (topic, qos) renewed on each connect; ``handler(topic, payload)`` per message;
    ``will`` (topic, payload) is left at the broker, QoS 1 and retained; ``on_connect()`` after each connect."""

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
        name: str = "",
        waiting_for: str = "",
    ) -> None:
        self.handler = handler
        self.connection = MqttConnection(
            parse_broker(url), client_id=client_id, protocol=4, persistent=persistent, keepalive=keepalive,
            subscriptions=subscriptions, will=will, on_connect=on_connect, on_message=self._on_message,
            ca_file=ca_file, name=name, waiting_for=waiting_for,
        )
        self.connected = self.connection.connected

    def start(self) -> None:
        self.connection.start()

    def stop(self, final: tuple[str, bytes] | None = None) -> None:
        """Publish ``final`` (e.g. an offline status; QoS 1, retained) if connected, then disconnect cleanly."""
        self.connection.stop(final)

    def publish(self, topic: str, payload: dict[str, Any] | bytes, *, qos: int = 1, retain: bool = False) -> None:
        """Publish a dict as compact UTF-8 JSON (bytes as they are); paho queues it while disconnected."""
        self.connection.publish(topic, payload if isinstance(payload, bytes) else dumps(payload), qos=qos,
                                retain=retain)

    def link_state(self) -> dict[str, Any]:
        """Whether the broker is reached, since when it is not, and why (``MqttConnection.link_state``)."""
        return self.connection.link_state()

    def _on_message(self, msg: mqtt.MQTTMessage) -> None:
        self.handler(msg.topic, bytes(msg.payload))  # paho types it bytes | bytearray; inbound it is bytes
