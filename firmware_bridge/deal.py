"""Deal plans: drawn from the OS CSPRNG or read from a ``guandan-deals/1`` file, with their commitment.

The host decides every deal; the dealer only executes the plan. Before the first card is dealt the table
publishes ``commitment`` = SHA-256 of the deal's ``guandan-deals/1`` line plus a 32-byte hex ``salt``,
serialised as canonical JSON (keys sorted, no spaces, UTF-8): ``shared/spec/deal-record.md``.

On the wire a plan is 27 bytes: for each face id 0..53 the bin (0..3 = S E N W) of its first and of its
second copy (in the order the dealer reads them), 2 bits per entry.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guandan import ALL_CARDS, COPIES, SEATS, Card, InvalidCardError, full_pack, parse_card, parse_level
from table_daemon import safe_json

#: a deal file of a whole event (a board is ~700 bytes: 20,000 boards)
MAX_DEAL_FILE_BYTES = 16 << 20

DEALS_FORMAT = "guandan-deals/1"
#: the largest board number: a table's ``start_match`` takes boards 1 to this (board 0 could never be started)
MAX_BOARD = 10**6
HAND_SIZE = 27
PACK_SIZE = 108


class DealFileError(ValueError):
    """A deal file or deal line is malformed; the message names the file, line and field."""


def canonical_json(obj: Any) -> bytes:
    """Keys sorted, no spaces, UTF-8: the serialisation the commitment is computed over."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def commitment_of(salted_line: Mapping[str, Any]) -> str:
    """SHA-256 hex of a salted ``guandan-deals/1`` line."""
    return hashlib.sha256(canonical_json(salted_line)).hexdigest()


@dataclass(frozen=True)
class DealPlan:
    """One deal to be dealt: 27 cards a seat (each face exactly twice in all) and its salted commitment."""

    board: int
    hands: Mapping[str, tuple[Card, ...]]
    salt: str
    level: str | None = None
    leader: str | None = None

    def deal_line(self, *, salted: bool = True) -> dict[str, Any]:
        """The ``guandan-deals/1`` line (with its salt unless ``salted=False``)."""
        line: dict[str, Any] = {
            "format": DEALS_FORMAT,
            "board": self.board,
            "hands": {seat: [c.code for c in self.hands[seat]] for seat in SEATS},
        }
        if self.level is not None:
            line["level"] = self.level
        if self.leader is not None:
            line["leader"] = self.leader
        if salted:
            line["salt"] = self.salt
        return line

    @property
    def commitment(self) -> str:
        return commitment_of(self.deal_line())

    def plan_bins(self) -> list[int]:
        """108 bins (0..3 = S E N W): entry ``2 * face + copy`` is where that copy of the face goes; copy 1 of
        a face goes to the first seat in S E N W order that holds it."""
        bins: list[list[int]] = [[] for _ in ALL_CARDS]
        for seat_index, seat in enumerate(SEATS):
            for card in self.hands[seat]:
                bins[card.id].append(seat_index)
        return [b for pair in bins for b in pair]

    def plan_bytes(self) -> bytes:
        """The plan as sent to the dealer: :meth:`plan_bins` packed 2 bits each, 4 to a byte (27 bytes)."""
        return pack_bins(self.plan_bins())

    def digest(self) -> bytes:
        """First 8 bytes of SHA-256 of :meth:`plan_bytes` (COMMIT_PLAN checks the device got it whole)."""
        return hashlib.sha256(self.plan_bytes()).digest()[:8]

    def expected_bins(self) -> dict[int, tuple[int, ...]]:
        """Face id -> bins of copy 1 and copy 2."""
        bins = self.plan_bins()
        return {face: (bins[2 * face], bins[2 * face + 1]) for face in range(len(ALL_CARDS))}


