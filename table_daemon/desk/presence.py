"""Which tables are there, as the desk sees their retained ``status``: the console's online/offline lines (on a
change only), the alert for a table gone in the middle of its match, and the alert for two devices that connect
as the same table. Pure: statuses and the time come in, lines and alerts go out.

A table whose status turns offline is said at once, but raised as an alert only when it stays away
``OFFLINE_ALERT_S`` seconds with a match of the current round unfinished: a broker restarted for a moment drops
every table, and a referee needs to go to a table that is really gone, not to all of them.

Two devices configured with the same table id take the broker's connection from each other in turn (the same
client id): each one's status comes online under its own ``epoch`` (one run of a table daemon), so the epochs
alternate, A, B, A, within a minute. A restarted table goes from A to B and stays there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: how long a table may stay offline mid-match before the desk raises an alert
OFFLINE_ALERT_S = 20.0
#: an epoch coming back online within this many seconds of the one it replaced is a second device
CLASH_WINDOW_S = 60.0


@dataclass
class _Seen:
    online: bool | None = None
    offline_since: float | None = None
    alerted: bool = False
    #: (epoch, time) of the latest distinct epochs seen online, oldest first
    epochs: list[tuple[str, float]] = field(default_factory=list)
    clash: frozenset[str] = frozenset()
    #: when the two epochs of a clash last took turns: while they do, their online and offline lines are not said
    clash_at: float | None = None


@dataclass(frozen=True)
class DeskAlert:
    """An alert the desk raises itself (stored and shown with the tables' own)."""

    table: str
    code: str
    message: str
    evidence: Mapping[str, Any]


class Presence:
    """The tables' presence, fed with their status messages and asked, from time to time, what is due."""

    def __init__(self) -> None:
        self._tables: dict[str, _Seen] = {}

    def status(self, table: str, msg: Mapping[str, Any], now: float) -> tuple[list[str], list[DeskAlert]]:
        """Take one ``status`` message of ``table``: the console lines (a change of online/offline) and any
        alert it makes due at once (two devices as one table)."""
        seen = self._tables.setdefault(table, _Seen())
        online = msg.get("online")
        if not isinstance(online, bool):
            return [], []
        lines: list[str] = []
        alerts: list[DeskAlert] = []
        epoch = msg.get("epoch")
        if online and isinstance(epoch, str) and epoch and (not seen.epochs or seen.epochs[-1][0] != epoch):
            seen.epochs = [*seen.epochs[-2:], (epoch, now)]
            clash = self._clash(seen.epochs)
            if clash and clash != seen.clash:
                seen.clash = clash
                text = (f"桌号冲突：两台设备都以 {table} 连接，轮流挤下对方；请检查它们配置中的 table.id | two devices "
                        f"connect as table {table} and take the connection from each other in turn: check table.id "
                        "in their configs")
                lines.append(text)
                alerts.append(DeskAlert(table, "table_id_clash", text, {"epochs": sorted(clash)}))
            if epoch in seen.clash:
                seen.clash_at = now
        # two devices taking turns come and go every second or two: said once as the clash, not each time
        clashing = seen.clash_at is not None and now - seen.clash_at <= CLASH_WINDOW_S
        if online != seen.online:
            if online:
                back = seen.online is False
                if not clashing:
                    lines.append(f"{table} 恢复在线 back online" if back else f"{table} 在线 online")
                seen.offline_since, seen.alerted = None, False
            else:
                if not clashing:
                    lines.append(f"{table} 离线 offline")
                seen.offline_since = now
            seen.online = online
        return lines, alerts

    @staticmethod
    def _clash(epochs: list[tuple[str, float]]) -> frozenset[str]:
        """The two epochs taking turns (A, B, A within the window), or empty."""
        if len(epochs) < 3:
            return frozenset()
        (a, t0), (b, _), (c, t2) = epochs[-3:]
        return frozenset((a, b)) if a == c and a != b and t2 - t0 <= CLASH_WINDOW_S else frozenset()

    def due(self, now: float, unfinished: Iterable[str]) -> list[DeskAlert]:
        """Alerts now due for tables offline ``OFFLINE_ALERT_S`` or longer with an unfinished match of the
        current round (``unfinished``: those tables), one per absence."""
        out = []
        for table in unfinished:
            seen = self._tables.get(table)
            if seen is None or seen.online is not False or seen.alerted or seen.offline_since is None:
                continue
            if now - seen.offline_since >= OFFLINE_ALERT_S:
                seen.alerted = True
                away = round(now - seen.offline_since)
                out.append(DeskAlert(table, "table_offline",
                                     f"牌桌离线 {away} 秒，比赛未完：请到桌查看（电源、网线、程序）| table offline for {away} s "
                                     "in the middle of its match: go and see it (power, network, its program)",
                                     {"offline_for_s": away}))
        return out

    def waiting_offline(self) -> bool:
        """Whether some table is offline with its alert not raised yet (the ticker looks further only then)."""
        return any(s.online is False and not s.alerted and s.offline_since is not None
                   for s in self._tables.values())
