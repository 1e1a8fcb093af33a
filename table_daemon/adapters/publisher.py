"""Sequenced, journaled publishing for one table run (mqtt-api.md "Every message" and "Delivery").

Every message on ``state``, ``events``, ``results`` and ``alerts`` gets the envelope (schema, table, event,
epoch, seq, ts) with ``seq`` counting without gaps within the run (``epoch``). The messages an input caused are
written to the journal's outbox together with that input, before anything is sent; the broker's PUBACK marks
them sent. Results also go to the journal's results table and stay there until the desk acknowledges them; they
are sent again, byte for byte (same epoch, seq and id), after a reconnect, a restart or when the desk comes
back online. ``private/hands`` and ``health`` are retained current values, not sequenced.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from typing import Any

from .journal import Journal, OutboxMessage
from .mqtt import MqttLink

SEQUENCED = ("state", "events", "results", "alerts")
#: controller refs kept for corrections (``replaces``): a correction names an event of the deal in play, and a
#: deal publishes a few hundred messages, so the newest few thousand are plenty and memory stays bounded
MAX_REFS = 2000
RETAINED = ("state", "private/hands", "health", "status")
#: a duplicate board's full results until the desk releases the board (rules §12): journaled like results, not
#: sequenced (``seq`` counts the public topics), never retained
SEALED_RESULTS = "results/sealed"


def iso_now(t: float | None = None) -> str:
    moment = datetime.fromtimestamp(time.time() if t is None else t, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def stamp(table: str, event: str, epoch: str, ts: float | None = None) -> dict[str, Any]:
    """The fields every message carries but ``seq`` (mqtt-api.md "Every message"): schema, table, event, the
    run's epoch and the time (now when ``ts`` is None)."""
    return {"schema": 1, "table": table, "event": event, "epoch": epoch, "ts": iso_now(ts)}


def dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


class Publisher:
    """Assigns seqs, builds envelopes and hands messages to the MQTT link (``link`` may be None offline)."""

    def __init__(self, journal: Journal, link: MqttLink | None, *, table: str, event: str, epoch: str,
                 root: str) -> None:
        self.journal = journal
        self.link = link
        self.table = table
        self.event = event
        self.epoch = epoch
        self.root = root
        self.seq = 0
        #: controller ref -> (epoch, seq) it went out under, earlier runs' included (from the journal)
        self.refs: dict[int, tuple[str, int]] = journal.refs(MAX_REFS)
        self.sent_count = 0
        self._lock = threading.Lock()
        if link is not None:
            link.on_sent = self._on_sent

    def envelope(self, topic: str, payload: dict[str, Any], ts: float) -> tuple[str, int]:
        """The message text for ``topic`` with the envelope; returns (text, seq or 0)."""
        seq = 0
        body = stamp(self.table, self.event, self.epoch, ts)
        if topic in SEQUENCED:
            self.seq += 1
            seq = self.seq
            body["seq"] = seq
        merged = {**body, **payload}
        merged["event"] = self.event  # a deal record's "event" is the same event id
        return dumps(merged), seq

    def prepare(self, topic: str, payload: dict[str, Any], ts: float, *, ref: int = 0,
                replaces_ref: int | None = None) -> OutboxMessage | tuple[str, str, bool, int]:
        """Envelope one message: a sequenced one becomes an outbox row; others (retained current values)
        come back as (topic, text, retain, qos) to send directly. A correction names the seq of the event it
        replaces, and its epoch (``replaces_epoch``) when that went out in an earlier run."""
        if replaces_ref is not None and replaces_ref in self.refs:
            epoch, replaced = self.refs[replaces_ref]
            payload = {**payload, "replaces": replaced}
            if epoch != self.epoch:
                payload["replaces_epoch"] = epoch
        text, seq = self.envelope(topic, payload, ts)
        if ref and seq:
            self.refs[ref] = (self.epoch, seq)
            if len(self.refs) > 2 * MAX_REFS:  # dicts keep insertion order: keep the newest MAX_REFS
                self.refs = dict(list(self.refs.items())[-MAX_REFS:])
        full = self.root + topic
        if seq:
            return OutboxMessage(self.epoch, seq, full, text, 1, topic in RETAINED)
        return full, text, topic in RETAINED, 0 if topic == "health" else 1

    def send(self, message: OutboxMessage) -> None:
        if self.link is not None:
            self.link.publish(message.topic, message.payload, qos=message.qos, retain=message.retain,
                              token=(message.epoch, message.seq))

    def send_plain(self, topic: str, text: str, retain: bool, qos: int) -> None:
        if self.link is not None:
            self.link.publish(topic, text, qos=qos, retain=retain)

    def _on_sent(self, token: Any) -> None:
        epoch, seq = token
        with self._lock:
            self.sent_count += 1
        self.journal.mark_sent(epoch, seq)

    def resend_unsent(self) -> int:
        """After a restart: messages of earlier runs the broker never acknowledged, as they were."""
        rows = [m for m in self.journal.unsent() if m.epoch != self.epoch]
        for m in rows:
            self.send(m)
        return len(rows)

    def resend_results(self) -> int:
        """Every result the desk has not acknowledged, exactly as first published; returns how many.

        A result the broker never acknowledged is still on its way with the outbox (paho sends it again, in
        order, after a reconnect; an earlier run's goes out at start-up): sending it now would put it ahead of
        the older messages still queued, so only results the broker already took are sent again here.
        """
        pending = self.journal.pending_results()
        for _, text in pending:
            if self.link is None:
                break
            try:
                head = json.loads(text)
            except ValueError:
                head = {}
            if isinstance(head, dict) and head.get("sealed_copy"):
                # a duplicate board's full result (rules §12): never queued with the outbox, so always sent again
                self.link.publish(self.root + SEALED_RESULTS, text, qos=1)
                continue
            try:
                taken = self.journal.is_sent(str(head["epoch"]), int(head["seq"]))
            except (KeyError, TypeError, ValueError):
                taken = True
            if taken:
                self.link.publish(self.root + "results", text, qos=1)
        return len(pending)
