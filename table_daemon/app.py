"""The table daemon's composition root: controller, journal, MQTT, devices, one loop.

One thread runs the loop: it takes the next input (dealer event, card reading, button, command) from a queue
or a timer tick when none comes, writes it to the journal together with every message it causes, then carries
out the effects (publish, lights, beep, dealer command, replies, simulated seats). Devices and the MQTT link
only put inputs on the queue, so the controller never sees two inputs at once and needs no locks. A journal
that cannot write (SD card full or failing) does not stop the effects of an input already handled: it is a
health problem with its alert until a snapshot holds the table again (``journal_faults.py``).

Restart: the latest snapshot of the controller (taken at each deal's end) is loaded and the journal's inputs
after it are replayed (effects dropped: they were carried out by the run that journaled them), so a ``kill -9``
or a power cut comes back in the same deal at the same turn, and a restart after a day of play replays one
deal, not the day (``snapshots.py``); messages the broker never acknowledged are sent again as they were, and
results stay until the desk's ack. What the table says of its devices and the pictures of its alerts are
``device_health.py``.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from table_daemon.rules_ops_deal import resolve_profile

from .adapters.journal import OutboxMessage
from .adapters.journal_mirror import MIRROR_STOP_S, MirrorWriter, open_journal
from .adapters.mqtt import Inbound, MqttLink
from .adapters.pi_health import HealthLimits, PiHealth
from .adapters.publisher import Publisher, iso_now
from .adapters.systemd import SystemdNotifier
from .app_health import TableHealth, logged
from .config import TableConfig
from .controller import (
    Beep,
    Command,
    DealerDo,
    DealerFault,
    Effect,
    HealthNotice,
    Input,
    Light,
    Publish,
    Reply,
    StatusLight,
    TableController,
    Tick,
    Timing,
    TurnChanged,
)
from .controller.model import DealerFaultKind
from .controller.sealing import SEALED_TOPIC
from .controller.views import hands_payload, public_state, seats_asked, status_light
from .device_health import with_picture
from .journal_faults import JOURNAL_WRITE_FAILED, SNAPSHOT_FAILED, JournalFaults
from .snapshots import SNAPSHOT_EVERY, recover, refused_entry, save_snapshot

log = logging.getLogger(__name__)

#: after a snapshot failed, the next try waits this long (a pickle of a day's controller is not free)
SNAPSHOT_RETRY_SECONDS = 10.0


class Device(Protocol):
    def start(self, feed: Callable[[Input], None]) -> None: ...
    def close(self) -> None: ...
    def health(self) -> dict[str, Any]: ...


class TableApp(TableHealth):
    """One table: build with a config and devices, ``start()``, ``stop()``."""

    def __init__(self, cfg: TableConfig, *, dealer: Any = None, camera: Any = None, panels: Any = None,
                 clock: Callable[[], float] = time.time, connect: bool = True,
                 pi_health: PiHealth | None = None) -> None:
        self.cfg = cfg
        #: the Pi's power, heat and SD card (tests give one reading a temp dir laid out as /sys)
        self.pi_health = pi_health or PiHealth(disk_path=os.path.dirname(os.path.abspath(cfg.journal.path)))
        self.limits = HealthLimits(cpu_temp_c=cfg.health.max_cpu_temp_c, disk_free_mb=cfg.health.min_free_mb)
        self.problems: dict[str, str] = {}
        self._phase_light = "blink"  # the status light as the controller last asked (fast over it on a problem)
        self._device_states: dict[str, str] | None = None
        self._service_status = ""  # the last STATUS= told to systemd
        self.clock = clock
        self.dealer, self.camera, self.panels = dealer, camera, panels
        self.inbox: queue.Queue[tuple[Input | None, Inbound | None]] = queue.Queue()
        self.turn_listeners: list[Callable[[TurnChanged], None]] = []
        if hasattr(camera, "turn_changed"):
            self.turn_listeners.append(camera.turn_changed)
        #: the journal; ``taken_up``: it was lost or damaged and taken up from its mirror (said at the start)
        self.journal, self.taken_up = open_journal(cfg.journal.path, cfg.journal.mirror)
        self._mirrored_at = 0.0  # when the mirror was last written (monotonic; 0: not yet in this run)
        self._mirrored_input = -1  # the input the mirror was last written after
        self._deal_file_seen: tuple[float, int] | None = None  # the deal file's time and size when last read
        self.mirror_writer: MirrorWriter | None = None  # writes the mirror in its own thread, once one is due
        self.controller = self._new_controller()
        #: the input the latest snapshot was taken after (0: none yet)
        self.snapshot_input = 0
        self.epoch = self.journal.new_epoch(cfg.table.id)
        self.link: MqttLink | None = None
        if connect:
            self.link = MqttLink(
                cfg.mqtt.url, cfg.root, f"{cfg.mqtt.prefix.rstrip('/')}/{cfg.table.event}/desk/status",
                client_id=cfg.mqtt.client_id or f"table-{cfg.table.event}-{cfg.table.id}",
                username=cfg.mqtt.username, password=cfg.mqtt_password(), ca_file=cfg.mqtt.ca_file,
                cert_file=cfg.mqtt.cert_file, key_file=cfg.mqtt.key_file, insecure=cfg.mqtt.insecure,
                keepalive=cfg.mqtt.keepalive, protocol=cfg.mqtt.protocol, status_payload=self.status_payload,
                offline_payload=self.offline_payload,
            )
            self.link.on_input = lambda inbound: self.inbox.put((None, inbound))
            self.link.on_connected = lambda: self.inbox.put((None, Inbound("connected", "", None)))
        self.publisher = Publisher(self.journal, self.link, table=cfg.table.id, event=cfg.table.event,
                                   epoch=self.epoch, root=cfg.root)
        self.notifier = SystemdNotifier()
        self.replies: dict[str, Inbound] = {}
        self._token = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started_iso = iso_now()
        self.recovered = self._recover()
        self.started_at = clock()
        self.inputs_handled = 0
        self.last_health = 0.0
        #: a health report (and the alerts of what changed) is due at the next housekeeping, not the interval's
        self._health_due = False
        self._journal_looked = 0.0  # when the journal's file was last looked for (monotonic)
        self.journal_faults = JournalFaults()
        #: inputs handled since the journal last failed to keep one (0: it holds them all)
        self.unjournaled = 0
        self._snapshot_retry_at = 0.0
        self.desk_online: bool | None = None
        self._desk_status_seen: Any = None
        self.on_published: Callable[[str, dict[str, Any]], None] | None = None
        #: called (in the loop's thread) with every alert this table raises: simulated seats react to them
        self.alert_listeners: list[Callable[[dict[str, Any]], None]] = []

    def _new_controller(self) -> TableController:
        t = self.cfg.timing
        return TableController(
            self.cfg.table.id, self.cfg.table.event, resolve_profile(self.cfg.table.profile),
            auto_deal=self.cfg.table.auto_deal, software_seats=tuple(self.cfg.table.software_seats),
            referee_role=self.cfg.table.referee_role, referee_key=self.cfg.referee_key(),
            deal_file=self.cfg.dealer.deal_file, deal_file_boards=self._deal_file_boards(),
            timing=Timing(play_seconds=t.play_seconds or None, first_lead_seconds=t.first_lead_seconds or None,
                          return_seconds=t.return_seconds or None,
                          min_confidence=self._min_confidence()),
        )

    def _deal_file_boards(self) -> tuple[int, ...]:
        """The boards of the configured deal file (``dealer.deal_file``), for the controller to refuse a start of
        boards it lacks; empty when there is none, or it cannot be read (the dealer then says why, deal by deal)."""
        if not self.cfg.dealer.deal_file:
            return ()
        from firmware_bridge.deal import DealFileError, check_deal_file

        try:
            self._deal_file_seen = _file_stamp(self.cfg.dealer.deal_file)
            return tuple(check_deal_file(self.cfg.dealer.deal_file))
        except (DealFileError, OSError) as exc:
            log.error("the deal file %s cannot be read: %s", self.cfg.dealer.deal_file, exc)
            return ()

    def _deal_file_news(self) -> None:
        """Before a start: a deal file replaced since it was read (the next session's boards copied over it; the
        dealer reads it afresh at each deal) is read again, so its boards are not refused."""
        if self.cfg.dealer.deal_file and _file_stamp(self.cfg.dealer.deal_file) != self._deal_file_seen:
            self.controller.deal_file_boards = self._deal_file_boards()

    def _min_confidence(self) -> float:
        """The confidence below which a card is unsure: the camera's (``camera.min_confidence``, else its card
        reader's own threshold), so that the stabiliser and the controller judge a reading alike."""
        return float(getattr(self.camera, "min_confidence", 0.0) or self.cfg.camera.min_confidence
                     or Timing.min_confidence)

    # -- recovery -------------------------------------------------------------------------------------------
    def _recover(self) -> int:
        """The controller as the journal left it (:func:`snapshots.recover`); returns the inputs replayed."""
        got = recover(self.journal, self.controller, self.cfg.journal.path)
        self.controller, self.snapshot_input = got.controller, got.snapshot_input
        return got.replayed

    # -- life cycle -------------------------------------------------------------------------------------------
    def start(self) -> None:
        # first in the inbox, before any device's input or tick: the recovered state takes up its match (and the
        # clocks stopped by the outage) before anything else happens at the table
        self.inbox.put((None, Inbound("resume", "", None)))
        feed = self.feed
        for device in (self.dealer, self.camera):
            if device is not None:
                device.start(feed)
        if self.panels is not None:
            from .controller import Press

            self.panels.on_press = lambda p: feed(Press(p.seat, p.button))
        resent = self.publisher.resend_unsent()
        if resent:
            log.info("re-sending %d messages of an earlier run", resent)
        if self.link is not None:
            self.link.start()
        self._thread = threading.Thread(target=self._loop, name=f"table-{self.cfg.table.id}", daemon=True)
        self._thread.start()
        # ready: the table runs (and journals) with or without its broker and devices; STATUS= then says how
        # they are at each health report (_health_news)
        self.notifier.ready(f"牌桌 table {self.cfg.table.id} started, "
                            f"{'connecting to the broker' if self.link is not None else 'no broker link'}")

    def stop(self) -> None:
        self.notifier.stopping()
        self._stop.set()
        self.inbox.put((None, None))
        if self._thread is not None:
            self._thread.join(10)
        for device in (self.camera, self.dealer):
            if device is not None:
                try:
                    device.close()
                except Exception:
                    log.exception("closing a device failed")
        if self.link is not None:
            self.link.stop()
        if self.mirror_writer is not None:  # a clean stop leaves the mirror as the journal stands
            if self.inputs_handled != self._mirrored_input:
                self.mirror_writer.request()
            if not self.mirror_writer.close(MIRROR_STOP_S):
                log.error("the journal's mirror %s was still being written at the stop", self.cfg.journal.mirror)
        self.journal.close()

    def feed(self, event: Input) -> None:
        """Queue an input (thread-safe; devices and simulated seats call this)."""
        self.inbox.put((event, None))

    def command(self, name: str, payload: dict[str, Any] | None = None) -> None:
        """Queue a local command (the simulator starts matches this way)."""
        self.feed(Command(name, payload or {}))

    # -- the loop ---------------------------------------------------------------------------------------------
    def _loop(self) -> None:
        tick = self.cfg.timing.tick_seconds
        while not self._stop.is_set():
            try:
                event, inbound = self.inbox.get(timeout=tick)
            except queue.Empty:
                event, inbound = Tick(), None
            try:
                if inbound is not None:
                    self._inbound(inbound)
                elif event is not None:
                    self.handle(event)
                self._housekeeping()
            except Exception:  # never let one bad input kill the table
                log.exception("input failed: %r", event or inbound)

    def handle(self, event: Input) -> list[Effect]:
        now = self.clock()
        effects = self.controller.handle(event, now)
        self.inputs_handled += 1
        if isinstance(event, Tick) and not effects:
            return effects
        outbox: list[OutboxMessage] = []
        plain: list[tuple[str, str, bool, int]] = []
        results: list[tuple[str, str]] = []
        refs: list[tuple[int, str, int]] = []
        for ef in effects:
            if isinstance(ef, Publish):
                payload = with_picture(ef.payload, self.camera) if ef.topic == "alerts" else ef.payload
                m = self.publisher.prepare(ef.topic, payload, now, ref=ef.ref, replaces_ref=ef.replaces_ref)
                if isinstance(m, OutboxMessage):
                    outbox.append(m)
                    if ef.ref:
                        refs.append((ef.ref, m.epoch, m.seq))
                    if ef.topic == "results" and not ef.payload.get("sealed"):
                        results.append((str(ef.payload["id"]), m.payload))
                else:
                    plain.append(m)
                    if ef.topic == SEALED_TOPIC:  # a sealed board's full result: kept until the desk's ack
                        results.append((str(ef.payload["id"]), m[1]))
        kind, data = refused_entry(event, effects) or (event.kind, event.to_dict())
        self._keep(now, kind, data, outbox, results, refs)
        # handled (and journaled, unless the journal failed and said so): from here on a failure of one effect
        # must not stop the others
        for m in outbox:
            self._guard(self.publisher.send, m)
            if self.on_published is not None:
                self._guard(self.on_published, m.topic, json.loads(m.payload))
        for ef in effects:
            if isinstance(ef, Publish) and ef.topic == "alerts":
                for listener in self.alert_listeners:
                    self._guard(listener, ef.payload)
        for topic, text, retain, qos in plain:
            self._guard(self.publisher.send_plain, topic, text, retain, qos)
        for ef in effects:
            self._guard(self._effect, ef)
        return effects

    def _keep(self, now: float, kind: str, data: dict[str, Any], outbox: list[OutboxMessage],
              results: list[tuple[str, str]], refs: list[tuple[int, str, int]]) -> None:
        """Journal a handled input with what it caused; snapshot the controller at a deal's end, every
        ``SNAPSHOT_EVERY`` inputs, and as soon as it can after inputs the journal missed (a snapshot stands for
        them; a replay without them would be a wrong table). A failure of either is a health problem
        (:mod:`journal_faults`), never a reason to leave the input's effects undone: the controller has moved
        on, and players, desk and displays must see it."""
        try:
            rowid = self.journal.record(now, kind, data, outbox, results, refs)
        except Exception as exc:
            self.unjournaled += 1
            self._health_due |= logged(self.journal_faults.failed(JOURNAL_WRITE_FAILED, exc, now),
                                        f"the journal could not keep a {kind} input")
            return
        retry = self.journal_faults.is_open(SNAPSHOT_FAILED) and now >= self._snapshot_retry_at
        if not (self.unjournaled or results or retry or rowid - self.snapshot_input >= SNAPSHOT_EVERY):
            return
        try:
            save_snapshot(self.journal, self.controller, rowid, now)
        except Exception as exc:
            self._snapshot_retry_at = now + SNAPSHOT_RETRY_SECONDS
            self._health_due |= logged(self.journal_faults.failed(SNAPSHOT_FAILED, exc, now),
                                        f"the snapshot after input {rowid} could not be saved")
            return
        self.snapshot_input, self.unjournaled = rowid, 0
        for code in (JOURNAL_WRITE_FAILED, SNAPSHOT_FAILED):
            self._health_due |= self.journal_faults.cleared(code)
        self._write_mirror(rowid)

    @staticmethod
    def _guard(fn: Callable[..., Any], *args: Any) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("effect failed: %s%r", getattr(fn, "__name__", fn), args[:1])

    def _effect(self, ef: Effect) -> None:
        if isinstance(ef, Light) and self.panels is not None:
            self.panels.set_light(ef.seat, ef.light, ef.on)
        elif isinstance(ef, Beep) and self.panels is not None:
            self.panels.beep(ef.times)
        elif isinstance(ef, StatusLight):
            self._phase_light = ef.mode
            self._drive_status_light()
        elif isinstance(ef, DealerDo):
            if self.dealer is None:
                self.feed(DealerFault(DealerFaultKind.NO_DEALER, "no dealer configured"))
            else:
                self.dealer.deal(ef.board, ef.deal_no)
        elif isinstance(ef, Reply):
            inbound = self.replies.pop(ef.token, None) if ef.token else None
            if inbound is not None and self.link is not None:
                body: dict[str, Any] = {"ok": ef.ok, "error": ef.error}
                if isinstance(inbound.payload, dict) and "id" in inbound.payload:
                    body["id"] = inbound.payload["id"]
                body.update({k: v for k, v in (ef.data or {}).items() if k not in body and v is not None})  # duplicate
                self.link.reply(inbound, body)
        elif isinstance(ef, TurnChanged):
            for listener in self.turn_listeners:
                listener(ef)

    def _inbound(self, inbound: Inbound) -> None:
        if inbound.kind == "command":
            self._token += 1
            token = f"{self.epoch}:{self._token}"
            self.replies[token] = inbound
            payload = inbound.payload if isinstance(inbound.payload, dict) else {}
            if inbound.name == "start_match":
                self._deal_file_news()
            self.handle(Command(inbound.name, payload, token, inbound.error))
        elif inbound.kind == "ack":
            rid = inbound.payload.get("id") if isinstance(inbound.payload, dict) else None
            if isinstance(rid, str):
                self.journal.ack_result(rid)
        elif inbound.kind == "desk_status":
            # the desk publishes its status (with a fresh ``ts``) on every connect: a new online status is a desk
            # that may have missed results (its session may be gone with a broker that lost it), a repeat of the
            # one seen (the retained copy after our own resubscribe) is not
            online = bool(isinstance(inbound.payload, dict) and inbound.payload.get("online"))
            if online and inbound.payload != self._desk_status_seen:
                self.publisher.resend_results()
            self.desk_online = online
            self._desk_status_seen = inbound.payload
        elif inbound.kind == "connected":
            self._publish_current()
            self.publisher.resend_results()
        elif inbound.kind == "resume":
            self._resume_after_recovery()

    def _publish_current(self) -> None:
        """The retained current values after a (re)connect: state (a new sequenced message) and hands. Views
        only: the controller changes in ``handle()`` alone, so a replay of the journal rebuilds it exactly."""
        c = self.controller
        self._publish_now([Publish("state", {"type": "state", **public_state(c)}),
                           Publish("private/hands", hands_payload(c))])

    def _publish_now(self, pubs: list[Publish]) -> None:
        now = self.clock()
        for ef in pubs:
            m = self.publisher.prepare(ef.topic, ef.payload, now, ref=ef.ref)
            if isinstance(m, OutboxMessage):
                # kept for a resend after a restart; a journal that cannot keep it must not keep it unsent now
                self._guard(self.journal.record_outbox, [m])
                self.publisher.send(m)
            else:
                self.publisher.send_plain(*m)

    def _resume_after_recovery(self) -> None:
        """After a restart: lights and simulated seats as the recovered state says; a deal caught while
        being dealt is void (the dealer's run was cut) and dealt again."""
        c = self.controller
        self._phase_light = status_light(c)
        self._drive_status_light()
        if self.taken_up is not None:  # loudly: what the table did after the mirror was written is gone
            t = self.taken_up
            self.handle(HealthNotice("journal_from_mirror", t.words(),
                                     {"mirror": t.mirror, "mirrored_at": iso_now(t.mirrored_at), "kept": t.kept}))
        if c.match_active:  # a restart mid-match (power cut, kill -9, watchdog) is not a network blip: say so
            where = f"第{c.match_no}场 match {c.match_no}" + (f", 第{c.deal.number}副 deal {c.deal.number}"
                                                             if c.deal is not None else "")
            self.handle(HealthNotice("table_restarted", f"{where}, {c.phase}; {self.recovered} inputs replayed",
                                     {"match": c.match_no, "deal": c.deal.number if c.deal else None,
                                      "phase": str(c.phase), "replayed": self.recovered}))
        if c.phase == "dealing":
            self.handle(DealerFault(DealerFaultKind.RESTART, "the table restarted while dealing"))
            if self.cfg.table.auto_deal:
                self.handle(Command("start_deal", {}))
            return
        d = c.deal
        if d is not None and d.state is not None and c.phase != "paused":
            st = d.state
            seats, asked = seats_asked(c)
            for seat in seats:
                if self.panels is not None:
                    self.panels.set_light(seat, "turn", True)
                self._effect(TurnChanged(seat, asked, st))
            for seat in st.report_due:
                if seat not in seats:  # a seat asked to play reports first, as its bot or player does
                    self._effect(TurnChanged(seat, "report", st))
        elif c.phase in ("idle", "deal_over") and c.match_active and self.cfg.table.auto_deal:
            self.handle(Command("start_deal", {}))


def _file_stamp(path: str) -> tuple[float, int] | None:
    """A file's modification time and size (None: not there), to notice it was replaced."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime, st.st_size
