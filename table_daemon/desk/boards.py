"""When the desk releases a duplicate board (rules §12), and what it then tells the public: pure functions of the
stored pairings, results and corrections, no I/O.

A board's hands and results stay off public topics until every table has played it: the tables send a board's
full deal record and their match's result only on ``results/sealed`` (the public ``results`` carries a sealed
twin). Board *b* of round *R* is released once every match paired in round *R* has either played it, or is over
without it (its match result came, or a referee entered or voided the match: a forfeit, a walk-over). Only then
does the desk publish the board in full (``desk/boards/{R}/{b}``), and only then do its results, and the result
of a match that played it, count in the public standings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

Row = TypeVar("Row", bound=Mapping[str, Any])

#: a released board as the desk publishes it, retained on ``desk/boards/{round}/{board}``
TYPE = "board_released"
#: the tables' topic of sealed full results (mqtt-api ``results`` for a duplicate board, kept from the public)
SEALED_RESULTS = "results/sealed"


def round_boards(boards: Sequence[int], round_no: int) -> list[int]:
    """The boards the matches of round ``round_no`` play: the event's (``desk init --boards``) in round 1, and
    in each later round the next ones, moved on by their span (1-8, then 9-16; 1,3,5, then 6,8,10). The same
    boards in every round had each pair play again boards the desk had already published."""
    if not boards:
        return []
    span = max(boards) - min(boards) + 1
    return [b + (round_no - 1) * span for b in boards]


def _board(row: Mapping[str, Any]) -> int | None:
    board = row["payload"].get("board") if row.get("kind") == "deal" else None
    return board if isinstance(board, int) and not isinstance(board, bool) else None


def played_boards(results: Iterable[Mapping[str, Any]]) -> dict[tuple[int, str], set[int]]:
    """(round, table) -> the boards that table's match has played, from its deal records."""
    out: dict[tuple[int, str], set[int]] = {}
    for row in results:
        board = _board(row)
        if board is not None and row.get("match") is not None:
            out.setdefault((int(row["match"]), str(row["tbl"])), set()).add(board)
    return out


def released(pairings: Sequence[Mapping[str, Any]], results: Sequence[Mapping[str, Any]],
             corrections: Sequence[Mapping[str, Any]]) -> set[tuple[int, int]]:
    """The (round, board) pairs every match of their round has played or is over without."""
    played = played_boards(results)
    over = {(int(r["match"]), str(r["tbl"])) for r in results if r.get("kind") == "match" and r.get("match")}
    for cor in corrections:
        target = cor.get("target") or {}
        if cor.get("action") in ("change", "void") and "round" in target and "table" in target:
            over.add((int(target["round"]), str(target["table"])))
    matches: dict[int, list[str]] = {}
    for p in pairings:
        if p.get("ew") is not None:  # a bye plays nothing
            matches.setdefault(int(p["round"]), []).append(str(p["tbl"]))
    out: set[tuple[int, int]] = set()
    for round_no, tables in matches.items():
        boards = set().union(*(played.get((round_no, t), set()) for t in tables))
        for board in boards:
            if all(board in played.get((round_no, t), set()) or (round_no, t) in over for t in tables):
                out.add((round_no, board))
    return out


def public_results(results: Sequence[Row], released_boards: set[tuple[int, int]]) -> list[Row]:
    """The results the public standings may count: none of a board not yet released, and no match result of a
    match that played one (its levels and winner would tell the board's result)."""
    played = played_boards(results)
    hidden = {key for key, boards in played.items()
              if any((key[0], b) not in released_boards for b in boards)}
    out = []
    for row in results:
        board = _board(row)
        key = (int(row["match"]), str(row["tbl"])) if row.get("match") is not None else None
        if board is not None and key is not None and (key[0], board) not in released_boards:
            continue
        if row.get("kind") == "match" and key in hidden:
            continue
        out.append(row)
    return out


def public_corrections(corrections: Sequence[Row], results: Sequence[Mapping[str, Any]],
                       released_boards: set[tuple[int, int]]) -> list[Row]:
    """The referees' corrections the public standings may count: none that sets or voids the result of a match
    that played a board not yet released (its levels and winner would tell the board's result)."""
    hidden = {key for key, boards in played_boards(results).items()
              if any((key[0], b) not in released_boards for b in boards)}
    out = []
    for cor in corrections:
        target = cor.get("target") or {}
        key = (int(target["round"]), str(target["table"])) if "round" in target and "table" in target else None
        if cor.get("action") in ("change", "void") and key in hidden:
            continue
        out.append(cor)
    return out


def release_message(event: str, round_no: int, board: int, results: Sequence[Mapping[str, Any]],
                    pairings: Sequence[Mapping[str, Any]], team_names: Mapping[int, str],
                    released_at: str) -> dict[str, Any]:
    """The released board: its hands and each table's result with the pairs that held the NS and EW cards.
    Released when the desk received the last of its results (``received_at``), so that the message a desk
    publishes again after a restart is the same; ``released_at`` where the rows do not say."""
    rows = [r for r in results if _board(r) == board and r.get("match") == round_no]
    released_at = max((str(r["received_at"]) for r in rows if r.get("received_at")), default=released_at)
    seated = {str(p["tbl"]): p for p in pairings if p["round"] == round_no}
    tables = []
    hands: Any = None
    for row in sorted(rows, key=lambda r: str(r["tbl"])):
        record = row["payload"]
        hands = hands if hands is not None else record.get("hands")
        result = record.get("result") if isinstance(record.get("result"), dict) else {}
        pair = seated.get(str(row["tbl"]), {})
        tables.append({"table": row["tbl"], "id": row["id"], "deal": row.get("deal"),
                       "ns": team_names.get(pair.get("ns", -1)), "ew": team_names.get(pair.get("ew", -1)),
                       "level": record.get("level"), "finish": result.get("finish"),
                       "winner": result.get("winner"), "up": result.get("up"),
                       "levels_after": result.get("levels_after")})
    return {"schema": 1, "type": TYPE, "event": event, "round": round_no, "board": board,
            "released_at": released_at, "hands": hands, "tables": tables}
