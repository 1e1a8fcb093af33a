"""Fuzzing: random bytes and damaged streams never crash the decoder, and damage is never accepted silently."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.framing import Frame, FrameDecoder, encode_frame
from firmware_bridge.messages import PayloadError, decode_payload


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=10))
def test_random_bytes_never_crash_the_decoder(chunks: list[bytes]) -> None:
    decoder = FrameDecoder()
    for chunk in chunks:
        for frame in decoder.feed(chunk):
            assert isinstance(frame, Frame)
            for from_device in (True, False):
                try:
                    decode_payload(frame.type, frame.payload, from_device=from_device)
                except PayloadError:
                    pass


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 255), st.binary(max_size=250), st.booleans())
def test_random_payloads_decode_or_raise_payload_error(mtype: int, payload: bytes, from_device: bool) -> None:
    try:
        decode_payload(mtype, payload, from_device=from_device)
    except PayloadError:
        pass


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.binary(min_size=0, max_size=60),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), min_size=1, max_size=1),
)
def test_corrupted_frames_are_rejected_or_intact(payload: bytes, flips: list[tuple[int, int]]) -> None:
    frames = [Frame(0x83, i, 7, 1, payload) for i in range(3)]
    stream = bytearray(b"".join(encode_frame(f) for f in frames))
    for pos, xor in flips:
        stream[pos % len(stream)] ^= xor
    decoder = FrameDecoder()
    for frame in decoder.feed(bytes(stream) + b"\x00"):
        assert frame in frames  # one flipped byte never slips through as a different frame
