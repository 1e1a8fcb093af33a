"""The simulated firmware as a pure state machine: frames and a fake clock in, frames out."""

from __future__ import annotations

import hashlib
import random
from typing import TypeVar

from firmware_bridge.deal import DealPlan, new_deal
from firmware_bridge.framing import FLAG_ACK_VALID, Frame, FrameDecoder, encode_frame
from firmware_bridge.messages import (
    Ack,
    CardMsg,
    CommitPlan,
    DealDone,
    FaultMsg,
    Identity,
    LoadPlan,
    ResultMsg,
    Resume,
    Start,
    Status,
    decode_payload,
)
from firmware_bridge.protocol import Fault, Msg, Result, State
from hardware.sim_dealer.config import SimConfig
from hardware.sim_dealer.firmware import SimFirmware

T = TypeVar("T")


class Host:
    """Just enough of a host to drive the firmware by hand."""

    def __init__(self, config: SimConfig | None = None) -> None:
        self.now = 0.0
        self.fw = SimFirmware(config or SimConfig(speed=0), random.Random(5), self.now)
        self.decoder = FrameDecoder()
        self.seq = 1
        self.acked: int | None = None
        self.events: list[Frame] = []

    def pump(self, dt: float = 0.0) -> list[Frame]:
        self.now += dt
        frames = [f for data in self.fw.poll(self.now) for f in self.decoder.feed(data)]
        for f in frames:
            if 0x80 <= f.type < 0xC0 and (self.acked is None or f.seq == (self.acked + 1) & 0xFFFF):
                self.events.append(f)
                self.acked = f.seq
        return frames

    def send(self, frame: Frame) -> list[Frame]:
        self.fw.receive(encode_frame(frame), self.now)
        return self.pump()

    def command(self, mtype: int, payload: bytes = b"", seq: int | None = None) -> tuple[Frame, object]:
        seq = self.seq if seq is None else seq
        self.seq += 1
        ack = self.acked if self.acked is not None else 0
        frames = self.send(Frame(mtype, seq, ack, FLAG_ACK_VALID if self.acked is not None else 0, payload))
        reply = next(f for f in frames if 0x40 <= f.type < 0x80)
        assert reply.ack == seq
        return reply, decode_payload(reply.type, reply.payload, from_device=True)

    def command_result(self, mtype: int, payload: bytes = b"", seq: int | None = None) -> tuple[Frame, ResultMsg]:
        """:meth:`command`, for a command the device answers with a RESULT."""
        reply, body = self.command(mtype, payload, seq)
        assert isinstance(body, ResultMsg), body
        return reply, body

    def result(self, mtype: int, payload: bytes = b"", seq: int | None = None) -> ResultMsg:
        """The RESULT a command is answered with."""
        return self.command_result(mtype, payload, seq)[1]

    def ack(self) -> None:
        self.send(Frame(Msg.ACK, 0, self.acked or 0, FLAG_ACK_VALID, Ack(0).pack()))

    def state(self) -> State:
        """The firmware's state now: a call, so that a type checker carries no narrowing from an earlier assert
        across the frames pumped since."""
        return self.fw.state

    def bodies(self, kind: type[T]) -> list[T]:
        out: list[T] = []
        for f in self.events:
            body = decode_payload(f.type, f.payload, from_device=True)
            if isinstance(body, kind):
                out.append(body)
        return out

    def run_until_done(self, limit: int = 5000) -> None:
        for _ in range(limit):
            self.now += 0.001
            self.ack()
            if self.bodies(DealDone) or (self.fw.state != State.DEALING and not self.fw.link.backlog):
                return
        raise AssertionError("deal did not finish")


def identified(config: SimConfig | None = None) -> Host:
    host = Host(config)
    _, ident = host.command(Msg.IDENTIFY)
    assert isinstance(ident, Identity)
    host.acked = (ident.event_base - 1) & 0xFFFF
    host.pump(0.3)  # the BOOT event went out before we knew where to start: its retransmission
    assert host.events and host.events[0].type == Msg.BOOT
    host.ack()
    return host


def load(host: Host, plan: DealPlan, deal_id: int = 9) -> None:
    assert host.command(Msg.LOAD_PLAN, LoadPlan(deal_id, 0, 1, plan.plan_bytes()).pack())[1] == ResultMsg(0, "27 bytes")
    code = host.result(Msg.COMMIT_PLAN, CommitPlan(deal_id, 108, plan.digest()).pack()).code
    assert code == Result.OK


def test_identity_and_boot_event() -> None:
    host = Host()
    _, ident = host.command(Msg.IDENTIFY)
    assert isinstance(ident, Identity)
    assert ident.protocol == 1 and ident.boot_id == host.fw.boot_id and ident.capabilities == 0x0F
    assert ident.event_base == host.fw.boot_id & 0xFFFF  # the BOOT event is still unacknowledged
    host.acked = (ident.event_base - 1) & 0xFFFF
    host.pump(0.3)
    assert host.events[0].type == Msg.BOOT


def test_deals_every_card_to_the_plan() -> None:
    host = identified()
    plan = new_deal(1)
    load(host, plan)
    assert host.result(Msg.START, Start(9, 1).pack()).code == Result.OK
    host.run_until_done()
    cards = host.bodies(CardMsg)
    assert [c.index for c in cards] == list(range(108))
    truth = host.fw.mechanics.truth()
    for seat in "SENW":
        assert sorted(truth[seat]) == sorted(c.code for c in plan.hands[seat])
    assert host.bodies(DealDone)[-1] == DealDone(9, 108, (27, 27, 27, 27), 0, 1)


