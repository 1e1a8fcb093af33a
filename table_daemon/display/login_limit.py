"""A limit on wrong referee passwords at the commentators' view (issue 14 item 10).

Each client address may get the password wrong ``allowed`` times; then it must wait, and the wait doubles with
every further miss (1 s, 2 s, 4 s ... up to ``max_wait`` seconds), so guessing the password from the hall
network takes years instead of minutes. A right password clears the address's count. Every miss of every
address also counts toward a hall-wide limit (a guesser with many addresses). The clock is passed in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Misses:
    count: int = 0
    until: float = 0.0


class LoginLimiter:
    """``wait(addr)``: seconds this address must still wait (0: it may try); ``failed`` / ``succeeded``
    after a check."""

    def __init__(self, clock: Callable[[], float], *, allowed: int = 5, max_wait: float = 300.0,
                 hall_per_minute: int = 60, max_addresses: int = 10000) -> None:
        self.clock = clock
        self.allowed = allowed
        self.max_wait = max_wait
        self.hall_per_minute = hall_per_minute
        self.max_addresses = max_addresses
        self._by_addr: dict[str, _Misses] = {}
        self._hall: list[float] = []
        self._lock = threading.Lock()

    def wait(self, addr: str) -> float:
        now = self.clock()
        with self._lock:
            self._hall = [t for t in self._hall if now - t < 60.0]
            hall = 60.0 - (now - self._hall[0]) if len(self._hall) >= self.hall_per_minute else 0.0
            misses = self._by_addr.get(addr)
            own = max(0.0, misses.until - now) if misses else 0.0
            return max(own, hall)

    def failed(self, addr: str) -> None:
        now = self.clock()
        with self._lock:
            self._hall.append(now)
            if addr not in self._by_addr and len(self._by_addr) >= self.max_addresses:
                self._by_addr.pop(next(iter(self._by_addr)))  # forget the oldest address, memory stays bounded
            misses = self._by_addr.setdefault(addr, _Misses())
            misses.count += 1
            if misses.count >= self.allowed:
                misses.until = now + min(self.max_wait, 2.0 ** (misses.count - self.allowed))

    def succeeded(self, addr: str) -> None:
        with self._lock:
            self._by_addr.pop(addr, None)
