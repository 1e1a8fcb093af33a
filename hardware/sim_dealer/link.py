"""The device end of the dealer link as a pure state machine (what the dealer's firmware runs).

- Commands: executed at most once per sequence number. The last command and its encoded reply are kept; a
  retransmission (same seq, type and payload) gets the cached reply again without executing anything, and
  a command older than the newest executed one (a delayed copy) is ignored. IDENTIFY is read-only and always
  answered; it tells the host the newest command number so that a new host session continues after it.
- Events: numbered, buffered until the host acknowledges them cumulatively, sent ``window`` at a time. A gap
  the host reports (SACK bitmap of its ACK frames) is resent at once; after an adaptive timeout (RFC 6298
  estimator from the ack round trips) every unacknowledged event in the window is resent. Never dropped:
  the firmware stops feeding cards while the backlog is long (backpressure).
- Heartbeat every ``heartbeat_s``; host silence longer than ``host_timeout_s`` is reported once (the
  firmware stops the motors).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from firmware_bridge.framing import FLAG_ACK_VALID, FLAG_RETRANSMIT, Frame, encode_frame
from firmware_bridge.link import RtoEstimator, seq_add, seq_diff
from firmware_bridge.messages import Ack, DeviceHeartbeat, PayloadError
from firmware_bridge.protocol import Msg, is_command


@dataclass
class _Out:
    seq: int
    type: int
    payload: bytes
    sent_at: float | None = None
    attempts: int = 0
    sacked: bool = False


@dataclass
class DeviceLinkStats:
    commands: int = 0
    duplicate_commands: int = 0
    stale_commands: int = 0
    events: int = 0
    retransmits: int = 0


class DeviceLink:
    def __init__(
        self, boot_id: int, now: float, *, window: int = 16, heartbeat_s: float = 0.2,
        host_timeout_s: float = 1.5, first_event_seq: int = 0,
    ) -> None:
        self.boot_id = boot_id
        self.window = window
        self.heartbeat_s = heartbeat_s
        self.host_timeout_s = host_timeout_s
        self.rto = RtoEstimator(rto_initial=0.2, rto_min=0.02, rto_max=0.25)
        self.stats = DeviceLinkStats()
        self._queue: deque[_Out] = deque()
        self._next_seq = first_event_seq % 0x10000
        self.last_command: int | None = None  # newest command sequence number executed
        self._last_cmd: tuple[int, int, bytes] | None = None
        self._last_reply: bytes | None = None
        self._last_cmd_seq = 0
        self._last_rx = now
        self._last_tx = float("-inf")
        self._host_lost_reported = False
        self.start = now

    # -- queries --
    @property
    def event_base(self) -> int:
        return self._queue[0].seq if self._queue else self._next_seq

    @property
    def event_next(self) -> int:
        return self._next_seq

    @property
    def backlog(self) -> int:
        return len(self._queue)

    def uptime_ms(self, now: float) -> int:
        return int((now - self.start) * 1000) & 0xFFFFFFFF

    def next_deadline(self) -> float:
        times = [self._last_tx + self.heartbeat_s]
        if not self._host_lost_reported:
            times.append(self._last_rx + self.host_timeout_s)
        head = self._queue[0] if self._queue else None
        if head is not None:
            if head.sent_at is None:
                return 0.0
            times.append(head.sent_at + self.rto.rto)
            for out in list(self._queue)[: self.window]:
                if out.sent_at is None:
                    return 0.0
        return min(times)

    # -- incoming --
    def on_frame(self, frame: Frame, now: float) -> tuple[Frame | None, list[bytes]]:
        """Handle a host frame: returns (command to execute or None, bytes to send now)."""
        self._last_rx = now
        self._host_lost_reported = False
        resend: list[bytes] = []
        if frame.ack_valid:
            self._on_ack(frame.ack, now)
            if frame.type == Msg.ACK:
                resend = self._on_sack(frame, now)
        if not is_command(frame.type):
            return None, resend
        if frame.type == Msg.IDENTIFY:  # read-only: always answered; moves the command position forward only
            if self.last_command is None or seq_diff(frame.seq, self.last_command) > 0:
                self.last_command = frame.seq
            self.stats.commands += 1
            return frame, []
        key = (frame.seq, frame.type, frame.payload)
        if key == self._last_cmd and self._last_reply is not None:
            self.stats.duplicate_commands += 1
            return None, [self._stamp(self._last_reply, now)]
        if self.last_command is not None and seq_diff(frame.seq, self.last_command) <= 0:
            self.stats.stale_commands += 1  # an old command delivered late: never execute it again
            return None, []
        self.stats.commands += 1
        self.last_command = frame.seq
        self._last_cmd = key
        self._last_reply = None
        return frame, []

    def _on_ack(self, ack: int, now: float) -> None:
        if not self._queue:
            return
        if seq_diff(ack, self._queue[0].seq) < 0 or seq_diff(ack, self._next_seq) >= 0:
            return  # nothing new, or acknowledges something never sent (stale or foreign): ignore
        clean: _Out | None = None  # newest acknowledged event sent only once (Karn's rule)
        while self._queue and seq_diff(ack, self._queue[0].seq) >= 0:
            out = self._queue.popleft()
            if out.attempts == 1 and out.sent_at is not None and not out.sacked:
                clean = out
        if clean is not None and clean.sent_at is not None:
            self.rto.sample(now - clean.sent_at)
        else:
            self.rto.restore()

    def _on_sack(self, frame: Frame, now: float) -> list[bytes]:
        """Mark what the host holds beyond the gap, and resend the gaps below the highest one it holds."""
        try:
            bits = Ack.unpack(frame.payload).sack
        except PayloadError:
            return []
        if not bits or not self._queue:
            return []
        highest = -1
        for out in self._queue:
            i = seq_diff(out.seq, frame.ack) - 2
            if 0 <= i < 32 and bits >> i & 1:
                out.sacked = True
                highest = max(highest, i)
        guard = max(0.005, 2 * (self.rto.srtt or 0.0))
        resend: list[bytes] = []
        for out in self._queue:
            if seq_diff(out.seq, frame.ack) - 2 >= highest:
                break
            if not out.sacked and out.sent_at is not None and now - out.sent_at >= guard:
                out.sent_at = now
                out.attempts += 1
                self.stats.retransmits += 1
                resend.append(self._stamp(self._event_bytes(out), now))
        return resend

    # -- outgoing --
    def _stamp(self, data: bytes, now: float) -> bytes:
        self._last_tx = now
        return data

    def reply(self, command: Frame, reply_type: int, payload: bytes, now: float) -> bytes:
        """Encode, cache and return the reply to ``command`` (its ack field names the command)."""
        data = encode_frame(Frame(reply_type, 0, command.seq, FLAG_ACK_VALID, payload))
        if (command.seq, command.type, command.payload) == self._last_cmd:
            self._last_reply = data
        self._last_cmd_seq = command.seq
        return self._stamp(data, now)

    def emit(self, event_type: int, payload: bytes) -> int:
        """Queue an event; it is sent as soon as the window allows and kept until acknowledged."""
        seq = self._next_seq
        self._next_seq = seq_add(seq, 1)
        self._queue.append(_Out(seq, event_type, payload))
        self.stats.events += 1
        return seq

    def _event_bytes(self, out: _Out) -> bytes:
        flags = FLAG_ACK_VALID | (FLAG_RETRANSMIT if out.attempts > 1 else 0)
        return encode_frame(Frame(out.type, out.seq, self._last_cmd_seq, flags, out.payload))

    def poll(self, now: float, state: int) -> tuple[list[bytes], bool]:
        """Send what is due; returns (bytes to send, host newly lost)."""
        out: list[bytes] = []
        head = self._queue[0] if self._queue else None
        if head is not None and head.sent_at is not None and now >= head.sent_at + self.rto.rto:
            self.rto.backoff()
            for item in list(self._queue)[: self.window]:
                if item.sent_at is None:
                    break
                if item.sacked:
                    continue
                item.sent_at = now
                item.attempts += 1
                self.stats.retransmits += 1
                out.append(self._stamp(self._event_bytes(item), now))
        for i, item in enumerate(self._queue):
            if i >= self.window:
                break
            if item.sent_at is None:
                item.sent_at = now
                item.attempts = 1
                out.append(self._stamp(self._event_bytes(item), now))
        if now - self._last_tx >= self.heartbeat_s:
            beat = DeviceHeartbeat(self.boot_id, state, self.uptime_ms(now)).pack()
            out.append(self._stamp(encode_frame(Frame(Msg.HEARTBEAT, 0, self._last_cmd_seq, 0, beat)), now))
        return out, self.check_host(now)

    def check_host(self, now: float) -> bool:
        """True once when the host has been silent longer than ``host_timeout_s``."""
        if not self._host_lost_reported and now - self._last_rx > self.host_timeout_s:
            self._host_lost_reported = True
            return True
        return False
