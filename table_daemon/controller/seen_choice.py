"""Choosing what a seat laid from what the reader saw and what the seat holds (no false accusations).

The reader gives each card it saw its best candidates with probabilities. A seat can only lay cards it holds,
so the table takes the most probable set of candidates that the seat holds and that forms a legal play, as
long as that set is not much less probable than what the reader saw first (``RATIO``) and, given that the
seat laid something it holds that is legal, is itself probable (``SHARE``: what the sets known not to fit leave
over goes to the chosen set and to every set that fits or was not tried, including cards the reader did not
name, so a reading without runners-up is taken only when it is sure); otherwise it asks for the cards to be laid again (``misread``). A foul (``not_held``, ``illegal_play``)
is only called when the reader is sure of every card (``SURE``, or the reader's own stricter threshold) and of
the whole reading (``FOUL_DOUBT``), and no held, legal reading comes near: a referee may be called for "please show the cards again", never for a foul
the player did not make.

An unsure reading may also be no card at all (a pip or a picture of a card read as an index): the choice may
leave it out, with the probability its candidates leave over (``NO_CARD``), unless a card the reader did not name
would fit there too (what is left over stands for both).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence

from guandan import ALL_CARDS

#: the chosen set's probability over that of the reader's first reading, below which it is not taken
RATIO = 0.2
#: the chosen set's probability given that the seat laid a held, legal set, below which it is not taken: a
#: play taken wrong silently costs about ten plays laid again (the cost the reader's threshold was chosen by)
SHARE = 0.9
#: every card of a chosen set must be at least this probable
FLOOR = 0.05
#: a reading whose every card is at least this probable is sure enough to call a foul on
SURE = 0.9
#: and only if it is wrong, all its cards together, at most this often: a player accused of a foul he did not
#: make costs far more than a play laid again (on the held-out designs of the simulated table, the network read
#: single cards wrong at 0.998 to 0.9994, and nearly all right ones at 0.9999 and above)
FOUL_DOUBT = 0.0001
#: sets of candidates tried at most, most probable first
MAX_TRIES = 500
#: the candidate "no card here" of an unsure reading
NO_CARD = ""

Options = Sequence[Sequence[tuple[str, float]]]


def by_probability(options: Options) -> Iterator[tuple[tuple[str, ...], float, bool]]:
    """Choices of one candidate per card, most probable first (at most ``MAX_TRIES``): codes, probability, and
    whether every card of it is at least ``FLOOR`` probable. Each card's candidates are surest first."""
    if not options or any(not o for o in options):
        return

    def prob(index: tuple[int, ...]) -> float:
        p = 1.0
        for i, k in enumerate(index):
            p *= max(options[i][k][1], 0.0)
        return p

    start = (0,) * len(options)
    heap = [(-prob(start), start)]
    seen = {start}
    for _ in range(MAX_TRIES):
        if not heap:
            return
        negative, index = heapq.heappop(heap)
        yield (tuple(options[i][k][0] for i, k in enumerate(index)), -negative,
               all(options[i][k][1] >= FLOOR for i, k in enumerate(index)))
        for i in range(len(index)):
            if index[i] + 1 < len(options[i]):
                nxt = index[:i] + (index[i] + 1,) + index[i + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (-prob(nxt), nxt))


def first_probability(options: Options) -> float:
    p = 1.0
    for o in options:
        p *= o[0][1] if o else 0.0
    return p


def with_no_card(options: Options, sure_at: float = SURE) -> list[list[tuple[str, float]]]:
    """``options`` where each reading less sure than ``sure_at`` may also be ``NO_CARD``, as probable as what
    its candidates leave over."""
    out = []
    for o in options:
        widened = list(o)
        if o and o[0][1] < sure_at:
            widened.append((NO_CARD, max(0.0, 1.0 - sum(p for _, p in o))))
            widened.sort(key=lambda c: -c[1])
        out.append(widened)
    return out


def choose(options: Options, fits: Callable[[tuple[str, ...]], bool], sure_at: float = SURE,
           ) -> tuple[str, ...] | None:
    """The set to take as laid: the most probable one that fits (an unsure reading may be no card, see
    :func:`with_no_card`); None (the cards must be laid again) when none fits, when it is much less probable
    than the reader's first reading (``RATIO``), or when, among the sets that may be what was laid, it is not
    probable enough (``SHARE``: another held, legal set, or a card the reader did not name, comes too near)."""
    widened = with_no_card(options, sure_at)
    best: tuple[tuple[str, ...], float] | None = None
    ruled_out = fitting_others = 0.0  # probability of the sets tried that do not fit, and of those that fit
    for codes, p, floor_ok in by_probability(widened):
        if not fits(cards_only(codes)):
            # a set leaving a card out does not rule out what that card's leftover stands for: it may also be a
            # card the reader did not name
            ruled_out += 0.0 if NO_CARD in codes else p
        elif best is None and floor_ok:
            best = codes, p
        else:
            fitting_others += p
        if best is not None:
            if best[1] < SHARE * (best[1] + fitting_others):
                return None  # another held, legal reading is too near
            if best[1] >= SHARE * max(1.0 - ruled_out, best[1]):
                break
    else:
        if best is None or best[1] < SHARE * max(1.0 - ruled_out, best[1]):
            return None  # too much of what may have been laid is left untried
    if best is None or best[1] < RATIO * first_probability(options):
        return None
    if NO_CARD in best[0] and _unnamed_card_fits(best[0], options, fits):
        return None  # the card left out may as well be one the reader did not name: ask, do not drop it
    return cards_only(best[0])


#: every card code a reading may stand for
ALL_CODES = tuple(c.code for c in ALL_CARDS)


def _unnamed_card_fits(codes: tuple[str, ...], options: Options, fits: Callable[[tuple[str, ...]], bool]) -> bool:
    """Whether a card left out of ``codes`` (``NO_CARD``) could instead be a card its reading did not name, making
    a set that fits: what a reading's candidates leave over stands for no card *or* any unnamed card, so leaving
    it out is only safe when no unnamed card would do (a triple of kings read K, K and, unsurely, J: the third
    king is not among the J's candidates, and leaving it out took the pair silently)."""
    for i, code in enumerate(codes):
        if code != NO_CARD:
            continue
        named = {c for c, _ in options[i]}
        for other in ALL_CODES:
            if other not in named and fits(cards_only(codes[:i] + (other,) + codes[i + 1:])):
                return True
    return False


def cards_only(codes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(c for c in codes if c != NO_CARD)


def sure(options: Options, sure_at: float = SURE, least: float = 1.0) -> bool:
    """The reader's first reading is sure enough to call a foul on: every card at least ``sure_at`` (and never
    less than ``SURE``) and the whole reading wrong at most ``FOUL_DOUBT`` of the time, also by ``least`` (the
    least sure card over the frames the reading settled in; the candidates are of one frame)."""
    at = max(SURE, sure_at)
    return bool(options) and all(o and o[0][1] >= at for o in options) \
        and 1.0 - min(first_probability(options), least) <= FOUL_DOUBT
