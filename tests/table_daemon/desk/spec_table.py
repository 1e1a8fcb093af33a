"""A table as the desk sees it, publishing exactly per mqtt-api.md, for the desk's and displays' tests.

Not a mock of our table daemon: it is the interface's other side written from the spec alone (anyone's table
could be on the other end of the desk). It keeps results until the desk's ack arrives, resends unacknowledged
ones when the desk's retained status turns online (mqtt-api.md, Delivery), answers ``start_match`` on
``reply_to``, and numbers every message on state/events/results/alerts with one ``seq`` per ``epoch``.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


class SpecTable:
    def __init__(self, url: str, event: str, table: str) -> None:
        self.event, self.table = event, table
        self.root = f"guandan/v1/{event}/{table}"
        self.epoch = uuid.uuid4().hex[:8]
        self.seq = 0
        self.unacked: dict[str, dict[str, Any]] = {}
        self.acked: list[str] = []
        self.commands: list[dict[str, Any]] = []
        #: a table that is busy refuses commands with this reason (None: accepts them)
        self.refuse: str | None = None
        self.lock = threading.Lock()
        host, _, port = url.removeprefix("mqtt://").partition(":")
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"table-{event}-{table}",
                                  clean_session=False)
        self.client.will_set(f"{self.root}/status", json.dumps({"online": False}), qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.connected = threading.Event()
        self.client.connect(host, int(port), keepalive=10)
        self.client.loop_start()
        if not self.connected.wait(10):
            raise AssertionError("table could not connect")

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        client.subscribe([(f"{self.root}/cmd/#", 1), (f"{self.root}/results/ack", 1),
                          (f"guandan/v1/{self.event}/desk/status", 1)])
        client.publish(f"{self.root}/status", json.dumps(
            {"online": True, "since": _ts(), "version": "spec", "profile": "national", "devices": {}}),
            qos=1, retain=True)
        self.connected.set()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        data = json.loads(msg.payload)
        if msg.topic.endswith("/results/ack"):
            with self.lock:
                if self.unacked.pop(data["id"], None) is not None:
                    self.acked.append(data["id"])
        elif msg.topic.endswith("/desk/status"):
            if data.get("online"):  # not in paho's thread: resend() waits for PUBACKs
                threading.Thread(target=self.resend, daemon=True).start()
        elif "/cmd/" in msg.topic:
            self.commands.append({"name": msg.topic.rsplit("/", 1)[1], **data})
            if data.get("reply_to"):
                refuse = self.refuse
                client.publish(data["reply_to"], json.dumps({"id": data.get("id"), "ok": refuse is None,
                                                             "error": refuse}), qos=1)

    def message(self, mtype: str, **fields: Any) -> dict[str, Any]:
        with self.lock:
            self.seq += 1
            seq = self.seq
        return {"schema": 1, "table": self.table, "event": self.event, "epoch": self.epoch, "seq": seq,
                "ts": _ts(), "type": mtype, **fields}

    def publish(self, kind: str, payload: dict[str, Any] | bytes, *, retain: bool = False) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload)
        self.client.publish(f"{self.root}/{kind}", data, qos=1, retain=retain).wait_for_publish(5)

    def state(self, **fields: Any) -> dict[str, Any]:
        msg = self.message("state", **fields)
        self.publish("state", msg, retain=True)
        return msg

    def event_msg(self, mtype: str, **fields: Any) -> dict[str, Any]:
        msg = self.message(mtype, **fields)
        self.publish("events", msg)
        return msg

    def result(self, payload: dict[str, Any], *, sealed: bool = False) -> dict[str, Any]:
        """A result on ``results``; ``sealed`` (a duplicate board, rules §12): only a stand-in with the id there,
        the full result on ``results/sealed`` (the desk's), kept until acknowledged."""
        msg = self.message(payload.get("type", "deal_result"), **payload)
        if sealed:
            twin: dict[str, Any] = {k: msg[k] for k in ("schema", "table", "event", "epoch", "seq", "ts", "type", "id", "match",
                                        "deal", "board") if k in msg}
            full = {**{k: v for k, v in msg.items() if k != "seq"}, "sealed_copy": True}
            with self.lock:
                self.unacked[msg["id"]] = full
            self.publish("results", {**twin, "sealed": True})
            self.publish("results/sealed", full)
            return full
        with self.lock:
            self.unacked[msg["id"]] = msg
        self.publish("results", msg)
        return msg

    def deal_record(self, match: int, deal: int, finish: list[str], up: int, *, sealed: bool = False,
                    **extra: Any) -> dict[str, Any]:
        winner = "NS" if finish[0] in ("N", "S") else "EW"
        return self.result(sealed=sealed, payload={
            "type": "deal_result", "format": "guandan-deal/1", "id": f"{self.event}/{self.table}/m{match}/d{deal}",
            "match": match, "deal": deal, "profile": "national", "level": "2",
            "hands": {"S": ["HR"], "E": [], "N": [], "W": []}, "actions": extra.pop("actions", []),
            "result": {"finish": finish, "winner": winner, "up": up,
                       **({"levels_after": extra.pop("levels_after")} if "levels_after" in extra else {})},
            **extra})

    def match_result(self, match: int, levels: dict[str, str], winner: str | None, *, sealed: bool = False,
                     **extra: Any) -> dict[str, Any]:
        return self.result({"type": "match_result", "id": f"{self.event}/{self.table}/m{match}",
                            "match": match, "levels": levels, "winner": winner, **extra}, sealed=sealed)

    def resend(self) -> None:
        with self.lock:
            pending = list(self.unacked.values())
        for msg in pending:
            self.publish("results/sealed" if msg.get("sealed_copy") else "results", msg)

    def wait_acked(self, ids: list[str], timeout: float = 10.0) -> None:
        """Wait until every id is acknowledged and no copy of one sent since is still waiting for its ack
        (a copy of an acknowledged result is acknowledged again once the desk has counted it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if set(ids) <= set(self.acked) and not set(ids) & set(self.unacked):
                    return
            time.sleep(0.02)
        with self.lock:
            waiting = (set(ids) - set(self.acked)) | (set(ids) & set(self.unacked))
        raise AssertionError(f"{self.table}: no ack for {waiting}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _ts() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
