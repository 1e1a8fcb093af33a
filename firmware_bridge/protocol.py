"""Numbers of the dealer protocol: message types, device states, fault codes, result codes, reset causes.

The type byte says how a frame is handled: 0x01-0x3F host commands (sequenced, stop-and-wait, executed at
most once per sequence number), 0x40-0x7F replies (their ``ack`` names the command), 0x80-0xBF device events
(sequenced, windowed, cumulatively acknowledged), 0xC0-0xFF link frames (unsequenced). Specification:
``docs/dealer-protocol.md``.
"""

from __future__ import annotations

from enum import IntEnum

from guandan import SEATS

FIRMWARE_PROTOCOL = 1


class Msg(IntEnum):
    # host commands
    IDENTIFY = 0x01
    PING = 0x02
    GET_STATUS = 0x03
    CONFIGURE = 0x04
    LOAD_PLAN = 0x05
    COMMIT_PLAN = 0x06
    START = 0x07
    PAUSE = 0x08
    RESUME = 0x09
    ABORT = 0x0A
    PURGE = 0x0B
    SELF_TEST = 0x0C
    ESTOP = 0x0D
    # replies
    IDENTITY = 0x41
    PONG = 0x42
    STATUS_REPLY = 0x43
    RESULT = 0x44
    SELF_TEST_REPORT = 0x4C
    # device events
    BOOT = 0x81
    STATUS = 0x82
    CARD = 0x83
    DEAL_DONE = 0x84
    FAULT = 0x85
    # link frames
    HEARTBEAT = 0xC1
    ACK = 0xC2


def is_command(mtype: int) -> bool:
    return 0x01 <= mtype <= 0x3F


def is_reply(mtype: int) -> bool:
    return 0x40 <= mtype <= 0x7F


def is_event(mtype: int) -> bool:
    return 0x80 <= mtype <= 0xBF


def is_link(mtype: int) -> bool:
    return mtype >= 0xC0


#: The reply type each command gets when it succeeds (any command may instead get RESULT with an error).
REPLY_TO: dict[int, int] = {
    Msg.IDENTIFY: Msg.IDENTITY,
    Msg.PING: Msg.PONG,
    Msg.GET_STATUS: Msg.STATUS_REPLY,
    Msg.SELF_TEST: Msg.SELF_TEST_REPORT,
}


def msg_name(mtype: int) -> str:
    try:
        return Msg(mtype).name
    except ValueError:
        return f"0x{mtype:02X}"


class State(IntEnum):
    IDLE = 0  # no plan committed
    READY = 1  # plan committed, waiting for START
    DEALING = 2
    PAUSED = 3  # by PAUSE or host silence; RESUME continues
    FAULTED = 4  # jam, stall, door: clear and RESUME, or ABORT
    DONE = 5  # deal finished (DEAL_DONE sent)
    ESTOP = 6  # emergency stop: motors off until ABORT
    SELF_TEST = 7


class Fault(IntEnum):
    JAM = 1
    DOUBLE_FEED = 2
    UNREADABLE = 3
    THIRD_COPY = 4
    SHORT_DECK = 5
    DOOR_OPEN = 6
    MOTOR_STALL = 7
    BROWN_OUT = 8
    HOST_LOST = 9
    ESTOP = 10


#: Faults after which the device stops and waits for RESUME (the card path is intact once cleared).
PAUSING_FAULTS = frozenset({Fault.JAM, Fault.DOOR_OPEN, Fault.MOTOR_STALL, Fault.HOST_LOST})


def fault_name(code: int) -> str:
    try:
        return Fault(code).name.lower()
    except ValueError:
        return f"fault_{code}"


class Result(IntEnum):
    OK = 0
    BAD_STATE = 1
    BAD_PAYLOAD = 2
    UNKNOWN_COMMAND = 3
    NO_PLAN = 4
    BAD_DIGEST = 5
    BOOT_MISMATCH = 6
    DOOR_OPEN = 7
    ESTOPPED = 8
    UNSUPPORTED = 9


class ResetCause(IntEnum):
    POWER_ON = 0
    WATCHDOG = 1
    BROWN_OUT = 2
    SOFTWARE = 3
    PIN = 4


def reset_cause_name(code: int) -> str:
    try:
        return ResetCause(code).name.lower()
    except ValueError:
        return f"cause_{code}"


class Cap(IntEnum):
    """Capability bits of IDENTITY."""

    READS_FACES = 0x01
    DEALS_TO_PLAN = 0x02
    DOUBLE_FEED_SENSOR = 0x04
    DOOR_SENSOR = 0x08


class SelfTestItem(IntEnum):
    FEEDER = 1
    READER = 2
    BIN_GATES = 3
    DOOR = 4
    SUPPLY = 5
    SENSORS = 6


#: Bin numbers on the wire: seats in ``SEATS`` order (S E N W), then the reject bin.
BINS: tuple[str, ...] = (*SEATS, "reject")
REJECT_BIN = 4
UNKNOWN_FACE = 0xFF
NO_CARD = 0xFFFF
