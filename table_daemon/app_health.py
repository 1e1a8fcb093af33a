"""The table's health as the app reports it: the ``health`` figures (journal, devices, the Pi, memory), the
problems in them and the news of each (an alert when one appears, a note when it clears), the retained ``status``
again when a device's state changes, the unit's systemd status line, and the status light over the phase.

Why apart from the app: the loop, the journal and the effects are the app's (``app.py``); this is what the table
says of itself, on its own timer. It is a mixin of :class:`~table_daemon.app.TableApp`, whose attributes it
reads (declared below).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from .adapters.journal import Journal
from .adapters.journal_mirror import MIRROR_EVERY_S, MIRROR_STALLED_S, MirrorWriter
from .adapters.mqtt import MqttLink
from .adapters.pi_health import HealthLimits, PiHealth, problems
from .adapters.publisher import stamp
from .adapters.systemd import SystemdNotifier
from .config import TableConfig
from .controller import Effect, HealthNotice, Input, Publish
from .device_health import device_figures, device_states, rss_mb, service_status
from .journal_faults import JOURNAL_FILE_LOST, JOURNAL_MIRROR_FAILED, JOURNAL_READ_FAILED, JournalFaults
from .snapshots import prune
from .version import VERSION

log = logging.getLogger("table_daemon.app")

#: how often the journal's file is looked for (one stat): a deleted one is written again within this
JOURNAL_LOOK_S = 1.0


def logged(new: bool, what: str) -> bool:
    """Log a journal failure (called from its ``except``): with its traceback when it is new, in one line while
    it lasts (a failing card fails every input; its count is in ``health``). Returns ``new``."""
    if new:
        log.exception(what)
    else:
        log.warning("%s (still): %s", what, sys.exc_info()[1])
    return new


class TableHealth:
    """The health half of the table app (a mixin: the app sets these attributes and the methods below use them)."""

    cfg: TableConfig
    clock: Callable[[], float]
    journal: Journal
    journal_faults: JournalFaults
    pi_health: PiHealth
    limits: HealthLimits
    link: MqttLink | None
    notifier: SystemdNotifier
    panels: Any
    dealer: Any
    camera: Any
    epoch: str
    started_at: float
    recovered: int
    inputs_handled: int
    last_health: float
    problems: dict[str, str]
    _health_due: bool
    _journal_looked: float
    mirror_writer: MirrorWriter | None
    _mirrored_at: float
    _mirrored_input: int
    _device_states: dict[str, str] | None
    _service_status: str
    _phase_light: str

    def handle(self, event: Input) -> list[Effect]:
        raise NotImplementedError  # the app's

    def _publish_now(self, pubs: list[Publish]) -> None:
        raise NotImplementedError  # the app's

    def _drive_status_light(self) -> None:
        """The status light: fast while the health has a problem, else as the controller's phase asks."""
        if self.panels is not None:
            self.panels.set_status("fast" if self.problems else self._phase_light)

    # -- health ------------------------------------------------------------------------------------------------
    def _housekeeping(self) -> None:
        now = time.monotonic()
        self.notifier.ping(now)
        if now - self._journal_looked >= JOURNAL_LOOK_S:
            self._journal_looked = now
            self._keep_journal_file()
        self._write_mirror()
        if self._health_due or now - self.last_health >= self.cfg.health.interval_seconds:
            self.last_health, self._health_due = now, False
            figures = self.health()
            self._publish_now([Publish("health", {"type": "health", **figures})])
            self._health_news(figures)
            # messages the broker took are not needed again (results stay in their own table until acked):
            # the outbox keeps the newest few thousand, so the journal does not grow by every message sent
            try:
                prune(self.journal)
            except Exception:  # a journal that cannot write is alerted by the input that failed
                log.exception("pruning the journal failed")

    def _write_mirror(self, snapshot: int | None = None) -> None:
        """The journal's mirror on other storage (``[journal] mirror``): asked for after each snapshot (a deal's
        end: ``snapshot`` is its input) and, from the housekeeping, once a minute while inputs came since; the
        writer's own thread writes it (a slow stick never pauses play). While it cannot be written (a stick pulled
        or full) the health says so (``journal_mirror_failed``); the table plays on, its own journal whole."""
        if not self.cfg.journal.mirror:
            return
        if self.mirror_writer is None:
            self.mirror_writer = MirrorWriter(partial(self.journal.copy_to, self.cfg.journal.mirror))
        self._mirror_news()
        now = time.monotonic()
        if snapshot is None and (self.inputs_handled == self._mirrored_input or now - self._mirrored_at < MIRROR_EVERY_S):
            return
        self._mirrored_at, self._mirrored_input = now, self.inputs_handled
        self.mirror_writer.request()

    def _mirror_news(self) -> None:
        """The mirror writer's latest outcome, said in the health: a failure once, its end once."""
        if self.mirror_writer is None:
            return
        outcome = self.mirror_writer.take_outcome()
        running = self.mirror_writer.running_for()
        if outcome is None and running is not None and running >= MIRROR_STALLED_S:
            outcome = (TimeoutError(f"the mirror write has not finished in {running:.0f} s (a stalled USB stick?)"),)
        if outcome is None:
            return
        (failure,) = outcome
        if failure is not None:
            if self.journal_faults.failed(JOURNAL_MIRROR_FAILED, failure, self.clock()):
                log.error("the journal's mirror %s cannot be written: %s", self.cfg.journal.mirror, failure)
                self._health_due = True
        elif self.journal_faults.cleared(JOURNAL_MIRROR_FAILED):
            self._health_due = True

    def _keep_journal_file(self) -> None:
        """The journal's file deleted (or replaced) under the running table: SQLite writes on into the unlinked
        file and nothing fails, but a restart would come back without the match. The journal is written again
        at its path from the copy the table holds open (nothing lost) and the referee told; while that fails
        the health says so (``journal_file_lost``), tried again at every look."""
        try:
            if not self.journal.file_lost():
                return
            self.journal.restore_file()
        except Exception as exc:  # noqa: BLE001 - whatever stops it, it is said and tried again
            if self.journal_faults.failed(JOURNAL_FILE_LOST, exc, self.clock()):
                log.error("the journal file %s is gone and cannot be written again: %s", self.journal.path, exc)
                self._health_due = True
            return
        log.warning("the journal file %s was deleted or replaced: written again from the open journal",
                    self.journal.path)
        if self.journal_faults.cleared(JOURNAL_FILE_LOST):
            self._health_due = True
        self.handle(HealthNotice("journal_file_restored", self.journal.path, {"path": self.journal.path}))

    def _health_news(self, figures: dict[str, Any]) -> None:
        """An alert for each problem that appeared since the last health, a note for each that cleared, and the
        retained status again when a device's state changed (a dealer plugged in, a camera lost)."""
        found = self._problems(figures)
        pi = {k: figures.get(k) for k in ("power", "cpu_temp", "disk")}
        for code in sorted(found.keys() - self.problems.keys()):
            self.handle(HealthNotice(code, found[code], {**pi, "devices": figures.get("devices")}))
        for code in sorted(self.problems.keys() - found.keys()):
            self.handle(HealthNotice("health_restored", self.problems[code], {"cleared": code}))
        changed = bool(found) != bool(self.problems)
        self.problems = found
        if changed:
            self._drive_status_light()
        states = {name: d["state"] for name, d in figures["devices"].items()}
        if self._device_states is not None and states != self._device_states and self.link is not None:
            self.link.publish_status()
        self._device_states = states
        line = service_status(self.cfg.table.id, self.link.connection.link_state() if self.link else None,
                              figures["devices"], found)
        if line != self._service_status:
            self._service_status = line
            self.notifier.status(line)

    def health(self) -> dict[str, Any]:
        now = self.clock()
        out: dict[str, Any] = {"uptime": round(now - self.started_at, 1), **self._journal_figures(now),
                               "inputs": self.inputs_handled, "recovered_inputs": self.recovered}
        figures = device_figures(self.devices)
        out.update(figures)
        out.update(self.pi_health.read())  # cpu_temp, power (under-voltage, throttling), disk
        out["devices"] = device_states(self.cfg, self.devices, figures)
        out["journal_faults"] = self.journal_faults.problems()
        out["problems"] = sorted(self._problems(out))
        rss = rss_mb()
        if rss is not None:
            out["rss_mb"] = rss
        return out

    def _journal_figures(self, now: float) -> dict[str, int | None]:
        """The journal's backlog and unacknowledged results; None each, and a health problem, when the journal
        cannot be read (a health report that failed here would leave the referee with no report and no alert)."""
        try:
            backlog, pending = self.journal.backlog(), len(self.journal.pending_results())
        except Exception as exc:  # in the report being made: no extra one is due
            logged(self.journal_faults.failed(JOURNAL_READ_FAILED, exc, now), "the journal cannot be read")
            return {"journal_backlog": None, "pending_results": None}
        self.journal_faults.cleared(JOURNAL_READ_FAILED)
        return {"journal_backlog": backlog, "pending_results": pending}

    def _problems(self, figures: dict[str, Any]) -> dict[str, str]:
        """The problems in a health report: the Pi's and the devices' (:func:`pi_health.problems`) and the
        journal's (:mod:`journal_faults`), each code with its evidence in words."""
        return {**problems(figures, self.limits), **(figures.get("journal_faults") or {})}

    def _status_envelope(self) -> dict[str, Any]:
        """The fields every message carries (mqtt-api.md "Every message"); ``status`` has no ``seq``, which
        counts state, events, results and alerts only."""
        return {**stamp(self.cfg.table.id, self.cfg.table.event, self.epoch), "type": "status"}

    def status_payload(self) -> dict[str, Any]:
        return {**self._status_envelope(), "online": True, "since": getattr(self, "started_iso", None),
                "version": VERSION, "profile": self.cfg.table.profile, "devices": self.device_states()}

    def offline_payload(self) -> dict[str, Any]:
        """The ``status`` of a table gone: its clean stop, and its last will (whose ``ts`` is then the time of
        the connection that set it: the broker sends it as it was given)."""
        return {**self._status_envelope(), "online": False}

    @property
    def devices(self) -> dict[str, Any]:
        return {"dealer": self.dealer, "camera": self.camera, "panels": self.panels}

    def device_states(self) -> dict[str, dict[str, Any]]:
        """Each device's source and state, with the error of a failing one (:func:`device_health.device_states`)."""
        return device_states(self.cfg, self.devices)
