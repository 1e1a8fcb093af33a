"""From what the desk received to what it counts: reading result messages, applying referees' corrections,
and building the standings report. Pure functions over plain data (the store hands in its rows).

A result on ``results`` is either a deal record (``guandan-deal/1``, one per deal) or a match result (one per
match: final ``levels``, ``winner``). A match is found by (table, match number): the desk sends round N's
pairing with ``"match": N``, so a table's match N at table T is the pairing of round N at T.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import bracket, pairing
from . import standings as st
from .points import board_result_ns, level_index, one_to_three_points, score_match

MATCH_TYPES = {"match_result", "match_end", "match_over", "match"}
#: corrections about a team's place in the event, not about a result
TEAM_ACTIONS = ("withdraw", "reinstate")


class ResultError(ValueError):
    """A message on ``results`` that cannot be counted (named field missing or wrong)."""


def read_result(msg: Any, table: str) -> tuple[str, str, int | None, int | None]:
    """(id, kind, match, deal) of a result message; kind is ``deal`` or ``match``."""
    if not isinstance(msg, dict):
        raise ResultError("a result must be a JSON object")
    rid = msg.get("id")
    if not isinstance(rid, str) or not rid:
        raise ResultError("result has no id")
    match = _int_or_none(msg.get("match"), "match")
    deal = _int_or_none(msg.get("deal"), "deal")
    is_deal = msg.get("format") == "guandan-deal/1" or (deal is not None and isinstance(msg.get("result"), dict))
    if is_deal:
        result = msg.get("result")
        if not isinstance(result, dict):
            raise ResultError(f"deal record {rid} has no result")
        return rid, "deal", match, deal
    if msg.get("type") in MATCH_TYPES or "levels" in msg:
        levels = msg.get("levels")
        if not isinstance(levels, dict) or not {"NS", "EW"} <= set(levels):
            raise ResultError(f"match result {rid} has no levels {{NS, EW}}")
        for team in ("NS", "EW"):
            try:
                level_index(str(levels[team]))
            except ValueError as exc:
                raise ResultError(f"match result {rid}: {exc}") from exc
        if match is None:
            raise ResultError(f"match result {rid} has no match number")
        return rid, "match", match, None
    raise ResultError(f"result {rid} is neither a deal record nor a match result")


def _int_or_none(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ResultError(f"{name} must be an integer")
    return value


def _winner(msg: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    win = msg.get("winner", msg.get("match_winner"))
    if win in ("NS", "EW") or win is None:
        return win
    for side, name in names.items():  # a table may name the winning team instead of its side
        if win == name:
            return side
    return None


def _seat_side(seat: Any) -> str | None:
    return {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}.get(str(seat)) if seat else None


def tally(
    teams: Sequence[st.Team],
    pairings: Sequence[Mapping[str, Any]],
    results: Sequence[Mapping[str, Any]],
    corrections: Sequence[Mapping[str, Any]],
) -> tuple[list[st.Outcome], list[st.Penalty], list[st.BoardPlay], list[dict[str, Any]]]:
    """Outcomes, penalties, duplicate boards and pending matches, with every correction applied in order."""
    names = {t.id: t.name for t in teams}
    by_match = {(p["round"], p["tbl"]): p for p in pairings}
    matches: dict[tuple[int, str], dict[str, Any]] = {}
    deals: dict[str, Mapping[str, Any]] = {}
    #: the penalties a match result lists (a table since the twenty-seventh session): every one of the match,
    #: those between deals and with a forfeit too; an older table's are read from its deal records
    match_penalties: dict[tuple[int, str], Mapping[str, Any]] = {}
    for res in results:
        key = (res["match"], res["tbl"])
        if res["kind"] == "match" and key in by_match:
            p = res["payload"]
            side_names = {"NS": names.get(by_match[key]["ns"], ""), "EW": names.get(by_match[key]["ew"], "")}
            matches[key] = {"levels": dict(p["levels"]), "winner": _winner(p, side_names),
                            "finished": p.get("finished"), "walkover": bool(p.get("walkover", False)),
                            "void": False}
            if isinstance(p.get("penalties"), dict):
                match_penalties[key] = p["penalties"]
        elif res["kind"] == "deal" and key in by_match:
            deals[res["id"]] = res
    void_deals: set[str] = set()
    penalties: list[st.Penalty] = []
    for cor in corrections:
        target, payload = cor["target"], cor["payload"]
        if cor["action"] in TEAM_ACTIONS:
            continue
        if cor["action"] == "penalty":
            penalties.append(st.Penalty(int(target["team"]), int(payload.get("violations", 0)),
                                        float(payload.get("match_points", 0)),
                                        float(payload.get("level_points", 0))))
        elif "id" in target:
            if cor["action"] == "void":
                void_deals.add(target["id"])
            else:
                void_deals.discard(target["id"])
        else:
            key = (int(target["round"]), str(target["table"]))
            cur = matches.setdefault(key, {"levels": {"NS": "2", "EW": "2"}, "winner": None, "finished": None,
                                           "walkover": False, "void": False})
            if cor["action"] == "void":
                cur["void"] = True
            else:
                cur.update({k: v for k, v in payload.items() if k in ("levels", "winner", "finished", "walkover")})
                cur["void"] = False
    outcomes: list[st.Outcome] = []
    pending: list[dict[str, Any]] = []
    deal_points: dict[tuple[int, str], dict[str, float]] = {}
    boards: list[st.BoardPlay] = []
    for rid, res in deals.items():
        if rid in void_deals:
            continue
        key = (res["match"], res["tbl"])
        pair = by_match[key]
        rec = res["payload"]
        result = rec.get("result") or {}
        pts = one_to_three_points(result.get("finish") or [])
        acc = deal_points.setdefault(key, {"NS": 0.0, "EW": 0.0})
        for side in ("NS", "EW"):
            acc[side] += pts[side]
        if rec.get("board") is not None and pair["ew"] is not None:
            boards.append(st.BoardPlay(int(rec["board"]), res["tbl"], pair["ns"], pair["ew"],
                                       board_result_ns(result.get("winner"), int(result.get("up") or 0)),
                                       round=int(pair["round"])))
        for action in [] if key in match_penalties else rec.get("actions") or []:
            if isinstance(action, dict) and action.get("referee") == "penalty" and action.get("kind") == "violation":
                team_side = action.get("team") or _seat_side(action.get("seat"))
                team = pair["ns"] if team_side == "NS" else pair["ew"] if team_side == "EW" else None
                if team is not None:
                    penalties.append(st.Penalty(team, 1))
    for key, listed in sorted(match_penalties.items()):
        pair = by_match[key]
        for side, team in (("NS", pair["ns"]), ("EW", pair["ew"])):
            counts = listed.get(side)
            violations = counts.get("violation") if isinstance(counts, dict) else None
            if team is not None and isinstance(violations, int) and violations > 0:
                penalties.append(st.Penalty(team, violations))
    for key, pair in sorted(by_match.items()):
        if pair["ew"] is None:
            outcomes.append(st.Outcome(pair["round"], pair["tbl"], pair["ns"], None))
            continue
        m = matches.get(key)
        if m is None:
            pending.append({"round": pair["round"], "table": pair["tbl"], "ns": pair["ns"], "ew": pair["ew"]})
            continue
        outcomes.append(st.Outcome(pair["round"], pair["tbl"], pair["ns"], pair["ew"], m["levels"], m["winner"],
                                   m["finished"], m["walkover"], deal_points.get(key), m["void"]))
    return outcomes, penalties, boards, pending


def report(
    teams: Sequence[st.Team],
    pairings: Sequence[Mapping[str, Any]],
    results: Sequence[Mapping[str, Any]],
    corrections: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    *,
    lot_seed: str,
    version: int,
    event: str | None,
    computed_at: str,
    knockout_seeds: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The published standings: version, rows best first, matches still pending, duplicate boards, and the
    ``matches`` of the latest paired round as they count, with earlier rounds' corrected ones (``round_matches``). With ``knockout_seeds`` (a knockout
    has begun), its ``knockout`` bracket (``bracket.knockout_bracket``); once it is over, its places rank its
    teams (``with_knockout_places``)."""
    outcomes, penalties, boards, pending = tally(teams, pairings, results, corrections)
    duplicate = bool(settings.get("duplicate"))
    rows = st.compute(teams, outcomes, variant=settings.get("scoring", "standard"), penalties=penalties,
                      boards=boards, lot_seed=lot_seed, duplicate=duplicate)
    out: dict[str, Any] = {
        "schema": 1, "type": "standings", "event": event, "version": version, "computed_at": computed_at,
        "scoring": settings.get("scoring", "standard"), "lot_seed": lot_seed,
        "rounds": max((p["round"] for p in pairings), default=0),
        "rows": [r.to_json() for r in rows], "pending": pending, "corrections": len(corrections),
        "matches": round_matches(pairings, outcomes, corrections, variant=settings.get("scoring", "standard")),
    }
    gone = withdrawn(corrections)
    for row in out["rows"]:
        if row["team"] in gone:
            row["withdrawn"] = {k: gone[row["team"]][k] for k in ("after_round", "reason")}
    if duplicate:
        out["boards"] = st.duplicate_scores(boards)[1]
    if knockout_seeds:
        winners = knockout_winners(pairings, outcomes)
        out["knockout"] = bracket.knockout_bracket(knockout_seeds, pairings, winners, absent=set(gone))
        knockout_rounds = {p["round"] for p in pairings if p["method"] == "knockout"}
        waiting = any(p["round"] in knockout_rounds for p in pending)  # a withdrawn team's match is no result yet
        places = None if waiting else pairing.knockout_places(knockout_seeds, winners, absent=set(gone))
        if places is not None:
            out = with_knockout_places(out, places)
    return out


