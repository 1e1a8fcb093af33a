"""The value of a deal in progress (:class:`DealState`) and the low-level helpers the deal machine shares.

Split from :mod:`deal` (which re-exports everything here) to keep each module to one job: this one is the data
and its cheap copy-on-write; :mod:`deal` is the rules that move it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .actions import Action
from .cards import ALL_CARDS, COPIES, SEATS, Card
from .effects import EngineEffect
from .errors import AmbiguousPlayError, IllegalPlayError, InvalidPlayError
from .interpret import interpret
from .profiles import Profile
from .readings import Reading
from .tribute import TributePlan

TRIBUTE = "tribute"
RETURNING = "return"
PLAYING = "play"
OVER = "over"
REPORT_AT = 10  # 10张报牌
HAND_SIZE = 27

Effect = EngineEffect
_SEAT_INDEX: dict[str, int] = {s: i for i, s in enumerate(SEATS)}
Hands = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]


def _illegal(reason: str, message: str) -> IllegalPlayError:
    return IllegalPlayError(message, reason=reason)


@dataclass(slots=True, eq=False)
class DealState:
    """Everything about a deal in progress. Seats are indices 0..3 into ``SEATS`` (S, E, N, W) internally.

    Copy-on-write: the engine never changes a state it has handed out; every action makes a new one (see
    :func:`evolve`). Callers must treat states as read-only values too. (Not a frozen dataclass only because
    frozen attribute stores cost a third of the replay time.)
    """

    profile: Profile
    level: int
    dealt: Hands
    hands: Hands
    phase: str
    plan: TributePlan | None
    leader: str
    #: (giver, receiver, card) for tribute cards given so far, and (returner, receiver, card) for returns.
    given: tuple[tuple[str, str, Card], ...] = ()
    returned: tuple[tuple[str, str, Card], ...] = ()
    turn: int = -1
    #: The play to beat: seat index, reading and cards; -1 / None when the turn seat leads.
    trick_seat: int = -1
    trick_reading: Reading | None = None
    trick_cards: tuple[Card, ...] = ()
    passes: int = 0
    finished: tuple[str, ...] = ()
    reported: frozenset[str] = frozenset()
    report_due: frozenset[str] = frozenset()
    plays_made: int = 0
    t0: float = 0.0
    turn_since: float = 0.0
    warned: bool = False
    #: Persistent linked list of (previous, Action, t): the deal's history, newest first.
    history: tuple[Any, ...] | None = None
    #: Every play of the trick in progress, oldest first, as (seat index, reading, cards): the last one is the play
    #: to beat. Empty when the turn seat leads. (Last of the fields, so a snapshot pickled before it still loads.)
    trick_plays: tuple[tuple[int, Reading, tuple[Card, ...]], ...] = ()
    #: tricks won so far in this deal (the number of the trick just won, once it is)
    tricks_done: int = 0

    # -- queries ------------------------------------------------------------------------------------------
    def hand(self, seat: str) -> tuple[Card, ...]:
        return self.hands[SEATS.index(seat)]

    @property
    def to_move(self) -> str | None:
        """The seat whose turn it is in play (None outside play)."""
        return SEATS[self.turn] if self.phase == PLAYING else None

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def leading(self) -> bool:
        return self.trick_reading is None

    def pending_gives(self) -> list[str]:
        done = {g for g, _, _ in self.given}
        return [p.giver for p in (self.plan.payments if self.plan else ()) if p.giver not in done]

    def pending_returns(self) -> list[tuple[str, str]]:
        """(returner, receiver) pairs still owed."""
        done = {r for r, _, _ in self.returned}
        return [(rec, giv) for giv, rec, _ in self.given if rec not in done]

    def finish_order(self) -> list[str]:
        """Going-out order: 3 out → all four seats; 双下 → the two winners."""
        order = list(self.finished)
        if len(order) == 3:
            order += [s for s in SEATS if s not in order]
        return order

    def actions(self) -> list[tuple[Action, float]]:
        """Every accepted action with its time relative to the deal start, oldest first."""
        out: list[tuple[Action, float]] = []
        node = self.history
        while node is not None:
            node, action, t = node
            out.append((action, t))
        out.reverse()
        return out

    def hands_json(self, dealt: bool = False) -> dict[str, list[str]]:
        source = self.dealt if dealt else self.hands
        return {s: [c.code for c in source[i]] for i, s in enumerate(SEATS)}


_FIELD_NAMES: tuple[str, ...] = tuple(DealState.__dataclass_fields__)


def _make_copier() -> Any:
    """Build ``_copy(state)``: a field-by-field copy spelled out (twice as fast as a loop over names)."""
    lines = ["def _copy(state, new_object=object.__new__, cls=DealState):", "    new = new_object(cls)"]
    lines += [f"    new.{name} = state.{name}" for name in _FIELD_NAMES]
    lines.append("    return new")
    namespace: dict[str, Any] = {"DealState": DealState}
    exec("\n".join(lines), namespace)  # noqa: S102 - code built from our own field names only
    return namespace["_copy"]


_copy = _make_copier()


def evolve(state: DealState, changes: Mapping[str, Any]) -> DealState:
    """A copy of ``state`` with ``changes`` (a much faster ``dataclasses.replace`` for this hot path)."""
    new = _copy(state)
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def evolve_kw(state: DealState, **changes: Any) -> DealState:
    return evolve(state, changes)


def _count_pack(hands: Sequence[Sequence[Card]]) -> list[int]:
    counts = [0] * len(ALL_CARDS)
    for hand in hands:
        for c in hand:
            counts[c.id] += 1
    return counts


def check_hands(hands: Sequence[Sequence[Card]], *, full_pack: bool) -> None:
    """Raise ``IllegalPlayError(reason="bad_deal")`` unless no face appears more than twice and, for a full
    deal, every seat holds 27 cards and every face appears exactly twice (108 cards)."""
    counts = _count_pack(hands)
    for card, n in zip(ALL_CARDS, counts, strict=True):
        if n > COPIES:
            raise _illegal("bad_deal", f"card {card.code} appears {n} times; the pack holds {COPIES}")
    if full_pack:
        for seat, hand in zip(SEATS, hands, strict=True):
            if len(hand) != HAND_SIZE:
                raise _illegal("bad_deal", f"seat {seat} holds {len(hand)} cards, not {HAND_SIZE}")
        missing = [c.code for c, n in zip(ALL_CARDS, counts, strict=True) if n != COPIES]
        if missing:
            raise _illegal("bad_deal", f"cards missing from the deal: {' '.join(missing)}")



def _next_holding(hands: Hands, idx: int) -> int:
    for step in range(1, 5):
        j = (idx + step) % 4
        if hands[j]:
            return j
    return idx


def hand_without(hand: tuple[Card, ...], cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """``hand`` without ``cards`` (by copies), or None if the hand lacks one of them (a card not held)."""
    rest = list(hand)
    ids = [c.id for c in rest]  # compare small ints, not Card objects (whose __eq__ is Python code)
    for c in cards:
        try:
            i = ids.index(c.id)
        except ValueError:
            return None
        del ids[i], rest[i]
    return tuple(rest)


def clear_caches() -> None:
    """Empty the engine's memo of readings (bounded, 65,536 entries): for a memory measurement that must not count
    what the cache holds."""
    _reading_of.cache_clear()


@lru_cache(maxsize=65536)
def _reading_of(ids: tuple[int, ...], level: int, wild_reading: str, declared: Reading | None) -> Reading | str:
    """Memoised :func:`interpret` keyed by card ids; returns the reading or an error reason code."""
    cards = [ALL_CARDS[i] for i in ids]
    try:
        return interpret(cards, level, wild_reading=wild_reading, declared=declared)
    except AmbiguousPlayError:
        return "ambiguous"
    except InvalidPlayError:
        return "not_a_combination"


def read_play(cards: Sequence[Card], level: int, wild_reading: str, declared: Reading | None = None) -> Reading:
    """The reading of a laid-out play, raising the typed error (not_a_combination / ambiguous) otherwise."""
    if not cards:
        raise InvalidPlayError("empty play: a play needs at least one card")
    got = _reading_of(tuple(c.id for c in cards), level, wild_reading, declared)
    if isinstance(got, Reading):
        return got
    if got == "ambiguous" or declared is not None:
        # raises the precise error: the candidates, or the declared reading that the cards do not admit
        interpret(cards, level, wild_reading=wild_reading, declared=declared)
    raise InvalidPlayError("these cards form no combination: " + " ".join(c.code for c in cards))


