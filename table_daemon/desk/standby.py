"""A second scoring desk that stands by and takes over when the first one's status goes offline.

While the first desk is online the standby keeps its own copy of what the desk counts: it subscribes (under
its own persistent session) to every table's ``results``, ``alerts`` and ``status`` and feeds them through
the desk's own handling into its own store, but acknowledges nothing, sends no command and publishes nothing:
the first desk does that. It watches the first desk's retained ``{event}/desk/status``; when that turns
``online: false`` (the desk's clean stop, or its last will once the broker finds it gone) and stays so for
``grace`` seconds, the standby starts a full :class:`~table_daemon.desk.service.Desk` on its store under its
own client id. That desk's status turns online, so every table sends again each result not yet
acknowledged (mqtt-api.md, Delivery); the store keeps each result once by its id, so a result both desks saw
is counted once, and one published while neither desk was active arrives by the copy or by the resend.

Its store must hold the same event as the first desk's: set both up with the same ``desk init`` (same pairs,
same ``--lot-seed``) and run each ``desk pair`` and ``desk correct`` on both. A desk that was replaced comes
back as a standby (``desk --standby NAME``), never as a second active desk. No status at all (no desk ever
ran) is not a reason to take over: the standby waits.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from ..adapters.consumer_link import MqttLink
from .boards import SEALED_RESULTS
from .service import Desk
from .store import Store

log = logging.getLogger(__name__)


class _Silent:
    """The link of the copying desk while it stands by: it says nothing (the active desk acks and commands)."""

    connected = threading.Event()

    def publish(self, topic: str, payload: Any, *, qos: int = 1, retain: bool = False) -> None:
        return None


class Standby:
    """See the module docstring. ``start()`` connects and watches; ``active`` is set once it has taken over;
    ``desk`` is then the running desk. ``stop()`` ends either."""

    def __init__(self, store: Store, broker: str, event: str, *, instance: str, prefix: str = "guandan/v1",
                 ca_file: str | None = None, grace: float = 5.0,
                 on_takeover: Callable[[Desk], None] | None = None) -> None:
        self.store = store
        self.broker = broker
        self.event = event
        self.instance = instance
        self.prefix = prefix
        self.ca_file = ca_file
        self.grace = grace
        self.on_takeover = on_takeover
        # the desk's own handling of what tables send, kept silent until the takeover
        self.copy = Desk(store, broker, event, prefix=prefix, shared=False, client_id=f"unused-{instance}")
        self.copy.link = _Silent()  # type: ignore[assignment]
        base = f"{prefix.rstrip('/')}/{event}"
        self.status_topic = f"{base}/desk/status"
        subs = [(self.status_topic, 1), (f"{base}/+/results", 1), (f"{base}/+/{SEALED_RESULTS}", 1),
                (f"{base}/+/alerts", 1), (f"{base}/+/status", 1)]
        self.link = MqttLink(broker, f"guandan-desk-{event}-standby-{instance}", subs, self.on_message,
                             ca_file=ca_file)
        self.desk: Desk | None = None
        self.active = threading.Event()
        self.desk_online: bool | None = None  # None: no status seen yet
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def start(self) -> None:
        self.link.start()

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            desk = self.desk
        if desk is not None:
            desk.stop()
        else:
            self.link.stop()

    # -- input ----------------------------------------------------------------------------------------------
    def on_message(self, topic: str, payload: bytes) -> None:
        if self.active.is_set():
            return
        if topic != self.status_topic:
            self.copy.on_message(topic, payload)
            return
        try:
            msg = json.loads(payload.decode("utf-8")) if payload else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            msg = None
        online = bool(isinstance(msg, dict) and msg.get("online"))
        with self._lock:
            self.desk_online = online
            if online and self._timer is not None:  # the desk came back within the grace time
                self._timer.cancel()
                self._timer = None
            elif not online and self._timer is None:
                log.warning("desk of %s is offline: standby %s takes over in %.0f s unless it returns",
                            self.event, self.instance, self.grace)
                self._timer = threading.Timer(self.grace, self.take_over)
                self._timer.daemon = True
                self._timer.start()

    # -- take over ------------------------------------------------------------------------------------------
    def take_over(self) -> None:
        """Start the full desk on this store (its status turns online: tables resend what is unacknowledged),
        then drop the watching link."""
        with self._lock:
            self._timer = None
            if self.active.is_set() or self.desk_online:
                return
            self.active.set()
            desk = Desk(self.store, self.broker, self.event, prefix=self.prefix, shared=False,
                        client_id=f"guandan-desk-{self.event}-{self.instance}", ca_file=self.ca_file)
            desk.hub = self.copy.hub  # one live view (the web pages' hub) before and after the takeover
            self.desk = desk
        log.warning("standby %s is now the desk of %s", self.instance, self.event)
        desk.start()
        self.link.stop()
        if self.on_takeover is not None:
            self.on_takeover(desk)
