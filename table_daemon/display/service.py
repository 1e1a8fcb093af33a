"""A display server on its own (no desk): one MQTT client on the event's public topics feeding the hub, and
the web server for screens. Any number of screens share this one subscription, so no table is slowed by them.

It subscribes only to public topics (``status``, ``state``, ``events``, ``results``, ``health``), so a broker
ACL that gives displays no ``private/#`` costs it nothing. A clean session: after a drop it gets the retained
``state`` of every table again.
"""

from __future__ import annotations

from ..desk.mqtt_link import MqttLink
from .hub import PUBLIC_KINDS, Hub
from .server import WebServer


class DisplayService:
    def __init__(self, broker: str, event: str, *, prefix: str = "guandan/v1", port: int = 0,
                 host: str = "127.0.0.1", client_id: str | None = None, ca_file: str | None = None) -> None:
        self.base = f"{prefix.rstrip('/')}/{event}"
        self.hub = Hub(event)
        subs = [(f"{self.base}/+/{kind}", 0 if kind == "health" else 1) for kind in PUBLIC_KINDS]
        self.link = MqttLink(broker, client_id or f"guandan-display-{event}-{id(self):x}", subs, self.on_message,
                             persistent=False, ca_file=ca_file)
        self.web = WebServer(self.hub, port, host)

    def on_message(self, topic: str, payload: bytes) -> None:
        if not topic.startswith(self.base + "/"):
            return
        parts = topic[len(self.base) + 1:].split("/")
        if len(parts) == 2:
            self.hub.feed(parts[0], parts[1], payload)

    def start(self) -> None:
        self.web.start()
        self.link.start()

    def stop(self) -> None:
        self.link.stop()
        self.web.stop()
