"""The commentators' view (解说视图): every seat's hand and the table's state, as they were ``delay`` seconds ago.

Broadcast commentary wants the hidden hands, but a live feed of them would let anyone watching the broadcast
tell a player what the others hold. So the hands (from the referee-only ``private/hands`` topic) and the public
``state`` are kept with the time they arrived, and a commentator sees only what was true at least ``delay``
seconds ago, both taken at the same instant so hands and trick agree. Pure: the time is passed in. The web
server serves it only behind the referee password (:mod:`.server`), never on the public routes or streams.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from typing import Any

KINDS = ("hands", "state")


class Commentary:
    """``feed(table, kind, payload, now)`` with ``kind`` ``hands`` or ``state``; ``view(table, now)``."""

    def __init__(self, delay: float = 60.0, keep: float = 600.0) -> None:
        if delay < 0:
            raise ValueError("delay must be 0 or more seconds")
        self.delay = delay
        self.keep = max(keep, delay + 60.0)
        self._log: dict[str, dict[str, deque[tuple[float, Any]]]] = {}
        self._lock = threading.Lock()

    def feed(self, table: str, kind: str, payload: bytes | dict[str, Any], now: float) -> bool:
        """Keep one message; False when it is not a hands or state message, or not JSON."""
        if kind not in KINDS:
            return False
        if isinstance(payload, bytes | bytearray):
            try:
                msg = json.loads(payload.decode("utf-8")) if payload else {}
            except (UnicodeDecodeError, json.JSONDecodeError):
                return False
        else:
            msg = payload
        if not isinstance(msg, dict):
            return False
        data = msg.get("hands", {}) if kind == "hands" else msg
        with self._lock:
            entries = self._log.setdefault(table, {k: deque() for k in KINDS})[kind]
            entries.append((now, data))
            # keep what a view may still need: everything newer than the horizon, and the last entry before it
            horizon = now - self.keep
            while len(entries) > 1 and entries[1][0] <= horizon:
                entries.popleft()
        return True

    def view(self, table: str, now: float) -> dict[str, Any] | None:
        """The table as it was ``delay`` seconds before ``now``; None when nothing that old is known yet."""
        as_of = now - self.delay
        with self._lock:
            log = self._log.get(table)
            if log is None:
                return None
            picked = {kind: _latest_before(log[kind], as_of) for kind in KINDS}
        if picked["hands"] is None and picked["state"] is None:
            return None
        return {"table": table, "delay": self.delay, "as_of": round(as_of, 3),
                "hands": picked["hands"] or {}, "state": picked["state"] or {}}

    def tables(self) -> list[str]:
        with self._lock:
            return sorted(self._log)


def _latest_before(entries: deque[tuple[float, Any]], as_of: float) -> Any:
    best = None
    for t, data in entries:
        if t > as_of:
            break
        best = data
    return best
