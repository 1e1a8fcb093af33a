"""The referee account's link to the tables: send one command to a table and wait for its answer.

Why an adapter of its own: the desk's broker account may only start matches (``deploy/mosquitto/guandan.acl``:
``desk`` writes ``cmd/start_match`` alone), so pausing a table, a penalty, a correction or dealing again after
the dealer gave up go out as the ``referee`` account, from ``guandan-table referee`` (one command, then exit) and
from the desk page (one connection held while the desk runs, used by every referee at once).

A command goes to ``{prefix}/{event}/{table}/cmd/{name}`` with the ``role`` the tables trust and an ``id`` (a
repeated id is the same ruling: the table obeys it once), signed with the referees' key when one is given
(``table.referee_key_file``; :func:`~table_daemon.controller.auth.sign_command`). It carries the MQTT 5 response
topic ``{prefix}/replies/{user}/{event}/{table}``, the only one the table answers on and the only one the account
may read, and correlation data of its own; the link subscribes to ``{prefix}/replies/{user}/{event}/+`` once and
hands each answer to the caller whose correlation data it carries (other referees' answers on the same topics
are not theirs). ``send`` is safe from several threads at once.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from dataclasses import replace
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from table_daemon.controller.auth import sign_command

from .mqtt_connection import BrokerAddress, MqttConnection

#: a requester's name as the tables accept it in a reply topic (``controller.auth.reply_topic_error``)
USER = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
#: the largest answer read (a table's answer is a few hundred bytes)
MAX_ANSWER = 64 * 1024


class RefereeLinkError(Exception):
    """A command that got no answer from the table; the message says why, in Chinese and English."""


class BrokerUnreachable(RefereeLinkError):
    """The broker was not reached in time: the command was not sent."""


class NoAnswer(RefereeLinkError):
    """The command was sent, but the table did not answer in time (offline, or the account may not command it)."""


class _Waiter:
    """One command waiting for its answer."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.answer: dict[str, Any] = {}
        self.done = threading.Event()


