"""One deal in progress inside the simulated firmware: which card goes where, and when the faults strike.

The per-deal faults (door opening, reboot, cable pulled) are drawn when the deal starts, at a random card
index; the per-card faults (jam, stall, double feed, misread) are drawn by :class:`Mechanics` as cards feed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

from firmware_bridge.messages import CardMsg, DealDone
from firmware_bridge.protocol import REJECT_BIN, UNKNOWN_FACE, Fault, Msg, ResetCause, State

from .config import DeviceSettings, SimConfig
from .link import DeviceLink
from .mechanics import N_FACES, DoubleFed, Fed, Mechanics, Stopped

HAND = 27
MAX_STEPS_PER_POLL = 32
BACKLOG_LIMIT = 48  # events buffered before the feeder waits for the host to acknowledge


class SimFirmware(Protocol):
    """What a deal in progress reads and changes of the firmware (``firmware.SimFirmware`` is the one there is)."""

    rng: random.Random
    config: SimConfig
    mechanics: Mechanics
    link: DeviceLink
    settings: DeviceSettings
    state: State
    run: DealRun | None
    unplug_requested: bool
    door_open_until: float

    def reboot(self, now: float, cause: ResetCause) -> None: ...
    def fault(self, code: Fault, index: int, text: str = "") -> None: ...
    def set_state(self, state: State) -> None: ...


@dataclass
class DealRun:
    deal_id: int
    plan: list[int] | None
    next_card_at: float
    reset_at: int | None = None
    unplug_at: int | None = None
    door_at: int | None = None
    index: int = 0
    reject: int = 0
    seat_counts: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    copies: list[int] = field(default_factory=lambda: [0] * N_FACES)

    @classmethod
    def begin(cls, fw: SimFirmware, deal_id: int, plan: list[int] | None, now: float) -> DealRun:
        rng, cfg = fw.rng, fw.config

        def at(probability: float) -> int | None:
            return rng.randrange(1, 107) if rng.random() < probability else None

        return cls(deal_id, plan, now + cfg.scaled(0.5), at(cfg.reset), at(cfg.unplug), at(cfg.door))

    def advance(self, fw: SimFirmware, now: float) -> None:
        steps = 0
        while (
            fw.state == State.DEALING and fw.run is self and now >= self.next_card_at
            and fw.link.backlog < BACKLOG_LIMIT and steps < MAX_STEPS_PER_POLL
        ):
            steps += 1
            self.next_card_at = max(self.next_card_at + fw.config.scaled(fw.config.card_s), now)
            if fw.config.speed == 0:
                self.next_card_at = now
            self.step(fw, now)

    def _card(self, fw: SimFirmware, face: int, bin_number: int, quality: float, reads: int) -> None:
        fw.link.emit(
            Msg.CARD, CardMsg(self.deal_id, self.index, face, bin_number, round(quality * 255), reads).pack()
        )
        if bin_number == REJECT_BIN:
            self.reject += 1
        else:
            self.seat_counts[bin_number] += 1
        self.index += 1

    def step(self, fw: SimFirmware, now: float) -> None:
        mech = fw.mechanics
        if self.reset_at is not None and self.index >= self.reset_at:
            self.reset_at = None
            cause = ResetCause.BROWN_OUT if fw.rng.random() < 0.5 else ResetCause.WATCHDOG
            fw.reboot(now, cause)
            return
        if self.unplug_at is not None and self.index >= self.unplug_at:
            self.unplug_at = None
            fw.unplug_requested = True
        if self.door_at is not None and self.index >= self.door_at:
            self.door_at = None
            fw.door_open_until = now + fw.config.scaled(fw.config.door_s)
            fw.fault(Fault.DOOR_OPEN, self.index, "door opened")
            fw.set_state(State.FAULTED)
            return
        if mech.empty:
            if self.index < HAND * 4:
                fw.fault(Fault.SHORT_DECK, self.index, f"hopper empty after {self.index} cards")
            self.finish(fw, complete=all(n == HAND for n in self.seat_counts))
            return
        result = mech.feed(max_reads=fw.settings.max_reads, min_quality=fw.settings.min_quality / 255)
        if isinstance(result, Stopped):
            code = Fault.JAM if result.why == "jam" else Fault.MOTOR_STALL
            fw.fault(code, self.index, f"{result.why} at the feeder")
            fw.set_state(State.FAULTED)
            return
        if isinstance(result, DoubleFed):
            first = self.index
            for face in result.faces:
                mech.place(face, REJECT_BIN)
                self._card(fw, UNKNOWN_FACE, REJECT_BIN, 0.0, 0)
            fw.fault(Fault.DOUBLE_FEED, first, "two cards fed together; both rejected")
            return
        assert isinstance(result, Fed)
        self._place(fw, result)

    def _place(self, fw: SimFirmware, fed: Fed) -> None:
        mech = fw.mechanics
        if not fed.reads:  # no reader: 27 a seat in turn
            seat = next((s for s in range(4) if self.seat_counts[(self.index + s) % 4] < HAND), None)
            bin_number = REJECT_BIN if seat is None else (self.index + seat) % 4
            mech.place(fed.face, bin_number)
            self._card(fw, UNKNOWN_FACE, bin_number, 0.0, 0)
            return
        threshold = fw.settings.min_quality / 255
        good = next((r for r in fed.reads if r.quality >= threshold), None)
        if good is None:
            mech.place(fed.face, REJECT_BIN)
            best = max(fed.reads, key=lambda r: r.quality)
            self._card(fw, UNKNOWN_FACE, REJECT_BIN, best.quality, len(fed.reads))
            fw.fault(Fault.UNREADABLE, self.index - 1, f"no confident read in {len(fed.reads)} tries")
            return
        copy = self.copies[good.face]
        if copy >= 2:
            mech.place(fed.face, REJECT_BIN)
            self._card(fw, good.face, REJECT_BIN, good.quality, len(fed.reads))
            fw.fault(Fault.THIRD_COPY, self.index - 1, "a third copy of this face")
            return
        self.copies[good.face] += 1
        bin_number = self.plan[2 * good.face + copy] if self.plan is not None else self._next_seat()
        mech.place(fed.face, bin_number)
        self._card(fw, good.face, bin_number, good.quality, len(fed.reads))

    def _next_seat(self) -> int:
        for offset in range(4):
            seat = (self.index + offset) % 4
            if self.seat_counts[seat] < HAND:
                return seat
        return REJECT_BIN

    def finish(self, fw: SimFirmware, *, complete: bool) -> None:
        fw.link.emit(
            Msg.DEAL_DONE,
            DealDone(self.deal_id, self.index, tuple(self.seat_counts), self.reject, int(complete)).pack(),  # type: ignore[arg-type]
        )
        fw.set_state(State.DONE)
