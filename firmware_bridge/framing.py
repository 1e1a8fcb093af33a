"""Wire framing of the dealer link: COBS, CRC-16/MCRF4XX, the 8-byte header and a fragment-tolerant decoder.

Pure code (no I/O) shared by the host client and the simulated dealer. A frame on the wire is
``COBS(header + payload + crc16_le) + 0x00``; the 0x00 delimiter never occurs inside a COBS block, so a
receiver resynchronises at the next zero byte after any corruption. Layout and golden frames:
``docs/dealer-protocol.md``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

PROTOCOL_VERSION = 1
MAX_PAYLOAD = 240
HEADER = struct.Struct("<BBBHHB")  # version, flags, type, seq, ack, payload length
HEADER_SIZE = HEADER.size  # 8
CRC_SIZE = 2
MAX_RAW_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE  # 250
#: Longest COBS block a valid frame can produce (one overhead byte per 254 data bytes, plus one).
MAX_ENCODED_FRAME = MAX_RAW_FRAME + MAX_RAW_FRAME // 254 + 1
DELIMITER = 0x00

FLAG_ACK_VALID = 0x01  # the ack field carries a real cumulative acknowledgement
FLAG_RETRANSMIT = 0x02  # this command or event frame is a retransmission (informational: statistics)


class FrameError(ValueError):
    """A received block is not a valid frame (bad COBS, CRC, version, length or payload)."""


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16_mcrf4xx(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/MCRF4XX: reflected poly 0x1021, init 0xFFFF, no final xor (check("123456789") == 0x6F91)."""
    table = _CRC_TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte (delimiter not included)."""
    out = bytearray(b"\x00")
    code_index = 0
    code = 1
    last = len(data) - 1
    for index, byte in enumerate(data):
        if byte == 0:
            out[code_index] = code
            code_index = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == 0xFF and index != last:
            out[code_index] = code
            code_index = len(out)
            out.append(0)
            code = 1
    out[code_index] = code
    return bytes(out)


def cobs_decode(block: bytes) -> bytes:
    """Undo :func:`cobs_encode`; raises :class:`FrameError` on a zero byte or a truncated run."""
    out = bytearray()
    i = 0
    n = len(block)
    while i < n:
        code = block[i]
        if code == 0:
            raise FrameError("COBS block contains a zero byte")
        end = i + code
        if end > n:
            raise FrameError("COBS run runs past the end of the block")
        chunk = block[i + 1 : end]
        if 0 in chunk:
            raise FrameError("COBS block contains a zero byte")
        out += chunk
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame. ``seq``/``ack`` are 16-bit serial numbers; ``payload`` at most 240 bytes."""

    type: int
    seq: int = 0
    ack: int = 0
    flags: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    @property
    def ack_valid(self) -> bool:
        return bool(self.flags & FLAG_ACK_VALID)


def encode_raw(frame: Frame) -> bytes:
    """Header + payload + CRC, before COBS (what the CRC covers, plus the CRC itself)."""
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    body = HEADER.pack(
        frame.version, frame.flags, frame.type, frame.seq & 0xFFFF, frame.ack & 0xFFFF, len(frame.payload)
    ) + bytes(frame.payload)
    return body + struct.pack("<H", crc16_mcrf4xx(body))


def encode_frame(frame: Frame) -> bytes:
    """The bytes on the wire: COBS block followed by the 0x00 delimiter."""
    return cobs_encode(encode_raw(frame)) + b"\x00"


def decode_raw(raw: bytes) -> Frame:
    """Parse header + payload + CRC (already COBS-decoded); raises :class:`FrameError` naming the fault."""
    if len(raw) < HEADER_SIZE + CRC_SIZE:
        raise FrameError(f"frame of {len(raw)} bytes is shorter than header and CRC")
    body, crc_bytes = raw[:-CRC_SIZE], raw[-CRC_SIZE:]
    (crc,) = struct.unpack("<H", crc_bytes)
    if crc16_mcrf4xx(body) != crc:
        raise FrameError("CRC mismatch")
    version, flags, mtype, seq, ack, length = HEADER.unpack_from(body)
    if version != PROTOCOL_VERSION:
        raise FrameError(f"unsupported protocol version {version}")
    if length != len(body) - HEADER_SIZE or length > MAX_PAYLOAD:
        raise FrameError(f"length field {length} does not match payload of {len(body) - HEADER_SIZE} bytes")
    return Frame(mtype, seq, ack, flags, bytes(body[HEADER_SIZE:]), version)


def decode_block(block: bytes) -> Frame:
    """Decode one COBS block (without its delimiter)."""
    return decode_raw(cobs_decode(block))


@dataclass
class DecoderStats:
    frames: int = 0
    bad_frames: int = 0
    overflows: int = 0
    last_error: str = ""


@dataclass
class FrameDecoder:
    """Turns a byte stream cut into arbitrary fragments into frames; bad blocks are counted, never raised.

    A block longer than any valid frame is dropped up to the next delimiter, so garbage cannot grow memory.
    """

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _discarding: bool = False

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        start = 0
        while True:
            zero = data.find(b"\x00", start)
            piece = data[start:] if zero < 0 else data[start:zero]
            if not self._discarding:
                self._buf += piece
                if len(self._buf) > MAX_ENCODED_FRAME:
                    self._buf.clear()
                    self._discarding = True
                    self.stats.overflows += 1
                    self.stats.bad_frames += 1
                    self.stats.last_error = "block longer than any frame"
            if zero < 0:
                return frames
            if self._discarding:
                self._discarding = False
            elif self._buf:
                try:
                    frames.append(decode_block(bytes(self._buf)))
                    self.stats.frames += 1
                except FrameError as exc:
                    self.stats.bad_frames += 1
                    self.stats.last_error = str(exc)
            self._buf.clear()
            start = zero + 1

    def reset(self) -> None:
        """Forget a partial block (after a reconnect)."""
        self._buf.clear()
        self._discarding = False
