"""One paho-mqtt 2 connection, shared by the table's link and the desk's (and display's) link.

What both need and nothing more: read a broker URL, connect with TLS and credentials under a client id (MQTT 5
or 3.1.1), leave a retained last will, renew the subscriptions on every (re)connect (a clean session forgets
them when the broker restarts), hand every message to one callback, publish from any thread with an optional
callback once the broker acknowledged, and say goodbye cleanly. Topics, payloads and what a message means
belong to the links built on it (``adapters/mqtt.py`` for the table, ``adapters/consumer_link.py`` for the desk
and the display server).

paho reconnects by itself after the broker or the network drops, and keeps the QoS 1 messages the broker has
not acknowledged to send them again after the reconnect; callbacks from paho's thread never raise into it.
Those messages go out in order, and nothing published after them overtakes them (``publish`` says how).
A broker that cannot be reached, refuses the client or drops it is said loudly (a warning in Chinese and
English naming the broker, the reason, the try, the wait before the next one and what the client waits for),
never silently retried.
"""

from __future__ import annotations

import errno
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties

log = logging.getLogger(__name__)

#: the longest a publish waits for the messages of an outage to go out first (a broker that takes the connection
#: but never acknowledges them must not hold the table up longer: the publish then goes ahead, and says so)
BACKLOG_WAIT_S = 5.0
#: paho waits this long before the first retry and doubles the wait up to RETRY_MAX_S (reconnect_delay_set)
RETRY_MIN_S, RETRY_MAX_S = 1, 5
#: a topic and its payload: a last will, or the final message of a clean stop (both QoS 1, retained)
Message = tuple[str, str | bytes]


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


def redacted(url: str) -> str:
    """A broker URL as it may be printed: its password (``mqtt://user:PASSWORD@host``) replaced by ``***``."""
    u = urlparse(url)
    if u.password is None:
        return url
    host = u.netloc.rsplit("@", 1)[1]
    return u._replace(netloc=f"{u.username}:***@{host}").geturl()


class TlsFilesError(ValueError):
    """A CA, certificate or key file the TLS connection cannot load; ``setting`` names which (``ca_file``,
    ``cert_file`` or ``key_file``), the message names the file and why, in one line."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(f"{setting}: {message}")
        self.setting = setting
        self.message = message


def tls_files_problem(ca_file: str | None, cert_file: str | None = None,
                      key_file: str | None = None) -> tuple[str, str] | None:
    """Why the TLS files cannot be loaded, as (setting, message), or None when they can.

    They are loaded as paho's ``tls_set`` will load them (``load_verify_locations`` for the CA file,
    ``load_cert_chain`` for the client certificate and key), so a file that passes here is one the connection
    takes, and one that fails is said by name (``tls_set`` itself raises a bare ``ssl.SSLError`` such as
    ``[X509: NO_CERTIFICATE_OR_CRL_FOUND]`` that names no file). A key encrypted with a passphrase is refused:
    the table runs unattended and nobody is there to type it.
    """
    if ca_file:
        try:
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=ca_file)
        except ssl.SSLError as exc:  # before OSError: an SSLError is one
            return "ca_file", (f"{ca_file}: 不是 CA 证书 | no CA certificate (PEM) in it"
                               f"{_reason(exc)}; name the broker's CA certificate")
        except OSError as exc:
            return "ca_file", f"{ca_file}: cannot read it: {exc.strerror or exc}"
    if key_file and not cert_file:
        return "key_file", f"{key_file}: a client key needs its certificate (cert_file) beside it"
    if cert_file:
        try:  # a certificate at all? (load_cert_chain's error does not tell the certificate from the key)
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cafile=cert_file)
        except ssl.SSLError as exc:
            return "cert_file", f"{cert_file}: 不是证书 | no certificate (PEM) in it{_reason(exc)}"
        except OSError as exc:
            return "cert_file", f"{cert_file}: cannot read it: {exc.strerror or exc}"
        asked: list[bool] = []

        def no_passphrase() -> bytes:
            asked.append(True)
            return b""

        try:
            ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_cert_chain(cert_file, key_file or None,
                                                                    password=no_passphrase)
        except ssl.SSLError as exc:
            setting, name = ("key_file", key_file) if key_file else ("cert_file", cert_file)
            if asked:
                why = "the key is encrypted with a passphrase, which the table cannot type: use a key without one"
            elif exc.reason == "KEY_VALUES_MISMATCH":
                why = f"the key does not belong to the certificate {cert_file}"
            elif key_file:
                why = f"no private key (PEM) for the certificate {cert_file} in it{_reason(exc)}"
            else:
                why = f"no private key (PEM) in it{_reason(exc)}: name the certificate's key with key_file"
            return setting, f"{name}: 客户端密钥无效 | {why}"
        except OSError as exc:
            return ("key_file", f"{key_file}: cannot read it: {exc.strerror or exc}") if key_file else \
                ("cert_file", f"{cert_file}: cannot read it: {exc.strerror or exc}")
    return None


def _reason(exc: ssl.SSLError) -> str:
    """OpenSSL's short reason (`` (NO_CERTIFICATE_OR_CRL_FOUND)``) for a message, or nothing where it gives none."""
    return f" ({exc.reason})" if exc.reason else ""


