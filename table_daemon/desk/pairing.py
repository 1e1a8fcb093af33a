"""Pairing the next round (pure): Swiss (积分编排) by maximum-weight matching, round robin, knockout with play-offs.

A pairing is a list of ``(first, second)`` team ids, best-placed match first (table 1 first); ``second`` is
None for a bye. The first team of a match sits NS.

Swiss: every pair of teams that have not met yet is an edge of a graph; its weight prefers teams with the same
场分 (a point of difference costs far more than any difference of places), then close places, and keeps pairs
of one unit apart where that costs less than one point of difference. ``networkx.max_weight_matching`` with
``maxcardinality=True`` then pairs everyone it can without a rematch. To stay fast with hundreds of pairs,
each team is first joined only to its nearest ``window`` neighbours in the standings; the window doubles until
everyone is paired (with 500 pairs a window of 24 almost always suffices). An odd count adds a bye node joined
to every team that had no bye yet; the lowest placed of them gets it whenever a pairing without rematch
allows.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TypeVar

import networkx as nx

Pairing = list[tuple[int, int | None]]
Slot = TypeVar("Slot")
_BYE = -1
_POINT = 4_000_000  # cost of half a point of 场分 difference, squared-scaled below
_UNIT = 4 * _POINT  # a same-unit match costs as much as one whole point of difference
_BYE_STEP = 10_000 * _POINT  # the bye goes to the lowest placed team that can take it, before anything else


class PairingError(ValueError):
    """No pairing exists under the constraints (e.g. every remaining opponent was met already). ``teams``: the
    teams (ids) it is about, for a caller that can name them."""

    def __init__(self, message: str, teams: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.teams = teams


def swiss(
    order: Sequence[int],
    scores: Mapping[int, float],
    met: set[frozenset[int]],
    *,
    units: Mapping[int, str] | None = None,
    had_bye: set[int] | frozenset[int] = frozenset(),
    keep_units_apart: bool = True,
    window: int = 24,
) -> Pairing:
    """Pair ``order`` (teams best first) so that nobody meets a team it met before (``met``)."""
    teams = list(order)
    if len(set(teams)) != len(teams):
        raise PairingError("a team is listed twice")
    n = len(teams)
    if n < 2:
        return [(teams[0], None)] if teams else []
    pos = {t: i for i, t in enumerate(teams)}
    units = units or {}
    width = max(2, window)
    while True:
        graph = _swiss_graph(teams, pos, scores, met, units, had_bye, keep_units_apart, width)
        mate = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(mate) == graph.number_of_nodes():
            break
        if width >= n:
            raise PairingError("no pairing without a rematch exists for this round")
        width *= 2
    pairs: Pairing = []
    for a, b in mate:
        if _BYE in (a, b):
            pairs.append((b if a == _BYE else a, None))
        else:
            first, second = (a, b) if pos[a] < pos[b] else (b, a)
            pairs.append((first, second))
    pairs.sort(key=lambda p: (p[1] is None, pos[p[0]]))
    return pairs


def _swiss_graph(
    teams: list[int],
    pos: Mapping[int, int],
    scores: Mapping[int, float],
    met: set[frozenset[int]],
    units: Mapping[int, str],
    had_bye: set[int] | frozenset[int],
    keep_units_apart: bool,
    width: int,
) -> nx.Graph:
    n = len(teams)
    base = 10**15
    graph = nx.Graph()
    graph.add_nodes_from(teams)
    for i, a in enumerate(teams):
        half_a = round(2 * scores.get(a, 0.0))
        for j in range(i + 1, min(n, i + 1 + width)):
            b = teams[j]
            if frozenset((a, b)) in met:
                continue
            d = abs(half_a - round(2 * scores.get(b, 0.0)))
            cost = _POINT * d * d + (j - i) ** 2
            if keep_units_apart and units.get(a) and units.get(a) == units.get(b):
                cost += _UNIT
            graph.add_edge(a, b, weight=base - cost)
    if n % 2:
        eligible = [t for t in teams if t not in had_bye] or teams
        graph.add_node(_BYE)
        for t in eligible:
            graph.add_edge(_BYE, t, weight=base - _BYE_STEP * (n - 1 - pos[t]))
    return graph


def round_robin(teams: Sequence[int], round_no: int) -> Pairing:
    """Round ``round_no`` (1-based) of a single round robin by the circle method (a bye when the count is odd)."""
    slots: list[int | None] = list(teams)
    if len(slots) % 2:
        slots.append(None)
    n = len(slots)
    if n < 2 or not 1 <= round_no <= n - 1:
        raise PairingError(f"a round robin of {len(teams)} teams has rounds 1..{max(0, n - 1)}")
    rest = slots[1:]
    shift = (round_no - 1) % (n - 1)
    rotated = [slots[0], *(rest[-shift:] + rest[:-shift] if shift else rest)]
    pairs: Pairing = []
    for i in range(n // 2):
        a, b = rotated[i], rotated[n - 1 - i]
        if i == 0 and round_no % 2 == 0:
            a, b = b, a
        if a is None or b is None:
            pairs.append((a if a is not None else b, None))  # type: ignore[arg-type]
        else:
            pairs.append((a, b))
    pairs.sort(key=lambda p: p[1] is None)
    return pairs


def bracket_size(teams: int) -> int:
    """The places of a knockout of ``teams``: the next power of two (the top seeds' byes fill the rest); its
    rounds are ``bracket_size(n).bit_length() - 1``."""
    size = 1
    while size < teams:
        size *= 2
    return size


def seeding_order(size: int) -> list[int]:
    """Standard bracket positions of seeds 1..size (size a power of two): 1, 8, 4, 5, 2, 7, 3, 6 for 8."""
    order = [1]
    while len(order) < size:
        m = 2 * len(order) + 1
        order = [x for s in order for x in (s, m - s)]
    return order


def without(pairs: Pairing, absent: Collection[int]) -> Pairing:
    """``pairs`` with the ``absent`` teams (withdrawn) taken out: a match of one of them is a bye of the other,
    one of two of them is no match at all."""
    out: Pairing = []
    for a, b in pairs:
        here = [t for t in (a, b) if t is not None and t not in absent]
        if len(here) == 2:
            out.append((a, b))
        elif here:
            out.append((here[0], None))
    return out


def knockout(
    seeds: Sequence[int], winners: Sequence[Mapping[frozenset[int], int]], round_no: int,
    absent: Collection[int] = (),
) -> Pairing:
    """Round ``round_no`` of a knockout with play-offs for every place (winners meet winners, losers losers).

    ``seeds`` best first; ``winners[r]`` maps each match of round r+1 (as a frozenset of its two teams) to its
    winner. Top seeds get byes when the count is not a power of two. With 8 teams round 3 is the final, the
    match for 3rd place, for 5th and for 7th. An ``absent`` team (withdrawn) keeps its place in the bracket
    and loses every match it has not played: its opponent has a bye.
    """
    size = bracket_size(len(seeds))
    rounds = size.bit_length() - 1
    if not 1 <= round_no <= rounds:
        raise PairingError(f"a knockout of {len(seeds)} teams has rounds 1..{rounds}")
    if len(winners) < round_no - 1:
        raise PairingError(f"round {round_no - 1} of the knockout has no results yet")
    slots = _bracket(seeds, winners, round_no - 1, absent)
    pairs: Pairing = []
    for k in range(0, size, 2):
        a, b = slots[k], slots[k + 1]
        if a is None and b is None:
            continue
        pairs.append((a, b) if a is not None else (b, None))  # type: ignore[arg-type]
    return without(pairs, absent)


def first_slots(seeds: Sequence[int]) -> list[int | None]:
    """The bracket's slots before its first round: the seeds (best first) at their standard positions, None
    for the places of a field smaller than the bracket (the top seeds' byes)."""
    return [seeds[p - 1] if p <= len(seeds) else None for p in seeding_order(bracket_size(len(seeds)))]


def next_slots(outcomes: Sequence[tuple[Slot, Slot]], group: int) -> list[Slot]:
    """The slots of a knockout's next round from this round's ``outcomes`` (winner, loser of each match, in
    bracket order) when each group of places holds ``group`` slots: in each group its winners first, then its
    losers, so that the next round pairs winners with winners and losers with losers. The bracket's one rule of
    play-offs for every place, shared by the pairing and the bracket the hall reads (:mod:`.bracket`)."""
    per_group = group // 2
    slots: list[Slot] = []
    for start in range(0, len(outcomes), per_group):
        chunk = outcomes[start:start + per_group]
        slots.extend([won for won, _ in chunk] + [lost for _, lost in chunk])
    return slots


def _bracket(seeds: Sequence[int], winners: Sequence[Mapping[frozenset[int], int]], played: int,
             absent: Collection[int]) -> list[int | None]:
    """The bracket's slots after ``played`` rounds (a match without a winner raises PairingError)."""
    size = bracket_size(len(seeds))
    slots = first_slots(seeds)
    for r in range(played):
        outcomes: list[tuple[int | None, int | None]] = []
        for k in range(0, size, 2):
            a, b = slots[k], slots[k + 1]
            w = decided_winner(a, b, winners[r], absent)
            outcomes.append((w, b if w == a else a))
        slots = next_slots(outcomes, size >> r)
    return slots


def knockout_places(seeds: Sequence[int], winners: Sequence[Mapping[frozenset[int], int]],
                    absent: Collection[int] = ()) -> list[int] | None:
    """The knockout's final order, first place first (the final's winner, its loser, the match for 3rd's
    winner ...), once every round has its results; None before. With play-offs for every place the slots after
    the last round are the places."""
    size = bracket_size(len(seeds))
    rounds = size.bit_length() - 1
    if rounds == 0 or len(winners) < rounds:
        return None
    try:
        slots = _bracket(seeds, winners, rounds, absent)
    except PairingError:
        return None
    return [t for t in slots if t is not None]


def decided_winner(a: int | None, b: int | None, results: Mapping[frozenset[int], int],
                     absent: Collection[int] = ()) -> int | None:
    """Who goes on from a knockout match of ``a`` and ``b`` (None: an empty slot): the winner of its result, the
    team still in the event when its withdrawn opponent never played it, the other team of a bye; a match
    without a winner yet raises PairingError."""
    if a is None or b is None:
        return a if b is None else b
    winner = results.get(frozenset((a, b)))
    if winner is None and (a in absent or b in absent):  # never played: the one still in the event goes on
        return b if a in absent and b not in absent else a
    if winner not in (a, b):
        raise PairingError(f"淘汰赛 {a} 对 {b} 尚无胜者（平局须加赛决出）| knockout match {a} v {b} has no winner yet "
                           "(a draw must be decided by one more deal)", (a, b))
    return winner
