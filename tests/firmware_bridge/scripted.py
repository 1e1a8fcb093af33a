"""A scripted device on a real pty, for client tests that need exact control of what the dealer says.

``ScriptedDevice(handler)``: every valid frame from the host is passed to ``handler(device, frame)``, which
answers with ``device.send(frame)`` (or stays silent). ``device.received`` keeps every host frame.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import tempfile
import threading
import tty
from collections.abc import Callable

from firmware_bridge.framing import FLAG_ACK_VALID, Frame, FrameDecoder, encode_frame
from firmware_bridge.messages import DeviceHeartbeat, Identity
from firmware_bridge.protocol import Msg


class ScriptedDevice:
    def __init__(self, handler: Callable[[ScriptedDevice, Frame], None], boot_id: int = 0xB0B0B0B0) -> None:
        self.handler = handler
        self.boot_id = boot_id
        self.received: list[Frame] = []
        self.event_seq = 1000
        self._dir = tempfile.mkdtemp(prefix="scripted-dealer-")
        self.path = os.path.join(self._dir, "tty")
        self._lock = threading.Lock()
        self._stop = False
        self._plug()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _plug(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        tmp = self.path + ".new"
        os.symlink(os.ttyname(self.slave), tmp)
        os.replace(tmp, self.path)
        self.decoder = FrameDecoder()

    def unplug(self) -> None:
        with self._lock:
            os.unlink(self.path)
            os.close(self.master)
            os.close(self.slave)
            self.master = -1

    def replug(self) -> None:
        with self._lock:
            self._plug()

    def send(self, frame: Frame) -> None:
        if self.master >= 0:
            os.write(self.master, encode_frame(frame))

    def reply(self, command: Frame, mtype: int, payload: bytes) -> None:
        self.send(Frame(mtype, 0, command.seq, FLAG_ACK_VALID, payload))

    def identity(self, command: Frame) -> None:
        ident = Identity(
            1, 0, 0, 1, self.boot_id, 0, 0x0F, self.event_seq, self.event_seq, 16, 240, command.seq, "scripted"
        )
        self.reply(command, Msg.IDENTITY, ident.pack())

    def event(self, mtype: int, payload: bytes, seq: int | None = None) -> None:
        if seq is None:
            seq = self.event_seq
            self.event_seq += 1
        self.send(Frame(mtype, seq, 0, FLAG_ACK_VALID, payload))

    def heartbeat(self, boot_id: int | None = None) -> None:
        beat = DeviceHeartbeat(self.boot_id if boot_id is None else boot_id, 0, 1)
        self.send(Frame(Msg.HEARTBEAT, 0, 0, 0, beat.pack()))

    def _run(self) -> None:
        while not self._stop:
            with self._lock:
                master = self.master
            if master < 0:
                select.select([], [], [], 0.01)
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.02)
                data = os.read(master, 4096) if ready else b""
            except OSError:
                continue
            with self._lock:
                for frame in self.decoder.feed(data):
                    self.received.append(frame)
                    self.handler(self, frame)

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        if self.master >= 0:
            for fd in (self.master, self.slave):
                with contextlib.suppress(OSError):
                    os.close(fd)
        shutil.rmtree(self._dir, ignore_errors=True)
