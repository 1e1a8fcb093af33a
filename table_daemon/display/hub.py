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

A match that plays duplicate boards is *sealed* (rules §12): its deal results and match result reach the public
topics only as sealed twins (``"sealed": true``, no finish, no levels), so they add no point to the chart. The
desk releases a board once every table of its round has played it (``desk/boards/{round}/{board}``,
:meth:`Hub.release_board`): each table's result of it then becomes a point of that table's chart, when the
board's round is the table's match, and every screen is sent the board (``board``; a new screen gets the
released boards in its snapshot). A sealed match's live play is public only as who laid how many cards (a play's
``count``, the state's trick as ``{seat, count}``, no cards left, no places): the pages draw backs. The hub keeps
no hand of a released board; the commentators' view asks it only whether a board was released
(:meth:`Hub.board_released`).

Hidden hands never pass through: ``private/*`` topics are ignored, and any field that could hold a hand
(``hands``, ``hand``, ``deal_line``) is stripped from what reaches a screen; a deal result is reduced to its
public summary.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from .summaries import (
    add_point,
    board_summary,
    chart_of_state,
    deal_point,
    released_point,
    result_summary,
    scrub,
    sealed_record,
    standings_summary,
)

log = logging.getLogger(__name__)

#: What a listener gets: (kind, table, data, the Server-Sent Events frame of it, encoded once for every screen).
Change = tuple[str, str, Any, bytes]
PUBLIC_KINDS = ("status", "state", "events", "results", "health")  # alerts are for referees only
#: Events that are not part of the story of a deal on screen (one per card dealt; the deal's commitment hash).
UNTOLD = frozenset({"card_dealt", "deal_commitment", "timer_warning", "report_due"})
#: Events that start a new story: the deal's event list begins again.
NEW_DEAL = frozenset({"deal_started", "match_started"})
#: The most released duplicate boards the hub keeps (the newest).
BOARDS_KEPT = 500


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


class Hub:
    """Latest public state per table, and listeners that get every change as ``(kind, table, data)``."""

    def __init__(self, event: str, *, history: int = 600, queue_size: int = 500) -> None:
        self.event = event
        self._tables: dict[str, dict[str, Any]] = {}
        self._standings: dict[str, Any] | None = None
        #: released duplicate boards by (round, board), oldest release first
        self._boards: dict[tuple[int, int], dict[str, Any]] = {}
        #: (table, round) -> deal -> that table's point of a released board, for its chart once its match is the round
        self._released: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}
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
                self._take_released(table, tab)
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
        changes (what a screen shows as the last deal stays what the table says). A duplicate board's record
        is never taken: its point comes with the board's release (:meth:`release_board`)."""
        return self.recall_points(table, (deal_point(result_summary(m)) for m in results
                                          if isinstance(m, dict) and not sealed_record(m)))

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

    def release_board(self, message: dict[str, Any]) -> None:
        """Take a duplicate board the desk released (its ``desk/boards/{round}/{board}``, rules §12): kept (the
        newest ``BOARDS_KEPT``), sent to every screen (``board``), and each table's result of it added to that
        table's chart while the table's match is the board's round. A malformed message is ignored (logged)."""
        board = board_summary(message)
        if board is None or message.get("event", self.event) != self.event:
            log.warning("ignored a released board that is not one of this event's: %.200r", message)
            return
        key = (board["round"], board["board"])
        with self._lock:
            self._forget_board(self._boards.pop(key, None))
            self._boards[key] = board
            while len(self._boards) > BOARDS_KEPT:
                self._forget_board(self._boards.pop(next(iter(self._boards))))
            for row in board["tables"]:
                point = released_point(board, row)
                if point is None:
                    continue
                self._released.setdefault((row["table"], board["round"]), {})[point["deal"]] = point
                tab = self._tables.get(row["table"])
                if tab is not None and (tab.get("state") or {}).get("match") == board["round"]:
                    add_point(tab, point)
            listeners = list(self._listeners)
        # the board to every screen (a page adds the points itself, as the hub did)
        self._push(listeners, ("board", "", board, sse_frame("board", "", board)))

    def _forget_board(self, board: dict[str, Any] | None) -> None:
        """Drop the chart points kept of a released board no longer kept (the lock held)."""
        if board is None:
            return
        for row in board["tables"]:
            key, deal = (row["table"], board["round"]), row.get("deal")
            points = self._released.get(key, {})
            if isinstance(deal, int) and points.get(deal, {}).get("board") == board["board"]:
                del points[deal]
                if not points:
                    del self._released[key]

    def _take_released(self, table: str, tab: dict[str, Any]) -> None:
        """Add to a table's chart the points of the released boards of its state's match it lacks (the lock held)."""
        match = (tab.get("state") or {}).get("match")
        points = self._released.get((table, match)) if isinstance(match, int) else None
        for deal, point in (points or {}).items():
            if not any(p.get("deal") == deal for p in tab["chart"]):
                add_point(tab, point)

    def board_released(self, round_no: int, board: int) -> bool:
        """Whether board ``board`` of round ``round_no`` was released (and is still kept): what the commentators'
        view asks before it shows a duplicate board's hands (:class:`.commentary.Commentary`'s ``released``)."""
        with self._lock:
            return (round_no, board) in self._boards

    def boards(self, table: str | None = None) -> list[dict[str, Any]]:
        """The released boards kept, oldest release first; of one ``table``: those it played, with its row only."""
        with self._lock:
            return self._boards_of(table)

    def _boards_of(self, table: str | None, rounds: set[Any] | None = None) -> list[dict[str, Any]]:
        out = []
        for board in self._boards.values():
            if rounds is not None and board["round"] not in rounds:
                continue
            if table is None:
                out.append(board)
                continue
            rows = [r for r in board["tables"] if r["table"] == table]
            if rows:
                out.append({**board, "tables": rows})
        return out

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
        reaches the broker (None when it was not told). ``boards``: the released duplicate boards (of one
        table: those it played, its own result only; ``brief``: those of the rounds the tables play now)."""
        with self._lock:
            tables = {name: _plain(tab, brief) for name, tab in self._tables.items() if table in (None, name)}
            standings = self._standings
            link = dict(self._link) if self._link is not None else None
            # the released boards: of one table, those it played; in brief, those of the matches in play
            rounds = {(t.get("state") or {}).get("match") for t in self._tables.values()} if brief else None
            boards = self._boards_of(table, None if table is not None else rounds)
        return {"event": self.event, "tables": tables, "standings": standings, "link": link, "boards": boards}

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
    if kind == "deal_over" and isinstance(event.get("levels"), dict):  # a sealed board's deal_over tells no levels
        point = {k: event.get(k) for k in ("deal", "finish", "winner", "up", "levels")}
        point["match"] = event.get("match", (tab.get("state") or {}).get("match"))
        add_point(tab, point)


def _seconds(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _plain(tab: dict[str, Any], brief: bool = False) -> dict[str, Any]:
    out = {k: (list(v) if isinstance(v, deque) else v) for k, v in tab.items() if k != "seen"}
    if brief:
        events = out.get("events", [])
        # the last few, and the deal's start when the hub saw it: a page reads from it that the server's story of
        # the deal is whole (only trimmed here), not cut by a restart
        start = events[:1] if len(events) > 40 and events[0].get("type") in NEW_DEAL else []
        out["events"] = start + events[-40:]
    return out
