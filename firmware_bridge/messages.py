"""Payloads of the dealer protocol messages: one frozen dataclass per layout, ``pack()`` and ``unpack()``.

All integers are little-endian. A payload of the wrong size raises :class:`PayloadError`, so a frame that
passed its CRC but carries nonsense is still refused with a reason. Layouts: ``docs/dealer-protocol.md``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self

from .framing import FrameError


class PayloadError(FrameError):
    """A payload does not match the layout of its message type."""


def _unpack(layout: struct.Struct, payload: bytes, name: str, *, tail: bool = False) -> tuple[Any, ...]:
    if len(payload) < layout.size or (not tail and len(payload) != layout.size):
        raise PayloadError(f"{name} payload has {len(payload)} bytes, expected {layout.size}")
    return layout.unpack_from(payload)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True, slots=True)
class Empty:
    """No payload (IDENTIFY, GET_STATUS, PAUSE, ABORT, PURGE, SELF_TEST, ESTOP, host HEARTBEAT)."""

    def pack(self) -> bytes:
        return b""

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        if payload:
            raise PayloadError(f"expected an empty payload, got {len(payload)} bytes")
        return cls()


@dataclass(frozen=True, slots=True)
class Ack:
    """Host ACK: bit ``i`` of ``sack`` set = event ``ack + 2 + i`` arrived (held until the gap fills)."""

    sack: int = 0
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<I")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.sack)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "ACK"))


@dataclass(frozen=True, slots=True)
class Identity:
    fw_major: int
    fw_minor: int
    fw_patch: int
    protocol: int
    boot_id: int
    reset_cause: int
    capabilities: int
    event_base: int  # oldest event not yet acknowledged (the host resynchronises its receiver here)
    event_next: int  # sequence number the next new event will get
    window: int
    max_payload: int
    last_command: int  # sequence number of the newest command executed (the host continues after it)
    name: str = ""
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<BBBBIBBHHBBH")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(
            self.fw_major, self.fw_minor, self.fw_patch, self.protocol, self.boot_id, self.reset_cause,
            self.capabilities, self.event_base, self.event_next, self.window, self.max_payload, self.last_command,
        ) + self.name.encode("utf-8")[:32]

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        fields = _unpack(cls.LAYOUT, payload, "IDENTITY", tail=True)
        return cls(*fields, name=_text(payload[cls.LAYOUT.size :]))  # type: ignore[misc]  # the layout holds every field before it

    @property
    def firmware(self) -> str:
        return f"{self.fw_major}.{self.fw_minor}.{self.fw_patch}"


@dataclass(frozen=True, slots=True)
class Ping:
    nonce: int
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<I")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.nonce)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "PING"))


@dataclass(frozen=True, slots=True)
class Pong:
    nonce: int
    uptime_ms: int
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<II")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.nonce, self.uptime_ms)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "PONG"))


@dataclass(frozen=True, slots=True)
class Status:
    """STATUS_REPLY and STATUS event. ``seats`` are the card counts in the S E N W bins."""

    state: int
    boot_id: int
    deal_id: int
    dealt: int
    seats: tuple[int, int, int, int]
    reject: int
    hopper: int
    last_fault: int
    flags: int  # bit0 door open, bit1 emergency stop latched, bit2 plan committed
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<BIIHBBBBBBBB")
    DOOR_OPEN: ClassVar[int] = 0x01
    ESTOP: ClassVar[int] = 0x02
    PLAN_READY: ClassVar[int] = 0x04

    def pack(self) -> bytes:
        return self.LAYOUT.pack(
            self.state, self.boot_id, self.deal_id, self.dealt, *self.seats, self.reject, self.hopper,
            self.last_fault, self.flags,
        )

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        f = _unpack(cls.LAYOUT, payload, "STATUS")
        return cls(f[0], f[1], f[2], f[3], (f[4], f[5], f[6], f[7]), f[8], f[9], f[10], f[11])


@dataclass(frozen=True, slots=True)
class Configure:
    host_timeout_ms: int  # device stops the motors after this much host silence
    heartbeat_ms: int
    min_quality: int  # 0..255: reads below this are retried, then rejected
    max_reads: int  # read attempts per card
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<HHBB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.host_timeout_ms, self.heartbeat_ms, self.min_quality, self.max_reads)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "CONFIGURE"))


@dataclass(frozen=True, slots=True)
class LoadPlan:
    """One part of a plan: ``data`` holds, for each face id 0..53, the bins of copy 1 and copy 2 (2 bits each)."""

    deal_id: int
    part: int
    parts: int
    data: bytes
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IBB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.deal_id, self.part, self.parts) + self.data

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        f = _unpack(cls.LAYOUT, payload, "LOAD_PLAN", tail=True)
        return cls(*f, data=bytes(payload[cls.LAYOUT.size :]))  # type: ignore[misc]  # the layout holds every field before it


@dataclass(frozen=True, slots=True)
class CommitPlan:
    deal_id: int
    total: int  # cards in the plan (108)
    digest: bytes  # first 8 bytes of SHA-256 of the whole plan data
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IB8s")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.deal_id, self.total, self.digest)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "COMMIT_PLAN"))


@dataclass(frozen=True, slots=True)
class Start:
    deal_id: int
    use_plan: int  # 1: deal to the committed plan; 0: deal 27 a seat in turn (dealers without a reader)
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.deal_id, self.use_plan)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "START"))


@dataclass(frozen=True, slots=True)
class Resume:
    boot_id: int  # the boot the host started this deal with; refused (BOOT_MISMATCH) if it changed
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<I")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.boot_id)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "RESUME"))


@dataclass(frozen=True, slots=True)
class ResultMsg:
    code: int
    text: str = ""
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<B")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.code) + self.text.encode("utf-8")[:200]

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        (code,) = _unpack(cls.LAYOUT, payload, "RESULT", tail=True)
        return cls(code, _text(payload[1:]))


@dataclass(frozen=True, slots=True)
class SelfTestReport:
    passed: int
    items: tuple[tuple[int, int], ...]  # (SelfTestItem, ok)
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<BB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.passed, len(self.items)) + b"".join(bytes(i) for i in self.items)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        passed, count = _unpack(cls.LAYOUT, payload, "SELF_TEST_REPORT", tail=True)
        if len(payload) != 2 + 2 * count:
            raise PayloadError(f"SELF_TEST_REPORT announces {count} items in {len(payload)} bytes")
        items = tuple((payload[2 + 2 * i], payload[3 + 2 * i]) for i in range(count))
        return cls(passed, items)


@dataclass(frozen=True, slots=True)
class Boot:
    boot_id: int
    reset_cause: int
    fw_major: int
    fw_minor: int
    fw_patch: int
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IBBBB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.boot_id, self.reset_cause, self.fw_major, self.fw_minor, self.fw_patch)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "BOOT"))


@dataclass(frozen=True, slots=True)
class CardMsg:
    """One card that left the feeder: face id (0xFF unknown), bin (0-3 seats S E N W, 4 reject), quality."""

    deal_id: int
    index: int
    face: int
    bin: int
    quality: int  # 0..255
    reads: int  # read attempts it took
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IHBBBB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.deal_id, self.index, self.face, self.bin, self.quality, self.reads)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "CARD"))


@dataclass(frozen=True, slots=True)
class DealDone:
    deal_id: int
    dealt: int
    seats: tuple[int, int, int, int]
    reject: int
    complete: int  # 1: every planned card dealt; 0: stopped early (short deck, abort)
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IHBBBBBB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.deal_id, self.dealt, *self.seats, self.reject, self.complete)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        f = _unpack(cls.LAYOUT, payload, "DEAL_DONE")
        return cls(f[0], f[1], (f[2], f[3], f[4], f[5]), f[6], f[7])


@dataclass(frozen=True, slots=True)
class FaultMsg:
    deal_id: int
    code: int
    index: int  # card index concerned, 0xFFFF for none
    text: str = ""
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IBH")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.deal_id, self.code, self.index) + self.text.encode("utf-8")[:200]

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        f = _unpack(cls.LAYOUT, payload, "FAULT", tail=True)
        return cls(*f, text=_text(payload[cls.LAYOUT.size :]))  # type: ignore[misc]  # the layout holds every field before it


@dataclass(frozen=True, slots=True)
class DeviceHeartbeat:
    boot_id: int
    state: int
    uptime_ms: int
    LAYOUT: ClassVar[struct.Struct] = struct.Struct("<IBI")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.boot_id, self.state, self.uptime_ms)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*_unpack(cls.LAYOUT, payload, "HEARTBEAT"))


Payload = (
    Empty | Ack | Identity | Ping | Pong | Status | Configure | LoadPlan | CommitPlan | Start | Resume | ResultMsg
    | SelfTestReport | Boot | CardMsg | DealDone | FaultMsg | DeviceHeartbeat
)


class _Decodes(Protocol):
    """A message class: it parses its own payload."""

    def unpack(self, payload: bytes) -> Payload: ...


_HOST_LAYOUTS: dict[int, _Decodes] = {
    0x01: Empty, 0x02: Ping, 0x03: Empty, 0x04: Configure, 0x05: LoadPlan, 0x06: CommitPlan, 0x07: Start,
    0x08: Empty, 0x09: Resume, 0x0A: Empty, 0x0B: Empty, 0x0C: Empty, 0x0D: Empty, 0xC1: Empty, 0xC2: Ack,
}
_DEVICE_LAYOUTS: dict[int, _Decodes] = {
    0x41: Identity, 0x42: Pong, 0x43: Status, 0x44: ResultMsg, 0x4C: SelfTestReport, 0x81: Boot, 0x82: Status,
    0x83: CardMsg, 0x84: DealDone, 0x85: FaultMsg, 0xC1: DeviceHeartbeat,
}


def decode_payload(mtype: int, payload: bytes, *, from_device: bool) -> Payload:
    """Parse the payload of a frame of type ``mtype`` sent by the device (or the host)."""
    layouts = _DEVICE_LAYOUTS if from_device else _HOST_LAYOUTS
    layout = layouts.get(mtype)
    if layout is None:
        side = "device" if from_device else "host"
        raise PayloadError(f"unknown {side} message type 0x{mtype:02X}")
    return layout.unpack(payload)
