"""The live picture of every table for the audience, fed from public MQTT topics and fanned out to screens.

One MQTT subscription feeds any number of screens: the hub keeps each table's latest public ``state`` (the
retained one arrives first, so a screen that opens mid-deal sees the deal at once), its ``status``, the public
events of the deal being played (the trick history a screen draws), the match's deal-by-deal levels (the level
chart), the last deal's result and the desk's standings, and pushes each change to every listener's bounded
queue. A screen that
cannot keep up loses its queue (it reconnects and gets a fresh snapshot); it never slows the MQTT thread, and
so never a table.

Whether the server itself still reaches the broker (``link``: connected, and since when it is not) is part of
the picture: while it does not, nothing a screen shows is live any more, and the pages say so. The server's
MQTT link is followed with :meth:`Hub.follow_link` (or told with :meth:`Hub.set_link`).

The level chart holds only deals the hub was told of: a ``deal_over`` event, a deal record on ``results``, the
retained state's ``last_result``, or the deal records a desk kept (:meth:`Hub.recall`, after a restart). Each
point carries its match; a point of another match than the table's state is dropped. Deals nobody told it of
are left out (the page marks them as not known), never drawn as a line through them.

Hidden hands never pass through: ``private/*`` topics are ignored, and any field that could hold a hand
(``hands``, ``hand``, ``deal_line``) is stripped from what reaches a screen; a deal result is reduced to its
public summary.
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

#: What a listener gets: (kind, table, data, the Server-Sent Events frame of it, encoded once for every screen).
Change = tuple[str, str, Any, bytes]
SECRET_FIELDS = frozenset({"hands", "hand", "deal_line", "private"})
PUBLIC_KINDS = ("status", "state", "events", "results", "health")  # alerts are for referees only
#: Events that are not part of the story of a deal on screen (one per card dealt; the deal's commitment hash).
UNTOLD = frozenset({"card_dealt", "deal_commitment", "timer_warning", "report_due"})
#: Events that start a new story: the deal's event list begins again.
NEW_DEAL = frozenset({"deal_started", "match_started"})
#: The most points a table's level chart keeps.
CHART_POINTS = 200


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
        #: whether the server reaches the broker: None while nobody said (screens take the data as live)
        self._link: dict[str, Any] | None = None
        self._follow_stop: threading.Event | None = None

    # -- input ----------------------------------------------------------------------------------------------
    def feed(self, table: str, kind: str, payload: bytes | dict[str, Any]) -> bool:
        """Take one message of a table's public topic; returns False when it was ignored."""
        if kind not in PUBLIC_KINDS or table == "desk":
            return False
        msg = json_object(payload)
        if msg is None:
            return False
        with self._lock:
            tab = self._table(table)
            if kind == "state":
                old = tab.get("state")
                if old and _newer(old, msg) is False:
                    return False
                data: Any = scrub(msg)
                tab["state"] = data
                chart_of_state(tab, data)
            elif kind == "status":
                data = scrub(msg)
                tab["status"] = data
            elif kind == "results":
                data = result_summary(msg)
                tab["last_result"] = data
                add_point(tab, deal_point(data))
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

    def _table(self, table: str) -> dict[str, Any]:
        return self._tables.setdefault(table, {"table": table, "events": deque(maxlen=self._history),
                                               "chart": []})

    def recall(self, table: str, results: Iterable[dict[str, Any]]) -> int:
        """Put back into a table's level chart the deal records kept elsewhere (a desk's store after a
        restart: the hub itself keeps nothing on disk); returns how many deals were taken. Only the chart
        changes (what a screen shows as the last deal stays what the table says)."""
        return self.recall_points(table, (deal_point(result_summary(m)) for m in results if isinstance(m, dict)))

    def recall_points(self, table: str, points: Iterable[Any]) -> int:
        """Put chart points (``deal_point``'s, as the desk publishes them on ``desk/charts/{table}``) back into a
        table's level chart; returns how many were taken. Open screens get the table's whole chart (``chart``);
        a point of another match than the table's state is not taken."""
        taken = 0
        with self._lock:
            tab = self._table(table)
            for point in points:
                if isinstance(point, dict) and add_point(tab, point):
                    taken += 1
            state = tab.get("state")
            if state:
                chart_of_state(tab, state)
            chart = list(tab["chart"])
            listeners = [q for q, only in self._listeners.items() if only in (None, table)] if taken else []
        if listeners:
            self._push(listeners, ("chart", table, chart, sse_frame("chart", table, chart)))
        return taken

    def chart(self, table: str) -> dict[str, Any] | None:
        """A table's level chart as the desk publishes it (``desk/charts/{table}``): the match of its state and
        the points of that match; None for a table the hub has not heard of."""
        with self._lock:
            tab = self._tables.get(table)
            if tab is None:
                return None
            return {"schema": 1, "type": "chart", "event": self.event, "table": table,
                    "match": (tab.get("state") or {}).get("match"), "points": list(tab["chart"])}

    # -- the server's own link to the broker -----------------------------------------------------------------
    def set_link(self, state: dict[str, Any] | None) -> None:
        """Whether the server reaches the broker (an ``MqttConnection.link_state()``); a change goes to every
        screen as a ``link`` message. Only ``connected`` and ``away_since`` (time.time() of the loss) are
        kept: the broker's address and the reason are not for the audience."""
        link = None if state is None else {"connected": bool(state.get("connected")),
                                           "away_since": None if state.get("connected") else
                                           _seconds(state.get("away_since"))}
        with self._lock:
            if link == self._link:
                return
            self._link = link
        self.broadcast("link", link)

    def link(self) -> dict[str, Any] | None:
        with self._lock:
            return dict(self._link) if self._link is not None else None

    def follow_link(self, link_state: Callable[[], dict[str, Any]], every: float = 0.5) -> None:
        """Ask ``link_state()`` (the MQTT link's) every ``every`` seconds in a thread of its own, and tell the
        screens each change (:meth:`set_link`), until :meth:`stop_following`."""
        self.stop_following()
        stop = threading.Event()
        self._follow_stop = stop

        def watch() -> None:
            while True:
                try:
                    self.set_link(link_state())
                except Exception:  # a link that cannot say must not end the watch
                    pass
                if stop.wait(every):
                    return

        threading.Thread(target=watch, name="display-link", daemon=True).start()

    def stop_following(self) -> None:
        if self._follow_stop is not None:
            self._follow_stop.set()
            self._follow_stop = None

    # -- output ---------------------------------------------------------------------------------------------
    def snapshot(self, table: str | None = None, *, brief: bool = False) -> dict[str, Any]:
        """Every table's latest public picture (or one table's), ready for JSON. ``brief`` keeps only each
        table's last few events (what an overview of many tables shows). ``link``: whether the server
        reaches the broker (None when it was not told)."""
        with self._lock:
            tables = {name: _plain(tab, brief) for name, tab in self._tables.items() if table in (None, name)}
            standings = self._standings
            link = dict(self._link) if self._link is not None else None
        return {"event": self.event, "tables": tables, "standings": standings, "link": link}

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
        point["match"] = event.get("match", (tab.get("state") or {}).get("match"))
        add_point(tab, point)


