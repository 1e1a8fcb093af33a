"""COBS, CRC-16/MCRF4XX, frame layout and the fragment-tolerant decoder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.framing import (
    MAX_ENCODED_FRAME,
    MAX_PAYLOAD,
    Frame,
    FrameDecoder,
    FrameError,
    cobs_decode,
    cobs_encode,
    crc16_mcrf4xx,
    decode_block,
    encode_frame,
    encode_raw,
)


def test_crc_check_value() -> None:
    assert crc16_mcrf4xx(b"123456789") == 0x6F91
    assert crc16_mcrf4xx(b"") == 0xFFFF


@pytest.mark.parametrize(
    ("data", "encoded"),
    [  # the examples of the COBS article (Wikipedia), without the delimiter
        ("00", "0101"),
        ("0000", "010101"),
        ("00110000", "0102110101"),
        ("11220033", "0311220233"),
        ("11223344", "0511223344"),
        ("11000000", "0211010101"),
        (bytes(range(1, 255)).hex(), "ff" + bytes(range(1, 255)).hex()),
        (bytes(range(0, 255)).hex(), "01ff" + bytes(range(1, 255)).hex()),
        (bytes(range(1, 256)).hex(), "ff" + bytes(range(1, 255)).hex() + "02ff"),
        (bytes(range(2, 256)).hex() + "00", "ff" + bytes(range(2, 256)).hex() + "0101"),
        (bytes(range(3, 256)).hex() + "0001", "fe" + bytes(range(3, 256)).hex() + "0201"),
    ],
)
def test_cobs_reference_vectors(data: str, encoded: str) -> None:
    assert cobs_encode(bytes.fromhex(data)) == bytes.fromhex(encoded)
    assert cobs_decode(bytes.fromhex(encoded)) == bytes.fromhex(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert cobs_decode(encoded) == data
    assert len(encoded) <= len(data) + len(data) // 254 + 1


def test_cobs_rejects_zero_and_truncation() -> None:
    with pytest.raises(FrameError):
        cobs_decode(b"\x03\x11\x00")
    with pytest.raises(FrameError):
        cobs_decode(b"\x05\x11\x22")


def test_frame_layout() -> None:
    raw = encode_raw(Frame(0x02, seq=0x1234, ack=0xABCD, flags=1, payload=b"\x01\x02"))
    assert raw[:10] == bytes([1, 1, 2, 0x34, 0x12, 0xCD, 0xAB, 2, 1, 2])
    assert int.from_bytes(raw[10:], "little") == crc16_mcrf4xx(raw[:10])


def test_frame_errors_are_named() -> None:
    good = encode_raw(Frame(0x01, 1))
    with pytest.raises(FrameError, match="CRC"):
        decode_block(cobs_encode(good[:-1] + bytes([good[-1] ^ 1])))
    bad_version = bytes([2]) + good[1:-2]
    with pytest.raises(FrameError, match="version"):
        decode_block(cobs_encode(bad_version + crc16_mcrf4xx(bad_version).to_bytes(2, "little")))
    bad_len = good[:7] + bytes([5]) + good[8:-2]
    with pytest.raises(FrameError, match="length"):
        decode_block(cobs_encode(bad_len + crc16_mcrf4xx(bad_len).to_bytes(2, "little")))
    with pytest.raises(FrameError, match="shorter"):
        decode_block(cobs_encode(b"\x01\x02\x03"))
    with pytest.raises(ValueError):
        encode_raw(Frame(0x01, payload=bytes(MAX_PAYLOAD + 1)))


def test_largest_frame_fits_the_decoder_limit() -> None:
    frame = Frame(0x05, 7, 9, 1, bytes(range(1, 241)))
    wire = encode_frame(frame)
    assert len(wire) - 1 <= MAX_ENCODED_FRAME
    assert FrameDecoder().feed(wire) == [frame]


def test_decoder_resyncs_after_garbage_and_overflow() -> None:
    frame = Frame(0x83, 5, 2, 1, b"abc")
    decoder = FrameDecoder()
    stream = b"\xff" * 1000 + b"\x00" + b"\x01\x02\x00" + encode_frame(frame) + encode_frame(frame)[:-3]
    assert decoder.feed(stream) == [frame]
    assert decoder.stats.overflows == 1
    assert decoder.stats.bad_frames == 2
    assert decoder.feed(b"\x00") == []  # the truncated one is bad, not a crash
    assert decoder.stats.bad_frames == 3
    assert decoder.feed(encode_frame(frame)) == [frame]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=240)), max_size=6),
    st.lists(st.integers(1, 40), min_size=1, max_size=20),
)
def test_any_cut_of_a_stream_gives_the_same_frames(specs: list[tuple[int, int, bytes]], cuts: list[int]) -> None:
    frames = [Frame(t, s, s ^ 0x5555, 1, p) for t, s, p in specs]
    stream = b"".join(encode_frame(f) for f in frames)
    decoder = FrameDecoder()
    out: list[Frame] = []
    i = 0
    k = 0
    while i < len(stream):
        n = cuts[k % len(cuts)]
        out += decoder.feed(stream[i : i + n])
        i += n
        k += 1
    assert out == frames
    assert decoder.stats.bad_frames == 0
