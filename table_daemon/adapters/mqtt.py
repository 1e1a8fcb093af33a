"""The table's MQTT link (paho-mqtt 2): topics, last will, commands with replies, result acks.

Contract: mqtt-api.md. The adapter knows topics and the wire, nothing of the game: it publishes what the app
gives it, and hands the app what arrives (commands, result acks, the desk's status) through ``on_input``.
paho keeps QoS 1 messages that were not acknowledged and sends them again after a reconnect; the app's
journal covers a restart of the daemon itself.
"""

from __future__ import annotations

import json
import logging
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BrokerAddress:
    host: str
    port: int
    tls: bool
    websockets: bool
    username: str | None
    password: str | None


def parse_broker_url(url: str) -> BrokerAddress:
    """``mqtt://[user:pass@]host[:port]``, ``mqtts://`` (TLS, 8883), ``ws://`` / ``wss://`` (websockets)."""
    u = urlparse(url)
    scheme = u.scheme.lower()
    if scheme not in ("mqtt", "tcp", "mqtts", "ssl", "ws", "wss") or not u.hostname:
        raise ValueError(f"bad broker URL {url!r} (expected mqtt://HOST:PORT or mqtts://HOST:PORT)")
    tls = scheme in ("mqtts", "ssl", "wss")
    ws = scheme in ("ws", "wss")
    default = {"mqtt": 1883, "tcp": 1883, "mqtts": 8883, "ssl": 8883, "ws": 9001, "wss": 9001}[scheme]
    return BrokerAddress(u.hostname, u.port or default, tls, ws, u.username, u.password)


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
    status is out and the subscriptions are made; ``on_sent(token)`` when the broker acknowledged a publish
    made with a token.
    """

    def __init__(self, url: str, root: str, desk_status_topic: str, *, client_id: str = "",
                 username: str = "", password: str = "", ca_file: str = "", cert_file: str = "",
                 key_file: str = "", insecure: bool = False, keepalive: int = 10, protocol: int = 5,
                 status_payload: Callable[[], dict[str, Any]] | None = None) -> None:
        self.address = parse_broker_url(url)
        self.root = root
        self.desk_status_topic = desk_status_topic
        self.keepalive = keepalive
        self.on_input: Callable[[Inbound], None] = lambda _i: None
        self.on_connected: Callable[[], None] = lambda: None
        self.on_sent: Callable[[Any], None] = lambda _t: None
        self._status_payload = status_payload or (lambda: {"online": True})
        self._tokens: dict[int, Any] = {}
        self._lock = threading.Lock()
        self.connected = threading.Event()
        self.v5 = protocol == 5
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            protocol=mqtt.MQTTv5 if self.v5 else mqtt.MQTTv311,
            transport="websockets" if self.address.websockets else "tcp",
            reconnect_on_failure=True,
        )
        self.client.max_inflight_messages_set(100)
        self.client.reconnect_delay_set(min_delay=1, max_delay=5)
        user = username or self.address.username
        if user:
            self.client.username_pw_set(user, password or self.address.password)
        if self.address.tls or ca_file:
            self.client.tls_set(ca_certs=ca_file or None, certfile=cert_file or None,
                                keyfile=key_file or None, cert_reqs=ssl.CERT_REQUIRED)
            if insecure:
                self.client.tls_insecure_set(True)
        will = json.dumps({"online": False, "table": root.rstrip("/").rsplit("/", 1)[-1]})
        self.client.will_set(self.topic("status"), will, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish

    def topic(self, name: str) -> str:
        return self.root + name

    # -- life cycle ---------------------------------------------------------------------------------------
    def start(self) -> None:
        self.client.connect_async(self.address.host, self.address.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self, *, offline: bool = True) -> None:
        """Disconnect cleanly (publishing the offline status first, as the will would)."""
        if offline and self.connected.is_set():
            offline_status = json.dumps({"online": False})
            info = self.client.publish(self.topic("status"), offline_status, qos=1, retain=True)
            try:
                info.wait_for_publish(2)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.warning("broker refused the connection: %s", reason)
            return
        client.publish(self.topic("status"), json.dumps(self._status_payload()), qos=1, retain=True)
        client.subscribe([(self.topic("cmd/#"), 1), (self.topic("results/ack"), 1),
                          (self.desk_status_topic, 1)])
        self.connected.set()
        try:
            self.on_connected()
        except Exception:  # the app's hook must never kill paho's thread
            log.exception("on_connected failed")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()
        log.info("disconnected from broker: %s", reason)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with self._lock:
            token = self._tokens.pop(mid, None)
        if token is not None:
            self.on_sent(token)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self.on_input(self._inbound(msg))
        except Exception:
            log.exception("handling a message on %s failed", msg.topic)

    def _inbound(self, msg: mqtt.MQTTMessage) -> Inbound:
        props = msg.properties
        response_topic = getattr(props, "ResponseTopic", None) if props is not None else None
        correlation = getattr(props, "CorrelationData", None) if props is not None else None
        try:
            payload: Any = json.loads(msg.payload.decode("utf-8")) if msg.payload else None
            error = None
        except (UnicodeDecodeError, ValueError) as exc:
            payload, error = None, f"payload is not JSON: {exc}"
        if msg.topic == self.desk_status_topic:
            return Inbound("desk_status", "desk", payload, error=error)
        if msg.topic == self.topic("results/ack"):
            return Inbound("ack", "ack", payload, error=error)
        name = msg.topic[len(self.topic("cmd/")):]
        if error is None and payload is not None and not isinstance(payload, dict):
            payload, error = None, "payload must be a JSON object"
        if isinstance(payload, dict) and not response_topic and isinstance(payload.get("reply_to"), str):
            response_topic = payload["reply_to"]
        return Inbound("command", name, payload if payload is not None else {}, response_topic, correlation,
                       error)

    # -- publishing ---------------------------------------------------------------------------------------
    def publish(self, topic: str, payload: str | bytes, *, qos: int = 1, retain: bool = False,
                token: Any = None) -> None:
        """Publish (queued by paho while disconnected); ``on_sent(token)`` follows the broker's ack."""
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        if token is not None:
            if qos == 0:
                self.on_sent(token)
                return
            with self._lock:
                self._tokens[info.mid] = token
            try:
                done = info.is_published()  # the ack can beat us to the table above
            except RuntimeError:  # not connected: paho keeps it and sends it after the reconnect
                done = False
            if done:
                with self._lock:
                    if self._tokens.pop(info.mid, None) is not None:
                        self.on_sent(token)

    def reply(self, inbound: Inbound, payload: dict[str, Any]) -> None:
        """Answer a command on its response topic (MQTT 5) or its ``reply_to`` (3.1.1); none: nothing."""
        if not inbound.response_topic:
            return
        props = None
        if self.v5 and inbound.correlation is not None:
            props = Properties(PacketTypes.PUBLISH)
            props.CorrelationData = inbound.correlation
        self.client.publish(inbound.response_topic, json.dumps(payload, ensure_ascii=False), qos=1,
                            properties=props)
