"""The pure host link state machine, driven with a fake clock."""

from __future__ import annotations

import pytest

from firmware_bridge.framing import FLAG_ACK_VALID, FLAG_RETRANSMIT, Frame, FrameDecoder
from firmware_bridge.link import (
    CommandFailed,
    Effect,
    EventIn,
    HostLink,
    LinkConfig,
    LinkDown,
    LinkUp,
    PeerHeartbeat,
    Replied,
    RtoEstimator,
    Send,
    seq_add,
    seq_diff,
)
from firmware_bridge.messages import Ack
from firmware_bridge.protocol import Msg


def sent(effects: list[Effect]) -> list[Frame]:
    decoder = FrameDecoder()
    return [f for e in effects if isinstance(e, Send) for f in decoder.feed(e.data)]


def reply(seq: int, mtype: int = Msg.RESULT) -> Frame:
    return Frame(mtype, 0, seq, FLAG_ACK_VALID, b"\x00")


def event(seq: int) -> Frame:
    return Frame(Msg.CARD, seq, 0, FLAG_ACK_VALID, seq.to_bytes(2, "little"))


def test_serial_number_arithmetic() -> None:
    assert seq_add(0xFFFF, 1) == 0
    assert seq_diff(0, 0xFFFF) == 1
    assert seq_diff(0xFFFF, 0) == -1
    assert seq_diff(0x8000, 0) == -0x8000


def test_rto_follows_rfc6298_and_is_clamped() -> None:
    rto = RtoEstimator(rto_initial=1.0, rto_min=0.2, rto_max=3.0)
    assert rto.rto == 1.0
    rto.sample(0.1)  # SRTT 0.1, RTTVAR 0.05 -> 0.1 + 0.2 = 0.3
    assert rto.srtt == pytest.approx(0.1)
    assert rto.rto == pytest.approx(0.3)
    rto.sample(0.3)  # RTTVAR = .75*.05 + .25*.2 = .0875; SRTT = .875*.1 + .125*.3 = .125
    assert rto.rttvar == pytest.approx(0.0875)
    assert rto.rto == pytest.approx(0.125 + 4 * 0.0875)
    for _ in range(5):
        rto.backoff()
    assert rto.rto == 3.0
    rto.restore()
    assert rto.rto == pytest.approx(0.475)
    for _ in range(50):
        rto.sample(0.0)
    assert rto.rto == 0.2


def test_command_is_retransmitted_with_the_same_seq_until_replied() -> None:
    link = HostLink(LinkConfig(rto_initial=0.1, rto_min=0.05, rto_max=0.4), now=0.0, first_seq=41)
    seq, effects = link.send_command(Msg.PING, b"\x01\x02\x03\x04", 0.0)
    assert seq == 41
    first = sent(effects)[0]
    assert (first.type, first.seq, first.payload, first.ack_valid) == (Msg.PING, 41, b"\x01\x02\x03\x04", False)
    with pytest.raises(RuntimeError):
        link.send_command(Msg.PING, b"", 0.0)
    assert sent(link.poll(0.09)) == []
    again = sent(link.poll(0.1))
    assert [(f.type, f.seq) for f in again] == [(Msg.PING, 41)]
    assert again[0].flags & FLAG_RETRANSMIT and not first.flags & FLAG_RETRANSMIT
    assert link.rto.rto == pytest.approx(0.2)  # backed off
    assert link.on_frame(reply(40), 0.15) == []  # a reply to another command is stale
    effects = link.on_frame(reply(41), 0.15)
    assert [type(e) for e in effects] == [Replied]
    assert isinstance(effects[0], Replied) and effects[0].rtt is None  # Karn: no sample from a retransmitted command
    assert link.rto.rto == pytest.approx(0.1)  # ... but the backoff is undone
    assert link.stats.retransmits == 1
    seq2, _ = link.send_command(Msg.PING, b"", 0.2)
    assert seq2 == 42
    effects = link.on_frame(reply(42), 0.21)
    assert isinstance(effects[0], Replied) and effects[0].rtt == pytest.approx(0.01)


