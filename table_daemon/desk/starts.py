"""Starting each round's matches at their tables (the desk's ``start_match`` commands), a mixin of
:class:`~table_daemon.desk.service.Desk`: the starts of the latest round sent until each table accepts, a refusal
(a table still playing) kept with its reason and tried again every few seconds, at once when the table shows it
is free; a start to a table never heard of said once (a mistyped table id); a referee's resend; no start for a
match of a team that withdrew. The tables' replies arrive on the topic only that table may write."""

from __future__ import annotations

import json
import threading
import time

from ..adapters.consumer_link import MqttLink
from ..display.hub import Hub
from . import event as ev
from . import ledger, rounds
from .store import Store

#: seconds before a start is sent again: after a refusal (the table is busy), and when no reply came at all
BUSY_RETRY_S = 2.0
SILENT_RETRY_S = 5.0
#: a table the desk has sent a start to this long without ever hearing of it is said once: a mistyped table id
UNHEARD_S = 30.0


class RoundStarts:
    """The starts half of the desk (the desk sets these attributes; the methods below use them)."""

    store: Store
    hub: Hub
    link: MqttLink
    event: str
    base: str
    reply_topic: str
    _send_lock: threading.Lock
    #: (round, table) -> monotonic time of the next try of a start not accepted yet
    _next_try: dict[tuple[int, str], float]
    #: (round, table) -> monotonic time its start first went out; tables said never heard of (said once)
    _first_sent: dict[tuple[int, str], float]
    _unheard_said: set[str]
    _refusal: dict[tuple[int, str], str]

    def _say(self, text: str) -> None:
        raise NotImplementedError  # the desk's

    def _on_reply(self, sender: str, payload: bytes) -> None:
        """A table's reply to ``start_match`` (on the topic only that table may write): ok marks the pairing
        accepted; a refusal is kept with its reason (shown on the desk page) and the start is tried again; a
        reply naming another table's match is refused."""
        topic = f"{self.reply_topic}/{sender}"
        try:
            msg = json.loads(payload.decode("utf-8"))
            parsed = rounds.parse_start_id(msg.get("id"))
        except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            parsed = None
        if parsed is None:
            self.store.reject(topic, "unreadable command reply", payload)
            return
        if parsed[0] != sender:
            self.store.reject(topic, f"reply from {sender} names table {parsed[0]}'s match", payload)
            return
        table, round_no = parsed
        key = (round_no, table)
        if msg.get("ok"):
            if self.store.mark_accepted(round_no, table, msg):
                self._say(f"{table} 第{round_no}轮 已接受开赛 accepted the start of round {round_no}")
            self._refusal.pop(key, None)
            return
        error = str(msg.get("error") or "refused")
        self.store.mark_refused(round_no, table, error)
        with self._send_lock:
            self._next_try[key] = time.monotonic() + BUSY_RETRY_S
        if self._refusal.get(key) != error:
            self._refusal[key] = error
            self._say(f"{table} 第{round_no}轮 未接受开赛 refused the start of round {round_no}: {error}; "
                      f"每 {BUSY_RETRY_S:g} 秒重试 retrying every {BUSY_RETRY_S:g} s")

    def _try_now(self, table: str) -> None:
        with self._send_lock:
            for key in list(self._next_try):
                if key[1] == table:
                    self._next_try[key] = 0.0
        self.send_pairings()

    def send_pairings(self) -> int:
        """Send the latest round's starts that no table has accepted yet and that are due (first send, or the
        retry after a refusal or a silence); returns how many went out. A match of a team that withdrew is not
        started: the team is not there, and the referees enter its walk-over."""
        if not self.link.connected.is_set():
            return 0
        round_no = self.store.last_round()
        count = 0
        at = time.monotonic()
        heard = set(self.store.statuses()) | set(self.hub.tables())
        gone = set(ledger.withdrawn(self.store.corrections()))  # 退赛: its match is the referees' walk-over
        with self._send_lock:
            for row in self.store.pairings(round_no):
                key = (row["round"], row["tbl"])
                if row["ew"] is None or row.get("accepted_at") or self._next_try.get(key, 0.0) > at:
                    continue
                if {row["ns"], row["ew"]} & gone:
                    continue
                first_sent = self._first_sent.setdefault(key, at)
                if row["tbl"] not in heard and at - first_sent >= UNHEARD_S and row["tbl"] not in self._unheard_said:
                    self._unheard_said.add(row["tbl"])
                    self._say(f"{row['tbl']} 从未连接：桌号是否有误？（已知牌桌 {', '.join(sorted(heard)) or '无'}）| table "
                              f"{row['tbl']} has never been heard of: is its id right? (desk init --tables; tables "
                              f"heard of: {', '.join(sorted(heard)) or 'none'})")
                cmd = ev.start_match_command(self.store, row)
                cmd["reply_to"] = f"{self.reply_topic}/{row['tbl']}"
                self.link.publish(f"{self.base}/{row['tbl']}/cmd/start_match", cmd)
                self._next_try[key] = at + SILENT_RETRY_S
                first = not row.get("sent_at")
                self.store.mark_sent(row["round"], row["tbl"])
                if first:
                    self._say(f"{row['tbl']} 第{row['round']}轮 已发送开赛 start of round {row['round']} sent")
                count += 1
        return count

    def resend_start(self, table: str, by: str = "") -> bool:
        """A referee's resend of the current round's start at ``table`` (accepted again without harm by a
        table already playing it); False when the round has no match there."""
        round_no = self.store.last_round()
        row = next((p for p in self.store.pairings(round_no) if p["tbl"] == table and p["ew"] is not None), None)
        if row is None:
            return False
        cmd = ev.start_match_command(self.store, row)
        cmd["reply_to"] = f"{self.reply_topic}/{table}"
        self.link.publish(f"{self.base}/{table}/cmd/start_match", cmd)
        self.store.mark_sent(row["round"], table)
        with self._send_lock:
            self._next_try[(row["round"], table)] = time.monotonic() + SILENT_RETRY_S
        self._say(f"{table} 第{round_no}轮 裁判 {by or '?'} 重发开赛 | start of round {round_no} sent again by referee "
                  f"{by or '?'}")
        return True
