"""Cards, ranks, suits and seats of Guandan, and the one place where card notation is parsed and formatted.

Notation (rules spec §1): suit then rank, suits ``S H C D``, ranks ``2..9 T J Q K A``; jokers ``SB`` (small,
小王) and ``HR`` (big, 大王). ``10`` is accepted for ``T`` on input; output always uses ``T``. A physical copy
may carry a suffix ``#1`` / ``#2``.

Every distinct card face is one interned :class:`Card` (54 of them), so cards compare by identity and hash
cheaply. ``Card.id`` is a small integer (0..53) that the engine uses for counting tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import InvalidCardError

SUITS: tuple[str, ...] = ("S", "H", "C", "D")
RANK_CHARS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
#: Natural rank values: 2..14 (A = 14). Jokers get 15 (SB) and 16 (HR).
RANK_VALUES: dict[str, int] = {ch: i + 2 for i, ch in enumerate(RANK_CHARS)}
SMALL_JOKER_RANK = 15
BIG_JOKER_RANK = 16
RANK_NAME: dict[int, str] = {v: k for k, v in RANK_VALUES.items()} | {SMALL_JOKER_RANK: "SB", BIG_JOKER_RANK: "HR"}

SEATS: tuple[str, ...] = ("S", "E", "N", "W")  # play order (counter-clockwise)
#: each seat as the rules name it (南 S, 东 E, 北 N, 西 W): alerts, consoles and pages say them so
SEAT_ZH: dict[str, str] = {"S": "南", "E": "东", "N": "北", "W": "西"}
TEAMS: tuple[str, ...] = ("NS", "EW")
LEVELS: tuple[str, ...] = RANK_CHARS  # team levels; "A+" means the team has passed A
PASSED_A = "A+"


@dataclass(frozen=True, slots=True)
class Card:
    """One card face. ``suit`` is ``None`` for jokers; ``rank`` is the natural rank value (2..14, 15, 16)."""

    id: int
    suit: str | None
    rank: int
    code: str

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


def _build_cards() -> tuple[Card, ...]:
    cards: list[Card] = []
    for rank_index, rank_char in enumerate(RANK_CHARS):
        for suit_index, suit in enumerate(SUITS):
            cards.append(Card(rank_index * 4 + suit_index, suit, rank_index + 2, suit + rank_char))
    cards.append(Card(52, None, SMALL_JOKER_RANK, "SB"))
    cards.append(Card(53, None, BIG_JOKER_RANK, "HR"))
    return tuple(cards)


#: The 54 distinct faces, indexed by ``Card.id``.
ALL_CARDS: tuple[Card, ...] = _build_cards()
SMALL_JOKER: Card = ALL_CARDS[52]
BIG_JOKER: Card = ALL_CARDS[53]
_BY_CODE: dict[str, Card] = {c.code: c for c in ALL_CARDS}
for _c in ALL_CARDS:
    if _c.suit is not None and _c.rank == 10:
        _BY_CODE[_c.suit + "10"] = _c
#: Number of physical copies of each face in the 108-card pack.
COPIES = 2


def card_of(suit: str, rank: int) -> Card:
    """The face with this suit and natural rank (2..14)."""
    return ALL_CARDS[(rank - 2) * 4 + SUITS.index(suit)]


def parse_card(token: str) -> Card:
    """Parse one card code (``H2``, ``ST``, ``S10``, ``SB``, ``HR``; a ``#1``/``#2`` copy suffix is allowed)."""
    if not isinstance(token, str):
        raise InvalidCardError(f"card code must be a string, got {token!r}")
    text = token.strip().upper()
    if "#" in text:
        text, _, copy = text.partition("#")
        if copy not in ("1", "2"):
            raise InvalidCardError(f"bad copy suffix in card code {token!r} (expected #1 or #2)")
    card = _BY_CODE.get(text)
    if card is None:
        raise InvalidCardError(f"unknown card code {token!r}")
    return card


def parse_physical(token: str) -> tuple[Card, int | None]:
    """Parse a card code with its optional copy suffix: returns the face and the copy number (1, 2 or None)."""
    card = parse_card(token)
    _, sep, copy = token.strip().partition("#")
    return card, (int(copy) if sep else None)


def parse_cards(tokens: Iterable[str] | str, *, max_copies: int | None = COPIES) -> list[Card]:
    """Parse a list of card codes (or one whitespace/comma separated string), keeping their order.

    Raises :class:`InvalidCardError` naming the bad token, or when a face appears more often than the pack
    holds (``max_copies``; ``None`` disables that check).
    """
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    tokens = list(tokens)
    cards = [parse_card(t) for t in tokens]
    copies: set[tuple[int, int]] = set()  # a ``#1``/``#2`` suffix names one physical card: never twice
    for c, token in zip(cards, tokens, strict=True):
        if "#" in token:
            copy = parse_physical(token)[1]
            if (c.id, copy or 0) in copies:
                raise InvalidCardError(f"card {token.strip()} appears twice: it names one physical card")
            copies.add((c.id, copy or 0))
    if max_copies is not None:
        seen: dict[int, int] = {}
        for c in cards:
            n = seen.get(c.id, 0) + 1
            if n > max_copies:
                raise InvalidCardError(f"card {c.code} appears {n} times; the pack holds only {max_copies}")
            seen[c.id] = n
    return cards


def format_cards(cards: Sequence[Card]) -> list[str]:
    """Card codes in the given order."""
    return [c.code for c in cards]


def parse_level(text: str) -> int:
    """Parse a level rank (``2``..``A``, also ``10``) into its natural rank value (2..14)."""
    if not isinstance(text, str):
        text = str(text)
    t = text.strip().upper()
    if t == "10":
        t = "T"
    value = RANK_VALUES.get(t)
    if value is None:
        raise InvalidCardError(f"unknown level {text!r} (expected 2..9, T, J, Q, K, A)")
    return value


def rank_name(rank: int) -> str:
    """The notation of a rank value: ``2``..``A``, ``SB``, ``HR``."""
    return RANK_NAME[rank]


def is_wild(card: Card, level: int) -> bool:
    """The two heart level cards (红心参谋) are wild."""
    return card.suit == "H" and card.rank == level


def wild_card(level: int) -> Card:
    """The heart level card of this level."""
    return card_of("H", level)


def single_order(rank: int, level: int) -> int:
    """Position of a rank in the single-card order (§2): 2..A = 2..14, level cards 15, SB 16, HR 17."""
    if rank >= SMALL_JOKER_RANK:
        return rank + 1
    if rank == level:
        return 15
    return rank


def full_pack() -> list[Card]:
    """The 108 cards: every face twice."""
    return [c for c in ALL_CARDS for _ in range(COPIES)]


def next_seat(seat: str) -> str:
    """下家: the following seat in play order."""
    return SEATS[(SEATS.index(seat) + 1) % 4]


def previous_seat(seat: str) -> str:
    """上家: the seat before in play order."""
    return SEATS[(SEATS.index(seat) - 1) % 4]


def partner(seat: str) -> str:
    return SEATS[(SEATS.index(seat) + 2) % 4]


def team_of(seat: str) -> str:
    return "NS" if seat in ("N", "S") else "EW"


def parse_seat(text: str) -> str:
    if not isinstance(text, str) or text.strip().upper() not in SEATS:
        raise InvalidCardError(f"unknown seat {text!r} (expected S, E, N or W)")
    return text.strip().upper()
