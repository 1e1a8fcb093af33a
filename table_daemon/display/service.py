"""A display server on its own (no desk): one MQTT client on the event's public topics feeding the hub, and
the web server for screens. Any number of screens share this one subscription, so no table is slowed by them.

It subscribes only to public topics (``status``, ``state``, ``events``, ``results``, ``health``; the desk's
retained ``desk/standings``, ``desk/charts/+``, each table's level chart of its match, so a server started
mid-match draws the deals it did not see, and ``desk/boards/+/+``, each duplicate board the desk released,
rules §12), so a broker ACL that gives displays no ``private/#`` costs it nothing. A clean session: after a
drop it gets the retained ``state`` of every table again. While it does not reach the broker, the hub tells
every screen so (``link``): the pages then say that what they show is the state as of the moment the link was
lost.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from ..adapters.consumer_link import MqttLink
from .commentary import Commentary
from .hub import PUBLIC_KINDS, Hub
from .referees import Referees
from .server import WebServer, asset, json_response
from .summaries import chart_point


class DisplayService:
    """``commentary_delay`` and ``referee_password`` together add the commentators' delayed view of the hands
    (``/commentary/{table}``, behind the password); the broker user must then be allowed ``private/#`` (a
    referee account), the only case in which this service subscribes to it. Basic authentication sends the
    password readable by anyone on the network path: outside a closed desk network, serve it behind TLS (a
    reverse proxy such as nginx or Caddy in front of ``--http``)."""

    def __init__(self, broker: str, event: str, *, prefix: str = "guandan/v1", port: int = 0,
                 host: str = "127.0.0.1", client_id: str | None = None, ca_file: str | None = None,
                 commentary_delay: float | None = None, referee_password: str | None = None,
                 public_url: str | None = None, clock: Callable[[], float] = time.monotonic,
                 referees: Referees | None = None) -> None:
        if referees is None and referee_password:
            referees = Referees.with_password(referee_password)
        self.base = f"{prefix.rstrip('/')}/{event}"
        self.hub = Hub(event)
        self.clock = clock
        subs = [(f"{self.base}/+/{kind}", 0 if kind == "health" else 1) for kind in PUBLIC_KINDS]
        subs.append((f"{self.base}/desk/standings", 1))  # the desk's retained standings, for the hall screen
        subs.append((f"{self.base}/desk/charts/+", 1))  # each table's level chart of its match, as the desk has it
        subs.append((f"{self.base}/desk/boards/+/+", 1))  # each duplicate board the desk released (rules §12)
        self.commentary: Commentary | None = None
        protected: dict[str, Any] = {}
        if commentary_delay is not None:
            if referees is None:
                raise ValueError("the commentary view needs a referee password or referees' accounts")
            # a sealed board's hands only once the desk has released it (rules §12)
            self.commentary = Commentary(commentary_delay, released=self.hub.board_released)
            subs.append((f"{self.base}/+/private/hands", 1))
            protected = {"/commentary/": lambda rest, q: asset("commentary.html"),
                         "/api/commentary": lambda rest, q: self._commentary(q.get("table", ""))}
        self.link = MqttLink(broker, client_id or f"guandan-display-{event}-{id(self):x}", subs, self.on_message,
                             persistent=False, ca_file=ca_file, name="display",
                             waiting_for="牌桌状态（屏幕显示最后所知）table states (screens show the last known)")
        self.web = WebServer(self.hub, port, host, protected=protected, referees=referees, public_url=public_url)

    def on_message(self, topic: str, payload: bytes) -> None:
        if not topic.startswith(self.base + "/"):
            return
        parts = topic[len(self.base) + 1:].split("/")
        if parts == ["desk", "standings"]:
            with contextlib.suppress(UnicodeDecodeError, json.JSONDecodeError, AttributeError):
                report = json.loads(payload.decode("utf-8"))
                if isinstance(report, dict):
                    self.hub.set_standings(report)
            return
        if parts[:2] == ["desk", "charts"] and len(parts) == 3:
            with contextlib.suppress(UnicodeDecodeError, json.JSONDecodeError):
                chart = json.loads(payload.decode("utf-8"))
                if isinstance(chart, dict) and isinstance(chart.get("points"), list):
                    self.hub.recall_points(parts[2], [p for p in map(chart_point, chart["points"]) if p])
            return
        if parts[:2] == ["desk", "boards"] and len(parts) == 4:
            with contextlib.suppress(UnicodeDecodeError, json.JSONDecodeError):
                board = json.loads(payload.decode("utf-8")) if payload else None  # empty: a cleared retained one
                if isinstance(board, dict):
                    self.hub.release_board(board)
            return
        if parts[1:] == ["private", "hands"]:
            if self.commentary is not None:  # hands go to the delayed view only, never to the hub
                self.commentary.feed(parts[0], "hands", payload, self.clock())
            return
        if len(parts) == 2:
            self.hub.feed(parts[0], parts[1], payload)
            if self.commentary is not None and parts[1] in ("state", "events"):
                self.commentary.feed(parts[0], parts[1], payload, self.clock())

    def _commentary(self, table: str) -> tuple[int, str, bytes]:
        assert self.commentary is not None
        if not table:
            return json_response({"tables": self.commentary.tables(), "delay": self.commentary.delay})
        view = self.commentary.view(table, self.clock())
        # shown_at: the wall-clock moment the view shows (now less the delay), for the page to say it, and to
        # say when it stops moving; link: whether this server still hears the tables
        extra = {"shown_at": round(time.time() - self.commentary.delay, 3), "link": self.hub.link()}
        return json_response({**view, **extra} if view is not None else
                             {"table": table, "delay": self.commentary.delay, "waiting": True, **extra})

    def start(self) -> None:
        self.web.start()
        self.link.start()
        self.hub.follow_link(self.link.link_state)

    def stop(self) -> None:
        self.hub.stop_following()
        self.link.stop()
        self.web.stop()