def pack_bins(bins: list[int]) -> bytes:
    """Entries 0..3, 2 bits each, entry ``i`` in byte ``i // 4`` at bit ``2 * (i % 4)`` (LSB first)."""
    out = bytearray((len(bins) + 3) // 4)
    for i, b in enumerate(bins):
        if not 0 <= b <= 3:
            raise ValueError(f"bin {b} out of range")
        out[i // 4] |= b << (2 * (i % 4))
    return bytes(out)


def unpack_bins(data: bytes, count: int = PACK_SIZE) -> list[int]:
    """Inverse of :func:`pack_bins`."""
    if len(data) != (count + 3) // 4:
        raise ValueError(f"a plan of {count} cards takes {(count + 3) // 4} bytes, got {len(data)}")
    return [(data[i // 4] >> (2 * (i % 4))) & 3 for i in range(count)]


def check_hands(hands: Mapping[str, list[Card] | tuple[Card, ...]]) -> str | None:
    """None when every seat holds 27 cards and every face appears exactly twice, else the first problem."""
    for seat in SEATS:
        if seat not in hands:
            return f"seat {seat} missing"
        if len(hands[seat]) != HAND_SIZE:
            return f"seat {seat} has {len(hands[seat])} cards, not {HAND_SIZE}"
    counts = [0] * len(ALL_CARDS)
    for seat in SEATS:
        for card in hands[seat]:
            counts[card.id] += 1
    for card in ALL_CARDS:
        if counts[card.id] != COPIES:
            return f"card {card.code} appears {counts[card.id]} times, not {COPIES}"
    return None


def new_deal(board: int = 1, *, level: str | None = None, leader: str | None = None,
             rng: random.Random | None = None) -> DealPlan:
    """A fresh deal with a fresh 32-byte salt, both drawn from the operating system's CSPRNG (``secrets``), or
    from ``rng`` (a seeded one: a reproducible simulation; never for real play, where the salt must not be
    guessable)."""
    source = rng if rng is not None else secrets.SystemRandom()
    pack = full_pack()
    source.shuffle(pack)
    hands = {
        seat: tuple(sorted(pack[i * HAND_SIZE : (i + 1) * HAND_SIZE], key=lambda c: c.id))
        for i, seat in enumerate(SEATS)
    }
    return DealPlan(board, hands, f"{source.getrandbits(256):064x}", level, leader)


def plan_from_line(line: Mapping[str, Any], *, where: str = "deal line") -> DealPlan:
    """Validate one ``guandan-deals/1`` object and make it a plan (with a fresh salt for its commitment)."""
    if not isinstance(line, Mapping):
        raise DealFileError(f"{where}: not a JSON object")
    if line.get("format") != DEALS_FORMAT:
        raise DealFileError(f"{where}: format must be {DEALS_FORMAT!r}, got {line.get('format')!r}")
    board = line.get("board")
    if not isinstance(board, int) or isinstance(board, bool) or not 1 <= board <= MAX_BOARD:
        raise DealFileError(f"{where}: board must be a whole number from 1 to {MAX_BOARD} (牌号), got {board!r}")
    raw_hands = line.get("hands")
    if not isinstance(raw_hands, Mapping):
        raise DealFileError(f"{where}: hands missing or not an object")
    hands: dict[str, tuple[Card, ...]] = {}
    for seat in SEATS:
        codes = raw_hands.get(seat)
        if not isinstance(codes, list):
            raise DealFileError(f"{where}: hands.{seat} missing or not a list")
        try:
            hands[seat] = tuple(parse_card(code) for code in codes)
        except InvalidCardError as exc:
            raise DealFileError(f"{where}: hands.{seat}: {exc}") from None
    extra = set(raw_hands) - set(SEATS)
    if extra:
        raise DealFileError(f"{where}: unknown seat(s) {sorted(extra)} in hands")
    problem = check_hands(hands)
    if problem:
        raise DealFileError(f"{where}: {problem}")
    level = line.get("level")
    if level is not None:
        try:
            parse_level(str(level))
        except InvalidCardError as exc:
            raise DealFileError(f"{where}: level: {exc}") from None
    leader = line.get("leader")
    if leader is not None and leader not in SEATS:
        raise DealFileError(f"{where}: leader must be one of {', '.join(SEATS)}")
    return DealPlan(board, hands, secrets.token_hex(32), None if level is None else str(level), leader)


def _plans(path: str | Path) -> Iterator[tuple[str, DealPlan]]:
    """Each deal of a ``guandan-deals/1`` file with where it is (``file:line``), validated as it is read."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_DEAL_FILE_BYTES:
            raise DealFileError(f"{path}: {path.stat().st_size} bytes is too large for a deal file "
                                f"(at most {MAX_DEAL_FILE_BYTES})")
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DealFileError(f"{path}: cannot read: {exc}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = safe_json.loads(raw, max_bytes=64 * 1024)
        except safe_json.JsonLimitError as exc:
            raise DealFileError(f"{where}: {exc}") from None
        yield where, plan_from_line(obj, where=where)


def load_deal_file(path: str | Path, board: int | None = None) -> DealPlan:
    """The plan of ``board`` in a ``guandan-deals/1`` file (the first line when ``board`` is None).

    Every line up to the one returned is validated; errors name the file and line. (:func:`check_deal_file`
    reads the whole file, once, before an event.)
    """
    boards: list[int] = []
    for _, plan in _plans(path):
        if board is None or plan.board == board:
            return plan
        boards.append(plan.board)
    if board is None:
        raise DealFileError(f"{path}: no deals in file")
    raise DealFileError(f"{path}: no board {board} (boards: {', '.join(map(str, boards)) or 'none'})")


def check_deal_file(path: str | Path) -> list[int]:
    """The boards of a whole ``guandan-deals/1`` file, in order, every line validated; a board that comes twice
    is refused with both lines named: the tables of a duplicate event would all deal the first and nobody would
    know the second was meant."""
    first: dict[int, str] = {}
    for where, plan in _plans(path):
        if plan.board in first:
            raise DealFileError(f"{where}: board {plan.board} again (first on line "
                                f"{first[plan.board].rsplit(':', 1)[-1]}); each board once")
        first[plan.board] = where
    if not first:
        raise DealFileError(f"{path}: no deals in file")
    return list(first)
