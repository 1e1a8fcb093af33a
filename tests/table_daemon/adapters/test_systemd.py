"""sd_notify over a real unix datagram socket (what systemd's NOTIFY_SOCKET is)."""

from __future__ import annotations

import socket
from pathlib import Path

from table_daemon.adapters.systemd import SystemdNotifier


def test_ready_watchdog_and_stopping_reach_the_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(2)
        n = SystemdNotifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000"})
        n.ready("up")
        assert sock.recv(256) == b"READY=1\nSTATUS=up"
        n.ping(100.0)
        n.ping(100.5)  # within half the watchdog interval: not sent again
        n.ping(101.1)
        n.stopping()
        assert [sock.recv(64) for _ in range(3)] == [b"WATCHDOG=1", b"WATCHDOG=1", b"STOPPING=1"]
    assert not SystemdNotifier({}).enabled and SystemdNotifier({}).notify("READY=1") is False
