"""Every golden frame of docs/dealer-protocol.md decodes to the message below and encodes back to its hex.

The hex lives only in the document (what a firmware author implements against); the expected messages live
only here, so the document, the codec and this list cannot drift apart silently.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from firmware_bridge.framing import FLAG_ACK_VALID, Frame, FrameDecoder, encode_frame
from firmware_bridge.messages import (
    Ack,
    Boot,
    CardMsg,
    CommitPlan,
    Configure,
    DealDone,
    DeviceHeartbeat,
    Empty,
    FaultMsg,
    Identity,
    LoadPlan,
    Ping,
    Pong,
    ResultMsg,
    Resume,
    SelfTestReport,
    Start,
    Status,
    decode_payload,
)
from firmware_bridge.protocol import Msg

DOC = Path(__file__).resolve().parents[2] / "docs" / "dealer-protocol.md"
A = FLAG_ACK_VALID
PLAN = bytes(range(0x10, 0x10 + 27))

#: name -> (frame header fields, payload object, sent by the device)
EXAMPLES: dict[str, tuple[Msg, int, int, int, object, bool]] = {
    "IDENTIFY": (Msg.IDENTIFY, 1, 0, 0, Empty(), False),
    "PING": (Msg.PING, 2, 0x1233, A, Ping(0xDEADBEEF), False),
    "GET_STATUS": (Msg.GET_STATUS, 3, 0x1233, A, Empty(), False),
    "CONFIGURE": (Msg.CONFIGURE, 4, 0x1233, A, Configure(1500, 200, 204, 3), False),
    "LOAD_PLAN": (Msg.LOAD_PLAN, 5, 0x1233, A, LoadPlan(0x01020304, 0, 1, PLAN), False),
    "COMMIT_PLAN": (
        Msg.COMMIT_PLAN, 6, 0x1233, A, CommitPlan(0x01020304, 108, bytes.fromhex("0011223344556677")), False
    ),
    "START": (Msg.START, 7, 0x1233, A, Start(0x01020304, 1), False),
    "PAUSE": (Msg.PAUSE, 8, 0x1240, A, Empty(), False),
    "RESUME": (Msg.RESUME, 9, 0x1240, A, Resume(0xA1B2C3D4), False),
    "ABORT": (Msg.ABORT, 10, 0x1240, A, Empty(), False),
    "PURGE": (Msg.PURGE, 11, 0x1240, A, Empty(), False),
    "SELF_TEST": (Msg.SELF_TEST, 12, 0x1240, A, Empty(), False),
    "ESTOP": (Msg.ESTOP, 13, 0x1240, A, Empty(), False),
    "HEARTBEAT (host)": (Msg.HEARTBEAT, 0, 0x1240, A, Empty(), False),
    "ACK": (Msg.ACK, 0, 0x1240, A, Ack(0b101), False),
    "IDENTITY": (
        Msg.IDENTITY, 0, 1, A, Identity(1, 2, 0, 1, 0xA1B2C3D4, 0, 0x0F, 0x1234, 0x1236, 16, 240, 1, "sim-dealer"),
        True,
    ),
    "PONG": (Msg.PONG, 0, 2, A, Pong(0xDEADBEEF, 123456), True),
    "STATUS_REPLY": (
        Msg.STATUS_REPLY, 0, 3, A, Status(2, 0xA1B2C3D4, 0x01020304, 40, (10, 10, 10, 9), 1, 67, 0, 0), True
    ),
    "RESULT": (Msg.RESULT, 0, 4, A, ResultMsg(0, "configured"), True),
    "RESULT (error)": (Msg.RESULT, 0, 9, A, ResultMsg(6, "boot id is a1b2c3d4"), True),
    "SELF_TEST_REPORT": (
        Msg.SELF_TEST_REPORT, 0, 12, A, SelfTestReport(1, ((1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1))), True
    ),
    "BOOT": (Msg.BOOT, 0x1234, 0, A, Boot(0xA1B2C3D4, 2, 1, 2, 0), True),
    "STATUS": (
        Msg.STATUS, 0x1235, 7, A, Status(2, 0xA1B2C3D4, 0x01020304, 0, (0, 0, 0, 0), 0, 108, 0, 0), True
    ),
    "CARD": (Msg.CARD, 0x1236, 7, A, CardMsg(0x01020304, 0, 53, 2, 247, 1), True),
    "CARD (rejected)": (Msg.CARD, 0x1237, 7, A, CardMsg(0x01020304, 41, 0xFF, 4, 90, 3), True),
    "FAULT": (Msg.FAULT, 0x1238, 7, A, FaultMsg(0x01020304, 1, 42, "jam at the feeder"), True),
    "DEAL_DONE": (Msg.DEAL_DONE, 0x1239, 7, A, DealDone(0x01020304, 108, (27, 27, 27, 27), 0, 1), True),
    "HEARTBEAT (device)": (Msg.HEARTBEAT, 0, 7, 0, DeviceHeartbeat(0xA1B2C3D4, 2, 654321), True),
}


def example_frame(name: str) -> Frame:
    mtype, seq, ack, flags, body, _ = EXAMPLES[name]
    return Frame(mtype, seq, ack, flags, body.pack())  # type: ignore[attr-defined]


def golden_rows() -> dict[str, bytes]:
    rows: dict[str, bytes] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\|\s*`([^`]+)`\s*\|.*\|\s*`([0-9a-f ]+)`\s*\|\s*$", line)
        if m:
            rows[m.group(1)] = bytes.fromhex(m.group(2))
    return rows


def test_document_lists_every_example_and_every_message_type() -> None:
    rows = golden_rows()
    assert set(rows) == set(EXAMPLES)
    assert {e[0] for e in EXAMPLES.values()} == set(Msg)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_golden_frame_round_trip(name: str) -> None:
    wire = golden_rows()[name]
    expected = example_frame(name)
    assert encode_frame(expected) == wire
    rng = random.Random(name)
    for _ in range(5):  # arbitrary fragments, with noise and other frames around it
        stream = b"\x13\x37\x00" + wire + wire
        decoder = FrameDecoder()
        frames = []
        i = 0
        while i < len(stream):
            n = rng.randint(1, 7)
            frames += decoder.feed(stream[i : i + n])
            i += n
        assert frames == [expected, expected]
        assert decoder.stats.bad_frames == 1
    _, _, _, _, body, from_device = EXAMPLES[name]
    assert decode_payload(expected.type, expected.payload, from_device=from_device) == body
