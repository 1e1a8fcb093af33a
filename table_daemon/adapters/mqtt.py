"""The table's MQTT link (paho-mqtt 2): topics, last will, commands with replies, result acks.

Contract: mqtt-api.md. The adapter knows topics and the wire, nothing of the game: it publishes what the app
gives it, and hands the app what arrives (commands, result acks, the desk's status) through ``on_input``.
The connection itself (TLS, credentials, will, resubscribing, acknowledged publishes) is
:class:`~table_daemon.adapters.mqtt_connection.MqttConnection`: paho keeps QoS 1 messages that were not
acknowledged and sends them again after a reconnect; the app's journal covers a restart of the daemon itself.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from table_daemon import safe_json
from table_daemon.controller.auth import reply_topic_error

from .mqtt_connection import MqttConnection, parse_broker_url

log = logging.getLogger(__name__)

#: the largest command, ack or desk status the table reads (a start_match with teams is about 1 KB)
MAX_PAYLOAD = 64 * 1024


@dataclass(frozen=True)
class Inbound:
    """Something that arrived for the table: ``kind`` is ``command``, ``ack`` or ``desk_status``."""

    kind: str
    name: str
    payload: Any
    response_topic: str | None = None
    correlation: bytes | None = None
    error: str | None = None


class MqttLink:
    """One paho client for one table root.

    ``on_input(Inbound)`` is called from paho's thread; ``on_connected()`` after every (re)connect, once the
    subscriptions are made and the status is out; ``on_sent(token)`` when the broker acknowledged a publish
    made with a token.
    """

    def __init__(self, url: str, root: str, desk_status_topic: str, *, client_id: str = "",
                 username: str = "", password: str = "", ca_file: str = "", cert_file: str = "",
                 key_file: str = "", insecure: bool = False, keepalive: int = 10, protocol: int = 5,
                 status_payload: Callable[[], dict[str, Any]] | None = None,
                 offline_payload: Callable[[], dict[str, Any]] | None = None) -> None:
        self.root = root
        self.desk_status_topic = desk_status_topic
        self.on_input: Callable[[Inbound], None] = lambda _i: None
        self.on_connected: Callable[[], None] = lambda: None
        self.on_sent: Callable[[Any], None] = lambda _t: None
        self._status_payload = status_payload or (lambda: {"online": True})
        self._offline_payload = offline_payload or (lambda: {"online": False,
                                                              "table": root.rstrip("/").rsplit("/", 1)[-1]})
        will = json.dumps(self._offline_payload())
        self.connection = MqttConnection(
            parse_broker_url(url), client_id=client_id, protocol=protocol, keepalive=keepalive,
            subscriptions=[(self.topic("cmd/#"), 1), (self.topic("results/ack"), 1), (desk_status_topic, 1)],
            will=(self.topic("status"), will), on_connect=self._on_connect,
            on_message=lambda msg: self.on_input(self._inbound(msg)),
            username=username, password=password, ca_file=ca_file, cert_file=cert_file, key_file=key_file,
            insecure=insecure, name=f"table {root.rstrip('/').rsplit('/', 1)[-1]}",
            waiting_for="发布牌局与成绩（成绩存于日志）to publish play and results (results wait in the journal)",
        )
        self.connected = self.connection.connected

    def topic(self, name: str) -> str:
        return self.root + name

    # -- life cycle ---------------------------------------------------------------------------------------
    def start(self) -> None:
        self.connection.start()

    def stop(self, *, offline: bool = True) -> None:
        """Disconnect cleanly (publishing the offline status first, as the will would)."""
        self.connection.stop(final=(self.topic("status"), json.dumps(self._offline_payload())) if offline else None)

    def _on_connect(self) -> None:
        self.publish_status()
        self.on_connected()

    def publish_status(self) -> None:
        """The retained ``status`` (on connect, and again when a device's state changes)."""
        self.connection.publish(self.topic("status"), json.dumps(self._status_payload()), qos=1, retain=True)

    def _inbound(self, msg: mqtt.MQTTMessage) -> Inbound:
        props = msg.properties
        response_topic = getattr(props, "ResponseTopic", None) if props is not None else None
        correlation = getattr(props, "CorrelationData", None) if props is not None else None
        try:
            payload: Any = safe_json.loads(bytes(msg.payload), max_bytes=MAX_PAYLOAD) if msg.payload else None
            error = None
        except safe_json.JsonLimitError as exc:
            payload, error = None, f"payload refused: {exc}"
        if msg.topic == self.desk_status_topic:
            return Inbound("desk_status", "desk", payload, error=error)
        if msg.topic == self.topic("results/ack"):
            return Inbound("ack", "ack", payload, error=error)
        name = msg.topic[len(self.topic("cmd/")):]
        if error is None and msg.payload and not isinstance(payload, dict):  # "null", a list, a number ...
            payload, error = None, "payload must be a JSON object"
        if error is None and msg.retain:  # a command left on the broker: whoever sent it meant another moment
            error = ("保留的指令不执行 | a retained command is not obeyed (mqtt-api.md: commands are never retained; "
                     "clear it with an empty retained message)")
        if isinstance(payload, dict) and not response_topic and isinstance(payload.get("reply_to"), str):
            response_topic = payload["reply_to"]
        if response_topic:
            prefix, event, table = self.root.rstrip("/").rsplit("/", 2)
            refused = reply_topic_error(response_topic, prefix, event, table)
            if refused is not None:  # nobody to answer: the refusal is logged and journaled, not published
                log.warning("command %s: %s", name[:60], refused)
                response_topic, error = None, refused
        return Inbound("command", name, payload if payload is not None else {}, response_topic, correlation,
                       error)

    # -- publishing ---------------------------------------------------------------------------------------
    def publish(self, topic: str, payload: str | bytes, *, qos: int = 1, retain: bool = False,
                token: Any = None) -> None:
        """Publish (queued by paho while disconnected); ``on_sent(token)`` follows the broker's ack."""
        on_ack = None if token is None else (lambda: self.on_sent(token))
        self.connection.publish(topic, payload, qos=qos, retain=retain, on_ack=on_ack)

    def reply(self, inbound: Inbound, payload: dict[str, Any]) -> None:
        """Answer a command on its response topic (MQTT 5) or its ``reply_to`` (3.1.1); none: nothing."""
        if not inbound.response_topic:
            return
        props = None
        if self.connection.v5 and inbound.correlation is not None:
            props = Properties(PacketTypes.PUBLISH)
            props.CorrelationData = inbound.correlation
        self.connection.publish(inbound.response_topic, json.dumps(payload, ensure_ascii=False), qos=1,
                                properties=props)
