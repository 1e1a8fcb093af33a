"""Turning successive table readings into observations: a play laid, a seat cleared, an exposed card.

A pure state machine (readings and the seat on turn in, observations out; no clock, no I/O). A set of cards
counts once it has been read the same way in ``frames`` consecutive frames, so a hand passing over the table
produces nothing and a hand briefly covering a laid play does not report it twice. Cards that settle in the
zone of a seat that is not on turn, or outside every zone, are reported as possible exposed cards. Every
observation carries the readings' confidences and is flagged when any of them is low.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .types import LOW_CONFIDENCE, CardReading

PLAY = "play_laid"
CLEARED = "cleared"
EXPOSED = "exposed_card"


@dataclass(frozen=True)
class Observation:
    """``kind`` is PLAY, CLEARED or EXPOSED; ``zone`` a seat or ``outside``; cards left to right."""

    kind: str
    zone: str
    cards: tuple[str, ...]
    confidences: tuple[float, ...]
    flagged: bool

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "zone": self.zone, "cards": list(self.cards),
                "confidences": [round(c, 4) for c in self.confidences], "flagged": self.flagged}


@dataclass
class _ZoneState:
    candidate: tuple[str, ...] = ()
    streak: int = 0
    confidences: list[tuple[float, ...]] = field(default_factory=list)
    reported: tuple[str, ...] = ()


class Stabiliser:
    """Feed one table reading per frame to ``update``; it returns the observations that frame settles."""

    def __init__(self, frames: int = 3) -> None:
        if frames < 1:
            raise ValueError("frames must be at least 1")
        self.frames = frames
        self._zones: dict[str, _ZoneState] = {}

    def update(self, readings: Mapping[str, Sequence[CardReading]], on_turn: str | None) -> list[Observation]:
        out: list[Observation] = []
        for zone in set(readings) | set(self._zones):
            cards = tuple(readings.get(zone, ()))
            state = self._zones.setdefault(zone, _ZoneState())
            codes = tuple(r.card for r in cards)
            if codes == state.candidate:
                state.streak += 1
                state.confidences.append(tuple(r.confidence for r in cards))
            else:
                state.candidate, state.streak = codes, 1
                state.confidences = [tuple(r.confidence for r in cards)]
            if state.streak != self.frames or codes == state.reported:
                continue
            if not codes:
                out.append(Observation(CLEARED, zone, (), (), False))
                state.reported = ()
                continue
            # the lowest confidence seen for each card over the settling frames
            confidences = tuple(min(c[i] for c in state.confidences) for i in range(len(codes)))
            kind = PLAY if zone == on_turn else EXPOSED
            keep = _added(state.reported, codes) if kind == EXPOSED else list(range(len(codes)))
            state.reported = codes
            if not keep:
                continue
            out.append(Observation(kind, zone, tuple(codes[i] for i in keep), tuple(confidences[i] for i in keep),
                                   any(confidences[i] < LOW_CONFIDENCE for i in keep)))
        return sorted(out, key=lambda o: o.zone)

    def reset(self, zone: str | None = None) -> None:
        """Forget what was reported (for one zone, or all): the next settled cards are reported anew."""
        if zone is None:
            self._zones.clear()
        else:
            self._zones.pop(zone, None)


def _added(before: tuple[str, ...], after: tuple[str, ...]) -> list[int]:
    """Positions in ``after`` of the cards that were not in ``before``."""
    remaining = list(before)
    new: list[int] = []
    for i, code in enumerate(after):
        if code in remaining:
            remaining.remove(code)
        else:
            new.append(i)
    return new
