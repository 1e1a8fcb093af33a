"""A second copy of the table's journal on other storage (``[journal] mirror``, a USB stick), and the start that
takes it up when the journal itself is lost or damaged.

Why: the journal is what brings a table back into its match after a power cut, and it lives on the Pi's SD card.
A card that fails outright takes the journal with it; the table can then only start afresh, and the referee must
enter the match again by hand. A mirror written at each deal's end (and once a minute in play) on other storage
lets a new card start where the mirror stood: the finished deals, their results still unacknowledged, the levels
and the match. What was played after the mirror was written is lost, and the table says so loudly.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .journal import Journal, JournalError, sqlite_check

#: the mirror is written at each snapshot (a deal's end) and, in play, at most this often
MIRROR_EVERY_S = 60.0


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
