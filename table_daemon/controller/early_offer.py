"""The early offer of an unsure play (layer 4, below :mod:`.play`): the camera offers an unsure play at once,
marked provisional, while it keeps looking; the table takes it then if the seat's hand settles it, and the camera's
later reports of the same hold are the last word on that play, never a new one."""

from __future__ import annotations

from collections import Counter

from guandan import Card

from .laid import more_than_the_pack, playing, seen_evidence, sure_enough_to_accuse
from .model import CardsSeen
from .state import TableDeal, TableState


def may_settle_now(c: TableState, e: CardsSeen) -> bool:
    """Whether a provisional reading (an unsure play the camera still looks at) may be taken now: only a play on
    turn, every card read and no more copies than the pack holds. It is then taken only if the seat's hand
    settles it (:func:`choose_seen`, quietly); anything else waits for the camera's final report, so a
    provisional reading never raises an alert."""
    d = c.deal
    if not playing(c):
        return False
    assert d is not None and d.state is not None  # playing(c): a deal in its play
    if d.pending_declare is not None or e.seat != d.state.to_move or e.unreadable or not e.cards:
        return False
    cards = c.parse_seen(list(e.cards))
    return cards is not None and not more_than_the_pack(cards)


def taken_while_held(d: TableDeal, e: CardsSeen, cards: list[Card]) -> None:
    """A play taken from a provisional reading: the camera still holds the set and will report it once more
    (:func:`last_word_on_a_taken_play`)."""
    if e.provisional and e.wait:
        d.taken_in_wait[e.seat] = (e.wait, tuple(x.code for x in cards))


def last_word_on_a_taken_play(c: TableState, e: CardsSeen) -> bool:
    """Whether ``e`` is the camera's word on a play the table already took from a provisional reading of the
    same hold (then handled here): another provisional look says nothing; the final report says nothing when
    it is unsure or reads the cards as taken, and when it reads other cards surely the referee is asked to check
    the play (``misread``: the player laid what he laid, never a foul). The play may be over by then (the trick
    ended, a declaration is awaited, the table paused), so the seat's turn and zone do not matter. A report of
    another hold, or of none, ends the record (that hold's final report will not come: the zone emptied, or the
    camera restarted)."""
    d = c.deal
    if d is None or e.seat not in d.taken_in_wait:
        return False
    wait, taken = d.taken_in_wait[e.seat]
    if not e.wait or e.wait != wait:
        del d.taken_in_wait[e.seat]
        return False
    if e.provisional:
        return True
    del d.taken_in_wait[e.seat]
    if sure_enough_to_accuse(c, e) and Counter(e.cards) != Counter(taken):
        c.alert("misread", e.seat, "the play taken by the seat's hand now reads otherwise: referee, please check it "
                "(按手牌认定的出牌复读不同，请裁判核对)", {**seen_evidence(e), "taken": list(taken)})
    return True