def deal_point(result: dict[str, Any]) -> dict[str, Any] | None:
    """A level chart's point from a deal's result summary (``result_summary``), or None for anything else
    (a match result, a record without the levels after the deal)."""
    levels = result.get("levels_after")
    if result.get("type") == "match_result" or not isinstance(levels, dict):
        return None
    if not isinstance(result.get("deal"), int):
        return None
    return {"deal": result["deal"], "finish": result.get("finish"), "winner": result.get("winner"),
            "up": result.get("up"), "levels": levels, "match": result.get("match")}


def chart_point(raw: Any) -> dict[str, Any] | None:
    """A level chart's point as received from elsewhere (the desk's ``desk/charts/{table}``): only a deal
    number and both sides' levels make one, and only a point's own fields are kept; None for anything else."""
    if not isinstance(raw, dict) or not isinstance(raw.get("deal"), int) or isinstance(raw.get("deal"), bool):
        return None
    levels = raw.get("levels")
    if not isinstance(levels, dict) or not all(isinstance(levels.get(side), str) for side in ("NS", "EW")):
        return None
    point = {k: raw[k] for k in ("deal", "finish", "winner", "up", "match") if k in raw}
    point["levels"] = {"NS": levels["NS"], "EW": levels["EW"]}
    return point


def add_point(tab: dict[str, Any], point: dict[str, Any] | None) -> bool:
    """Add (or replace) one deal's point of the level chart, kept in deal order; a point of another match
    than the table's state is not taken. True when it was taken."""
    if point is None or not isinstance(point.get("deal"), int):
        return False
    match = (tab.get("state") or {}).get("match")
    if match is not None and point.get("match") is not None and point["match"] != match:
        return False
    point = {k: v for k, v in scrub(point).items() if not (k == "match" and v is None)}
    chart = [p for p in tab.get("chart", []) if p.get("deal") != point["deal"]] + [point]
    tab["chart"] = sorted(chart, key=lambda p: p["deal"])[-CHART_POINTS:]
    return True


def chart_of_state(tab: dict[str, Any], state: dict[str, Any]) -> None:
    """Keep a table's chart to the match of its state, and take the state's ``last_result`` as a point (the
    retained state is what a restarted desk hears first: the last deal is then known, if none before it)."""
    match = state.get("match")
    if match is not None:
        tab["chart"] = [p for p in tab.get("chart", []) if p.get("match") in (None, match)]
    last = state.get("last_result")
    if isinstance(last, dict) and not any(p.get("deal") == last.get("deal") for p in tab["chart"]):
        add_point(tab, deal_point({"match": match, **last}))


def _seconds(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def standings_summary(report: dict[str, Any]) -> dict[str, Any]:
    """What a hall screen shows of the desk's standings: version, time and, per team, rank, name, players,
    场分 and 级差分, and the round after which a team withdrew (no internal numbers such as lots or team ids)."""
    keys = ("rank", "name", "unit", "players", "match_points", "level_points", "played")
    rows = [{**{k: r.get(k) for k in keys}, **({"withdrawn": {"after_round": r["withdrawn"].get("after_round")}}
                                              if isinstance(r.get("withdrawn"), dict) else {})}
            for r in report.get("rows", []) if isinstance(r, dict)]  # a withdrawal's reason stays at the desk
    rounds = report.get("rounds")
    return {"version": report.get("version"), "computed_at": report.get("computed_at"), "rows": rows,
            # which round the standings stand after: the last paired one, still in play while results are due
            "round": rounds if isinstance(rounds, int) else None, "in_play": bool(report.get("pending"))}


def _plain(tab: dict[str, Any], brief: bool = False) -> dict[str, Any]:
    out = {k: (list(v) if isinstance(v, deque) else v) for k, v in tab.items() if k != "seen"}
    if brief:
        events = out.get("events", [])
        # the last few, and the deal's start when the hub saw it: a page reads from it that the server's story of
        # the deal is whole (only trimmed here), not cut by a restart
        start = events[:1] if len(events) > 40 and events[0].get("type") in NEW_DEAL else []
        out["events"] = start + events[-40:]
    return out
