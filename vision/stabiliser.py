"""Turning successive table readings into observations: a play laid, a seat cleared, an exposed card.

A pure state machine (readings and the seat on turn in, observations out; no clock, no I/O). A set of cards
counts once it has been read the same way in ``frames`` consecutive frames, so a hand passing over the table
produces nothing and a hand briefly covering a laid play does not report it twice. Cards that settle in the
zone of a seat that is not on turn, or outside every zone, are reported as possible exposed cards. Every
observation carries the readings' confidences and is flagged when any of them is low or a card was seen but not
read (``UNREADABLE``). With ``patience`` a set that settles flagged is held back for up to that many frames,
in case a sure reading of the zone follows (sensor noise differs from frame to frame): about a third of unsure
plays then read surely half a second later, instead of calling the referee. With ``early`` an unsure play on
turn is also reported at once, marked ``provisional``: the table takes it then if the seat's hand settles it (one
held, legal reading is by far the most probable), so only the plays it cannot settle wait for the sure frame. The
provisional reports of a held set and its final report carry the hold's number (``Observation.wait``): the final
report of a play the table already took is the last word on it, never a new play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .types import LOW_CONFIDENCE, UNREADABLE, CardReading

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
    #: per card, the reader's best candidates (code, probability) in the settling frame, surest first
    candidates: tuple[tuple[tuple[str, float], ...], ...] = ()
    #: an unsure play still held back: more frames may read it surely, and it is reported again either way
    provisional: bool = False
    #: the hold this report belongs to (numbered by the stabiliser, from ``holds_from``): the provisional reports of a held set
    #: and its final report share it, so the table knows the final word on a play it already took; 0: not held
    wait: int = 0

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "zone": self.zone, "cards": list(self.cards),
                "confidences": [round(c, 4) for c in self.confidences], "flagged": self.flagged,
                "candidates": [[list(x) for x in c] for c in self.candidates], "provisional": self.provisional,
                "wait": self.wait}


@dataclass
class _ZoneState:
    candidate: tuple[str, ...] = ()
    streak: int = 0
    confidences: list[tuple[float, ...]] = field(default_factory=list)
    reported: tuple[str, ...] = ()
    waited: int = 0
    provisional: tuple[str, ...] = ()
    hold: int = 0
    held_as: str = PLAY


class Stabiliser:
    """Feed one table reading per frame to ``update``; it returns the observations that frame settles."""

    def __init__(self, frames: int = 3, patience: int = 0, min_confidence: float = LOW_CONFIDENCE,
                 early: bool = False, holds_from: int = 0) -> None:
        """``min_confidence``: below it a card is unsure (held back up to ``patience`` frames, then reported
        unsure); the table's ``camera.min_confidence``, the same threshold the table judges a play by.
        ``early``: an unsure play held back is also reported at once as ``provisional``. ``holds_from``: the
        holds are numbered from one past it (the camera passes the time, so that a restarted camera's holds
        are not taken for those of before the restart)."""
        if frames < 1 or patience < 0:
            raise ValueError("frames must be at least 1 and patience at least 0")
        if not 0 <= min_confidence <= 1:
            raise ValueError("min_confidence must be between 0 and 1")
        self.frames = frames
        self.patience = patience
        self.min_confidence = min_confidence
        self.early = early
        self._zones: dict[str, _ZoneState] = {}
        self._holds = holds_from  # the last hold's number (each held set's, ``Observation.wait``)

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
            if not codes:
                state.waited, state.provisional, state.hold = 0, (), 0
            if state.streak < self.frames or codes == state.reported:
                continue
            if not codes:
                if state.streak == self.frames:
                    out.append(Observation(CLEARED, zone, (), (), False))
                    state.reported, state.waited = (), 0
                continue
            # the lowest confidence of each card over the last settling frames
            recent = state.confidences[-self.frames:]
            confidences = tuple(min(c[i] for c in recent) for i in range(len(codes)))
            unsure = UNREADABLE in codes or any(c < self.min_confidence for c in confidences)
            kind = PLAY if zone == on_turn else EXPOSED
            if unsure and state.waited < self.patience:
                if state.waited == 0:
                    self._holds += 1
                    state.hold, state.held_as = self._holds, kind
                state.waited += 1  # held back: a sure reading may follow
                if self.early and kind == PLAY and codes != state.provisional:
                    state.provisional = codes  # meanwhile the table may settle it by the seat's hand
                    out.append(_observation(PLAY, zone, cards, codes, confidences, list(range(len(codes))),
                                            self.min_confidence, provisional=True, wait=state.hold))
                continue
            if not unsure and state.streak > self.frames and state.waited == 0:
                continue  # settled long ago and already judged (a set is reported once)
            hold = state.hold if state.waited else 0
            if hold and state.held_as == PLAY:  # the final report of a set held as a play is a play's, whole: the
                kind = PLAY  # turn may have moved on, the table having taken it from a provisional report
            state.waited, state.provisional, state.hold = 0, (), 0
            keep = _added(state.reported, codes) if kind == EXPOSED else list(range(len(codes)))
            state.reported = codes
            if not keep:
                continue
            out.append(_observation(kind, zone, cards, codes, confidences, keep, self.min_confidence, wait=hold))
        return sorted(out, key=lambda o: o.zone)

    @property
    def waiting(self) -> bool:
        """Some zone holds back an unsure set (more frames may settle it)."""
        return any(z.waited and z.candidate != z.reported for z in self._zones.values())

    def reset(self, zone: str | None = None) -> None:
        """Forget what was reported (for one zone, or all): the next settled cards are reported anew."""
        if zone is None:
            self._zones.clear()
        else:
            self._zones.pop(zone, None)


def _observation(kind: str, zone: str, cards: Sequence[CardReading], codes: tuple[str, ...],
                 confidences: tuple[float, ...], keep: list[int], min_confidence: float,
                 provisional: bool = False, wait: int = 0) -> Observation:
    """The observation of the cards at ``keep``, flagged when one is unsure or was not read."""
    return Observation(kind, zone, tuple(codes[i] for i in keep), tuple(confidences[i] for i in keep),
                       any(confidences[i] < min_confidence or codes[i] == UNREADABLE for i in keep),
                       tuple(cards[i].candidates or ((codes[i], confidences[i]),) for i in keep), provisional,
                       wait)


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
