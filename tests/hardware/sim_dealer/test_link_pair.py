"""Host link and device link together over a simulated lossy, duplicating, reordering channel (fake clock).

Whatever the channel does, every device event reaches the host application exactly once and in order,
every host command is executed exactly once, and every reply is matched to its command.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.framing import Frame, FrameDecoder, encode_frame
from firmware_bridge.link import EventIn, HostLink, LinkConfig, Replied, Send
from firmware_bridge.protocol import Msg, State
from hardware.sim_dealer.link import DeviceLink


class Channel:
    def __init__(self, rng: random.Random, loss: float, dup: float, reorder: float) -> None:
        self.rng, self.loss, self.dup, self.reorder = rng, loss, dup, reorder
        self.queue: list[tuple[float, int, bytes]] = []
        self.n = 0

    def put(self, data: bytes, now: float) -> None:
        for _ in range(2 if self.rng.random() < self.dup else 1):
            if self.rng.random() < self.loss:
                continue
            delay = 0.001 + (0.03 * self.rng.random() if self.rng.random() < self.reorder else 0.0)
            self.n += 1
            self.queue.append((now + delay, self.n, data))

    def take(self, now: float) -> list[bytes]:
        due = sorted(x for x in self.queue if x[0] <= now)
        self.queue = [x for x in self.queue if x[0] > now]
        return [d for _, _, d in due]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    loss=st.floats(0, 0.3),
    dup=st.floats(0, 0.2),
    reorder=st.floats(0, 0.3),
    first_event=st.one_of(st.integers(0, 0xFFFF), st.integers(0xFFD0, 0xFFFF)),  # wrap-around too
)
def test_exactly_once_in_order(seed: int, loss: float, dup: float, reorder: float, first_event: int) -> None:
    rng = random.Random(seed)
    to_dev, to_host = Channel(rng, loss, dup, reorder), Channel(rng, loss, dup, reorder)
    now = 0.0
    host = HostLink(LinkConfig(link_lost_s=100, max_attempts=1000), now, first_seq=rng.randrange(1, 0x10000))
    dev = DeviceLink(0xB007, now, host_timeout_s=100, first_event_seq=first_event)
    host.sync(dev.event_base, dev.event_next, same_boot=False)
    host_dec, dev_dec = FrameDecoder(), FrameDecoder()
    n_events, n_commands = 60, 12
    delivered: list[bytes] = []
    executed: list[bytes] = []
    replies: list[tuple[int, bytes]] = []
    commands_sent = emitted = 0
    pending: tuple[int, bytes] | None = None
    for step in range(200_000):
        now = step * 0.001
        if step % 3 == 0 and emitted < n_events and dev.backlog < 48:
            dev.emit(Msg.CARD, emitted.to_bytes(2, "little"))
            emitted += 1
        if pending is None and commands_sent < n_commands:
            payload = commands_sent.to_bytes(4, "little")
            seq, effects = host.send_command(Msg.PING, payload, now)
            pending = (seq, payload)
            commands_sent += 1
            for e in effects:
                assert isinstance(e, Send)
                to_dev.put(e.data, now)
        for data in to_dev.take(now):
            for frame in dev_dec.feed(data):
                command, out = dev.on_frame(frame, now)
                for d in out:
                    to_host.put(d, now)
                if command is not None:
                    executed.append(command.payload)
                    to_host.put(dev.reply(command, Msg.PONG, command.payload + b"\0\0\0\0", now), now)
        out, _ = dev.poll(now, State.DEALING)
        for d in out:
            to_host.put(d, now)
        effects = []
        for data in to_host.take(now):
            for frame in host_dec.feed(data):
                effects += host.on_frame(frame, now)
        effects += host.poll(now)
        for e in effects:
            if isinstance(e, Send):
                to_dev.put(e.data, now)
            elif isinstance(e, EventIn):
                delivered.append(e.frame.payload)
            elif isinstance(e, Replied):
                assert pending is not None and e.seq == pending[0]
                assert e.frame.payload[:4] == pending[1]
                replies.append((e.seq, e.frame.payload[:4]))
                pending = None
        if len(delivered) == n_events and len(replies) == n_commands and dev.backlog == 0:
            break
    assert delivered == [i.to_bytes(2, "little") for i in range(n_events)]
    assert executed == [i.to_bytes(4, "little") for i in range(n_commands)]
    assert [p for _, p in replies] == executed
    if loss > 0.1:
        assert host.stats.retransmits + dev.stats.retransmits > 0


def test_duplicated_frame_bytes_decode_identically() -> None:
    frame = Frame(Msg.CARD, 3, 0, 1, b"x")
    assert FrameDecoder().feed(encode_frame(frame) * 2) == [frame, frame]
