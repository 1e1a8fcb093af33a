"""The host end of the dealer link as a pure state machine: frames and time in, effects out.

- Commands are stop-and-wait: one outstanding command, retransmitted with the same sequence number after an
  adaptive timeout (RFC 6298 estimator, Karn's rule, exponential backoff, clamped) until its reply arrives.
- Device events are delivered strictly in order and acknowledged cumulatively (the ``ack`` field of every
  host frame). Events that overtake a lost one are held (up to ``RECV_AHEAD`` ahead) and reported in the
  SACK bitmap of the next ACK frame, so the device resends only the gaps.
- A heartbeat goes out after ``heartbeat_s`` of host silence; ``link_lost_s`` without any valid frame from
  the device declares the link down (and the first frame afterwards declares it up again).

No I/O and no clock here: the runner passes ``now`` (seconds, monotonic) and writes the ``Send`` effects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .framing import FLAG_ACK_VALID, FLAG_RETRANSMIT, Frame, encode_frame
from .messages import Ack
from .protocol import Msg, is_event, is_reply

SEQ_MOD = 0x10000
RECV_AHEAD = 64  # events held beyond a gap
SACK_BITS = 32


def seq_add(seq: int, n: int) -> int:
    return (seq + n) % SEQ_MOD


def seq_diff(a: int, b: int) -> int:
    """``a - b`` in 16-bit serial-number arithmetic (RFC 1982): negative when ``a`` is before ``b``."""
    d = (a - b) % SEQ_MOD
    return d - SEQ_MOD if d >= SEQ_MOD // 2 else d


@dataclass
class RtoEstimator:
    """Retransmission timeout per RFC 6298 (alpha 1/8, beta 1/4, K 4), clamped to [rto_min, rto_max]."""

    rto_initial: float = 0.25
    rto_min: float = 0.02
    rto_max: float = 1.0
    granularity: float = 0.001
    srtt: float | None = None
    rttvar: float = 0.0
    rto: float = 0.0

    def __post_init__(self) -> None:
        self.rto = self._clamp(self.rto_initial)

    def _clamp(self, value: float) -> float:
        return min(self.rto_max, max(self.rto_min, value))

    def sample(self, rtt: float) -> None:
        """A round trip measured on a frame sent once (Karn: never on a retransmitted one)."""
        rtt = max(0.0, rtt)
        if self.srtt is None:
            self.srtt = rtt
            self.rttvar = rtt / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt
        self.rto = self._clamp(self.srtt + max(self.granularity, 4 * self.rttvar))

    def backoff(self) -> None:
        self.rto = self._clamp(self.rto * 2)

    def restore(self) -> None:
        """Undo the backoff once the peer answered again (even without a clean sample): the loss on a serial
        cable is noise, not congestion, so the next frame need not wait the backed-off time."""
        if self.srtt is None:
            self.rto = self._clamp(self.rto_initial)
        else:
            self.rto = self._clamp(self.srtt + max(self.granularity, 4 * self.rttvar))


@dataclass(frozen=True)
class LinkConfig:
    rto_initial: float = 0.25
    rto_min: float = 0.02
    rto_max: float = 0.25  # a noisy cable loses frames at random, not from congestion: keep retrying briskly
    heartbeat_s: float = 0.2
    link_lost_s: float = 1.5
    max_attempts: int = 15  # transmissions of one command before it is given up


# ---- effects -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    data: bytes


@dataclass(frozen=True)
class Replied:
    seq: int
    command: int
    frame: Frame
    rtt: float | None


@dataclass(frozen=True)
class EventIn:
    frame: Frame


@dataclass(frozen=True)
class PeerHeartbeat:
    frame: Frame


@dataclass(frozen=True)
class CommandFailed:
    seq: int
    command: int
    reason: str


@dataclass(frozen=True)
class LinkDown:
    silent_s: float


@dataclass(frozen=True)
class LinkUp:
    pass


Effect = Send | Replied | EventIn | PeerHeartbeat | CommandFailed | LinkDown | LinkUp


@dataclass
class _Pending:
    seq: int
    command: int
    payload: bytes
    first_sent: float
    last_sent: float
    deadline: float
    attempts: int = 1


@dataclass
class LinkStats:
    commands: int = 0
    retransmits: int = 0  # commands sent again
    peer_retransmits: int = 0  # device events received that the device had sent again
    events: int = 0
    duplicate_events: int = 0
    out_of_order_events: int = 0
    unsynced_events: int = 0
    stale_replies: int = 0
    rtts: list[float] = field(default_factory=list)


class HostLink:
    """Sequence numbers, acknowledgements, retransmission, heartbeats and link-loss detection (host side)."""

    def __init__(self, config: LinkConfig | None = None, now: float = 0.0, first_seq: int = 1) -> None:
        self.config = config or LinkConfig()
        self.rto = RtoEstimator(self.config.rto_initial, self.config.rto_min, self.config.rto_max)
        self.stats = LinkStats()
        self._next_seq = first_seq % SEQ_MOD
        self._pending: _Pending | None = None
        self._expected: int | None = None  # next device event sequence number; None until synchronised
        self._ahead: dict[int, Frame] = {}  # events received beyond a gap, by sequence number
        self._ack_due = False
        self._last_rx = now
        self._last_tx = float("-inf")
        self.up = True

    # -- state queries --
    @property
    def busy(self) -> bool:
        return self._pending is not None

    @property
    def synced(self) -> bool:
        return self._expected is not None

    @property
    def expected_event(self) -> int | None:
        return self._expected

    def next_deadline(self) -> float:
        times = [self._last_tx + self.config.heartbeat_s]
        if self._pending is not None:
            times.append(self._pending.deadline)
        if self.up:
            times.append(self._last_rx + self.config.link_lost_s)
        return min(times)

    # -- event stream alignment --
    def sync(self, event_base: int, event_next: int, *, same_boot: bool) -> None:
        """Align the event receiver after IDENTIFY: keep our position if it is still inside the device's
        unacknowledged range of the same boot, otherwise start at the oldest unacknowledged event."""
        if same_boot and self._expected is not None:
            if 0 <= seq_diff(self._expected, event_base) <= seq_diff(event_next, event_base):
                return
        self._expected = event_base
        self._ahead.clear()
        self._ack_due = True

    def align_commands(self, last_command: int) -> None:
        """Continue numbering commands after the newest one the device executed (IDENTITY tells): a new host
        session must not look like a stale retransmission to the device."""
        if seq_diff(self._next_seq, last_command) <= 0:
            self._next_seq = seq_add(last_command, 1) or 1

    def unsync(self) -> None:
        """Forget the event position (the device rebooted); events are ignored until the next :meth:`sync`."""
        self._expected = None
        self._ahead.clear()

    def _sack(self) -> int:
        if self._expected is None or not self._ahead:
            return 0
        bits = 0
        for seq in self._ahead:
            i = seq_diff(seq, self._expected) - 1
            if 0 <= i < SACK_BITS:
                bits |= 1 << i
        return bits

    # -- outgoing --
    def _frame(self, mtype: int, seq: int = 0, payload: bytes = b"", *, again: bool = False) -> bytes:
        flags = FLAG_RETRANSMIT if again else 0
        if self._expected is None:
            return encode_frame(Frame(mtype, seq, 0, flags, payload))
        ack = seq_add(self._expected, -1)
        return encode_frame(Frame(mtype, seq, ack, flags | FLAG_ACK_VALID, payload))

    def send_command(self, command: int, payload: bytes, now: float) -> tuple[int, list[Effect]]:
        """Start one command; only one may be outstanding (stop-and-wait)."""
        if self._pending is not None:
            raise RuntimeError("a command is already outstanding")
        seq = self._next_seq
        self._next_seq = seq_add(seq, 1) or 1
        self._pending = _Pending(seq, command, payload, now, now, now + self.rto.rto)
        self.stats.commands += 1
        return seq, [self._transmit(self._frame(command, seq, payload), now)]

    def cancel(self) -> None:
        """Drop the outstanding command (its reply, if it comes, is ignored)."""
        self._pending = None

    def _transmit(self, data: bytes, now: float) -> Send:
        self._last_tx = now
        self._ack_due = False
        return Send(data)

    # -- incoming --
    def on_frame(self, frame: Frame, now: float) -> list[Effect]:
        effects: list[Effect] = []
        self._last_rx = now
        if not self.up:
            self.up = True
            effects.append(LinkUp())
        mtype = frame.type
        if is_reply(mtype):
            pending = self._pending
            if pending is not None and frame.ack_valid and frame.ack == pending.seq:
                rtt = now - pending.first_sent if pending.attempts == 1 else None
                if rtt is not None:
                    self.rto.sample(rtt)
                    self.stats.rtts.append(rtt)
                else:
                    self.rto.restore()
                self._pending = None
                effects.append(Replied(pending.seq, pending.command, frame, rtt))
            else:
                self.stats.stale_replies += 1
        elif is_event(mtype):
            if self._expected is None:
                self.stats.unsynced_events += 1
                return effects
            if frame.flags & FLAG_RETRANSMIT:
                self.stats.peer_retransmits += 1
            d = seq_diff(frame.seq, self._expected)
            self._ack_due = True
            if d == 0:
                effects.append(EventIn(frame))
                self.stats.events += 1
                self._expected = seq_add(self._expected, 1)
                while self._expected in self._ahead:
                    effects.append(EventIn(self._ahead.pop(self._expected)))
                    self.stats.events += 1
                    self._expected = seq_add(self._expected, 1)
            elif d < 0 or frame.seq in self._ahead:
                self.stats.duplicate_events += 1
            elif d < RECV_AHEAD:
                self._ahead[frame.seq] = frame
                self.stats.out_of_order_events += 1
            else:
                self.stats.out_of_order_events += 1
        elif mtype == Msg.HEARTBEAT:
            effects.append(PeerHeartbeat(frame))
        return effects

    def poll(self, now: float) -> list[Effect]:
        """Timers: retransmit the outstanding command, flush a due ACK, heartbeat, declare the link lost."""
        effects: list[Effect] = []
        pending = self._pending
        if pending is not None and now >= pending.deadline:
            if pending.attempts >= self.config.max_attempts:
                self._pending = None
                effects.append(
                    CommandFailed(pending.seq, pending.command, f"no reply after {pending.attempts} attempts")
                )
            else:
                pending.attempts += 1
                pending.last_sent = now
                self.stats.retransmits += 1
                self.rto.backoff()
                pending.deadline = now + self.rto.rto
                frame = self._frame(pending.command, pending.seq, pending.payload, again=True)
                effects.append(self._transmit(frame, now))
        if self._ack_due and self._expected is not None:
            effects.append(self._transmit(self._frame(Msg.ACK, 0, Ack(self._sack()).pack()), now))
        if now - self._last_tx >= self.config.heartbeat_s:
            effects.append(self._transmit(self._frame(Msg.HEARTBEAT), now))
        if self.up and now - self._last_rx > self.config.link_lost_s:
            self.up = False
            effects.append(LinkDown(now - self._last_rx))
        return effects

    def restart(self, now: float) -> list[Effect]:
        """After a reconnect: restart the silence timer and resend the outstanding command at once."""
        self._last_rx = now
        self._last_tx = float("-inf")
        pending = self._pending
        if pending is None:
            return []
        pending.deadline = now
        return self.poll(now)
