"""The commentators' view (解说视图): every seat's hand and the table's state, as they were ``delay`` seconds ago.

Broadcast commentary wants the hidden hands, but a live feed of them would let anyone watching the broadcast
tell a player what the others hold. So the hands (from the referee-only ``private/hands`` topic), the public
``state`` and the deal's public events (the play so far) are kept with the time they arrived, and a commentator
sees only what was true at least ``delay`` seconds ago, all taken at the same instant so hands, trick and play
agree. Pure: the time is passed in. The web
server serves it only behind the referee password (:mod:`.server`), never on the public routes or streams.

A duplicate board stays sealed here too (rules §12): a commentator's view is broadcast, and another table may not
have played the board yet. While the view's state is of a sealed match (``"sealed": true``) it shows no hand (and
no card of a play, though a sealed match's public events carry none) unless the board it shows (the state's
``match`` and ``board``: round and board) has been released by the desk, as ``released(round, board)`` says
(:meth:`.hub.Hub.board_released`); without it, never. The view then says ``sealed``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from .hub import NEW_DEAL, UNTOLD, json_object
from .summaries import scrub

KINDS = ("hands", "state")
#: How many deals of events are kept per table (a delay longer than a few whole deals is not useful).
KEEP_DEALS = 6
#: What a sealed board's view leaves out of its events (were a table to send them): cards and what tells them.
SEALED_FIELDS = frozenset({"cards", "card", "reading", "readings", "candidates", "undone", "hands", "hand"})


class Commentary:
    """``feed(table, kind, payload, now)`` with ``kind`` ``hands`` or ``state``; ``view(table, now)``.
    ``released(round, board)``: whether the desk released that duplicate board (a sealed match's hands are shown
    only then; None: never)."""

    def __init__(self, delay: float = 60.0, keep: float = 600.0, *,
                 released: Callable[[int, int], bool] | None = None) -> None:
        if delay < 0:
            raise ValueError("delay must be 0 or more seconds")
        self.delay = delay
        self.released = released
        self.keep = max(keep, delay + 60.0)
        self._log: dict[str, dict[str, deque[tuple[float, Any]]]] = {}
        self._events: dict[str, deque[tuple[float, dict[str, Any]]]] = {}
        self._lock = threading.Lock()

    def feed(self, table: str, kind: str, payload: bytes | dict[str, Any], now: float) -> bool:
        """Keep one message; False when it is not a hands, state or (told) events message, or not JSON."""
        if kind not in KINDS and kind != "events":
            return False
        msg = json_object(payload)
        if msg is None:
            return False
        if kind == "events":
            return self._feed_event(table, msg, now)
        data = {"deal": msg.get("deal"), "hands": msg.get("hands") or {}} if kind == "hands" else msg
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
            told = [ev for t, ev in self._events.get(table, ()) if t <= as_of]
        if picked["hands"] is None and picked["state"] is None:
            return None
        starts = [i for i, ev in enumerate(told) if ev.get("type") in NEW_DEAL]
        state = picked["state"] or {}
        held = picked["hands"] or {}
        # hands of another deal than the state's are not shown under it (the last deal's leftovers while the next
        # is being dealt); an older table that names no deal is taken as it is
        same_deal = held.get("deal") is None or held.get("deal") == state.get("deal")
        events = told[starts[-1]:] if starts else told
        sealed = bool(state.get("sealed")) and not self._released(state)
        if sealed:  # a duplicate board not yet released: no hand, no card (rules §12)
            events = [scrub(ev, SEALED_FIELDS) for ev in events]
        return {"table": table, "delay": self.delay, "as_of": round(as_of, 3),
                "hands": held.get("hands", {}) if same_deal and not sealed else {}, "state": state,
                "events": events, "sealed": sealed}

    def _released(self, state: dict[str, Any]) -> bool:
        """Whether the board a sealed state shows (its match is the board's round) was released by the desk."""
        rnd, board = state.get("match"), state.get("board")
        if self.released is None or not isinstance(rnd, int) or not isinstance(board, int) or \
                isinstance(rnd, bool) or isinstance(board, bool):
            return False
        try:
            return bool(self.released(rnd, board))
        except Exception:  # whoever answers cannot say: the board stays sealed
            return False

    def _feed_event(self, table: str, msg: dict[str, Any], now: float) -> bool:
        """Keep a public event of the play (what the view's "play so far" is drawn from), the last
        ``KEEP_DEALS`` deals of them."""
        if msg.get("type") in UNTOLD:
            return False
        with self._lock:
            entries = self._events.setdefault(table, deque(maxlen=5000))
            entries.append((now, msg))
            if msg.get("type") in NEW_DEAL:
                starts = [i for i, (_, ev) in enumerate(entries) if ev.get("type") in NEW_DEAL]
                for _ in range(starts[-KEEP_DEALS] if len(starts) > KEEP_DEALS else 0):
                    entries.popleft()
        return True

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
