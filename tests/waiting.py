"""Waiting in a test for something another thread or process does (a broker, a table, a desk), with a bound."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Until ``predicate()`` is true; after ``timeout`` seconds an AssertionError says ``what`` was awaited."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)
