"""The live picture of every table for the audience, fed from public MQTT topics and fanned out to screens.

One MQTT subscription feeds any number of screens: the hub keeps each table's latest public ``state`` (the
retained one arrives first, so a screen that opens mid-deal sees the deal at once), its ``status``, the public
events of the deal being played (the trick history a screen draws), the match's deal-by-deal levels (the level
chart), the last deal's result and the desk's standings, and pushes each change to every listener's bounded
queue. A screen that
cannot keep up loses its queue (it reconnects and gets a fresh snapshot); it never slows the MQTT thread, and
so never a table.

Hidden hands never pass through: ``private/*`` topics are ignored, and any field that could hold a hand
(``hands``, ``hand``, ``deal_line``) is stripped from what reaches a screen; a deal result is reduced to its
public summary.
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from typing import Any

#: What a listener gets: (kind, table, data, the Server-Sent Events frame of it, encoded once for every screen).
Change = tuple[str, str, Any, bytes]
SECRET_FIELDS = frozenset({"hands", "hand", "deal_line", "private"})
PUBLIC_KINDS = ("status", "state", "events", "results", "health")  # alerts are for referees only
#: Events that are not part of the story of a deal on screen (one per card dealt; the deal's commitment hash).
UNTOLD = frozenset({"card_dealt", "deal_commitment", "timer_warning", "report_due"})
#: Events that start a new story: the deal's event list begins again.
NEW_DEAL = frozenset({"deal_started", "match_started"})


def json_object(payload: bytes | dict[str, Any]) -> dict[str, Any] | None:
    """A message as a JSON object (an empty payload is an empty one: a cleared retained topic), or None when
    it is not JSON or not an object (pages ignore it rather than fail on it)."""
    if isinstance(payload, bytes | bytearray):
        try:
            msg = json.loads(payload.decode("utf-8")) if payload else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None
    else:
        msg = payload
    return msg if isinstance(msg, dict) else None


def scrub(value: Any) -> Any:
    """A copy of ``value`` without any field that could reveal a hidden hand."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in SECRET_FIELDS}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def result_summary(msg: dict[str, Any]) -> dict[str, Any]:
    """The public summary of a result message (deal or match) for screens."""
    raw = msg.get("result")
    result: dict[str, Any] = raw if isinstance(raw, dict) else {}
    keys = ("id", "match", "deal", "board", "levels", "winner", "type", "ts")
    out = {k: msg[k] for k in keys if k in msg}
    for k in ("finish", "winner", "up", "levels_after", "match_winner"):
        if k in result:
            out[k] = result[k]
    return scrub(out)