class RefereeLink:
    """One MQTT 5 connection as the referee account (``user``, ``password``; the URL's own credentials are not
    used: they are another account's). ``start()`` connects in the background, ``stop()`` disconnects;
    ``send(table, name, body, timeout)`` returns the table's answer (``{"ok", "error", ...}``).

    ``key``: the referees' signing key (each command signed when given); ``role``: the role the tables trust
    (``table.referee_role``), added to a body that has none, as is a fresh ``id``. A ``user`` the tables would
    not answer (not letters, digits, ``_ . -``) raises ValueError; TLS files that cannot be loaded raise
    :class:`~table_daemon.adapters.mqtt_connection.TlsFilesError`.
    """

    def __init__(self, address: BrokerAddress, event: str, *, user: str = "referee", password: str | None = None,
                 key: bytes | None = None, role: str = "referee", prefix: str = "guandan/v1",
                 ca_file: str | None = None, name: str = "") -> None:
        if not USER.match(user):
            raise ValueError(f"broker user {user!r}: the tables answer only a name of letters, digits, _ . - "
                             "(up to 64)")
        self.event = event
        self.user = user
        self.key = key
        self.role = role
        self.prefix = prefix.rstrip("/")
        #: the tables' answers to this account: ``{reply_root}/{table}``
        self.reply_root = f"{self.prefix}/replies/{user}/{event}"
        self._lock = threading.Lock()
        self._waiting: dict[bytes, _Waiter] = {}
        self._by_id: dict[str, _Waiter] = {}  # the same waiters by command id, for answers without correlation
        self.connection = MqttConnection(
            replace(address, username=user, password=password), client_id=f"referee-{uuid.uuid4().hex[:12]}",
            protocol=5, subscriptions=[(f"{self.reply_root}/+", 1)], on_message=self._on_message,
            username=user, password=password, ca_file=ca_file, name=name or f"referee {user}",
            waiting_for="裁判指令的应答 the tables' answers to referee commands")
        self.connected = self.connection.connected

    # -- life ---------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Connect in the background (paho keeps trying until the broker answers)."""
        self.connection.start()

    def stop(self) -> None:
        """Disconnect; a command still waiting gets no answer (its ``send`` raises :class:`NoAnswer`)."""
        self.connection.stop()

    def wait_connected(self, timeout: float) -> bool:
        """Whether the broker was reached (and the reply topics subscribed) within ``timeout`` seconds."""
        return self.connected.wait(timeout)

    def link_state(self) -> dict[str, Any]:
        """Whether the broker is reached, since when it is not, and why (``MqttConnection.link_state``)."""
        return self.connection.link_state()

    def unreachable(self) -> BrokerUnreachable:
        """The error of a broker not reached: which broker, and why, as the connection last said."""
        link = self.link_state()
        return BrokerUnreachable(f"无法连接 MQTT 代理 cannot reach the broker {link['broker']}"
                                 f"{': ' + link['reason'] if link['reason'] else ''}")

    # -- commands -----------------------------------------------------------------------------------------------
    def send(self, table: str, name: str, body: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send command ``name`` with ``body`` to ``table`` and return its answer, waiting at most ``timeout``
        seconds in all (for the broker, if it is away, and for the answer).

        The body gets ``role`` and ``id`` when it has none, then the signature when the link has a key. Raises
        :class:`BrokerUnreachable` (nothing sent) or :class:`NoAnswer` (sent, unanswered), each saying why."""
        deadline = time.monotonic() + timeout
        if not self.connected.wait(timeout):
            raise self.unreachable()
        reply_topic = f"{self.reply_root}/{table}"
        # the reply topic twice: as MQTT 5's property, and in the body (mqtt-api.md's reply_to), since a hall's
        # bridge to the centre speaks MQTT 3.1.1 and drops properties: the table then answers on reply_to, without
        # correlation data, and the answer is matched by the command's id
        payload = {"role": self.role, "id": f"ref-{uuid.uuid4().hex[:12]}", **body, "reply_to": reply_topic}
        if self.key is not None:
            payload = sign_command(self.key, table, name, payload, uuid.uuid4().hex)
        correlation = uuid.uuid4().bytes
        waiter = _Waiter(table)
        props = Properties(PacketTypes.PUBLISH)
        props.ResponseTopic = reply_topic
        props.CorrelationData = correlation
        command_id = str(payload["id"])
        with self._lock:
            self._waiting[correlation] = waiter
            self._by_id[command_id] = waiter
        try:
            self.connection.publish(f"{self.prefix}/{self.event}/{table}/cmd/{name}",
                                    json.dumps(payload, ensure_ascii=False), qos=1, properties=props)
            if not waiter.done.wait(max(deadline - time.monotonic(), 0.0)):
                raise NoAnswer(f"牌桌 {table} {timeout:g} 秒内无应答 | no answer from table {table} in {timeout:g} s: "
                               f"is it online (its status), and may {self.user!r} command it?")
        finally:
            with self._lock:
                self._waiting.pop(correlation, None)
                self._by_id.pop(command_id, None)
        return waiter.answer

    def _on_message(self, msg: mqtt.MQTTMessage) -> None:
        """An answer (paho's thread): to the command whose correlation data it carries, from that command's
        table; anything else (another referee's answer, a late one) is not ours and is dropped."""
        correlation = getattr(msg.properties, "CorrelationData", None) if msg.properties is not None else None
        raw = bytes(msg.payload)
        try:
            answer = json.loads(raw) if len(raw) <= MAX_ANSWER else None
        except ValueError:
            answer = None
        with self._lock:
            if correlation is not None:
                waiter = self._waiting.get(bytes(correlation))
            else:  # an answer that came over an MQTT 3.1.1 bridge: matched by the command's id it echoes
                waiter = self._by_id.get(str(answer.get("id"))) if isinstance(answer, dict) else None
        if waiter is None or msg.topic != f"{self.reply_root}/{waiter.table}":
            return
        waiter.answer = answer if isinstance(answer, dict) else {
            "ok": False, "error": f"无法读取的应答 unreadable answer: {raw[:200]!r}"}
        waiter.done.set()
