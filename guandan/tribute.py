"""Tribute (进贡), return (还贡) and resistance (抗贡) before a deal's play (rules spec §7).

``plan_tribute`` turns the previous deal's finishing order and the new hands into who pays whom, which cards
each payer may give (its highest, heart level cards excepted), whether the tribute is resisted, and who leads.
``return_allowed`` checks a returned card against the profile's ``return_limit``.

The leader is known before any card is chosen: all of a payer's candidates rank equally, so in a double tribute
the higher payer (who pays 上游) is known in advance; with equal tributes the tie rule of the profile decides,
and in every case the loser who pays 上游 leads (000: 上游's 下家 under ``clockwise``; 003: 上游's 上家 under
``counter_clockwise``; under ``winner_chooses`` 上游's 下家 unless 上游 picks the other card).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .cards import BIG_JOKER, Card, is_wild, next_seat, partner, previous_seat, single_order
from .levels import check_finish
from .profiles import Profile


@dataclass(frozen=True, slots=True)
class Payment:
    """One tribute: ``giver`` gives one of ``candidates`` to ``receiver`` (who later returns a card)."""

    giver: str
    receiver: str
    candidates: tuple[Card, ...]

    def to_json(self) -> dict[str, object]:
        return {"from": self.giver, "to": self.receiver, "candidates": [c.code for c in self.candidates]}


@dataclass(frozen=True, slots=True)
class TributePlan:
    """The tribute phase of a deal. ``payments`` is empty when resisted; ``leader`` leads the first trick."""

    resisted: bool
    payments: tuple[Payment, ...]
    leader: str
    double: bool
    #: Double tribute with equal cards under ``winner_chooses``: 上游 may take either card.
    winner_chooses: bool = False
    #: 上游 and 二游 (the receivers of a double tribute), or (上游,) for a single one.
    winners: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "resisted": self.resisted,
            "payments": [p.to_json() for p in self.payments],
            "leader": self.leader,
        }


def tribute_candidates(hand: Sequence[Card], level: int) -> tuple[Card, ...]:
    """The distinct cards a payer may give: its highest by the single-card order of ``level``, not counting
    the heart level cards (a hand of nothing but heart level cards gives one of those)."""
    plain = [c for c in hand if not is_wild(c, level)] or list(hand)
    if not plain:
        return ()
    top = max(single_order(c.rank, level) for c in plain)
    seen: dict[int, Card] = {}
    for c in plain:
        if single_order(c.rank, level) == top:
            seen.setdefault(c.id, c)
    return tuple(sorted(seen.values(), key=lambda c: c.id))


def _big_jokers(hand: Sequence[Card]) -> int:
    return sum(1 for c in hand if c is BIG_JOKER)


def plan_tribute(
    profile: Profile, level: int, finish: Sequence[str], hands: Mapping[str, Sequence[Card]]
) -> TributePlan:
    """Who pays whom before a deal at ``level``, after a deal that finished in ``finish`` order.

    Single tribute: 下游 pays 上游 and leads. Double tribute
    (after a 双下): the higher card goes to 上游, the lower to 二游, and the payer of the higher card leads; equal
    cards follow the tie rule. Resistance: 下游 (or the two losers together) holding both big jokers.
    """
    profile_tie = profile.tie_tribute
    order = check_finish(finish)
    first = order[0]
    if order[1] == partner(first):  # 双下: double tribute
        losers = (next_seat(first), previous_seat(first))
        if sum(_big_jokers(hands.get(s, ())) for s in losers) >= 2:
            return TributePlan(True, (), first, True, winners=(first, order[1]))
        cands = {s: tribute_candidates(hands.get(s, ()), level) for s in losers}
        rank = {s: (single_order(cands[s][0].rank, level) if cands[s] else 0) for s in losers}
        a, b = losers
        if rank[a] != rank[b]:
            high, low = (a, b) if rank[a] > rank[b] else (b, a)
            payments: tuple[Payment, ...] = (Payment(high, first, cands[high]), Payment(low, order[1], cands[low]))
            return TributePlan(False, payments, high, True, winners=(first, order[1]))
        if profile_tie == "counter_clockwise":
            # each loser gives to its 下家; 上游's 上家 leads (it is the one paying 上游)
            payments = tuple(Payment(s, next_seat(s), cands[s]) for s in losers)
            return TributePlan(False, payments, previous_seat(first), True, winners=(first, order[1]))
        # clockwise: each loser gives to its 上家; 上游's 下家 leads. winner_chooses: the same by default.
        payments = tuple(Payment(s, previous_seat(s), cands[s]) for s in losers)
        return TributePlan(
            False, payments, next_seat(first), True, profile_tie == "winner_chooses", winners=(first, order[1])
        )
    last = order[3]
    if _big_jokers(hands.get(last, ())) >= 2:
        return TributePlan(True, (), first, False, winners=(first,))
    payment = Payment(last, first, tribute_candidates(hands.get(last, ()), level))
    return TributePlan(False, (payment,), last, False, winners=(first,))


def return_limit_ok(card: Card, level: int, to_partner: bool, limit: str) -> bool:
    """Whether ``card`` is within the profile's return limit (ignoring the lowest-card fallback)."""
    at_most_ten = not card.is_joker and card.rank <= 10 and card.rank != level
    if limit == "ten_always":
        return at_most_ten
    if not to_partner:
        return True
    if limit == "below_level_to_partner":
        return not card.is_joker and card.rank != level
    return at_most_ten  # ten_to_partner


def return_allowed(
    limit: str, level: int, returner: str, receiver: str, card: Card, hand: Sequence[Card]
) -> tuple[bool, str]:
    """Check a return (还贡) of ``card`` from ``returner`` (holding ``hand``) to ``receiver``.

    Returns ``(ok, reason)`` with reason ``ok``, ``not_held``, ``same_seat``, ``over_limit`` (a card above
    the limit while an allowed one is held) or ``not_lowest`` (no allowed card held: the lowest must go back).
    """
    if returner == receiver:
        return False, "same_seat"
    if card not in hand:
        return False, "not_held"
    to_partner = partner(returner) == receiver
    if return_limit_ok(card, level, to_partner, limit):
        return True, "ok"
    if any(return_limit_ok(c, level, to_partner, limit) for c in hand):
        return False, "over_limit"
    lowest = min(single_order(c.rank, level) for c in hand)
    if single_order(card.rank, level) == lowest:
        return True, "ok"
    return False, "not_lowest"


def lowest_allowed_return(limit: str, level: int, returner: str, receiver: str, hand: Sequence[Card]) -> Card:
    """A sensible default return: the lowest allowed card (or the lowest card when none is allowed)."""
    to_partner = partner(returner) == receiver
    allowed = [c for c in hand if return_limit_ok(c, level, to_partner, limit)] or list(hand)
    return min(allowed, key=lambda c: (single_order(c.rank, level), c.id))