def test_command_fails_after_max_attempts() -> None:
    link = HostLink(LinkConfig(rto_initial=0.1, rto_min=0.1, rto_max=0.1, max_attempts=3, link_lost_s=100))
    link.send_command(Msg.START, b"", 0.0)
    effects = link.poll(0.1) + link.poll(0.21) + link.poll(0.32)
    failed = [e for e in effects if isinstance(e, CommandFailed)]
    assert len(failed) == 1 and "3 attempts" in failed[0].reason
    assert not link.busy


def test_events_are_delivered_in_order_once_with_sack() -> None:
    link = HostLink(now=0.0)
    assert link.on_frame(event(100), 0.0) == []  # not synchronised yet: ignored
    link.sync(100, 100, same_boot=False)
    assert [e.frame.seq for e in link.on_frame(event(100), 0.0) if isinstance(e, EventIn)] == [100]
    # 101 lost; 102 and 104 overtake it
    assert link.on_frame(event(102), 0.0) == []
    assert link.on_frame(event(104), 0.0) == []
    ack = sent(link.poll(0.001))[0]
    assert ack.type == Msg.ACK and ack.ack == 100 and ack.ack_valid
    assert Ack.unpack(ack.payload).sack == 0b101  # 102 = ack + 2 + 0, 104 = ack + 2 + 2
    delivered = [e.frame.seq for e in link.on_frame(event(101), 0.0) if isinstance(e, EventIn)]
    assert delivered == [101, 102]
    assert link.on_frame(event(102), 0.0) == []  # duplicate
    assert [e.frame.seq for e in link.on_frame(event(103), 0.0) if isinstance(e, EventIn)] == [103, 104]
    ack = sent(link.poll(0.002))[0]
    assert (ack.ack, Ack.unpack(ack.payload).sack) == (104, 0)
    assert link.stats.duplicate_events == 1
    link.on_frame(Frame(Msg.CARD, 104, 0, FLAG_ACK_VALID | FLAG_RETRANSMIT, b""), 0.0)
    assert link.stats.peer_retransmits == 1 and link.stats.duplicate_events == 2
    link.poll(0.003)
    # commands carry the cumulative ack too
    _, effects = link.send_command(Msg.GET_STATUS, b"", 0.01)
    cmd = sent(effects)[0]
    assert cmd.ack_valid and cmd.ack == 104


def test_sequence_wraps_around() -> None:
    link = HostLink(now=0.0)
    link.sync(0xFFFE, 0xFFFE, same_boot=False)
    seqs = [0xFFFE, 0xFFFF, 0, 1]
    got = [e.frame.seq for s in seqs for e in link.on_frame(event(s), 0.0) if isinstance(e, EventIn)]
    assert got == seqs


def test_sync_keeps_position_within_the_same_boot() -> None:
    link = HostLink(now=0.0)
    link.sync(10, 10, same_boot=False)
    for s in (10, 11, 12):
        link.on_frame(event(s), 0.0)
    link.sync(11, 14, same_boot=True)  # our ack of 11 and 12 was lost: keep 13
    assert link.expected_event == 13
    link.sync(500, 510, same_boot=True)  # outside the device's range: start at its base
    assert link.expected_event == 500
    link.unsync()
    assert not link.synced and link.on_frame(event(500), 0.0) == []


def test_heartbeat_and_link_loss() -> None:
    link = HostLink(LinkConfig(heartbeat_s=0.2, link_lost_s=1.0), now=0.0)
    beats = sent(link.poll(0.0))
    assert [f.type for f in beats] == [Msg.HEARTBEAT]
    assert sent(link.poll(0.1)) == []
    assert [f.type for f in sent(link.poll(0.2))] == [Msg.HEARTBEAT]
    assert link.next_deadline() == pytest.approx(0.4)
    effects = link.poll(1.01)
    assert any(isinstance(e, LinkDown) for e in effects) and not link.up
    assert not any(isinstance(e, LinkDown) for e in link.poll(1.5))
    effects = link.on_frame(Frame(Msg.HEARTBEAT, 0, 0, 0, bytes(9)), 1.6)
    assert [type(e) for e in effects] == [LinkUp, PeerHeartbeat]


def test_restart_resends_the_outstanding_command_at_once() -> None:
    link = HostLink(now=0.0)
    seq, _ = link.send_command(Msg.RESUME, b"\x01\x02\x03\x04", 0.0)
    frames = sent(link.restart(5.0))
    assert [(f.type, f.seq) for f in frames if f.type == Msg.RESUME] == [(Msg.RESUME, seq)]