def knockout_winners(pairings: Sequence[Mapping[str, Any]],
                     outcomes: Sequence[st.Outcome]) -> list[dict[frozenset[int], int]]:
    """Each knockout round's winners, in round order, by its matches (the two teams), as the standings count
    them (``tally``'s outcomes)."""
    winners: list[dict[frozenset[int], int]] = []
    for r in sorted({p["round"] for p in pairings if p["method"] == "knockout"}):
        got: dict[frozenset[int], int] = {}
        for out in outcomes:
            if out.round == r and out.ew is not None and out.winner and not out.void:
                got[frozenset((out.ns, out.ew))] = out.ns if out.winner == "NS" else out.ew
        winners.append(got)
    return winners


def corrected_matches(corrections: Sequence[Mapping[str, Any]]) -> set[tuple[int, str]]:
    """The (round, table) of every match a referee's correction set or voided (``desk correct``, an approved
    proposal, a walk-over entered at the desk): its counted result is the desk's, not the table's."""
    return {(int(cor["target"]["round"]), str(cor["target"]["table"])) for cor in corrections
            if cor["action"] not in TEAM_ACTIONS and cor["action"] != "penalty" and "id" not in cor["target"]
            and "round" in cor["target"] and "table" in cor["target"]}


def round_matches(
    pairings: Sequence[Mapping[str, Any]],
    outcomes: Sequence[st.Outcome],
    corrections: Sequence[Mapping[str, Any]],
    *,
    variant: str = "standard",
) -> list[dict[str, Any]]:
    """The matches of the latest paired round as the standings count them (every correction applied), and the
    matches of earlier rounds a referee's correction set or voided (a table still showing its finished match
    after the next round was paired would show its own result again), for the hall screens (which otherwise
    show a finished match as its table gave it): per match with both teams, in round then table order,
    ``round``, ``table``, final ``levels`` {NS, EW} (None while it has no result), ``winner``
    (NS, EW, None: a draw or no result), ``walkover``, ``void``, ``corrected`` (a referee's correction set or
    voided it: it replaces the table's own result) and, for a counted result, the match's 场分 and 级差分
    (``match_points``, ``level_points`` {NS, EW}, before any penalty). Nothing else: no teams, no hands."""
    last = max((p["round"] for p in pairings), default=0)
    fixed = corrected_matches(corrections)
    counted = {(o.round, o.table): o for o in outcomes if o.ew is not None}
    out: list[dict[str, Any]] = []
    listed = (p for p in pairings if p["ew"] is not None and (p["round"] == last or (p["round"], p["tbl"]) in fixed))
    for p in sorted(listed, key=lambda p: (p["round"], p["tbl"])):
        key = (p["round"], p["tbl"])
        o = counted.get(key)
        entry: dict[str, Any] = {
            "round": p["round"], "table": p["tbl"],
            "levels": {"NS": str(o.levels.get("NS", "")), "EW": str(o.levels.get("EW", ""))} if o else None,
            "winner": o.winner if o else None, "walkover": bool(o and o.walkover), "void": bool(o and o.void),
            "corrected": key in fixed}
        if o is not None and not o.void:  # scored as st.compute scored it (it would have refused it first)
            score = score_match(o.levels, o.winner, variant=variant, finished=o.finished, walkover=o.walkover,
                                deal_points=o.deal_points)
            entry["match_points"], entry["level_points"] = score.match, score.level
        out.append(entry)
    return out


