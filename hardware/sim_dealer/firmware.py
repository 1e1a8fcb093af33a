"""The simulated dealer's firmware: command handling, the deal state machine, faults, reboots. Pure code.

Bytes and time in (``receive``, ``poll``), bytes out; the pty runner does the I/O. It speaks the protocol of
``docs/dealer-protocol.md`` through :class:`DeviceLink` and drives :class:`Mechanics`. It never decides a
deal: a card goes to the bin the host's committed plan names for that copy of its face (or, for a dealer
without a reader, 27 a seat in turn).
"""

from __future__ import annotations

import hashlib
import os
import random

from firmware_bridge.deal import unpack_bins
from firmware_bridge.framing import MAX_PAYLOAD, Frame, FrameDecoder
from firmware_bridge.messages import (
    Boot,
    CommitPlan,
    Configure,
    FaultMsg,
    Identity,
    LoadPlan,
    PayloadError,
    Ping,
    Pong,
    ResultMsg,
    Resume,
    SelfTestReport,
    Start,
    Status,
    decode_payload,
)
from firmware_bridge.protocol import (
    FIRMWARE_PROTOCOL,
    NO_CARD,
    Cap,
    Fault,
    Msg,
    ResetCause,
    Result,
    SelfTestItem,
    State,
)

from .config import DeviceSettings, SimConfig
from .deal_run import BACKLOG_LIMIT, DealRun
from .link import DeviceLink
from .mechanics import Mechanics

FW_VERSION = (1, 2, 0)
PLAN_SIZE = 108


