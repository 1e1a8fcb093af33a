"""What a seat laid, from what the camera saw (layer 4, below :mod:`.play`): the reader's candidates weighed
with what the seat holds and may lay (:mod:`.seen_choice`), the reading a laid set counts as, the cards new in a
zone, and whether a reading is sure enough to accuse a player."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from guandan import (
    COPIES,
    AmbiguousPlayError,
    Card,
    GuandanError,
    InvalidPlayError,
    Reading,
    beats,
    classify,
    interpret,
)
from guandan import actions as act
from guandan import deal as engine

from .model import CardsSeen
from .seen_choice import SURE
from .seen_choice import choose as choose_candidates
from .seen_choice import sure as reading_is_sure
from .state import TableDeal, TableState

#: what a laid set counts as: (reading, (), "") decided; (None, candidates, "ambiguous"); (None, (), why illegal)
Decided = tuple[Reading | None, tuple[Reading, ...], str]


def seen_evidence(e: CardsSeen) -> dict[str, Any]:
    """What an alert about a seen set shows the referee of it: the frame, the cards seen, the confidence."""
    return {"frame": e.frame, "seen": list(e.cards), "confidence": e.confidence}


def playing(c: TableState) -> bool:
    """The deal is in its play (not dealing, tribute or return)."""
    d = c.deal
    return d is not None and d.state is not None and c.phase == "playing" and d.state.phase not in (
        engine.TRIBUTE, engine.RETURNING)


def more_than_the_pack(cards: list[Card]) -> list[str]:
    """The codes read more often than the pack holds copies of them: no seat can lay that."""
    return sorted(code for code, n in Counter(x.code for x in cards).items() if n > COPIES)


def new_cards(before: list[Card], seen: list[Card]) -> list[Card]:
    """Cards in ``seen`` beyond those already lying in the zone (order kept); all of ``seen`` when some of the
    old ones were taken away."""
    left = Counter(x.id for x in before)
    if any(n > 0 for n in (left - Counter(x.id for x in seen)).values()):
        return list(seen)
    out = []
    for x in seen:
        if left[x.id] > 0:
            left[x.id] -= 1
        else:
            out.append(x)
    return out


def choose_reading(cards: list[Card], level: int, wild_reading: str,
                   over: Reading | None) -> Decided:
    """The reading a laid-out play counts as against ``over``: (reading, (), "") when decided;
    (None, candidates, "ambiguous") when the seat must declare (several readings beat the trick under
    ``declare``, or the reading the order or the profile gives does not beat it and another would);
    (None, (), reason) when it is illegal."""
    readings = classify(cards, level)
    if not readings:
        return None, (), "不成牌型 | not a combination"
    try:
        reading = interpret(cards, level, wild_reading=wild_reading)
    except InvalidPlayError as exc:
        return None, (), str(exc)
    except AmbiguousPlayError as exc:
        pool = tuple(r for r in exc.candidates if over is None or beats(r, over, level))
        if len(pool) == 1:
            return pool[0], (), ""
        return (None, pool, "ambiguous") if pool else (None, (), f"压不过上家：这些牌怎么配都压不过 {over} | no reading of these cards beats {over}")
    if over is None or beats(reading, over, level):
        return reading, (), ""
    # the laid-out order (or the profile's strongest reading) says a reading that does not beat the trick, and
    # another reading of the cards would: the table never takes that one without the seat saying so (rules §5:
    # "the table never guesses without saying so"), nor calls a foul the seat may mean otherwise: it asks
    pool = tuple(r for r in readings if beats(r, over, level))
    if pool:
        return None, pool, "ambiguous"
    return None, (), f"压不过上家 | {reading} does not beat {over}"


def playable(c: TableState, seat: str, worked_out: dict[tuple[str, ...], Decided]) -> Callable[[list[Card]], bool]:
    """Whether ``seat`` holds these cards and they are a legal play now (what :func:`choose_reading` made of
    them is kept in ``worked_out``, so the play chosen is classified once)."""
    d = c.deal
    assert d is not None and d.state is not None, "a play is judged only in a deal in progress (on_cards_seen)"
    st = d.state

    def takes(fresh: list[Card]) -> bool:
        if engine.hand_without(st.hand(seat), fresh) is None:
            return False
        decided = choose_reading(fresh, st.level, c.profile.wild_reading, st.trick_reading)
        worked_out[tuple(x.code for x in fresh)] = decided
        return decided[0] is not None or bool(decided[1])

    return takes


def owed(c: TableState, seat: str) -> Callable[[list[Card]], bool]:
    """Whether these cards are the tribute or return card ``seat`` may lay now (the engine's own check)."""
    d = c.deal
    assert d is not None and d.state is not None, "a tribute is judged only in a deal in progress (on_cards_seen)"
    st = d.state
    kind = act.GIVE if st.phase == engine.TRIBUTE else act.RETURN

    def takes(fresh: list[Card]) -> bool:
        try:
            engine.apply(st, act.Action(seat, kind, tuple(fresh)), c.now)
        except GuandanError:
            return False
        return True

    return takes


def options_of(e: CardsSeen) -> list[list[tuple[str, float]]]:
    """Each card of a reading with its candidates (the card alone at the reading's confidence where the camera
    gave none)."""
    if len(e.candidates) == len(e.cards) and all(e.candidates):
        return [list(o) for o in e.candidates]
    return [[(code, e.confidence)] for code in e.cards]


def sure_enough_to_accuse(c: TableState, e: CardsSeen) -> bool:
    """Whether a reading is sure enough to call a foul on (``seen_choice.sure`` at the reader's own threshold
    when stricter), or to say that the cards lie otherwise than the table took them."""
    return not e.unreadable and e.confidence >= c.timing.min_confidence \
        and reading_is_sure(options_of(e), max(SURE, c.timing.min_confidence), e.confidence)


def choose_seen(c: TableState, e: CardsSeen, cards: list[Card], evidence: dict[str, Any],
                takes: Callable[[list[Card]], bool]) -> tuple[list[Card], list[Card]]:
    """What a seat laid (all its zone's cards, and those new in it) when the table ``takes`` the new ones (a
    play: held and legal; a tribute or return: the card owed): the reader's first reading when it is sure
    enough and taken, else the most probable set of its candidates that is taken, if that is probable enough
    (``seen_choice``: an unsure first reading may be it). ``([], [])`` after raising ``misread`` when neither
    will do (quietly for a provisional reading: the camera's final report is judged again); a first reading
    that is not taken comes back only when the reader is sure of it, for the caller to call the foul it is."""
    assert c.deal is not None, "laid cards are chosen only in a deal in progress (on_cards_seen)"
    zone = c.deal.zone[e.seat]
    options = options_of(e)

    def fits(codes: tuple[str, ...]) -> bool:
        laid = c.parse_seen(list(codes))
        fresh = new_cards(zone, laid) if laid is not None else []
        return bool(fresh) and takes(fresh)

    first = tuple(e.cards)
    if e.confidence >= c.timing.min_confidence and fits(first):
        return cards, new_cards(zone, cards)
    sure_at = max(SURE, c.timing.min_confidence)  # the reader's own threshold, when stricter
    chosen = choose_candidates(options, fits, sure_at)
    if chosen is not None:
        laid = c.parse_seen(list(chosen)) or cards
        if chosen != first:
            evidence["read_as"] = list(chosen)  # the reader's candidates, chosen by what the seat holds
        return laid, new_cards(zone, laid)
    if e.provisional:
        return [], []  # not settled by the hand: the camera's final report decides, alert and all
    if sure_enough_to_accuse(c, e):
        return cards, new_cards(zone, cards)  # a sure reading: the caller calls the foul it is
    c.alert("misread", e.seat, "请重新摆牌，识别不确定 | please lay the cards again: the reader is unsure",
            {**evidence, "candidates": [[list(x) for x in o] for o in options]})
    return [], []


def lay_in_zone(d: TableDeal, e: CardsSeen, cards: list[Card]) -> None:
    """The cards taken as laid now lie in the seat's zone; what the reader read of them is kept when it chose
    other candidates, so the camera's next report of the same reading is known for the same cards."""
    d.zone[e.seat] = list(cards)
    if [x.code for x in cards] != list(e.cards):
        d.zone_read_as[e.seat] = tuple(e.cards)
    else:
        d.zone_read_as.pop(e.seat, None)
