"""Times as referees read them: the spec's UTC timestamps (``2026-11-29T10:00:00.123Z``) shown in the event's
time zone (default Asia/Shanghai; ``desk init --timezone``), without the Z.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

DEFAULT_TZ = "Asia/Shanghai"


class ClockError(ValueError):
    """A time zone name that is not known."""


def zone_name(name: str | None) -> str:
    """The name of the zone times are shown in: the event's, or the default when the event names none."""
    return name or DEFAULT_TZ


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(zone_name(name))
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ClockError(f"未知时区 unknown time zone {name!r} (e.g. Asia/Shanghai, Europe/Berlin)") from exc


def local(ts: str | None, tz: str | None = None, *, seconds: bool = True) -> str | None:
    """``2026-11-29T10:00:00.123Z`` as ``2026-11-29 18:00:00`` in ``tz``; None and unreadable text pass through."""
    if not ts:
        return None
    try:
        when = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(zone(tz)).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def local_at(t: float, tz: str | None = None) -> str:
    """A moment given as ``time.time()`` seconds, as ``2026-11-29 18:00:00`` in ``tz``."""
    return datetime.fromtimestamp(t, zone(tz)).strftime("%Y-%m-%d %H:%M:%S")


def local_now(tz: str | None = None) -> str:
    return datetime.now(zone(tz)).strftime("%H:%M:%S")
