"""Doubts before a foul (layer 4, below :mod:`.play`): a reading sure of every card that is no play the seat could
make may still be the reader's error (a card hidden in a tight fan, one read twice, one misread), so the table
asks for the cards again once before it calls ``illegal_play`` or ``not_held``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from guandan import Card
from guandan import deal as engine

from .laid import playable
from .state import TableState

#: at most this many cards of a play may lie hidden under others in a tight fan (a bomb's cards, fanned close;
#: a full house of a held-out design read surely as two of its cards, bench/simulate.py)
HIDDEN_AT_MOST = 3


def doubt_the_reading(c: TableState, seat: str, new: list[Card], evidence: dict[str, Any], held: bool) -> bool:
    """Whether to ask for the cards again instead of calling a foul (``illegal_play``, ``not_held``) on a reading
    sure of every card it read, because the reader may have missed up to three cards, read one twice, or misread
    one:
    - one to three short (``held``: every card seen is held) of a play the seat could make with cards it holds:
      a card lying almost wholly under another in a tight fan shows no index, and the fan's count does not always
      notice (a full house read as two pairs or as two of its cards, a bomb of four as a pair);
    - one over a play it could make, the card over read twice or not held: a picture or a word printed on a card
      read as one more index, of the card beside it (a pair of jokers read as three red jokers, the JOKER or 大王
      printed beside the index read as a joker; at the table, the edge of a card read as the index beside it) or
      of a card the seat does not hold (a queen's court picture read surely as H7 between two queens,
      ``bench/simulate.py`` on lato-italic), or a joker (a king's court picture read surely as the black joker,
      ``bench/table_reading.py`` on noto-sans-beside). Two different held cards, neither a joker, that are no play
      are the foul at once;
    - one card not held where a held card in its place makes a play it could lay: a card read surely as another
      (a bomb of four queens with the heart queen read as the ten, in a court picture of a held-out design).
      Every card of both packs is dealt, so a card not held lies in another seat's hand: laying it is far rarer
      than the reader mistaking one card.
    The first time a seat shows this set in this turn the table raises ``misread`` (please lay the cards again)
    with what would make a play (``without`` the card read too many, how many cards it is ``short_of`` one, or
    the card ``not_held`` that a held one could replace: never which held cards, nor how many would do, the
    alerts topic being public); the same set shown again in the turn is the foul, another set shown between
    notwithstanding."""
    d = c.deal
    assert d is not None and d.state is not None, "a reading is doubted only in a deal in progress (on_cards_seen)"
    st = d.state
    seen = (seat, tuple(sorted(x.code for x in new)), st.turn_since)
    if seen in d.doubted_in_turn:
        return False  # shown again in the turn: the foul it is (another set in between does not reset it)
    d.doubted_in_turn = {x for x in d.doubted_in_turn if x[2] == st.turn_since}
    takes = playable(c, seat, {})

    def one_over(doubtful: set[str]) -> bool:
        """Ask again where leaving out one card of ``doubtful`` makes a play the seat could lay."""
        over = sorted({x.code for i, x in enumerate(new)
                       if x.code in doubtful and len(new) > 1 and takes(new[:i] + new[i + 1:])})
        if over:
            d.doubted_in_turn.add(seen)
            c.alert("misread", seat, "请重新摆牌，可能多识别了一张 | please lay the cards again: a card may have "
                    "been read twice", {**evidence, "one_over": True, "without": over})
        return bool(over)

    # a card read twice, or a joker: pictures of other cards are read as jokers (a king's court picture as the
    # black joker, surely, in bench/table_reading.py on noto-sans-beside)
    if one_over({code for code, n in Counter(x.code for x in new).items() if n > 1}
                | {x.code for x in new if x.is_joker}):
        return True
    if not held:
        swap = held_swap(st.hand(seat), new, takes)
        if swap is None:
            return one_over(not_held_codes(st.hand(seat), new))
        d.doubted_in_turn.add(seen)
        c.alert("misread", seat, "请重新摆牌，可能有牌识别错误 | please lay the cards again: a card may have been misread",
                {**evidence, "not_held": swap, "held_in_its_place": True})
        return True
    rest: Sequence[Card] = engine.hand_without(st.hand(seat), new) or []
    completions: list[list[str]] = []
    for hidden in range(1, HIDDEN_AT_MOST + 1):
        tried: set[tuple[str, ...]] = set()
        for extra in combinations(rest, hidden):
            codes = tuple(sorted(x.code for x in extra))
            if codes not in tried:
                tried.add(codes)
                if takes([*new, *extra]):
                    completions.append(list(codes))
        if completions:
            break
    if not completions:
        return False
    d.doubted_in_turn.add(seen)
    c.alert("misread", seat, "请重新摆牌，可能有牌被遮挡 | please lay the cards again: a card may be hidden",
            {**evidence, "short_of": len(completions[0])})
    return True


def not_held_positions(hand: Sequence[Card], new: list[Card]) -> list[int]:
    """The positions in ``new`` of the cards ``hand`` does not hold (each held copy accounts for one)."""
    left = Counter(x.id for x in hand)
    missing = []
    for i, x in enumerate(new):
        if left[x.id] > 0:
            left[x.id] -= 1
        else:
            missing.append(i)
    return missing


def not_held_codes(hand: Sequence[Card], new: list[Card]) -> set[str]:
    """The code of the one card of ``new`` that ``hand`` does not hold, if exactly one is not held; else none."""
    missing = not_held_positions(hand, new)
    return {new[missing[0]].code} if len(missing) == 1 else set()


def held_swap(hand: tuple[Card, ...], new: list[Card], takes: Callable[[list[Card]], bool]) -> str | None:
    """When one card of ``new`` is not in ``hand`` and the rest are, and some held card in its place makes a play
    the seat could lay: that card's code; else None."""
    missing = not_held_positions(hand, new)
    if len(missing) != 1:
        return None
    i = missing[0]
    rest: Sequence[Card] = engine.hand_without(hand, new[:i] + new[i + 1:]) or []
    one_of_each = {x.code: x for x in rest}.values()
    return new[i].code if any(takes(new[:i] + [other] + new[i + 1:]) for other in one_of_each) else None
