"""The I/O edge of the host link: one thread that owns the serial port and drives :class:`HostLink`.

It opens the port (and reopens it forever after an unplug, saying so), resynchronises with IDENTIFY after
every (re)connect and every change of the device's boot id, feeds received bytes through the frame decoder
into the link, writes the link's frames, and hands replies to the waiting callers (futures), device events
and link notices to callbacks. Waiting is one ``select`` on the port and a wake-up pipe, bounded by the
link's next timer.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

from .framing import Frame, FrameDecoder
from .link import CommandFailed, EventIn, HostLink, LinkConfig, LinkDown, LinkUp, PeerHeartbeat, Replied, Send
from .messages import DeviceHeartbeat, Identity, PayloadError
from .protocol import Msg

log = logging.getLogger("firmware_bridge")


class LinkError(Exception):
    """The dealer did not answer (port gone, or no reply after every retransmission)."""


class Port(Protocol):
    """What the runner needs of a pyserial port."""

    def fileno(self) -> int: ...
    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...
    def close(self) -> None: ...
    @property
    def in_waiting(self) -> int: ...


@dataclass(frozen=True)
class Notice:
    """A change of the link: connected, disconnected, link_lost, link_up, identified, boot_changed."""

    kind: str
    detail: str = ""
    boot_id: int | None = None
    old_boot_id: int | None = None
    identity: Identity | None = None


@dataclass
class _Job:
    command: int
    payload: bytes
    future: Future[Frame]
    internal: bool = False


class LinkRunner:
    RECONNECT_S = (0.05, 0.1, 0.2, 0.5, 1.0)

    def __init__(
        self, opener: Callable[[], Port], *, config: LinkConfig | None = None, description: str = "dealer",
        on_event: Callable[[Frame], None], on_notice: Callable[[Notice], None],
    ) -> None:
        self._opener = opener
        self.description = description
        self.config = config or LinkConfig()
        self._on_event = on_event
        self._on_notice = on_notice
        self.link = HostLink(self.config, time.monotonic(), first_seq=int.from_bytes(os.urandom(2), "little"))
        self.decoder = FrameDecoder()
        self.boot_id: int | None = None
        self.identity: Identity | None = None
        self.connected = False
        self.ready = False  # connected and the event stream is synchronised
        self.reconnects = 0
        self.last_open_error = ""
        self._port: Port | None = None
        self._jobs: deque[_Job] = deque()
        self._current: _Job | None = None
        self._sync_job: _Job | None = None
        self._need_sync = False
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=f"link:{description}", daemon=True)

    # -- API (any thread) --
    def start(self) -> None:
        self._thread.start()

    def submit(self, command: int, payload: bytes = b"") -> Future[Frame]:
        future: Future[Frame] = Future()
        with self._lock:
            self._jobs.append(_Job(command, payload, future))
        self._wake()
        return future

    def stop(self) -> None:
        self._stop = True
        self._wake()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self._close_port()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        with self._lock:
            jobs = list(self._jobs) + ([self._current] if self._current else [])
            self._jobs.clear()
        for job in jobs:
            if not job.future.done():
                job.future.set_exception(LinkError("link closed"))

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    # -- port handling --
    def _notice(self, notice: Notice) -> None:
        log.info("dealer %s: %s %s", self.description, notice.kind, notice.detail)
        try:
            self._on_notice(notice)
        except Exception:  # a faulty callback must not kill the link
            log.exception("notice callback failed")

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()

    def _try_open(self) -> bool:
        try:
            port = self._opener()
            port.fileno()
        except Exception as exc:  # any failure to open means: not there yet
            log.debug("open %s failed: %s", self.description, exc)
            self.last_open_error = str(exc)
            return False
        self._port = port
        self.connected = True
        self.decoder.reset()
        self._notice(Notice("connected", self.description))
        now = time.monotonic()
        self._apply(self.link.restart(now), now)
        self._request_sync(now)
        return True

    def _disconnect(self, why: str) -> None:
        self._close_port()
        if self.connected:
            self.connected = False
            self.ready = False
            self.reconnects += 1
            self._notice(Notice("disconnected", f"{why}; reconnecting"))

    # -- synchronisation --
    def _request_sync(self, now: float) -> None:
        """IDENTIFY before any further queued command. An outstanding command is finished first, with its
        own sequence number, so that it is still executed at most once across a reconnect."""
        self.ready = False
        self._need_sync = True
        self._maybe_sync(now)

    def _maybe_sync(self, now: float) -> None:
        if self._need_sync and self._current is None and self._port is not None:
            self._need_sync = False
            job = _Job(Msg.IDENTIFY, b"", Future(), internal=True)
            self._sync_job = job
            self._send_job(job, now)

    def _send_job(self, job: _Job, now: float) -> None:
        self._current = job
        _, effects = self.link.send_command(job.command, job.payload, now)
        self._apply(effects, now)

    def _synced(self, frame: Frame, now: float) -> None:
        self._sync_job = None
        try:
            ident = Identity.unpack(frame.payload)
        except PayloadError as exc:
            log.warning("bad IDENTITY from %s: %s", self.description, exc)
            self._request_sync(now)
            return
        old = self.boot_id
        same = old == ident.boot_id
        self.link.sync(ident.event_base, ident.event_next, same_boot=same)
        self.link.align_commands(ident.last_command)
        self.boot_id = ident.boot_id
        self.identity = ident
        self.ready = True
        if old is not None and not same:
            self._notice(Notice("boot_changed", "dealer rebooted", ident.boot_id, old, ident))
        self._notice(Notice("identified", f"boot {ident.boot_id:08x}", ident.boot_id, old, ident))

    def _boot_seen(self, boot_id: int, now: float) -> None:
        if self.boot_id is not None and boot_id != self.boot_id and self._sync_job is None:
            self.link.unsync()
            self._request_sync(now)

    # -- effects --
    def _apply(self, effects: list[Any], now: float) -> None:
        for effect in effects:
            if isinstance(effect, Send):
                self._write(effect.data)
            elif isinstance(effect, Replied):
                job, self._current = self._current, None
                if job is None:
                    continue
                if job.internal:
                    self._synced(effect.frame, now)
                    continue
                if not job.future.done():
                    job.future.set_result(effect.frame)
                if effect.frame.type == Msg.IDENTITY and len(effect.frame.payload) >= 8:
                    self._boot_seen(int.from_bytes(effect.frame.payload[4:8], "little"), now)
            elif isinstance(effect, EventIn):
                if effect.frame.type == Msg.BOOT and len(effect.frame.payload) >= 4:
                    self._boot_seen(int.from_bytes(effect.frame.payload[:4], "little"), now)
                self._on_event(effect.frame)
            elif isinstance(effect, PeerHeartbeat):
                try:
                    beat = DeviceHeartbeat.unpack(effect.frame.payload)
                except PayloadError:
                    continue
                self._boot_seen(beat.boot_id, now)
            elif isinstance(effect, CommandFailed):
                job, self._current = self._current, None
                if job is not None and job.internal:
                    self._sync_job = None
                    self._request_sync(now)
                elif job is not None and not job.future.done():
                    job.future.set_exception(LinkError(f"{self.description}: {effect.reason}"))
            elif isinstance(effect, LinkDown):
                self._notice(Notice("link_lost", f"no frame from the dealer for {effect.silent_s:.1f} s"))
            elif isinstance(effect, LinkUp):
                self._notice(Notice("link_up", "dealer answering again"))

    def _write(self, data: bytes) -> None:
        if self._port is None:
            return
        try:
            self._port.write(data)
        except Exception as exc:  # pyserial raises several types
            self._disconnect(f"write failed: {exc}")

    # -- the loop --
    def _next_job(self, now: float) -> None:
        if self._current is not None and self._current.future.cancelled():
            self._current = None
            self.link.cancel()
        self._maybe_sync(now)
        if not self.ready or self._current is not None:
            return
        with self._lock:
            while self._jobs and self._jobs[0].future.cancelled():
                self._jobs.popleft()
            job = self._jobs.popleft() if self._jobs else None
        if job is not None:
            self._send_job(job, now)

    def _run(self) -> None:
        attempt = 0
        sel = selectors.DefaultSelector()
        sel.register(self._wake_r, selectors.EVENT_READ)
        fd = -1
        while not self._stop:
            if self._port is None:
                if fd >= 0:
                    with contextlib.suppress(KeyError, ValueError):
                        sel.unregister(fd)
                    fd = -1
                if self._try_open() and self._port is not None:
                    attempt = 0
                    fd = self._port.fileno()
                    sel.register(fd, selectors.EVENT_READ)
                else:
                    delay = self.RECONNECT_S[min(attempt, len(self.RECONNECT_S) - 1)]
                    attempt += 1
                    for _key, _ in sel.select(delay):
                        with contextlib.suppress(OSError):
                            os.read(self._wake_r, 512)
                    continue
            port = self._port
            now = time.monotonic()
            self._next_job(now)
            timeout = min(0.2, max(0.0, self.link.next_deadline() - now))
            for key, _ in sel.select(timeout):
                if key.fd == self._wake_r:
                    with contextlib.suppress(OSError):
                        os.read(self._wake_r, 512)
                    continue
                if self._port is None:
                    break
                try:
                    data = port.read(max(1, port.in_waiting))
                except Exception as exc:  # SerialException or OSError on unplug
                    self._disconnect(f"read failed: {exc}")
                    break
                now = time.monotonic()
                for frame in self.decoder.feed(data):
                    self._apply(self.link.on_frame(frame, now), now)
            if self._port is not None:
                now = time.monotonic()
                self._apply(self.link.poll(now), now)
        sel.close()
