"""The physical side of the simulated dealer: hopper, feeder, face reader, bins, and their seeded faults.

This is the ground truth the acceptance checks compare against: ``bins`` hold the faces that physically
landed in each seat bin (and the reject bin), whatever the firmware believed or reported. The physical
shuffle of the hopper is mechanical randomness (seeded here); it never decides who gets what: the firmware
places each card by the host's plan.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from guandan import ALL_CARDS, COPIES

from .config import SimConfig

N_FACES = len(ALL_CARDS)


@dataclass(frozen=True)
class Read:
    face: int
    quality: float  # 0..1, the reader's own confidence


@dataclass(frozen=True)
class Fed:
    """One card taken from the hopper and read (``reads`` empty for a dealer without a reader)."""

    face: int
    reads: tuple[Read, ...] = ()


@dataclass(frozen=True)
class DoubleFed:
    """Two cards fed together: the thickness sensor notices, the gate sends both to the reject bin."""

    faces: tuple[int, int]


@dataclass(frozen=True)
class Stopped:
    """The feeder stopped before a card left the hopper: ``why`` is "jam" or "stall"."""

    why: str


FeedResult = Fed | DoubleFed | Stopped


@dataclass
class Mechanics:
    config: SimConfig
    rng: random.Random
    hopper: list[int] = field(default_factory=list)
    bins: list[list[int]] = field(default_factory=lambda: [[] for _ in range(5)])
    missing: list[int] = field(default_factory=list)  # cards lost from the deck (short deck)

    def load_deck(self) -> None:
        """The operator gathers every card back into the hopper (a full 108-card pack, mechanically
        shuffled), then this deal's deck faults apply: one card missing, one foreign card added."""
        deck = [face for face in range(N_FACES) for _ in range(COPIES)]
        self.rng.shuffle(deck)
        self.bins = [[] for _ in range(5)]
        self.missing = []
        if self.rng.random() < self.config.short:
            self.missing.append(deck.pop(self.rng.randrange(len(deck))))
        if self.rng.random() < self.config.extra:
            deck.insert(self.rng.randrange(len(deck) + 1), self.rng.randrange(N_FACES))
        self.hopper = deck

    @property
    def empty(self) -> bool:
        return not self.hopper

    def _read(self, face: int, max_reads: int, min_quality: float) -> tuple[Read, ...]:
        reads: list[Read] = []
        for _ in range(max(1, max_reads)):
            if self.rng.random() < self.config.misread:
                wrong = (face + self.rng.randrange(1, N_FACES)) % N_FACES
                reads.append(Read(wrong, self.rng.uniform(0.15, min(0.7, min_quality * 0.9))))
            else:
                reads.append(Read(face, self.rng.uniform(max(0.9, min_quality), 1.0)))
                break
        return tuple(reads)

    def feed(self, *, max_reads: int = 3, min_quality: float = 0.8) -> FeedResult:
        """Feed the next card. The reader retries a doubtful read up to ``max_reads`` times."""
        if not self.hopper:
            raise RuntimeError("feed from an empty hopper")
        if self.rng.random() < self.config.jam:
            return Stopped("jam")
        if self.rng.random() < self.config.stall:
            return Stopped("stall")
        if len(self.hopper) >= 2 and self.rng.random() < self.config.double:
            return DoubleFed((self.hopper.pop(0), self.hopper.pop(0)))
        face = self.hopper.pop(0)
        if not self.config.faces:
            return Fed(face)
        return Fed(face, self._read(face, max_reads, min_quality))

    def place(self, face: int, bin_number: int) -> None:
        self.bins[bin_number].append(face)

    def truth(self) -> dict[str, list[str]]:
        """What physically lies in each bin, as card codes (S E N W reject)."""
        names = ("S", "E", "N", "W", "reject")
        return {name: [ALL_CARDS[f].code for f in self.bins[i]] for i, name in enumerate(names)}
