"""systemd integration without a dependency: sd_notify over the ``NOTIFY_SOCKET`` datagram socket.

The unit (deploy/guandan-table.service) is ``Type=notify`` with ``WatchdogSec``: the daemon says ``READY=1``
once it runs (a table plays and journals with or without its broker and devices), ``STATUS=`` with the broker
link, the devices and the health problems whenever that line changes, and ``WATCHDOG=1`` from its main loop, so
a hung loop (not just a dead process) is restarted by systemd. Outside systemd (no ``NOTIFY_SOCKET``) every call is a no-op.
"""

from __future__ import annotations

import os
import socket
import time


class SystemdNotifier:
    """Sends sd_notify messages; rate-limits watchdog pings to half of ``WATCHDOG_USEC``."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):  # abstract namespace socket
            address = "\0" + address[1:]
        self.address = address
        usec = env.get("WATCHDOG_USEC", "")
        self.watchdog_interval = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 else None
        self._last_ping = 0.0

    @property
    def enabled(self) -> bool:
        return bool(self.address)

    def notify(self, message: str) -> bool:
        """Send one message (``READY=1``, ``STATUS=...``, ``WATCHDOG=1``, ``STOPPING=1``)."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall(message.encode("utf-8"))
            return True
        except OSError:
            return False

    def ready(self, status: str = "") -> None:
        self.notify("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, status: str) -> None:
        self.notify(f"STATUS={status}")

    def ping(self, now: float | None = None) -> None:
        """A watchdog keep-alive, sent at most every half watchdog interval."""
        if self.watchdog_interval is None:
            return
        now = time.monotonic() if now is None else now
        if now - self._last_ping >= self.watchdog_interval:
            self._last_ping = now
            self.notify("WATCHDOG=1")

    def stopping(self) -> None:
        self.notify("STOPPING=1")