def with_knockout_places(report: dict[str, Any], places: Sequence[int]) -> dict[str, Any]:
    """The standings once a knockout is over: its teams first, in their places (the final's winner first, as
    the bracket's play-offs decide every place), then the teams that did not qualify, in their order; ranks
    numbered again. A knockout team's points still show, but they no longer rank it (a bye in the bracket
    scored as a won match put a team that lost in it above those that beat it)."""
    where = {team: i for i, team in enumerate(places)}
    rows = sorted(report["rows"], key=lambda r: (0, where[r["team"]]) if r["team"] in where else (1, 0))
    ranked = [{**row, "rank": i + 1, **({"knockout_place": where[row["team"]] + 1} if row["team"] in where else {})}
              for i, row in enumerate(rows)]
    return {**report, "rows": ranked, "knockout_places": list(places)}


def withdrawn(corrections: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    """The teams withdrawn from the event (退赛) by the referees' corrections, in order (a reinstatement undoes
    one): team id -> ``after_round`` (the last round it played when it withdrew; it is paired in no later one),
    who, why, at and the correction's number. Their results stand; they stay in the standings, marked."""
    out: dict[int, dict[str, Any]] = {}
    for cor in corrections:
        if cor["action"] not in TEAM_ACTIONS:
            continue
        team = int(cor["target"]["team"])
        if cor["action"] == "withdraw":
            out[team] = {"after_round": int(cor["payload"].get("after_round", 0)), "by": cor.get("who"),
                         "reason": cor.get("why"), "at": cor.get("at"), "correction": cor.get("n")}
        else:
            out.pop(team, None)
    return out


def met_pairs(pairings: Sequence[Mapping[str, Any]]) -> set[frozenset[int]]:
    """Every pair of teams that has been paired (void matches included: they still met)."""
    return {frozenset((p["ns"], p["ew"])) for p in pairings if p["ew"] is not None}
