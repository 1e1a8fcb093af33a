"""Wire faults of the simulated dealer's USB cable, applied frame by frame in each direction. Pure code.

Bytes are cut at the 0x00 delimiters; each frame may be lost, duplicated or held back (so that later frames
overtake it), and each byte may be flipped. Returns the bytes to deliver with the time to deliver them.
"""

from __future__ import annotations

import random

from .config import SimConfig


class WireDirection:
    def __init__(self, config: SimConfig, rng: random.Random) -> None:
        self.config = config
        self.rng = rng
        self._partial = bytearray()
        self.frames = 0
        self.dropped = 0
        self.corrupted_bytes = 0

    @property
    def faulty(self) -> bool:
        c = self.config
        return bool(c.corrupt or c.drop or c.dup or c.delay)

    def _corrupt(self, frame: bytes) -> bytes:
        p = self.config.corrupt
        if not p:
            return frame
        data = bytearray(frame)
        for i in range(len(data)):
            if self.rng.random() < p:
                data[i] ^= self.rng.randrange(1, 256)
                self.corrupted_bytes += 1
        return bytes(data)

    def process(self, data: bytes, now: float) -> list[tuple[float, bytes]]:
        """Bytes as they go into the cable -> [(deliver_at, bytes)] as they come out."""
        if not self.faulty:
            return [(now, data)] if data else []
        self._partial += data
        out: list[tuple[float, bytes]] = []
        while True:
            zero = self._partial.find(0)
            if zero < 0:
                break
            frame = bytes(self._partial[: zero + 1])
            del self._partial[: zero + 1]
            self.frames += 1
            rng, c = self.rng, self.config
            if c.drop and rng.random() < c.drop:
                self.dropped += 1
                continue
            at = now + c.delay_ms / 1000 if c.delay and rng.random() < c.delay else now
            out.append((at, self._corrupt(frame)))
            if c.dup and rng.random() < c.dup:
                out.append((at, self._corrupt(frame)))
        return out

    def reset(self) -> None:
        self._partial.clear()
