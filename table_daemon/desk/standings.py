"""Standings of an event (rules spec §9, §12): a pure function of teams, counted matches, penalties and boards.

Order: 场分, then 级差分, then 对手分 (the sum of the 场分 of every opponent met), then fewer fouls (violations
confirmed by a referee), then the rounds counted back from the last one (the 场分 of the last round, then the
one before ...), then lots. Lots are drawn from a seed recorded with the event, so anyone can redraw them:
``lot = int(sha256(f"{seed}:{team_id}"))`` (first 48 bits), the smaller draws the better place. The team's
抽签号 (``lot_no``, 1 for the smallest lot) is what people read: a 15-digit lot is shown by Excel as 2.01E+14.
In a duplicate event the board-by-board total (§12) comes first.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .points import bye_score, score_match


@dataclass(frozen=True)
class Team:
    """A registered pair."""

    id: int
    name: str
    players: tuple[str, ...] = ()
    unit: str = ""


@dataclass(frozen=True)
class Outcome:
    """One match as the desk counts it. ``ew`` None means ``ns`` had a bye; ``void`` counts nothing."""

    round: int
    table: str
    ns: int
    ew: int | None
    levels: dict[str, str] = field(default_factory=lambda: {"NS": "2", "EW": "2"})
    winner: str | None = None
    finished: bool | None = None
    walkover: bool = False
    deal_points: dict[str, float] | None = None
    void: bool = False


@dataclass(frozen=True)
class Penalty:
    """A referee's penalty counted in the standings: confirmed violations and points taken off."""

    team: int
    violations: int = 0
    match_points: float = 0.0
    level_points: float = 0.0


@dataclass(frozen=True)
class BoardPlay:
    """One duplicate board played at one table: the pair holding the NS cards, the one holding EW, result for NS."""

    board: int
    table: str
    ns: int
    ew: int
    result_ns: int
    #: the round it was played in: a board is compared only with its plays of the same round
    round: int = 0


@dataclass
class Row:
    team: int
    name: str
    unit: str
    players: tuple[str, ...]
    match_points: float = 0.0
    level_points: float = 0.0
    opponent_points: float = 0.0
    fouls: int = 0
    played: int = 0
    byes: int = 0
    duplicate: float = 0.0
    by_round: dict[int, float] = field(default_factory=dict)
    opponents: list[int] = field(default_factory=list)
    lot: int = 0
    lot_no: int = 0
    rank: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank, "team": self.team, "name": self.name, "unit": self.unit,
            "players": list(self.players), "match_points": self.match_points,
            "level_points": self.level_points, "opponent_points": self.opponent_points,
            "fouls": self.fouls, "played": self.played, "byes": self.byes, "duplicate": self.duplicate,
            "by_round": {str(k): v for k, v in sorted(self.by_round.items())}, "lot": self.lot,
            "lot_no": self.lot_no,
        }


def draw_lot(seed: str, team_id: int) -> int:
    """The recorded lot of a team: reproducible from the event's seed."""
    return int(hashlib.sha256(f"{seed}:{team_id}".encode()).hexdigest()[:12], 16)


def duplicate_scores(plays: Iterable[BoardPlay]) -> tuple[dict[int, float], list[dict[str, object]]]:
    """Per-pair duplicate totals and the board-by-board comparison (§12).

    A pair's score on a board is its result minus the mean result of the pairs that held the same cards at the
    other tables of the same round (with two tables: minus the other pair's result, as §12 says); a board
    played again in another round is another comparison. Boards played at one table only are listed but score
    nothing yet. Scores are rounded to 4 decimals (a mean of three results is no exact binary fraction).
    """
    by_board: dict[tuple[int, int], list[BoardPlay]] = defaultdict(list)
    for play in plays:
        by_board[(play.round, play.board)].append(play)
    totals: dict[int, float] = defaultdict(float)
    detail: list[dict[str, object]] = []
    for key in sorted(by_board):
        rows = by_board[key]
        for play in rows:
            others = [p.result_ns for p in rows if p is not play]
            diff = play.result_ns - sum(others) / len(others) if others else 0.0
            totals[play.ns] += diff
            totals[play.ew] -= diff
            detail.append({"round": key[0], "board": key[1], "table": play.table, "ns": play.ns, "ew": play.ew,
                           "result_ns": play.result_ns, "score_ns": round(diff, 4), "compared": len(others)})
    return {team: round(total, 4) for team, total in totals.items()}, detail


def compute(
    teams: Sequence[Team],
    outcomes: Iterable[Outcome],
    *,
    variant: str = "standard",
    penalties: Iterable[Penalty] = (),
    boards: Iterable[BoardPlay] = (),
    lot_seed: str = "",
    duplicate: bool = False,
) -> list[Row]:
    """Rank the teams. Every figure is recomputed from scratch, so a correction simply changes the inputs."""
    rows = {t.id: Row(t.id, t.name, t.unit, t.players, lot=draw_lot(lot_seed, t.id)) for t in teams}
    bye_mp, bye_lp = bye_score(variant)
    for out in outcomes:
        if out.void:
            continue
        if out.ew is None:
            if out.ns in rows:
                row = rows[out.ns]
                row.match_points += bye_mp
                row.level_points += bye_lp
                row.byes += 1
                row.by_round[out.round] = row.by_round.get(out.round, 0.0) + bye_mp
            continue
        score = score_match(out.levels, out.winner, variant=variant, finished=out.finished,
                            walkover=out.walkover, deal_points=out.deal_points)
        for side, team, opp in (("NS", out.ns, out.ew), ("EW", out.ew, out.ns)):
            if team not in rows:
                continue
            row = rows[team]
            row.match_points += score.match[side]
            row.level_points += score.level[side]
            row.played += 1
            row.opponents.append(opp)
            row.by_round[out.round] = row.by_round.get(out.round, 0.0) + score.match[side]
    for pen in penalties:
        if pen.team in rows:
            row = rows[pen.team]
            row.fouls += pen.violations
            row.match_points -= pen.match_points
            row.level_points -= pen.level_points
    if duplicate:
        totals, _ = duplicate_scores(boards)
        for team, total in totals.items():
            if team in rows:
                rows[team].duplicate = total
    for row in rows.values():
        row.opponent_points = sum(rows[o].match_points for o in row.opponents if o in rows)
    last = max((r for row in rows.values() for r in row.by_round), default=0)

    def key(row: Row) -> tuple[object, ...]:
        countback = tuple(-row.by_round.get(r, 0.0) for r in range(last, 0, -1))
        head = (-row.duplicate,) if duplicate else ()
        return (*head, -row.match_points, -row.level_points, -row.opponent_points, row.fouls, countback,
                row.lot)

    for number, row in enumerate(sorted(rows.values(), key=lambda r: (r.lot, r.team)), start=1):
        row.lot_no = number
    ordered = sorted(rows.values(), key=key)
    for i, row in enumerate(ordered, start=1):
        row.rank = i
    return ordered