def unreachable_reason(address: BrokerAddress, timeout: float = 2.0) -> str:
    """Why a connection to the broker failed, in Chinese and English (a fresh TCP connect tells)."""
    try:
        with socket.create_connection((address.host, address.port), timeout=timeout):
            pass
    except socket.gaierror:
        return f"主机名无法解析 unknown host {address.host!r}"
    except TimeoutError:
        return "无应答 no answer (timed out)"
    except OSError as exc:
        if exc.errno == errno.ECONNREFUSED:
            return "连接被拒绝 connection refused (nothing listens on that port)"
        return f"网络错误 network error: {exc.strerror or exc}"
    return "TCP 可连但握手失败 the port answers but the MQTT/TLS handshake failed"


#: a connection the broker drops within this many seconds of making it counts as short-lived, and this many in
#: a row are said as the likely cause: another client connected with the same client id (it takes the
#: connection over, and ours takes it back, in turn)
SHORT_LIVED_S = 5.0
SHORT_LIVED_SAY = 3


def retry_wait(failures: int) -> int:
    """Seconds paho waits before the next try after ``failures`` failed ones in a row."""
    return min(RETRY_MIN_S * 2 ** max(failures - 1, 0), RETRY_MAX_S)


class MqttConnection:
    """One paho client: ``start()`` connects in the background, ``stop()`` disconnects.

    ``subscriptions`` (topic, QoS) are made again on every connect, then ``connected`` is set and
    ``on_connect()`` runs; ``on_message(msg)`` gets every message. Both run in paho's thread. ``protocol`` is
    5 (MQTT 5) or 4 (3.1.1); ``persistent`` (3.1.1 only) keeps the session at the broker across disconnects,
    so QoS 1 messages for this client id wait there while it is away. ``username``/``password`` override the
    URL's; TLS is used for ``mqtts``/``wss`` or when a CA file is given. TLS files that cannot be loaded raise
    :class:`TlsFilesError` (naming the setting and the file), not paho's bare ``ssl.SSLError``.
    """

    def __init__(self, address: BrokerAddress, *, client_id: str = "", protocol: int = 4,
                 persistent: bool = False, keepalive: int = 10,
                 subscriptions: Sequence[tuple[str, int]] = (), will: Message | None = None,
                 on_connect: Callable[[], None] | None = None,
                 on_message: Callable[[mqtt.MQTTMessage], None] | None = None,
                 username: str | None = None, password: str | None = None, ca_file: str | None = None,
                 cert_file: str | None = None, key_file: str | None = None, insecure: bool = False,
                 name: str = "", waiting_for: str = "") -> None:
        if protocol not in (4, 5):
            raise ValueError(f"MQTT protocol must be 4 (3.1.1) or 5, not {protocol!r}")
        if persistent and protocol == 5:
            raise ValueError("a persistent session is only supported with MQTT 3.1.1 (protocol 4)")
        self.address = address
        #: who connects and what it waits for, for the loud messages (e.g. "desk", "牌桌成绩 table results")
        self.name = name or client_id or "mqtt"
        self.waiting_for = waiting_for
        self.failures = 0
        #: since when (time.time()) the broker has been out of reach, and why: None while connected
        self.away_since: float | None = None
        self.away_reason = ""
        self.client_id = client_id
        # connections the broker dropped soon after making them, in a row (another client with our id?)
        self._connected_at = 0.0
        self.short_lived = 0
        self._stopping = False
        self.keepalive = keepalive
        self.v5 = protocol == 5
        self.subscriptions = list(subscriptions)
        self.on_connect = on_connect
        self.on_message = on_message
        self.connected = threading.Event()
        # acknowledgement callbacks by message id; publish() says what _publishing and _early are for
        self._lock = threading.Lock()
        self._pending: dict[int, Callable[[], None]] = {}
        self._publishing = 0
        self._early: set[int] = set()
        # messages paho will send again after a reconnect, until the broker acknowledged them (publish())
        self._backlog: set[int] = set()
        self._backlog_sent = threading.Condition(self._lock)
        self._paho_thread: int | None = None
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id,
            clean_session=None if self.v5 else not persistent,
            protocol=mqtt.MQTTv5 if self.v5 else mqtt.MQTTv311,
            transport="websockets" if address.websockets else "tcp",
        )
        self.client.max_inflight_messages_set(100)  # as Mosquitto's max_inflight_messages in our configs
        # doubled per failed try; a second at first gives a restarted broker time to restore its sessions
        self.client.reconnect_delay_set(min_delay=RETRY_MIN_S, max_delay=RETRY_MAX_S)
        user = username or address.username
        if user:
            self.client.username_pw_set(user, password or address.password)
        if address.tls or ca_file:
            # checked first: tls_set's own error is a bare ssl.SSLError naming no file (check-config runs the same)
            problem = tls_files_problem(ca_file or None, cert_file or None, key_file or None)
            if problem is not None:
                raise TlsFilesError(*problem)
            self.client.tls_set(ca_certs=ca_file or None, certfile=cert_file or None, keyfile=key_file or None,
                                cert_reqs=ssl.CERT_REQUIRED)
            if insecure:
                self.client.tls_insecure_set(True)
        if will is not None:
            self.client.will_set(will[0], will[1], qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish

    # -- life cycle -------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Connect in paho's background thread (it keeps trying until the broker answers)."""
        self.away_since, self.away_reason = time.time(), "connecting"
        self.client.connect_async(self.address.host, self.address.port, keepalive=self.keepalive)
        self.client.loop_start()

    def stop(self, final: Message | None = None) -> None:
        """Publish ``final`` (QoS 1, retained: e.g. an offline status, as the will would) if connected, wait
        up to 2 s for its acknowledgement, then disconnect cleanly, so the broker does not send the will."""
        self._stopping = True
        if final is not None and self.connected.is_set():
            info = self.publish(final[0], final[1], qos=1, retain=True)
            try:
                info.wait_for_publish(2)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    # -- publishing -------------------------------------------------------------------------------------------
    def link_state(self) -> dict[str, Any]:
        """Whether the broker is reached, and if not since when (time.time()) and why: for a page to say."""
        return {"connected": self.connected.is_set(), "broker": f"{self.address.host}:{self.address.port}",
                "away_since": None if self.connected.is_set() else self.away_since,
                "reason": "" if self.connected.is_set() else self.away_reason}

    def publish(self, topic: str, payload: str | bytes, *, qos: int = 1, retain: bool = False,
                properties: Properties | None = None,
                on_ack: Callable[[], None] | None = None) -> mqtt.MQTTMessageInfo:
        """Publish from any thread; paho queues it while disconnected and sends it after the reconnect.

        ``on_ack()`` runs once when the broker acknowledged a QoS 1 message (QoS 0 has no acknowledgement:
        it runs at once). paho may report the acknowledgement before ``client.publish`` has returned the
        message id, so an acknowledgement that arrives while a publish is under way and finds no callback
        is kept in ``_early`` until that publish has registered its callback. Our lock is never held across
        a paho call: paho holds its own lock while it reports an acknowledgement.

        Order across an outage: paho sends the messages it kept (those not acknowledged when the connection
        dropped, and those published while it was down) once the broker's CONNACK is in, after the connect
        callback. A message published from another thread in between, or while the connection is being made,
        went straight out and overtook them (a consumer saw a table's ``seq`` go back). So while any
        message with an acknowledgement callback is still in that backlog and a socket is open, a publish
        waits for the broker to acknowledge the backlog (milliseconds), at most ``BACKLOG_WAIT_S``. While the
        broker is away nothing waits: the message joins paho's queue behind the others. Publishes from paho's
        own thread (the connect callback's) never wait: they would hold up the very resend they wait for.
        """
        self._wait_for_backlog()
        with self._lock:
            self._publishing += 1
        try:
            info = self.client.publish(topic, payload, qos=qos, retain=retain, properties=properties)
        except BaseException:
            self._published(None, None)
            raise
        acked_already = self._published(info.mid, on_ack if qos > 0 else None,
                                        queued=info.rc == mqtt.MQTT_ERR_NO_CONN)
        if on_ack is not None and (acked_already or qos == 0):
            self._call("on_ack", on_ack)
        return info

    def _wait_for_backlog(self) -> None:
        """Hold a publish while the messages of an outage are being sent again (:meth:`publish`)."""
        if threading.get_ident() == self._paho_thread:
            return
        with self._lock:
            if not self._backlog:
                return
            waiting = self._backlog_sent.wait_for(
                lambda: not self._backlog or self.client.socket() is None, timeout=BACKLOG_WAIT_S)
            if not waiting:
                log.warning("%s: %d messages from before the reconnect are still unacknowledged after %.0f s; "
                            "publishing on", self.name, len(self._backlog), BACKLOG_WAIT_S)
                self._backlog.clear()

    def _published(self, mid: int | None, on_ack: Callable[[], None] | None, *, queued: bool = False) -> bool:
        """End of a publish: register ``on_ack`` for ``mid``; True when its acknowledgement came first.
        ``queued``: paho kept it for the next connection (it joins the backlog)."""
        with self._lock:
            self._publishing -= 1
            acked_already = False
            if mid is not None and on_ack is not None:
                if mid in self._early:
                    self._early.discard(mid)
                    acked_already = True
                else:
                    self._pending[mid] = on_ack
                    if queued:
                        self._backlog.add(mid)
            if not self._publishing:
                self._early.clear()  # what is left there belongs to publishes without a callback
            return acked_already

    # -- paho's callbacks (its thread) ---------------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.failures += 1
            self.away_reason = f"refused: {reason}"
            self._say("代理拒绝连接 the broker refused the connection", str(reason))
            return
        if self.failures:
            log.warning("%s: 已连接 MQTT 代理 connected to the broker %s:%d after %d failed tries", self.name,
                        self.address.host, self.address.port, self.failures)
        self.failures = 0
        self.away_since, self.away_reason = None, ""
        self._connected_at = time.monotonic()
        self._paho_thread = threading.get_ident()
        if self.subscriptions:
            client.subscribe(list(self.subscriptions))
        self.connected.set()
        if self.on_connect is not None:
            self._call("on_connect", self.on_connect)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        was_connected = self.connected.is_set()
        self.connected.clear()
        with self._lock:  # what the broker has not acknowledged, paho sends again first after the reconnect
            self._backlog.update(self._pending)
            self._backlog_sent.notify_all()
        if self._stopping:
            log.info("disconnected from broker: %s", reason)
        elif was_connected:
            self.away_since, self.away_reason = time.time(), str(reason)
            self.short_lived = self.short_lived + 1 if time.monotonic() - self._connected_at < SHORT_LIVED_S else 0
            if self.short_lived >= SHORT_LIVED_SAY:  # said below, at the 3rd and 30th: not a line every second
                self.away_reason = f"{reason}; 桌号冲突 likely another device with client id {self.client_id!r}"
            log.log(logging.INFO if self.short_lived > SHORT_LIVED_SAY else logging.WARNING,
                    "%s: 与 MQTT 代理断开 lost the broker %s:%d (%s); 重连中 reconnecting%s", self.name,
                    self.address.host, self.address.port, reason, self._waiting())
            if self.short_lived in (SHORT_LIVED_SAY, 10 * SHORT_LIVED_SAY):
                log.error("%s: 代理连续 %d 次在连接后立即断开：可能有另一个客户端使用同一客户端编号 %r（两张牌桌配置了同一"
                          "桌号？）| the broker dropped %d connections in a row right after making them: another "
                          "client with the same client id %r is likely connected (two tables configured with the "
                          "same table.id?)", self.name, self.short_lived, self.client_id, self.short_lived,
                          self.client_id)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.failures += 1
        self.away_reason = unreachable_reason(self.address)
        self._say("无法连接 MQTT 代理 cannot reach the MQTT broker", self.away_reason)

    def _say(self, what: str, reason: str) -> None:
        log.warning("%s: %s %s:%d (%s); 第 %d 次失败，%d 秒后重试 try %d failed, retrying in %d s%s", self.name, what,
                    self.address.host, self.address.port, reason, self.failures, retry_wait(self.failures),
                    self.failures, retry_wait(self.failures), self._waiting())

    def _waiting(self) -> str:
        return f"; 等待 waiting for: {self.waiting_for}" if self.waiting_for else ""

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if self.on_message is not None:
            self._call(f"handling a message on {msg.topic}", self.on_message, msg)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with self._lock:
            on_ack = self._pending.pop(mid, None)
            if on_ack is None and self._publishing:
                self._early.add(mid)
            if mid in self._backlog:
                self._backlog.discard(mid)
                if not self._backlog:
                    self._backlog_sent.notify_all()
        if on_ack is not None:
            self._call("on_ack", on_ack)

    @staticmethod
    def _call(what: str, fn: Callable[..., None], *args: Any) -> None:
        try:
            fn(*args)
        except Exception:  # the app's code must never kill paho's thread (nor a publisher's)
            log.exception("%s failed", what)
