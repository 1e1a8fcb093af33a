"""Runs the simulated dealer's firmware behind a real pseudo-terminal, in a background thread.

The host opens :attr:`SimDealer.path` with pyserial exactly like ``/dev/ttyACM0``. The path is a symlink to
the pty's slave side (as udev's ``/dev/serial/by-id`` links are), so an "unplug" can close the pty, remove the
link, and after ``unplug_s`` plug a fresh pty in at the same path: the host sees the port vanish (read
error), and has to reopen it to carry on.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import selectors
import shutil
import tempfile
import threading
import time
import tty
import weakref
from typing import Any

from firmware_bridge.protocol import ResetCause

from .config import SimConfig
from .firmware import SimFirmware
from .wire import WireDirection

TX_BUFFER_LIMIT = 64 * 1024  # a USB CDC device drops what nobody reads


class SimDealer:
    """A simulated dealer on a pty. Use as a context manager or call :meth:`close`."""

    def __init__(self, config: SimConfig | None = None) -> None:
        self.config = config or SimConfig()
        seed = self.config.seed if self.config.seed is not None else random.SystemRandom().randrange(2**32)
        self.seed = seed
        self._lock = threading.RLock()
        self.firmware = SimFirmware(self.config, random.Random(seed), time.monotonic())
        self.inbound = WireDirection(self.config, random.Random(seed * 7 + 1))
        self.outbound = WireDirection(self.config, random.Random(seed * 7 + 2))
        self._dir = tempfile.mkdtemp(prefix="sim-dealer-")
        # the folder goes with the dealer: at close, or when a dealer never closed is collected or its process ends
        self._remove_dir = weakref.finalize(self, shutil.rmtree, self._dir, True)
        self.path = os.path.join(self._dir, "ttyDEALER")
        self._master = -1
        self._slave = -1
        self._plugged = False
        self._replug_at: float | None = None
        self.unplugs = 0
        self._delayed_in: list[tuple[float, bytes]] = []
        self._delayed_out: list[tuple[float, bytes]] = []
        self._tx = bytearray()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._stop = False
        self._plug()
        self._thread = threading.Thread(target=self._run, name="sim-dealer", daemon=True)
        self._thread.start()

    # -- public controls (thread-safe) --
    def __enter__(self) -> SimDealer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._stop:
            return
        self._stop = True
        self._wake()
        self._thread.join(timeout=5)
        with self._lock:
            self._unplug_now()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._remove_dir()

    def unplug(self, seconds: float) -> None:
        """Pull the cable now and plug it back in after ``seconds``."""
        with self._lock:
            self._unplug_now()
            self._replug_at = time.monotonic() + seconds
        self._wake()

    def reboot(self, cause: ResetCause = ResetCause.WATCHDOG) -> None:
        with self._lock:
            self.firmware.reboot(time.monotonic(), cause)
        self._wake()

    def truth(self) -> dict[str, list[str]]:
        """The faces physically in each bin (the ground truth a correct deal must match)."""
        with self._lock:
            return self.firmware.mechanics.truth()

    @property
    def boot_id(self) -> int:
        return self.firmware.boot_id

    def stats(self) -> dict[str, Any]:
        with self._lock:
            link = self.firmware.link_stats()
            return {
                "boots": self.firmware.boots, "unplugs": self.unplugs,
                "device_retransmits": link["retransmits"], "duplicate_commands": link["duplicate_commands"],
                "stale_commands": link["stale_commands"],
                "frames_lost": self.inbound.dropped + self.outbound.dropped,
                "bytes_corrupted": self.inbound.corrupted_bytes + self.outbound.corrupted_bytes,
            }

    # -- pty plumbing --
    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.path + ".new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        self._plugged = True
        self._tx.clear()
        self.inbound.reset()
        self.outbound.reset()

    def _unplug_now(self) -> None:
        if not self._plugged:
            return
        self._plugged = False
        self.unplugs += 1
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._master = self._slave = -1
        self._delayed_in.clear()
        self._delayed_out.clear()
        self._tx.clear()

    # -- the loop --
    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._wake_r, selectors.EVENT_READ)
        registered = -1
        while not self._stop:
            with self._lock:
                now = time.monotonic()
                if not self._plugged and self._replug_at is not None and now >= self._replug_at:
                    self._replug_at = None
                    self._plug()
                if registered != self._master:
                    if registered >= 0:
                        sel.unregister(registered)
                    registered = -1
                    if self._plugged:
                        sel.register(self._master, selectors.EVENT_READ)
                        registered = self._master
                if registered >= 0:
                    sel.modify(registered, selectors.EVENT_READ | (selectors.EVENT_WRITE if self._tx else 0))
                deadline = self._deadline(now)
            timeout = min(max(0.0, deadline - time.monotonic()), 0.1)
            ready = sel.select(timeout)
            with self._lock:
                now = time.monotonic()
                for key, _mask in ready:
                    if key.fd == self._wake_r:
                        with contextlib.suppress(OSError):
                            os.read(self._wake_r, 512)
                    elif key.fd == self._master and self._plugged:
                        self._read(now)
                self._step(now)
                self._flush()
        if registered >= 0:
            with contextlib.suppress(KeyError, ValueError):
                sel.unregister(registered)
        sel.close()

    def _deadline(self, now: float) -> float:
        times = [self.firmware.next_deadline(now)]
        times += [t for t, _ in self._delayed_in[:1]] + [t for t, _ in self._delayed_out[:1]]
        if self._replug_at is not None:
            times.append(self._replug_at)
        return min(times)

    def _read(self, now: float) -> None:
        try:
            data = os.read(self._master, 4096)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno == errno.EIO:  # no slave open: nothing to read
                return
            raise
        self._delayed_in.extend(self.inbound.process(data, now))
        self._delayed_in.sort(key=lambda item: item[0])

    def _step(self, now: float) -> None:
        while self._delayed_in and self._delayed_in[0][0] <= now:
            _, data = self._delayed_in.pop(0)
            self.firmware.receive(data, now)
        for data in self.firmware.poll(now):
            if self._plugged:
                self._delayed_out.extend(self.outbound.process(data, now))
        self._delayed_out.sort(key=lambda item: item[0])
        while self._delayed_out and self._delayed_out[0][0] <= now:
            self._tx += self._delayed_out.pop(0)[1]
        if len(self._tx) > TX_BUFFER_LIMIT:
            del self._tx[: len(self._tx) - TX_BUFFER_LIMIT]
        if self.firmware.unplug_requested:
            self.firmware.unplug_requested = False
            self._unplug_now()
            self._replug_at = now + self.config.unplug_s

    def _flush(self) -> None:
        if not self._tx or not self._plugged:
            return
        try:
            written = os.write(self._master, self._tx)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno == errno.EIO:
                return
            raise
        del self._tx[:written]


def start_sim_dealer(url: str) -> SimDealer:
    """Start a simulated dealer from a ``sim://?...`` URL (see :mod:`.config`)."""
    from .config import parse_sim_url

    return SimDealer(parse_sim_url(url))
