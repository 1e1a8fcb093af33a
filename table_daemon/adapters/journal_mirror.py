"""A second copy of the table's journal on other storage (``[journal] mirror``, a USB stick), and the start that
takes it up when the journal itself is lost or damaged.

Why: the journal is what brings a table back into its match after a power cut, and it lives on the Pi's SD card.
A card that fails outright takes the journal with it; the table can then only start afresh, and the referee must
enter the match again by hand. A mirror written at each deal's end (and once a minute in play) on other storage
lets a new card start where the mirror stood: the finished deals, their results still unacknowledged, the levels
and the match. What was played after the mirror was written is lost, and the table says so loudly.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .journal import Journal, JournalError, sqlite_check

log = logging.getLogger(__name__)

#: the mirror is written at each snapshot (a deal's end) and, in play, at most this often
MIRROR_EVERY_S = 60.0
#: how long a clean stop waits for the last mirror write (a stalled stick must not hold the stop for ever)
MIRROR_STOP_S = 10.0
#: a mirror write running longer than this is a stalled stick: said as a failure while it lasts
MIRROR_STALLED_S = 60.0


class MirrorWriter:
    """Writes the mirror in a thread of its own, so that a slow or stalled USB stick (hundreds of milliseconds
    for a day's journal on a cheap one, seconds when it stalls) never pauses the table between two plays.

    ``request`` asks for the journal as it stands to be written; requests made while a write runs become one
    write after it (the newest state is the one worth having). Each finished write leaves its outcome (None, or
    what stopped it) for the table's own thread to take (``take_outcome``) and say in its health.
    """

    def __init__(self, write: Callable[[], None]) -> None:
        self._write = write
        self._due = False
        self._busy = False
        self._started = 0.0  # when the running write began (monotonic)
        self._closed = False
        self._outcome: tuple[Exception | None] | None = None
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def request(self) -> None:
        """A write of the journal as it stands now (joined to one already waiting)."""
        with self._changed:
            if self._closed:
                return
            self._due = True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="journal-mirror", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def take_outcome(self) -> tuple[Exception | None] | None:
        """The newest finished write's outcome not taken yet, as a 1-tuple (None inside: written); None when no
        write finished since the last call."""
        with self._changed:
            outcome, self._outcome = self._outcome, None
            return outcome

    def running_for(self) -> float | None:
        """How long the write now running has run (seconds), or None when none runs: a write stuck in the kernel
        on a failing stick never finishes, and would never report a failure."""
        with self._changed:
            return time.monotonic() - self._started if self._busy else None

    def flush(self, timeout: float) -> bool:
        """Wait until no write is due or running (a clean stop, a test); False when ``timeout`` ran out first."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._due or self._busy:
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None:
                    return False
                self._changed.wait(left)
        return True

    def close(self, timeout: float) -> bool:
        """Finish what was requested (up to ``timeout``), then take no more; False when a write was still
        running (the thread is a daemon: a stalled stick does not keep the process alive)."""
        done = self.flush(timeout)
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        return done

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._due and not self._closed:
                    self._changed.wait()
                if not self._due:
                    return
                self._due, self._busy, self._started = False, True, time.monotonic()
            failure: Exception | None = None
            try:
                self._write()
            except Exception as exc:  # noqa: BLE001 - whatever stops it is the table's to say, and tried again
                failure = exc
            with self._changed:
                self._busy = False
                self._outcome = (failure,)
                self._changed.notify_all()


@dataclass(frozen=True)
class TakenUp:
    """The journal was taken up from its mirror: ``why`` (missing, or damaged and kept at ``kept``), and the
    mirror's time (``mirrored_at``, seconds since the epoch): what the table did after it is lost."""

    why: str
    mirror: str
    mirrored_at: float
    kept: str | None = None

    def words(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.mirrored_at))
        kept = f"; the damaged file is kept at {self.kept}" if self.kept else ""
        return f"{self.why}: taken up from the mirror {self.mirror} of {when}{kept}"


def mirror_problem(path: str | Path) -> str | None:
    """Why the mirror at ``path`` cannot be taken up (missing, unreadable, damaged by SQLite's own check), or
    None when it can."""
    if not Path(path).is_file():
        return f"no mirror at {path}"
    found = sqlite_check(path, read_only=True)
    return None if found is None else f"the mirror {path} cannot be taken up: {found[1]}"


def open_journal(path: str, mirror: str = "") -> tuple[Journal, TakenUp | None]:
    """The table's journal at ``path``. With a ``mirror``: a journal that is missing, or damaged (SQLite's own
    check), is taken up from a sound mirror (the damaged file moved aside, never destroyed); the second value
    says so. Raises JournalError when neither can be used."""
    if not mirror or path == ":memory:":
        return Journal(path), None
    if not Path(path).exists() and mirror_problem(mirror) is None:
        _take_up(mirror, path)
        return Journal(path), TakenUp("the journal was missing (a new SD card?)", mirror, os.path.getmtime(mirror))
    try:
        return Journal(path), None
    except JournalError as exc:
        problem = mirror_problem(mirror)
        if problem is not None:
            raise JournalError(f"{exc}; and {problem}") from exc
        kept = f"{path}.damaged-{int(time.time())}"
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.replace(path + suffix, kept + suffix)
        _take_up(mirror, path)
        return Journal(path), TakenUp(f"the journal was damaged ({exc})", mirror, os.path.getmtime(mirror), kept)


def _take_up(mirror: str, path: str) -> None:
    """Copy the mirror to the journal's path by SQLite's backup (never a half-copied file at the path)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    part = f"{path}.from-mirror"
    Path(part).unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{mirror}?mode=ro", uri=True)
    dst = sqlite3.connect(part)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    os.replace(part, path)