class Hub:
    """Latest public state per table, and listeners that get every change as ``(kind, table, data)``."""

    def __init__(self, event: str, *, history: int = 600, queue_size: int = 500) -> None:
        self.event = event
        self._tables: dict[str, dict[str, Any]] = {}
        self._standings: dict[str, Any] | None = None
        self._listeners: dict[queue.Queue[Change], str | None] = {}  # listener -> the one table it follows
        self._lock = threading.Lock()
        self._history = history
        self._queue_size = queue_size

    # -- input ----------------------------------------------------------------------------------------------
    def feed(self, table: str, kind: str, payload: bytes | dict[str, Any]) -> bool:
        """Take one message of a table's public topic; returns False when it was ignored."""
        if kind not in PUBLIC_KINDS or table == "desk":
            return False
        msg = json_object(payload)
        if msg is None:
            return False
        with self._lock:
            tab = self._tables.setdefault(table, {"table": table, "events": deque(maxlen=self._history),
                                                  "chart": []})
            if kind == "state":
                old = tab.get("state")
                if old and _newer(old, msg) is False:
                    return False
                data: Any = scrub(msg)
                tab["state"] = data
            elif kind == "status":
                data = scrub(msg)
                tab["status"] = data
            elif kind == "results":
                data = result_summary(msg)
                tab["last_result"] = data
            elif kind == "health":
                data = scrub(msg)
                tab["health"] = data
            else:
                data = scrub(msg)
                key = (msg.get("epoch"), msg.get("seq"))
                seen = tab.setdefault("seen", deque(maxlen=200))
                if key[1] is not None and key in seen:
                    return False
                seen.append(key)
                if data.get("type") in UNTOLD:
                    return False
                tell(tab, data)
            listeners = [q for q, only in self._listeners.items() if only in (None, table)]
        self._push(listeners, (kind, table, data, sse_frame(kind, table, data)))
        return True

    # -- output ---------------------------------------------------------------------------------------------
    def snapshot(self, table: str | None = None, *, brief: bool = False) -> dict[str, Any]:
        """Every table's latest public picture (or one table's), ready for JSON. ``brief`` keeps only each
        table's last few events (what an overview of many tables shows)."""
        with self._lock:
            tables = {name: _plain(tab, brief) for name, tab in self._tables.items() if table in (None, name)}
            standings = self._standings
        return {"event": self.event, "tables": tables, "standings": standings}

    def set_standings(self, report: dict[str, Any]) -> None:
        """Keep the desk's latest standings (its ``desk/standings`` report) and send them to every screen."""
        data = standings_summary(report)
        with self._lock:
            self._standings = data
        self.broadcast("standings", data)

    def tables(self) -> list[str]:
        with self._lock:
            return sorted(self._tables)

    def subscribe(self, table: str | None = None) -> queue.Queue[Change]:
        """A listener of every table's changes, or of one ``table``'s (and of what is broadcast to all)."""
        q: queue.Queue[Change] = queue.Queue(maxsize=self._queue_size)
        with self._lock:
            self._listeners[q] = table
        return q

    def unsubscribe(self, q: queue.Queue[Change]) -> None:
        with self._lock:
            self._listeners.pop(q, None)

    def listening(self, q: queue.Queue[Change]) -> bool:
        """False once a listener was dropped for falling behind (its screen should reconnect)."""
        with self._lock:
            return q in self._listeners

    def broadcast(self, kind: str, data: Any) -> None:
        """Send something that is not a table's message (e.g. new standings) to every listener."""
        with self._lock:
            listeners = list(self._listeners)
        self._push(listeners, (kind, "", data, sse_frame(kind, "", data)))

    def _push(self, listeners: list[queue.Queue[Change]], change: Change) -> None:
        for q in listeners:
            try:
                q.put_nowait(change)
            except queue.Full:
                self.unsubscribe(q)


def _newer(old: dict[str, Any], new: dict[str, Any]) -> bool | None:
    """False when ``new`` is an older state of the same run (same epoch, lower seq); None when unknown."""
    if old.get("epoch") is None or old.get("epoch") != new.get("epoch"):
        return None
    try:
        return int(new.get("seq", 0)) >= int(old.get("seq", 0))
    except (TypeError, ValueError):
        return None


def sse_frame(kind: str, table: str, data: Any) -> bytes:
    """One Server-Sent Events message: ``event: kind`` and ``{"table", "data"}`` as JSON."""
    body = json.dumps({"table": table, "data": data}, ensure_ascii=False)
    return f"event: {kind}\ndata: {body}\n\n".encode()


def tell(tab: dict[str, Any], event: dict[str, Any]) -> None:
    """Add one public event to a table's story: a new deal (or match) starts the event list again, a match
    starts the level chart again, and each finished deal adds a point to it. display.js folds events the same
    way, so a screen that joins late and one that watched from the start draw the same story."""
    kind = event.get("type")
    if kind in NEW_DEAL:
        tab["events"].clear()
    if kind == "match_started":
        tab["chart"] = []
    tab["events"].append(event)
    if kind == "deal_over":
        point = {k: event.get(k) for k in ("deal", "finish", "winner", "up", "levels")}
        tab["chart"] = [p for p in tab["chart"] if p.get("deal") != point["deal"]][-199:] + [point]


def standings_summary(report: dict[str, Any]) -> dict[str, Any]:
    """What a hall screen shows of the desk's standings: version, time and, per team, rank, name, players,
    场分 and 级差分 (no internal numbers such as lots or team ids)."""
    keys = ("rank", "name", "unit", "players", "match_points", "level_points", "played")
    rows = [{k: r.get(k) for k in keys} for r in report.get("rows", []) if isinstance(r, dict)]
    return {"version": report.get("version"), "computed_at": report.get("computed_at"), "rows": rows}


def _plain(tab: dict[str, Any], brief: bool = False) -> dict[str, Any]:
    out = {k: (list(v) if isinstance(v, deque) else v) for k, v in tab.items() if k != "seen"}
    if brief:
        out["events"] = out.get("events", [])[-40:]
    return out