def test_a_retransmitted_command_is_answered_from_the_cache_not_run_again() -> None:
    host = identified()
    load(host, new_deal(1))
    first, body = host.command_result(Msg.START, Start(9, 1).pack(), seq=500)
    assert body.code == Result.OK
    again, body2 = host.command_result(Msg.START, Start(9, 1).pack(), seq=500)
    assert again == first and body2.code == Result.OK  # a second START would say BAD_STATE
    _, body3 = host.command_result(Msg.START, Start(9, 1).pack(), seq=501)
    assert body3.code == Result.BAD_STATE
    assert host.fw.link.stats.duplicate_commands == 1


def test_plan_checks() -> None:
    host = identified()
    plan = new_deal(1)
    assert host.result(Msg.START, Start(9, 1).pack()).code == Result.NO_PLAN
    host.command(Msg.LOAD_PLAN, LoadPlan(9, 0, 1, plan.plan_bytes()).pack())
    bad = host.result(Msg.COMMIT_PLAN, CommitPlan(9, 108, bytes(8)).pack())
    assert bad.code == Result.BAD_DIGEST
    assert host.result(Msg.COMMIT_PLAN, CommitPlan(8, 108, plan.digest()).pack()).code == Result.NO_PLAN
    lopsided = bytes(27)  # every card to S
    host.command(Msg.LOAD_PLAN, LoadPlan(9, 0, 1, lopsided).pack())
    body = host.result(Msg.COMMIT_PLAN, CommitPlan(9, 108, hashlib.sha256(lopsided).digest()[:8]).pack())
    assert body.code == Result.BAD_DIGEST and "27" in body.text
    assert host.result(0x3E).code == Result.UNKNOWN_COMMAND
    assert host.result(Msg.PING, b"\x01").code == Result.BAD_PAYLOAD


def test_host_silence_stops_the_motors_and_resume_needs_the_same_boot() -> None:
    host = identified(SimConfig(speed=1))
    load(host, new_deal(1))
    host.command(Msg.START, Start(9, 1).pack())
    host.pump(1.0)
    host.ack()
    assert host.state() == State.DEALING
    assert host.fw.run is not None
    dealt = host.fw.run.index
    host.pump(1.6)  # no frame from the host for more than 1.5 s
    assert host.state() == State.PAUSED
    assert any(f.code == Fault.HOST_LOST for f in host.bodies(FaultMsg))
    host.pump(1.0)
    assert host.fw.run.index == dealt  # motors stopped
    assert host.result(Msg.RESUME, Resume(host.fw.boot_id ^ 1).pack()).code == Result.BOOT_MISMATCH
    assert host.result(Msg.RESUME, Resume(host.fw.boot_id).pack()).code == Result.OK
    assert host.state() == State.DEALING


def test_jam_waits_for_resume() -> None:
    host = identified(SimConfig(speed=0, jam=1.0))
    load(host, new_deal(1))
    host.command(Msg.START, Start(9, 1).pack())
    host.ack()
    assert host.state() == State.FAULTED
    assert host.bodies(FaultMsg)[-1].code == Fault.JAM
    assert host.result(Msg.SELF_TEST).code == Result.BAD_STATE


def test_estop_latches_until_abort() -> None:
    host = identified()
    assert host.result(Msg.ESTOP).code == Result.OK
    assert host.state() == State.ESTOP
    assert host.result(Msg.START, Start(9, 1).pack()).code == Result.ESTOPPED
    _, status = host.command(Msg.GET_STATUS)
    assert isinstance(status, Status) and status.flags & Status.ESTOP
    assert host.result(Msg.ABORT).code == Result.OK
    assert host.state() == State.IDLE


def test_reboot_forgets_everything_but_the_cards() -> None:
    host = identified(SimConfig(speed=0, reset=1.0))
    old = host.fw.boot_id
    load(host, new_deal(1))
    host.command(Msg.START, Start(9, 1).pack())
    for _ in range(200):
        host.pump(0.01)
        if host.fw.boot_id != old:
            break
    assert host.fw.boot_id != old and host.state() == State.IDLE
    assert sum(len(v) for v in host.fw.mechanics.truth().values()) > 0
    assert host.result(Msg.RESUME, Resume(old).pack()).code == Result.BOOT_MISMATCH


def test_no_reader_deals_27_a_seat_without_plan() -> None:
    host = identified(SimConfig(speed=0, faces=False))
    assert host.result(Msg.LOAD_PLAN, LoadPlan(1, 0, 1, bytes(27)).pack()).code == Result.UNSUPPORTED
    assert host.result(Msg.START, Start(4, 0).pack()).code == Result.OK
    host.run_until_done()
    done = host.bodies(DealDone)[-1]
    assert done.seats == (27, 27, 27, 27) and all(c.face == 0xFF for c in host.bodies(CardMsg))


def test_a_delayed_older_command_is_never_executed_and_identify_tells_where_we_are() -> None:
    host = identified()
    load(host, new_deal(1))
    host.command(Msg.START, Start(9, 1).pack(), seq=500)
    host.command(Msg.PAUSE, b"", seq=501)
    frames = host.send(Frame(Msg.RESUME, 499, 0, 0, Resume(host.fw.boot_id).pack()))  # a late copy
    assert not [f for f in frames if 0x40 <= f.type < 0x80]
    assert host.state() == State.PAUSED and host.fw.link.stats.stale_commands == 1
    _, ident = host.command(Msg.IDENTIFY, seq=7)  # a new host session starting far behind
    assert isinstance(ident, Identity)
    assert ident.last_command == 501
    assert host.result(Msg.RESUME, Resume(host.fw.boot_id).pack(), seq=502).code == Result.OK
