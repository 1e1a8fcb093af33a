"""A seeded bot that plays any position of a deal legally and sensibly enough to finish deals.

Its habits: keep bombs (never break a rank of four or more for a smaller combination, bomb only to stop an
opponent close to going out or when its own hand is nearly done), keep the wild heart level cards and the
jokers for last, never beat its partner, lead its weakest combination (lowest rank, the most cards of it),
go out in one play when the whole hand is one combination, lead a low single to a partner down to one card, give the tribute it must and return its lowest
allowed card, and report its count when a 10-card report is due. Ties are broken by a seeded RNG, so the
same seed gives the same plays. The simulator's four players are bots; tests and bench use it to play
thousands of deals.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from .actions import Action, give, pass_turn, play, report, return_card
from .cards import SEATS, Card, full_pack, single_order
from .classify import classify
from .deal import PLAYING, RETURNING, TRIBUTE, DealState, apply, start_deal
from .deal_state import _reading_of
from .legal import HandIndex, legal_plays
from .profiles import Profile
from .readings import FULL_HOUSE, PAIR, PLATE, SINGLE, STRAIGHT, TRIPLE, TUBE, Reading, beats
from .tribute import lowest_allowed_return

ACE = 14
CLOSE = 6  # an opponent with this many cards or fewer is worth a bomb


def deal_hands(rng: random.Random, first: str = "S") -> dict[str, list[Card]]:
    """Shuffle the 108 cards and deal them one at a time in play order starting at ``first``."""
    pack = full_pack()
    rng.shuffle(pack)
    start = SEATS.index(first)
    hands: dict[str, list[Card]] = {s: [] for s in SEATS}
    for i, card in enumerate(pack):
        hands[SEATS[(start + i) % 4]].append(card)
    return hands


class Bot:
    """Chooses an action for a seat given the deal state. ``Bot(seed).choose(state, seat)``."""

    def __init__(self, seed: int | None = 0) -> None:
        self.rng = random.Random(seed)

    # -- entry point ----------------------------------------------------------------------------------------
    def choose(self, state: DealState, seat: str) -> Action:
        """The action ``seat`` takes now (it must be that seat's move: a tribute, return, report or turn)."""
        if state.phase == TRIBUTE:
            payment = next(p for p in state.plan.payments if p.giver == seat)  # type: ignore[union-attr]
            return give(seat, self.rng.choice(payment.candidates))
        if state.phase == RETURNING:
            receiver = dict(state.pending_returns())[seat]
            card = lowest_allowed_return(state.profile.return_limit, state.level, seat, receiver, state.hand(seat))
            return return_card(seat, card)
        if seat in state.report_due:
            return report(seat)
        hand = state.hand(seat)
        found = self._go_out(hand, state) or (self._lead(hand, state) if state.leading else self._follow(hand, state))
        if found is None:
            return pass_turn(seat)
        reading, cards = found
        got = _reading_of(tuple(c.id for c in cards), state.level, state.profile.wild_reading, None)
        declared = None if isinstance(got, Reading) and got == reading else reading
        return play(seat, cards, declared)

    # -- decisions ------------------------------------------------------------------------------------------
    def _go_out(self, hand: Sequence[Card], state: DealState) -> tuple[Reading, list[Card]] | None:
        if len(hand) > 10 or (not state.leading and SEATS[state.trick_seat] == _partner(state)):
            return None
        level, over = state.level, state.trick_reading
        for reading in classify(hand, level):
            if over is None or beats(reading, over, level):
                return reading, legal_plays(hand, level).cards_for(reading)
        return None

    def _lead(self, hand: Sequence[Card], state: DealState) -> tuple[Reading, list[Card]] | None:
        level = state.level
        if len(state.hands[(state.turn + 2) % 4]) == 1:  # partner down to one card: give it a low single
            card = min(hand, key=lambda c: (single_order(c.rank, level), c.id))
            return Reading(SINGLE, level if card.suit == "H" and card.rank == level else card.rank, 1), [card]
        ix = HandIndex(hand, level)
        count = ix.count
        avail = [0] * 15
        for r in range(2, 15):
            if count[r] < 4 and r != level:
                avail[r] = count[r]
        avail[1] = avail[ACE]
        options: list[tuple[float, float, Reading]] = []

        def add(reading: Reading, low: int) -> None:
            options.append((single_order(low, level) if low > 1 else 1, -reading.size + self.rng.random(), reading))

        for s in range(1, 11):
            if all(avail[v] for v in range(s, s + 5)) and sum(avail[v] >= 2 for v in range(s, s + 5)) <= 1:
                add(Reading(STRAIGHT, s, 5), s)
        for s in range(1, 13):
            if all(avail[v] == 2 for v in range(s, s + 3)):
                add(Reading(TUBE, s, 6), s)
        for s in range(1, 14):
            if avail[s] == 3 and avail[s + 1] == 3:
                add(Reading(PLATE, s, 6), s)
        pairs = [r for r in range(2, 15) if avail[r] == 2]
        for r in range(2, 15):
            n = avail[r]
            if n == 3:
                if pairs:
                    add(Reading(FULL_HOUSE, r, 5), r)
                else:
                    add(Reading(TRIPLE, r, 3), r)
            elif n == 2:
                add(Reading(PAIR, r, 2), r)
            elif n == 1:
                add(Reading(SINGLE, r, 1), r)
        if options:
            reading = min(options, key=lambda o: (o[0], o[1]))[2]
            cards = legal_plays(hand, level).cards_for(reading)
            if reading.type == FULL_HOUSE:  # the pair must be a natural pair from outside bombs
                pair_rank = min(pairs, key=lambda r: single_order(r, level))
                cards = ix.by_rank[reading.rank][:3] + ix.by_rank[pair_rank][:2]
                if single_order(pair_rank, level) < single_order(reading.rank, level):
                    cards = cards[3:] + cards[:3]
            return reading, cards
        plays = legal_plays(hand, level)
        best: Reading | None = None
        for reading in plays.readings():  # non-bombs first, then bombs from the smallest
            if reading.is_bomb:
                best = best or reading
                break
            if best is None or reading.rank_key(level) < best.rank_key(level):
                best = reading
        if best is None:
            return None
        return best, plays.cards_for(best)

    def _follow(self, hand: Sequence[Card], state: DealState) -> tuple[Reading, list[Card]] | None:
        if SEATS[state.trick_seat] == _partner(state):
            return None
        level, over = state.level, state.trick_reading
        assert over is not None
        danger = len(state.hands[state.trick_seat]) <= CLOSE or len(hand) <= 10
        if over.type in _SAME_RANK:
            found = _follow_same_rank(hand, level, over)
            if found is not None or not danger:
                return found  # no cheap beat and no reason to bomb: pass without indexing the hand
        plays = legal_plays(hand, level, over)
        ix = plays.index
        bomb_ranks = {r for r in range(2, 15) if ix.count[r] >= 4}
        bombs: list[Reading] = []
        for reading in plays.readings():
            if reading.is_bomb:
                bombs.append(reading)  # the smallest bomb that beats; no need for more
                break
            cards = plays.cards_for(reading)
            if any(c.suit == "H" and c.rank == level for c in cards):
                continue
            if any(c.rank in bomb_ranks for c in cards):
                continue
            return reading, cards
        if not bombs or not danger:
            return None
        return bombs[0], plays.cards_for(bombs[0])


_SAME_RANK = {SINGLE: 1, PAIR: 2, TRIPLE: 3}


def _follow_same_rank(hand: Sequence[Card], level: int, over: Reading) -> tuple[Reading, list[Card]] | None:
    """The cheapest single / pair / triple of natural cards (no wild, no card of a bomb) that beats ``over``."""
    size = _SAME_RANK[over.type]
    by_rank: dict[int, list[Card]] = {}
    for c in hand:
        if not (c.suit == "H" and c.rank == level):
            by_rank.setdefault(c.rank, []).append(c)
    floor = over.rank_key(level)
    best: tuple[int, int] | None = None
    for rank, cards in by_rank.items():
        n = len(cards)
        if n < size or (n >= 4 and rank <= ACE):
            continue
        order = single_order(rank, level)
        if order > floor and (best is None or order < best[0]):
            best = (order, rank)
    if best is None:
        return None
    rank = best[1]
    return Reading(over.type, rank, size), by_rank[rank][:size]


def _partner(state: DealState) -> str:
    return SEATS[(state.turn + 2) % 4]


def movers(state: DealState) -> list[str]:
    """The seats that may act now: tribute payers, returners, a seat owing its 10-card report, the turn."""
    if state.phase == TRIBUTE:
        return state.pending_gives()
    if state.phase == RETURNING:
        return [s for s, _ in state.pending_returns()]
    if state.phase == PLAYING:
        return sorted(state.report_due) + [SEATS[state.turn]]
    return []


def play_out(
    profile: Profile,
    level: int,
    hands: Mapping[str, Sequence[Card]],
    bots: Mapping[str, Bot] | Bot,
    *,
    previous_finish: Sequence[str] | None = None,
    leader: str | None = None,
    step: float = 1.0,
    max_actions: int = 2000,
) -> DealState:
    """Play a whole deal with bots (one shared or one per seat), ``step`` seconds per action."""
    state, _ = start_deal(profile, level, hands, previous_finish=previous_finish, leader=leader)
    t = 0.0
    for _ in range(max_actions):
        if state.over:
            return state
        seat = movers(state)[0]
        bot = bots if isinstance(bots, Bot) else bots[seat]
        t += step
        state, _ = apply(state, bot.choose(state, seat), t)
    raise RuntimeError(f"deal did not finish within {max_actions} actions")  # a bot bug, never bad input
