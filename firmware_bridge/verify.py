"""Host-side judgement of a deal from the dealer's reports: good, or fouled with a reason. Pure code.

A deal is good only when every seat got exactly 27 cards, every card code appears exactly twice, each card
went where the plan put it, every seated card was read with enough confidence, the card indices run
0, 1, 2, ... without a gap, the dealer's own totals agree with what the host saw, and the dealer kept the
same boot id from start to finish. Anything else fouls the deal (the table asks for a re-deal).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from guandan import ALL_CARDS, COPIES, SEATS

from .deal import HAND_SIZE, DealPlan
from .messages import CardMsg, DealDone, FaultMsg
from .protocol import BINS, NO_CARD, REJECT_BIN, UNKNOWN_FACE, fault_name


@dataclass(frozen=True)
class CardRecord:
    """One card as the host saw it: ``card`` is the code (None when unread), ``seat`` a seat or "reject"."""

    index: int
    card: str | None
    seat: str
    quality: float
    reads: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "card": self.card, "seat": self.seat, "quality": round(self.quality, 3)}


@dataclass
class DealOutcome:
    ok: bool
    fouled: str | None
    hands: dict[str, list[str | None]]
    cards: list[CardRecord]
    faces_verified: bool
    faults: list[dict[str, Any]] = field(default_factory=list)
    commitment: str | None = None
    deal_line: dict[str, Any] | None = None
    board: int | None = None
    boot_id: int = 0
    retransmits: int = 0
    seconds: float = 0.0
    recoveries: int = 0

    def summary(self) -> dict[str, Any]:
        """The CLI's last line (``shared/spec/cli.md``), plus a few extra fields."""
        return {
            "summary": True,
            "ok": self.ok,
            "fouled": self.fouled,
            "hands": self.hands,
            "commitment": self.commitment,
            "retransmits": self.retransmits,
            "seconds": round(self.seconds, 3),
            "faces_verified": self.faces_verified,
            "board": self.board,
            "boot_id": f"{self.boot_id:08x}",
            "faults": self.faults,
            "recoveries": self.recoveries,
            "deal_line": self.deal_line,
        }


class DealVerifier:
    """Collects CARD / FAULT / DEAL_DONE reports of one deal and judges it."""

    def __init__(
        self, plan: DealPlan | None, boot_id: int, *, reads_faces: bool = True, min_quality: float = 0.8
    ) -> None:
        self.plan = plan
        self.boot_id = boot_id
        self.reads_faces = reads_faces
        self.min_quality = min_quality
        self.cards: list[CardRecord] = []
        self.faults: list[dict[str, Any]] = []
        self._expected_bins = plan.expected_bins() if plan is not None else None
        self._copies_seen = [0] * len(ALL_CARDS)
        self._anomaly: str | None = None  # first per-card problem, reported if the counts look fine
        self._foul: str | None = None  # a reason that decides the deal on its own (reset, abort, ...)
        self.done: DealDone | None = None

    @property
    def fouled(self) -> str | None:
        return self._foul

    def foul(self, reason: str) -> None:
        """Foul the deal for a reason found outside the card reports (first reason wins)."""
        if self._foul is None:
            self._foul = reason

    def boot_seen(self, boot_id: int) -> bool:
        """Note the device's current boot id; a change fouls the deal. Returns True when it changed."""
        if boot_id != self.boot_id:
            self.foul(f"reset: dealer rebooted mid-deal (boot id {self.boot_id:08x} -> {boot_id:08x})")
            return True
        return False

    def _note(self, problem: str) -> None:
        if self._anomaly is None:
            self._anomaly = problem

    def card(self, msg: CardMsg) -> CardRecord:
        face = None if msg.face == UNKNOWN_FACE or msg.face >= len(ALL_CARDS) else ALL_CARDS[msg.face]
        seat = BINS[msg.bin] if msg.bin < len(BINS) else f"bin{msg.bin}"
        record = CardRecord(msg.index, face.code if face else None, seat, msg.quality / 255, msg.reads)
        if msg.index != len(self.cards):
            self._note(f"sequence: card index {msg.index} arrived where {len(self.cards)} was due")
        if msg.bin > REJECT_BIN:
            self._note(f"bin: card {msg.index} reported in unknown bin {msg.bin}")
        self.cards.append(record)
        if msg.bin >= REJECT_BIN:
            return record
        label = f"card {msg.index} ({face.code if face else 'unread'})"
        if self.reads_faces:
            if face is None:
                self._note(f"unread: {label} went to seat {seat} unread")
            elif record.quality < self.min_quality:
                self._note(f"quality: {label} read with quality {record.quality:.2f} < {self.min_quality:.2f}")
        if face is not None:
            copy = self._copies_seen[face.id]
            self._copies_seen[face.id] += 1
            if self._expected_bins is not None and copy < COPIES:
                want = self._expected_bins[face.id][copy]
                if want != msg.bin:
                    self._note(f"plan: {label} went to {seat}, the plan says {BINS[want]}")
        return record

    def fault(self, msg: FaultMsg) -> dict[str, Any]:
        entry: dict[str, Any] = {"fault": fault_name(msg.code)}
        if msg.index != NO_CARD:
            entry["card_index"] = msg.index
        if msg.text:
            entry["detail"] = msg.text
        self.faults.append(entry)
        return entry

    def finish(self, done: DealDone | None) -> tuple[bool, str | None]:
        """Judge the deal; ``done`` is the DEAL_DONE report (None when it never came)."""
        self.done = done
        reason = self._judge(done)
        if reason is not None and self.faults:
            causes = ", ".join(
                f["fault"] + (f" at card {f['card_index']}" if "card_index" in f else "") for f in self.faults[:4]
            )
            more = f", and {len(self.faults) - 4} more" if len(self.faults) > 4 else ""
            reason = f"{reason} [{len(self.faults)} dealer faults: {causes}{more}]"
        return reason is None, reason

    def hands(self) -> dict[str, list[str | None]]:
        hands: dict[str, list[str | None]] = {seat: [] for seat in SEATS}
        for rec in self.cards:
            if rec.seat in hands:
                hands[rec.seat].append(rec.card)
        return hands

    def _judge(self, done: DealDone | None) -> str | None:
        if self._foul is not None:
            return self._foul
        if done is None:
            return "incomplete: the dealer never reported the end of the deal"
        hands = self.hands()
        counts = [len(hands[s]) for s in SEATS]
        seen_reject = sum(1 for r in self.cards if r.seat == "reject")
        if done.dealt != len(self.cards) or tuple(done.seats) != tuple(counts) or done.reject != seen_reject:
            return (
                f"report: dealer totals {done.dealt} cards {list(done.seats)} +{done.reject} rejected disagree "
                f"with the {len(self.cards)} cards {counts} +{seen_reject} the host received"
            )
        wrong = [f"{s} got {n}" for s, n in zip(SEATS, counts, strict=True) if n != HAND_SIZE]
        if wrong:
            return f"count: {', '.join(wrong)} cards, not {HAND_SIZE}"
        if self.reads_faces:
            tally = [0] * len(ALL_CARDS)
            for seat in SEATS:
                for code in hands[seat]:
                    if code is not None:
                        tally[_FACE_ID[code]] += 1
            bad = [f"{c.code} x{tally[c.id]}" for c in ALL_CARDS if tally[c.id] != COPIES]
            if bad:
                return f"faces: not every card exactly twice ({', '.join(bad[:6])})"
        if self._anomaly is not None:
            return self._anomaly
        if not done.complete:
            return "incomplete: the dealer stopped before the end of the plan"
        return None


_FACE_ID = {c.code: c.id for c in ALL_CARDS}
