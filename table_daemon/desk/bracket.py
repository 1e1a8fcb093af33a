"""The knockout's bracket as people read it (pure): each round's matches with the places they decide.

A knockout with play-offs for every place (:func:`pairing.knockout`) is hard to follow from pairings alone: a
hall wants to see which match is the final, which the match for third, who waits for whom. This module lays
the seeds out and moves them on by the pairing's own rule (:func:`pairing.next_slots`), round by round: a
match whose teams are not known yet (an earlier match undecided) is listed with its places and no teams, so
the whole bracket shows from the first round on. The same words name each match on the desk page, the printed
notice and the hall screens.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from . import pairing


class _Undecided:
    """A slot whose team waits on a match not decided yet."""

    def __repr__(self) -> str:
        return "UNDECIDED"


UNDECIDED = _Undecided()
Slot = int | None | _Undecided


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def stage_words(first: int, last: int) -> str:
    """What a match deciding places ``first``..``last`` is called, in Chinese and English: 决赛 Final,
    三四名决赛 Third-place match, 半决赛 Semi-final, 1/4决赛 Quarter-final, 第5-8名排位赛 Play-off for 5th-8th."""
    size = last - first + 1
    if first == 1:
        if size == 2:
            return "决赛 · Final"
        if size == 4:
            return "半决赛 · Semi-final"
        if size == 8:
            return "1/4决赛 · Quarter-final"
        return f"1/{size // 2}决赛 · Round of {size}"
    if size == 2:
        if first == 3:
            return "三四名决赛 · Third-place match"
        return f"第{first}-{last}名决赛 · Match for {ordinal(first)} place"
    return f"第{first}-{last}名排位赛 · Play-off for {ordinal(first)}-{ordinal(last)}"


def knockout_bracket(
    seeds: Sequence[int],
    pairings: Sequence[Mapping[str, Any]],
    winners: Sequence[Mapping[frozenset[int], int]],
    absent: Collection[int] = (),
) -> dict[str, Any]:
    """The bracket of a knockout seeded ``seeds`` (best first) with the event's ``pairings`` and each knockout
    round's ``winners`` (``ledger.knockout_winners``): ``teams`` (how many), ``seeds``, and ``rounds``, one per
    round of the knockout, each with its event ``round`` (None before the knockout begins) and ``paired`` (the
    desk has paired it), and its ``matches`` in bracket order: ``places`` [first, last] it decides, ``stage``
    (its name, :func:`stage_words`), ``table`` (None until paired), ``teams`` [first, second] (a team id, None
    for a bye's empty slot or a team not known yet), ``waiting`` (only while an earlier match is undecided:
    [first, second], which of them waits on it), ``winner`` (a team id or None) and ``bye`` (one team goes on unplayed: the bracket's empty slot, or a withdrawn opponent)."""
    size = pairing.bracket_size(len(seeds))
    rounds = size.bit_length() - 1
    ko_rounds = sorted({int(p["round"]) for p in pairings if p.get("method") == "knockout"})
    slots: list[Slot] = list(pairing.first_slots(seeds))
    out_rounds: list[dict[str, Any]] = []
    for r in range(1, rounds + 1):
        event_round = ko_rounds[r - 1] if r <= len(ko_rounds) else (ko_rounds[0] + r - 1 if ko_rounds else None)
        paired = r <= len(ko_rounds)
        tables = {frozenset(x for x in (p["ns"], p["ew"]) if x is not None): str(p["tbl"])
                  for p in pairings if paired and int(p["round"]) == event_round}
        results = winners[r - 1] if r - 1 < len(winners) else {}
        group = size >> (r - 1)
        matches: list[dict[str, Any]] = []
        outcomes: list[tuple[Slot, Slot]] = []
        for k in range(0, size, 2):
            a, b = slots[k], slots[k + 1]
            # a match paired and not yet decided waits for its result, even with a withdrawn team in it (the
            # referees enter its walk-over): only a match never paired goes to the team still in the event
            pending = isinstance(a, int) and isinstance(b, int) and frozenset((a, b)) in tables \
                and frozenset((a, b)) not in results
            outcome = (UNDECIDED, UNDECIDED) if pending else _decide(a, b, results, absent)
            outcomes.append(outcome)
            if a is None and b is None:
                continue
            first = (k // group) * group + 1
            matches.append(_match(a, b, outcome[0], first, first + group - 1, tables, absent))
        slots = pairing.next_slots(outcomes, group)
        out_rounds.append({"round": event_round, "paired": paired, "matches": matches})
    return {"teams": len(seeds), "seeds": list(seeds), "rounds": out_rounds}


def _decide(a: Slot, b: Slot, results: Mapping[frozenset[int], int],
            absent: Collection[int]) -> tuple[Slot, Slot]:
    """The winner's and loser's slots of one match: a bye's team goes on, an undecided match sends both on as
    undecided (an empty slot stays empty: it always loses)."""
    if a is None or b is None:
        return (a if b is None else b), None
    if isinstance(a, _Undecided) or isinstance(b, _Undecided):
        return UNDECIDED, UNDECIDED
    try:
        w = pairing.decided_winner(a, b, results, absent)
    except pairing.PairingError:
        return UNDECIDED, UNDECIDED
    return w, (b if w == a else a)


def _match(a: Slot, b: Slot, winner: Slot, first: int, last: int, tables: Mapping[frozenset[int], str],
           absent: Collection[int]) -> dict[str, Any]:
    known = [x for x in (a, b) if isinstance(x, int)]
    waiting = any(isinstance(x, _Undecided) for x in (a, b))
    bye = not waiting and (len(known) == 1 or (len(known) == 2 and any(t in absent for t in known)
                                               and frozenset(known) not in tables))
    entry: dict[str, Any] = {
        "places": [first, last], "stage": stage_words(first, last),
        "table": tables.get(frozenset(known)) if known and not bye else None,
        "teams": [x if isinstance(x, int) else None for x in (a, b)],
        "winner": winner if isinstance(winner, int) and len(known) >= 1 else None, "bye": bye}
    if waiting:  # which of its two slots waits (the other may be a bye's empty slot)
        entry["waiting"] = [isinstance(x, _Undecided) for x in (a, b)]
    return entry


def match_lines(knockout: Mapping[str, Any], names: Mapping[int, str]) -> list[dict[str, str]]:
    """The bracket as rows of words, round by round (the printed notice and the desk page): ``round``,
    ``stage``, ``table``, the two teams ``first`` and ``second`` and the ``outcome``."""
    lines: list[dict[str, str]] = []
    for rnd in knockout.get("rounds", []):
        n = rnd.get("round")
        when = (f"第{n}轮 Round {n}" if n else "") + ("" if rnd.get("paired") else " · 待编排 not paired yet")
        for m in rnd["matches"]:
            waits = m.get("waiting") or [False, False]
            teams = [names.get(t, str(t)) if t is not None else "待定 TBD" if waits[i] else "轮空 bye"
                     for i, t in enumerate(m["teams"])]
            winner = names.get(m["winner"], str(m["winner"])) if m.get("winner") is not None else None
            if m.get("bye") and winner:
                outcome = f"{winner} 轮空晋级 · goes on (bye)"
            elif winner:
                outcome = f"{winner} 胜 · won"
            elif m.get("waiting"):
                outcome = "待定 · waiting for an earlier match"
            elif rnd.get("paired"):
                outcome = "进行中 · in play"
            else:
                outcome = ""
            lines.append({"round": when.strip(" ·"), "stage": m["stage"], "table": m.get("table") or "",
                          "first": teams[0], "second": teams[1], "outcome": outcome})
    return lines
