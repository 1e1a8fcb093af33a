"""The running scoring desk: one MQTT client, the store, the live hub and (optionally) the web server.

It subscribes to every table's ``results`` and ``alerts`` of the event through a shared subscription (so a
second desk instance could share the load) and to ``status``, ``state``, ``events`` and ``health`` directly
(retained messages are not delivered on shared subscriptions). Each result is stored once by its id, then
acknowledged on ``{root}/results/ack`` (copies are acknowledged again: the table may have missed the first
ack). The desk's own retained ``guandan/v1/{event}/desk/status`` is ``online: true`` while it runs, and its
last will turns it to ``online: false``; tables resend unacknowledged results when it turns online again.
The session is persistent, so results published while the desk is down wait at the broker; what it stored
is in SQLite, so a restart loses nothing. Standings are published retained on ``.../desk/standings`` with their
version whenever the store's revision changes (a result, a pairing or a referee's correction, even one made
from the command line while the desk runs). Each table's level chart of its match (the deals it has finished,
from the results and the deal records the desk keeps) is published retained on ``.../desk/charts/{table}``
after each of its results and after every reconnect, so a display server started later (``desk display``,
a hall's) draws the whole match, not only the deals it saw itself.

Each round's matches are started at their tables (``start_match``) and sent again until the table accepts:
a refusal (a table still playing) is kept with its reason and retried every few seconds, at once when the
table shows it is free or comes back online; a resend the table already accepted is accepted again without
restarting anything. A result counts only for the match its table accepted from the desk
(:mod:`~table_daemon.desk.rounds`); anything else is acknowledged (so the table's journal does not send it
forever), kept and listed as not counted with the reason. Sending the starts and taking the tables' replies is
:mod:`~table_daemon.desk.starts`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from ..adapters.consumer_link import MqttLink, dumps
from ..display.hub import Hub
from ..version import VERSION
from . import alerts as al
from . import boards as bd
from . import event as ev
from . import rounds
from .clock import local_now, zone_name
from .export import level_word
from .ledger import ResultError, read_result
from .presence import DeskAlert, Presence
from .starts import RoundStarts
from .store import Store, now

log = logging.getLogger(__name__)
TABLE_KINDS = ("results", "alerts", "status", "state", "events", "health")
#: how often the desk looks for tables gone mid-match (the alert itself waits presence.OFFLINE_ALERT_S)
ABSENT_CHECK_S = 5.0
FREE_PHASES = ("match_over",)


#: where a broker publishes its bridges' state ($SYS/broker/connection/{name}/state: "1" or "0", retained)
BRIDGES = "$SYS/broker/connection/"


class Desk(RoundStarts):
    """See the module docstring. ``start()`` connects and returns; ``stop()`` says goodbye."""

    def __init__(self, store: Store, broker: str, event: str, *, prefix: str = "guandan/v1",
                 shared: bool = True, client_id: str | None = None, ca_file: str | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        known = store.event()
        if known is not None and known != event:
            raise ValueError(f"the database {store.path} belongs to event {known!r}, not {event!r}")
        if known is None:
            store.set_meta("event", event)
        self.store = store
        self.event = event
        self.base = f"{prefix.rstrip('/')}/{event}"
        self.hub = Hub(event)
        self.status_topic = f"{self.base}/desk/status"
        self.standings_topic = f"{self.base}/desk/standings"
        # replies to commands come back on the hall's replies tree, one topic a table (reply_topic/{table}):
        # deploy/mosquitto/guandan.acl lets only that table write it and only the desk read it
        self.reply_topic = f"{prefix.rstrip('/')}/replies/desk/{event}"
        self.since = now()
        share = f"$share/guandan-desk-{event}/" if shared else ""
        subs = [(f"{share}{self.base}/+/results", 1), (f"{share}{self.base}/+/{bd.SEALED_RESULTS}", 1),
                (f"{share}{self.base}/+/alerts", 1),
                (f"{self.base}/+/status", 1), (f"{self.base}/+/state", 1), (f"{self.base}/+/events", 1),
                (f"{self.base}/+/health", 0), (f"{self.reply_topic}/+", 1),
                # at the centre of several halls: each hall's bridge link as the central broker says it (1/0)
                (f"{BRIDGES}+/state", 0)]
        self.link = MqttLink(broker, client_id or f"guandan-desk-{event}", subs, self.on_message,
                             will=(self.status_topic, dumps(self._status(False))), on_connect=self._online,
                             ca_file=ca_file, name="desk",
                             waiting_for="牌桌成绩与开赛回复（成绩在牌桌日志中等待）table results and replies to "
                                         "starts (results wait in the tables' journals)")
        #: progress lines for the console (the CLI prints them on stderr)
        self.say = say or (lambda text: None)
        self.timezone = store.settings().get("timezone")
        self._published_revision = -1
        #: (round, board) of the duplicate boards published as released since the last connect
        self._boards_published: set[tuple[int, int]] = set()
        #: tables whose level chart is to be published (desk/charts/{table}): fed on paho's thread, sent by the ticker
        self._charts_due: set[str] = set()
        self._charts_lock = threading.Lock()
        #: (round, table) -> monotonic time of the next try of a start not accepted yet
        self._next_try: dict[tuple[int, str], float] = {}
        #: (round, table) -> monotonic time its start first went out; tables said never heard of (said once)
        self._first_sent: dict[tuple[int, str], float] = {}
        self._unheard_said: set[str] = set()
        self._refusal: dict[tuple[int, str], str] = {}
        #: (round, table) of the matches a table was found to have lost (said once)
        self._lost_said: set[tuple[int, str]] = set()
        #: which tables are there (console lines on a change, alerts for a table gone mid-match or two as one);
        #: fed on paho's thread, asked on the ticker's
        self.presence = Presence()
        self._presence_lock = threading.Lock()
        self._absent_checked = 0.0
        self._send_lock = threading.Lock()  # the MQTT thread and the ticker both send pairings
        #: each hall's bridge link (by the bridge's connection name), fed on paho's thread, read by the page
        self._halls: dict[str, dict[str, Any]] = {}
        self._halls_lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._watch, name="desk-standings", daemon=True)

    # -- halls ----------------------------------------------------------------------------------------------
    def _on_bridge(self, connection: str, payload: bytes) -> None:
        """A hall's bridge link up (1) or down (0), as the central broker's notifications say it (the bridge's
        last will sets it to 0): said once on the console when it changes, and shown on the page, so a hall that
        drops off is said as a hall, not only as its tables going offline one by one."""
        up = payload.strip() == b"1"
        hall = connection.removeprefix("bridge-").removeprefix(f"{self.event}-")
        with self._halls_lock:
            was = self._halls.get(connection)
            if was is not None and was["connected"] == up:
                return
            self._halls[connection] = {"hall": hall, "connection": connection, "connected": up,
                                       "since": time.time()}
        if was is None and up:
            return  # a link first heard of as up: nothing to say
        self._say(f"分会场 {hall} 连接{'恢复' if up else '中断'} | hall {hall}'s link to the centre "
                  f"{'is back' if up else 'is down: its tables play on and their results wait in their journals'}")

    def halls(self) -> list[dict[str, Any]]:
        """Each hall's bridge link: hall, connection, connected, since (time.time())."""
        with self._halls_lock:
            return [dict(h) for _, h in sorted(self._halls.items())]

    # -- life -----------------------------------------------------------------------------------------------
    def start(self) -> None:
        # the level charts of the screens, back from the deal records the desk keeps (the hub keeps nothing on
        # disk: after a restart a chart would draw a line through the deals it did not see)
        self.recall_charts()
        self.hub.follow_link(self.link.link_state)  # the screens say when the desk has lost the broker
        self.link.start()
        self._ticker.start()

    def recall_charts(self) -> None:
        """Give the screens' level charts the deal records the desk keeps (the hub takes none of a duplicate
        board: its points come with the board's release, rules §12)."""
        for record in self.store.results("deal"):
            self.hub.recall(record["tbl"], [record["payload"]])

    def stop(self) -> None:
        self._stop.set()
        self.hub.stop_following()
        self.link.stop(final=(self.status_topic, dumps(self._status(False))))

    def _status(self, online: bool) -> dict[str, Any]:
        if not online:
            return {"schema": 1, "event": self.event, "type": "desk_status", "online": False}
        return {"schema": 1, "event": self.event, "type": "desk_status", "online": True, "since": self.since,
                "version": VERSION, "ts": now()}

    def _online(self) -> None:
        self.link.publish(self.status_topic, self._status(True), retain=True)
        self._published_revision = -1  # republish standings (and resend unconfirmed pairings) after a reconnect
        self._boards_published.clear()  # and the released boards: a broker that lost its retained ones has them again
        with self._charts_lock:
            self._charts_due.update(self.hub.tables())
        with self._send_lock:
            self._next_try.clear()
        self._say(f"已连接代理 connected to the broker（控制台时间为 {zone_name(self.timezone)} · the console's times are "
                  f"{zone_name(self.timezone)}'s）")

    # -- input ----------------------------------------------------------------------------------------------
    def on_message(self, topic: str, payload: bytes) -> None:
        if topic.startswith(BRIDGES) and topic.endswith("/state"):
            self._on_bridge(topic[len(BRIDGES):-len("/state")], payload)
            return
        if topic.startswith(self.reply_topic + "/"):
            self._on_reply(topic[len(self.reply_topic) + 1:], payload)
            return
        parts = topic[len(self.base) + 1:].split("/") if topic.startswith(self.base + "/") else []
        if len(parts) == 3 and parts[0] != "desk" and "/".join(parts[1:]) == bd.SEALED_RESULTS:
            self._on_sealed(topic, parts[0], payload)
            return
        if len(parts) != 2 or parts[0] == "desk" or parts[1] not in TABLE_KINDS:
            return
        table, kind = parts
        if self.hub.feed(table, kind, payload) and kind == "results":
            with self._charts_lock:
                self._charts_due.add(table)
        if kind == "state":
            self._on_state(table)
        if kind in ("results", "alerts", "status"):
            msg = self._object_or_reject(topic, payload)
            if msg is None:
                return
            if kind == "results":
                if msg.get("sealed") is not True:  # a sealed board's twin: the full result comes on results/sealed
                    self._on_result(topic, table, msg, payload)
            elif kind == "alerts":
                self.store.add_alert(table, msg)
            else:
                self.store.set_status(table, msg)
                with self._presence_lock:
                    lines, alerts = self.presence.status(table, msg, time.monotonic())
                for line in lines:
                    self._say(line)
                for alert in alerts:
                    self._raise(alert)
                if msg.get("online"):  # a table (re)connected: send it its match if it has not accepted it
                    self._try_now(table)

    def _object_or_reject(self, topic: str, payload: bytes) -> dict[str, Any] | None:
        """A table's message as a JSON object, or None after keeping it among the rejects with the reason."""
        try:
            msg = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.store.reject(topic, f"not JSON: {exc}", payload)
            return None
        if not isinstance(msg, dict):
            self.store.reject(topic, "not a JSON object", payload)
            return None
        return msg

    def _on_sealed(self, topic: str, table: str, payload: bytes) -> None:
        """A duplicate board's full deal record or its match's result (rules §12): counted as any result, but
        never handed to the screens (the hub) until the board is released."""
        msg = self._object_or_reject(topic, payload)
        if msg is not None:
            self._on_result(topic, table, msg, payload)

    def _on_result(self, topic: str, table: str, msg: dict[str, Any], raw: bytes) -> None:
        try:
            rid, kind, match, deal = read_result(msg, table)
        except ResultError as exc:
            self.store.reject(topic, str(exc), raw)
            log.warning("result refused from %s: %s", table, exc)
            return
        if msg.get("event") not in (None, self.event):
            self.store.reject(topic, f"result of another event {msg.get('event')!r}", raw)
            return
        pairing = next((p for p in self.store.pairings(match) if p["tbl"] == table), None) if match else None
        why = rounds.why_not_counted(self.event, table, rid, match, msg.get("start", rounds.UNSAID), pairing)
        if why is not None:
            self.store.reject(topic, why, raw)
            self._say(f"{table} {why}")
        else:
            assert match is not None
            self._refusal.pop((match, table), None)
            if "start" in msg and self.store.mark_accepted(match, table, {"ok": True, "by": "result", "id": rid}):
                self._say(f"{table} 第{match}轮 已接受开赛（由成绩得知） round {match} start accepted (seen in a result)")
            if self.store.add_result(rid, table, kind, match, deal, msg) and kind == "match":
                lv = msg.get("levels") or {}
                ruling = rounds.ruling_words(msg)
                self._say(f"{table} 第{match}轮 成绩已收 round {match} result in: NS {level_word(lv.get('NS'))} / EW "
                          f"{level_word(lv.get('EW'))}, 胜方 winner {msg.get('winner') or '平局 draw'}"
                          f"{' · ' + ruling if ruling else ''}")
                over = [c["n"] for c in self.store.corrections()
                        if c.get("target") == {"round": match, "table": table}]
                if over:  # a referee's correction came first: it stands, and the referees must know it does
                    self._say(f"{table} 第{match}轮 已有裁判更正 #{over[-1]}，以更正为准 | round {match}: a referee's "
                              f"correction #{over[-1]} came first and stands over this result")
                if match == self.store.last_round() and self._round_complete(match):
                    self._say(f"第{match}轮全部结束：可在记分台页面编排并开始下一轮（或 desk pair）| round {match} is "
                              "complete: pair and start the next round on the desk page (or desk pair)")
        # acknowledged either way: the table's journal keeps it until then, and the desk has kept it
        self.link.publish(f"{self.base}/{table}/results/ack", {"id": rid})

    def _round_complete(self, round_no: int) -> bool:
        """Whether every match of the round has its result, from a table or entered by a referee."""
        paired = {p["tbl"] for p in self.store.pairings(round_no) if p["ew"] is not None}
        done = {r["tbl"] for r in self.store.results("match", match=round_no)}
        done |= {str(c["target"]["table"]) for c in self.store.corrections()
                 if c["action"] in ("change", "void") and c["target"].get("round") == round_no and "table" in c["target"]}
        return paired <= done

    def _on_state(self, table: str) -> None:
        """A table that shows it is free (its match over) gets a waiting start at once; one that shows no match
        at all after it accepted this round's, with no result in, lost it (a restart without its journal)."""
        refused = any(k[1] == table for k in self._refusal)
        state = (self.hub.snapshot(table)["tables"].get(table) or {}).get("state") or {}
        free = state.get("phase") in FREE_PHASES or (state.get("phase") == "idle" and not state.get("match_active"))
        if refused and free:
            self._try_now(table)
        if state.get("phase") == "idle" and not state.get("match_active"):
            self._check_lost_match(table, state)

    def _check_lost_match(self, table: str, state: dict[str, Any]) -> None:
        """Raise ``match_lost`` once for a table idle with no match whose start of the current round it had
        accepted, and whose result never came: nothing else would say it (the round just waits)."""
        round_no = self.store.last_round()
        if (round_no, table) in self._lost_said or round_no == 0:
            return
        pairing = next((p for p in self.store.pairings(round_no) if p["tbl"] == table), None)
        if pairing is None or pairing["ew"] is None or not pairing.get("accepted_at"):
            return
        if state.get("start") == rounds.start_id(self.event, table, round_no):
            return  # its own match, not started yet or just over
        if any(r["tbl"] == table for r in self.store.results("match", match=round_no)) or any(
                c.get("target") == {"round": round_no, "table": table} for c in self.store.corrections()):
            return  # its result is in (the table's, or a referee's entry)
        self._lost_said.add((round_no, table))
        self._raise(DeskAlert(table, "match_lost",
                              f"牌桌 {table} 已无第{round_no}轮的比赛（重启后没有牌局日志？），成绩未交 | table {table} no "
                              f"longer has round {round_no}'s match it accepted (restarted without its journal?) and "
                              "its result never came: a referee enters the result, or sends the start again from "
                              "the desk page (the match then starts over)",
                              {"round": round_no, "start": state.get("start")}))

    def _raise(self, alert: DeskAlert) -> None:
        """Keep an alert of the desk's own with the tables' alerts (the desk page lists them together)."""
        self.store.add_alert(alert.table, {"schema": 1, "event": self.event, "table": alert.table,
                                           "type": "alert", "code": alert.code, "message": alert.message,
                                           "evidence": dict(alert.evidence), "ts": now(), "source": "desk"})
        self._say(f"{alert.table} 警报 alert {al.type_words(alert.code)}: {alert.message}")

    def _check_absent(self) -> None:
        """Raise the alerts now due for tables gone in the middle of a match of the current round (never
        while the desk itself is away from the broker: it cannot know then)."""
        at = time.monotonic()
        if at - self._absent_checked < ABSENT_CHECK_S:  # the standings below are the whole ledger: not twice a second
            return
        self._absent_checked = at
        with self._presence_lock:
            waiting = self.presence.waiting_offline()
        if not self.link.connected.is_set() or not waiting:
            return
        round_no = self.store.last_round()
        unfinished = {p["table"] for p in ev.standings_report(self.store)["pending"] if p["round"] == round_no}
        with self._presence_lock:
            due = self.presence.due(time.monotonic(), unfinished)
        for alert in due:
            self._raise(alert)

    def note(self, text: str) -> None:
        """A line on the desk's console for what a referee did on the page (who, what)."""
        self._say(text)

    def _say(self, text: str) -> None:
        try:
            self.say(f"desk {local_now(self.timezone)} {text}")
        except Exception:  # the console must not stop the desk
            log.exception("printing progress failed")

    # -- output ---------------------------------------------------------------------------------------------
    def rerequest_results(self, by: str = "") -> None:
        """Ask every table for the results the desk has not acknowledged: the desk's retained status turns
        offline and online again, on which tables send them all again (mqtt-api.md, Delivery)."""
        self.link.publish(self.status_topic, self._status(False), retain=True)
        self.link.publish(self.status_topic, self._status(True), retain=True)
        self._say(f"裁判 {by or '?'} 要求重发成绩 | referee {by or '?'} asked the tables to send their unacknowledged "
                  "results again")

    def publish_standings(self) -> dict[str, Any]:
        """The public standings (no duplicate board counted before its release), retained, and to the screens;
        then every board released since."""
        report = ev.standings_report(self.store, public=True)
        self.link.publish(self.standings_topic, report, retain=True)
        self.hub.set_standings(report)
        self._published_revision = report["version"]
        self.publish_released_boards()
        return report

    def publish_released_boards(self) -> list[tuple[int, int]]:
        """Publish, retained on ``desk/boards/{round}/{board}``, each duplicate board every table of its round
        has now played (rules §12), and hand it to the screens; returns the boards published now."""
        with self.store.lock:
            pairings, results = self.store.pairings(), self.store.results()
            released = bd.released(pairings, results, self.store.corrections())
            names = {t.id: t.name for t in self.store.teams()}
        fresh = sorted(released - self._boards_published)
        for round_no, board in fresh:
            message = bd.release_message(self.event, round_no, board, results, pairings, names, now())
            self.link.publish(f"{self.base}/desk/boards/{round_no}/{board}", message, retain=True)
            self.hub.release_board(message)
            self._boards_published.add((round_no, board))
            with self._charts_lock:  # the retained charts take the released points now, not at the next result
                self._charts_due.update(str(t["table"]) for t in message["tables"])
            self._say(f"第{round_no}轮 第{board}副复式牌已公布 | round {round_no} board {board} released: every "
                      f"table has played it")
        return fresh

    def publish_charts(self) -> None:
        """Publish, retained, the level chart of each table that has had a result since (or of every table,
        after a reconnect)."""
        with self._charts_lock:
            due, self._charts_due = self._charts_due, set()
        for table in sorted(due):
            chart = self.hub.chart(table)
            if chart is not None:
                self.link.publish(f"{self.base}/desk/charts/{table}", chart, retain=True)

    def _watch(self) -> None:
        while not self._stop.wait(0.5):
            try:
                if self.link.connected.is_set() and self.store.revision != self._published_revision:
                    self.publish_standings()
                if self.link.connected.is_set():
                    self.publish_charts()
                self.send_pairings()
                self._check_absent()
            except Exception:  # keep watching: a bad row must not end the desk
                log.exception("publishing standings failed")