class SimFirmware:
    link: DeviceLink  # made at each boot (absent before the first)

    def __init__(self, config: SimConfig, rng: random.Random, now: float) -> None:
        self.config = config
        self.rng = rng
        self._now = now
        self.mechanics = Mechanics(config, rng)
        self.boots = 0
        self.past_link_stats: dict[str, int] = {}
        self.unplug_requested = False
        self._boot(now, ResetCause.POWER_ON)

    # -- boot --
    def _boot(self, now: float, cause: ResetCause) -> None:
        """Everything volatile is lost; the cards stay where they physically are."""
        self.boots += 1
        if hasattr(self, "link"):  # keep the statistics of the boots before
            for name, value in vars(self.link.stats).items():
                self.past_link_stats[name] = self.past_link_stats.get(name, 0) + value
        self.boot_id = int.from_bytes(os.urandom(4), "little")
        self.reset_cause = cause
        self.settings = DeviceSettings()
        self.link = DeviceLink(
            self.boot_id, now, heartbeat_s=self.settings.heartbeat_s,
            host_timeout_s=self.settings.host_timeout_s, first_event_seq=self.boot_id & 0xFFFF,
        )
        self.decoder = FrameDecoder()
        self.state = State.IDLE
        self.plan_data = bytearray()
        self.plan_deal_id = 0
        self.plan_ready = False
        self.plan_bins: list[int] = []
        self.run: DealRun | None = None
        self.door_open_until = float("-inf")
        self.last_fault = 0
        self.estop = False
        self._out: list[bytes] = []
        self.link.emit(Msg.BOOT, Boot(self.boot_id, cause, *FW_VERSION).pack())
        if cause == ResetCause.BROWN_OUT:
            self.fault(Fault.BROWN_OUT, NO_CARD, "supply dipped below 4.2 V; rebooted")

    def reboot(self, now: float, cause: ResetCause) -> None:
        self._boot(now, cause)

    def link_stats(self) -> dict[str, int]:
        """Device link statistics summed over every boot."""
        return {k: v + self.past_link_stats.get(k, 0) for k, v in vars(self.link.stats).items()}

    @property
    def capabilities(self) -> int:
        caps = Cap.DOUBLE_FEED_SENSOR | Cap.DOOR_SENSOR
        if self.config.faces:
            caps |= Cap.READS_FACES
        if self.config.deals_to_plan:
            caps |= Cap.DEALS_TO_PLAN
        return int(caps)

    # -- events --
    def fault(self, code: Fault, index: int, text: str = "") -> None:
        self.last_fault = int(code)
        deal_id = self.run.deal_id if self.run else 0
        self.link.emit(Msg.FAULT, FaultMsg(deal_id, code, index, text).pack())

    def status(self) -> Status:
        run = self.run
        flags = (Status.DOOR_OPEN if self.door_open else 0) | (Status.ESTOP if self.estop else 0)
        flags |= Status.PLAN_READY if self.plan_ready else 0
        seats = tuple(run.seat_counts) if run else (0, 0, 0, 0)
        return Status(
            self.state, self.boot_id, run.deal_id if run else self.plan_deal_id, run.index if run else 0,
            seats,  # type: ignore[arg-type]
            run.reject if run else 0, min(255, len(self.mechanics.hopper)), self.last_fault, flags,
        )

    def set_state(self, state: State) -> None:
        if state != self.state:
            self.state = state
            self.link.emit(Msg.STATUS, self.status().pack())

    @property
    def door_open(self) -> bool:
        return self._now < self.door_open_until

    # -- I/O entry points --
    def receive(self, data: bytes, now: float) -> None:
        self._now = now
        for frame in self.decoder.feed(data):
            command, immediate = self.link.on_frame(frame, now)
            self._out.extend(immediate)
            if command is not None:
                reply_type, payload = self._execute(command, now)
                self._out.append(self.link.reply(command, reply_type, payload, now))

    def poll(self, now: float) -> list[bytes]:
        self._now = now
        run = self.run
        if self.link.check_host(now) and self.state == State.DEALING:
            self.fault(Fault.HOST_LOST, run.index if run else NO_CARD, "host silent: motors stopped")
            self.set_state(State.PAUSED)
        if self.state == State.DEALING and run is not None:
            run.advance(self, now)
        out, _ = self.link.poll(now, self.state)
        result, self._out = self._out + out, []
        return result

    def next_deadline(self, now: float) -> float:
        times = [self.link.next_deadline()]
        if self.state == State.DEALING and self.run is not None and self.link.backlog < BACKLOG_LIMIT:
            times.append(self.run.next_card_at)
        return min(times)

    # -- commands --
    def _execute(self, frame: Frame, now: float) -> tuple[int, bytes]:
        try:
            body = decode_payload(frame.type, frame.payload, from_device=False)
        except PayloadError as exc:
            code = Result.UNKNOWN_COMMAND if "unknown" in str(exc) else Result.BAD_PAYLOAD
            return Msg.RESULT, ResultMsg(code, str(exc)).pack()
        mtype = frame.type
        if mtype == Msg.IDENTIFY:
            return Msg.IDENTITY, Identity(
                *FW_VERSION, FIRMWARE_PROTOCOL, self.boot_id, self.reset_cause, self.capabilities,
                self.link.event_base, self.link.event_next, self.link.window, MAX_PAYLOAD,
                self.link.last_command or 0, "sim-dealer",
            ).pack()
        if mtype == Msg.PING:
            assert isinstance(body, Ping)
            return Msg.PONG, Pong(body.nonce, self.link.uptime_ms(now)).pack()
        if mtype == Msg.GET_STATUS:
            return Msg.STATUS_REPLY, self.status().pack()
        if mtype == Msg.SELF_TEST:
            return self._self_test()
        code, text = self._command(mtype, body, now)
        return Msg.RESULT, ResultMsg(code, text).pack()

    def _self_test(self) -> tuple[int, bytes]:
        if self.state in (State.DEALING, State.PAUSED, State.FAULTED):
            return Msg.RESULT, ResultMsg(Result.BAD_STATE, "cannot self-test during a deal").pack()
        checks = {
            SelfTestItem.FEEDER: True, SelfTestItem.READER: True, SelfTestItem.BIN_GATES: True,
            SelfTestItem.DOOR: not self.door_open, SelfTestItem.SUPPLY: True, SelfTestItem.SENSORS: True,
        }
        items = tuple((int(item), int(ok)) for item, ok in checks.items())
        return Msg.SELF_TEST_REPORT, SelfTestReport(int(all(checks.values())), items).pack()

    def _command(self, mtype: int, body: object, now: float) -> tuple[Result, str]:
        state = self.state
        in_deal = state in (State.DEALING, State.PAUSED, State.FAULTED)
        if mtype == Msg.ESTOP:
            self.estop = True
            self.set_state(State.ESTOP)
            self.fault(Fault.ESTOP, NO_CARD, "emergency stop")
            return Result.OK, "stopped"
        if mtype == Msg.ABORT:
            self.estop = False
            if self.run is not None and state != State.DONE:
                self.run.finish(self, complete=False)
            self.run = None
            self.plan_ready = False
            self.set_state(State.IDLE)
            return Result.OK, "aborted"
        if state == State.ESTOP:
            return Result.ESTOPPED, "emergency stop latched: ABORT first"
        if mtype == Msg.CONFIGURE:
            assert isinstance(body, Configure)
            self.settings = DeviceSettings(
                max(0.1, body.host_timeout_ms / 1000), max(0.02, body.heartbeat_ms / 1000), body.min_quality,
                max(1, body.max_reads),
            )
            self.link.host_timeout_s = self.settings.host_timeout_s
            self.link.heartbeat_s = self.settings.heartbeat_s
            return Result.OK, "configured"
        if mtype == Msg.LOAD_PLAN:
            assert isinstance(body, LoadPlan)
            if not self.config.deals_to_plan:
                return Result.UNSUPPORTED, "this dealer cannot deal to a plan"
            if in_deal:
                return Result.BAD_STATE, "a deal is in progress"
            if body.part == 0:
                self.plan_data = bytearray()
                self.plan_deal_id = body.deal_id
            elif body.deal_id != self.plan_deal_id:
                return Result.NO_PLAN, "part of a different plan"
            self.plan_data += body.data
            self.plan_ready = False
            if self.state == State.READY:
                self.set_state(State.IDLE)
            return Result.OK, f"{len(self.plan_data)} bytes"
        if mtype == Msg.COMMIT_PLAN:
            assert isinstance(body, CommitPlan)
            return self._commit(body)
        if mtype == Msg.START:
            assert isinstance(body, Start)
            return self._start(body, now)
        if mtype == Msg.PAUSE:
            if state == State.DEALING:
                self.set_state(State.PAUSED)
            return (Result.OK, "paused") if in_deal else (Result.BAD_STATE, "not dealing")
        if mtype == Msg.RESUME:
            assert isinstance(body, Resume)
            if body.boot_id != self.boot_id:
                return Result.BOOT_MISMATCH, f"boot id is {self.boot_id:08x}"
            if state == State.DEALING:
                return Result.OK, "dealing"
            if state not in (State.PAUSED, State.FAULTED):
                return Result.BAD_STATE, "nothing to resume"
            if self.door_open:
                return Result.DOOR_OPEN, "close the door"
            self.set_state(State.DEALING)
            if self.run is not None:
                self.run.next_card_at = now + self.config.scaled(0.3)
            return Result.OK, "resumed"
        if mtype == Msg.PURGE:
            if state == State.DEALING:
                return Result.BAD_STATE, "pause or abort first"
            return Result.OK, "card path clear"
        return Result.UNKNOWN_COMMAND, f"command 0x{mtype:02X} not handled"

    def _commit(self, body: CommitPlan) -> tuple[Result, str]:
        if not self.config.deals_to_plan:
            return Result.UNSUPPORTED, "this dealer cannot deal to a plan"
        if self.state in (State.DEALING, State.PAUSED, State.FAULTED):
            return Result.BAD_STATE, "a deal is in progress"
        data = bytes(self.plan_data)
        if body.deal_id != self.plan_deal_id or not data:
            return Result.NO_PLAN, "no plan loaded for this deal"
        if body.total != PLAN_SIZE or len(data) != (PLAN_SIZE + 3) // 4:
            return Result.BAD_DIGEST, f"plan of {body.total} cards in {len(data)} bytes"
        if hashlib.sha256(data).digest()[:8] != body.digest:
            return Result.BAD_DIGEST, "digest mismatch"
        bins = unpack_bins(data, PLAN_SIZE)
        if any(bins.count(s) != 27 for s in range(4)):
            return Result.BAD_DIGEST, "plan does not give 27 cards to each seat"
        self.plan_bins = bins
        self.plan_ready = True
        self.set_state(State.READY)
        return Result.OK, "plan committed"

    def _start(self, body: Start, now: float) -> tuple[Result, str]:
        if self.state in (State.DEALING, State.PAUSED, State.FAULTED):
            return Result.BAD_STATE, "a deal is in progress"
        if body.use_plan:
            if not (self.plan_ready and self.state == State.READY):
                return Result.NO_PLAN, "no committed plan"
            if body.deal_id != self.plan_deal_id:
                return Result.NO_PLAN, "START names another plan"
        elif self.config.deals_to_plan:
            return Result.NO_PLAN, "this dealer deals only to a committed plan"
        plan = self.plan_bins if body.use_plan else None
        self.mechanics.load_deck()
        self.run = DealRun.begin(self, body.deal_id, plan, now)
        self.plan_ready = False
        self.set_state(State.DEALING)
        return Result.OK, "dealing"
