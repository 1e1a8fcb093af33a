"""The running scoring desk: one MQTT client, the store, the live hub and (optionally) the web server.

It subscribes to every table's ``results`` and ``alerts`` of the event through a shared subscription (so a
second desk instance could share the load) and to ``status``, ``state``, ``events`` and ``health`` directly
(retained messages are not delivered on shared subscriptions). Each result is stored once by its id, then
acknowledged on ``{root}/results/ack`` (copies are acknowledged again: the table may have missed the first
ack). The desk's own retained ``guandan/v1/{event}/desk/status`` is ``online: true`` while it runs, and its
last will turns it to ``online: false``; tables resend unacknowledged results when it turns online again.
The session is persistent, so results published while the desk is down wait at the broker; what it stored
is in SQLite, so a restart loses nothing. Standings are published retained on ``.../desk/standings`` with their
version whenever the store's revision changes (a result, a pairing or a referee's correction, even one made
from the command line while the desk runs).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from ..display.hub import Hub
from . import event as ev
from .ledger import ResultError, read_result
from .mqtt_link import MqttLink, dumps
from .store import Store, now

log = logging.getLogger(__name__)
VERSION = "0.1.0"
TABLE_KINDS = ("results", "alerts", "status", "state", "events", "health")


class Desk:
    """See the module docstring. ``start()`` connects and returns; ``stop()`` says goodbye."""

    def __init__(self, store: Store, broker: str, event: str, *, prefix: str = "guandan/v1",
                 shared: bool = True, client_id: str | None = None, ca_file: str | None = None) -> None:
        known = store.event()
        if known is not None and known != event:
            raise ValueError(f"the database {store.path} belongs to event {known!r}, not {event!r}")
        if known is None:
            store.set_meta("event", event)
        self.store = store
        self.event = event
        self.base = f"{prefix.rstrip('/')}/{event}"
        self.hub = Hub(event)
        self.status_topic = f"{self.base}/desk/status"
        self.standings_topic = f"{self.base}/desk/standings"
        # replies to commands come back on the hall's replies tree (deploy/mosquitto/guandan.acl lets tables
        # write there and the desk read its own part)
        self.reply_topic = f"{prefix.rstrip('/')}/replies/desk/{event}"
        self.since = now()
        share = f"$share/guandan-desk-{event}/" if shared else ""
        subs = [(f"{share}{self.base}/+/results", 1), (f"{share}{self.base}/+/alerts", 1),
                (f"{self.base}/+/status", 1), (f"{self.base}/+/state", 1), (f"{self.base}/+/events", 1),
                (f"{self.base}/+/health", 0), (self.reply_topic, 1)]
        self.link = MqttLink(broker, client_id or f"guandan-desk-{event}", subs, self.on_message,
                             will=(self.status_topic, dumps(self._status(False))), on_connect=self._online,
                             ca_file=ca_file)
        self._published_revision = -1
        self._sent: set[tuple[int, str]] = set()
        self._send_lock = threading.Lock()  # the MQTT thread and the ticker both send pairings
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._watch, name="desk-standings", daemon=True)

    # -- life -----------------------------------------------------------------------------------------------
    def start(self) -> None:
        self.link.start()
        self._ticker.start()

    def stop(self) -> None:
        self._stop.set()
        self.link.stop(final=(self.status_topic, dumps(self._status(False))))

    def _status(self, online: bool) -> dict[str, Any]:
        if not online:
            return {"schema": 1, "event": self.event, "type": "desk_status", "online": False}
        return {"schema": 1, "event": self.event, "type": "desk_status", "online": True, "since": self.since,
                "version": VERSION, "ts": now()}

    def _online(self) -> None:
        self.link.publish(self.status_topic, self._status(True), retain=True)
        self._published_revision = -1  # republish standings (and resend unconfirmed pairings) after a reconnect
        with self._send_lock:
            self._sent.clear()

    # -- input ----------------------------------------------------------------------------------------------
    def on_message(self, topic: str, payload: bytes) -> None:
        if topic == self.reply_topic:
            self._on_reply(payload)
            return
        parts = topic[len(self.base) + 1:].split("/") if topic.startswith(self.base + "/") else []
        if len(parts) != 2 or parts[0] == "desk" or parts[1] not in TABLE_KINDS:
            return
        table, kind = parts
        self.hub.feed(table, kind, payload)
        if kind in ("results", "alerts", "status"):
            try:
                msg = json.loads(payload.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                self.store.reject(topic, f"not JSON: {exc}", payload)
                return
            if not isinstance(msg, dict):
                self.store.reject(topic, "not a JSON object", payload)
            elif kind == "results":
                self._on_result(topic, table, msg, payload)
            elif kind == "alerts":
                self.store.add_alert(table, msg)
            else:
                self.store.set_status(table, msg)
                if msg.get("online"):  # a table (re)connected: send it its match if it has not confirmed it
                    with self._send_lock:
                        self._sent = {key for key in self._sent if key[1] != table}
                    self.send_pairings()

    def _on_result(self, topic: str, table: str, msg: dict[str, Any], raw: bytes) -> None:
        try:
            rid, kind, match, deal = read_result(msg, table)
        except ResultError as exc:
            self.store.reject(topic, str(exc), raw)
            log.warning("result refused from %s: %s", table, exc)
            return
        if msg.get("event") not in (None, self.event):
            self.store.reject(topic, f"result of another event {msg.get('event')!r}", raw)
            return
        self.store.add_result(rid, table, kind, match, deal, msg)
        self.link.publish(f"{self.base}/{table}/results/ack", {"id": rid})

    def _on_reply(self, payload: bytes) -> None:
        """A table's reply to ``start_match``: ok marks the pairing sent; a refusal is kept for the referees."""
        try:
            msg = json.loads(payload.decode("utf-8"))
            _, table, match, _ = str(msg.get("id", "")).rsplit("/", 3)
            round_no = int(match.lstrip("m"))
        except (UnicodeDecodeError, json.JSONDecodeError, ValueError, AttributeError):
            self.store.reject(self.reply_topic, "unreadable command reply", payload)
            return
        if msg.get("ok"):
            self.store.mark_sent(round_no, table, msg)
        else:
            self.store.reject(self.reply_topic, f"start_match refused by {table}: {msg.get('error')}", payload)

    # -- output ---------------------------------------------------------------------------------------------
    def send_pairings(self) -> int:
        """Send the latest round's matches that no table has confirmed yet (``start_match``), once per run.

        A table confirms on the desk's reply topic, which marks the pairing sent in the store.
        """
        round_no = self.store.last_round()
        count = 0
        with self._send_lock:
            for row in self.store.pairings(round_no):
                key = (row["round"], row["tbl"])
                if row["ew"] is None or row["sent_at"] or key in self._sent:
                    continue
                cmd = ev.start_match_command(self.store, row)
                cmd["reply_to"] = self.reply_topic
                self.link.publish(f"{self.base}/{row['tbl']}/cmd/start_match", cmd)
                self._sent.add(key)
                count += 1
        return count

    def publish_standings(self) -> dict[str, Any]:
        report = ev.standings_report(self.store)
        self.link.publish(self.standings_topic, report, retain=True)
        self.hub.set_standings(report)
        self._published_revision = report["version"]
        return report

    def _watch(self) -> None:
        while not self._stop.wait(0.5):
            try:
                if self.link.connected.is_set() and self.store.revision != self._published_revision:
                    self.publish_standings()
                    self.send_pairings()
            except Exception:  # keep watching: a bad row must not end the desk
                log.exception("publishing standings failed")
