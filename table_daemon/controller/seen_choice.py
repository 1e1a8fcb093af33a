"""Choosing what a seat laid from what the reader saw and what the seat holds (no false accusations).

The reader gives each card it saw its best candidates with probabilities. A seat can only lay cards it holds,
so the table takes the most probable set of candidates that the seat holds and that forms a legal play, as
long as that set is not much less probable than what the reader saw first (``RATIO``); otherwise it asks for
the cards to be laid again (``misread``). A foul (``not_held``, ``illegal_play``) is only called when the
reader is sure of every card (``SURE``) and no held, legal reading comes near: a referee may be called for
"please show the cards again", never for a foul the player did not make.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

#: the chosen set's probability over that of the reader's first reading, below which it is not taken
RATIO = 0.2
#: every card of a chosen set must be at least this probable
FLOOR = 0.05
#: a reading whose every card is at least this probable is sure enough to call a foul on
SURE = 0.9
#: sets of candidates tried at most, most probable first
MAX_TRIES = 500

Options = Sequence[Sequence[tuple[str, float]]]


def most_probable(options: Options, fits: Callable[[tuple[str, ...]], bool]) -> tuple[tuple[str, ...], float] | None:
    """The most probable choice of one candidate per card that ``fits``, with its probability; None if none
    does among the ``MAX_TRIES`` most probable choices. Each card's candidates are surest first."""
    if not options or any(not o for o in options):
        return None
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
            return None
        negative, index = heapq.heappop(heap)
        codes = tuple(options[i][k][0] for i, k in enumerate(index))
        if all(options[i][k][1] >= FLOOR for i, k in enumerate(index)) and fits(codes):
            return codes, -negative
        for i in range(len(index)):
            if index[i] + 1 < len(options[i]):
                nxt = index[:i] + (index[i] + 1,) + index[i + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    heapq.heappush(heap, (-prob(nxt), nxt))
    return None


def first_probability(options: Options) -> float:
    p = 1.0
    for o in options:
        p *= o[0][1] if o else 0.0
    return p


def choose(options: Options, fits: Callable[[tuple[str, ...]], bool]) -> tuple[str, ...] | None:
    """The set to take as laid: the most probable one that fits, unless it is much less probable than the
    reader's first reading (then None: the cards must be laid again)."""
    best = most_probable(options, fits)
    if best is None:
        return None
    codes, p = best
    return codes if p >= RATIO * first_probability(options) else None


def sure(options: Options) -> bool:
    """The reader is sure of every card of its first reading."""
    return bool(options) and all(o and o[0][1] >= SURE for o in options)
