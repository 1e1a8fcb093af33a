"""What a hall screen gets of each message, and the level chart's points (pure functions, no state of their own).

Hidden hands never pass: any field that could hold one (``hands``, ``hand``, ``deal_line``) is stripped
(:func:`scrub`), and a deal result is reduced to its public summary (:func:`result_summary`). The level chart
keeps one point a deal, of the table's match only (:func:`add_point`); a duplicate board's result becomes a point
only once the desk has released the board (:func:`released_point`), never from a sealed record
(:func:`sealed_record`). The desk's standings reach the screens as :func:`standings_summary` says.
"""

from __future__ import annotations

from typing import Any

#: Fields that could hold a hidden hand: never on a screen.
SECRET_FIELDS = frozenset({"hands", "hand", "deal_line", "private"})
#: The most points a table's level chart keeps.
CHART_POINTS = 200
#: What a screen gets of each table's result of a released board (``desk/boards/{round}/{board}``).
BOARD_ROW = ("table", "deal", "ns", "ew", "level", "finish", "winner", "up", "levels_after")


def scrub(value: Any, fields: frozenset[str] = SECRET_FIELDS) -> Any:
    """A copy of ``value`` without any of ``fields``, at any depth (by default those that could reveal a hidden
    hand)."""
    if isinstance(value, dict):
        return {k: scrub(v, fields) for k, v in value.items() if k not in fields}
    if isinstance(value, list):
        return [scrub(v, fields) for v in value]
    return value


def result_summary(msg: dict[str, Any]) -> dict[str, Any]:
    """The public summary of a result message (deal or match) for screens."""
    raw = msg.get("result")
    result: dict[str, Any] = raw if isinstance(raw, dict) else {}
    keys = ("id", "match", "deal", "board", "levels", "winner", "type", "ts", "sealed", "note")
    out = {k: msg[k] for k in keys if k in msg}
    for k in ("finish", "winner", "up", "levels_after", "match_winner"):
        if k in result:
            out[k] = result[k]
    return scrub(out)


def sealed_record(message: dict[str, Any]) -> bool:
    """Whether a deal record or match result is of a duplicate board (rules §12): a sealed twin, the full copy
    sent on ``results/sealed``, or a record that names its board."""
    return bool(message.get("sealed") or message.get("sealed_copy")) or message.get("board") is not None


def deal_point(result: dict[str, Any]) -> dict[str, Any] | None:
    """A level chart's point from a deal's result summary (``result_summary``), or None for anything else
    (a match result, a record without the levels after the deal)."""
    levels = result.get("levels_after")
    if result.get("type") == "match_result" or not isinstance(levels, dict):
        return None
    if not isinstance(result.get("deal"), int):
        return None
    return {"deal": result["deal"], "finish": result.get("finish"), "winner": result.get("winner"),
            "up": result.get("up"), "levels": levels, "match": result.get("match")}


def chart_point(raw: Any) -> dict[str, Any] | None:
    """A level chart's point as received from elsewhere (the desk's ``desk/charts/{table}``): only a deal
    number and both sides' levels make one, and only a point's own fields are kept; None for anything else."""
    if not isinstance(raw, dict) or not isinstance(raw.get("deal"), int) or isinstance(raw.get("deal"), bool):
        return None
    levels = raw.get("levels")
    if not isinstance(levels, dict) or not all(isinstance(levels.get(side), str) for side in ("NS", "EW")):
        return None
    point = {k: raw[k] for k in ("deal", "finish", "winner", "up", "match", "board") if k in raw}
    point["levels"] = {"NS": levels["NS"], "EW": levels["EW"]}
    return point


def _number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def board_summary(message: Any) -> dict[str, Any] | None:
    """A released board (``desk/boards/{round}/{board}``) as screens get it: round, board, when, and each
    table's result of it (``BOARD_ROW``; the hands are left out, as everywhere on screens); None when the
    message is not a released board (a type, round, board or table list that is not one)."""
    if not isinstance(message, dict) or message.get("type") != "board_released":
        return None
    if not _number(message.get("round")) or not _number(message.get("board")):
        return None
    tables = message.get("tables")
    if not isinstance(tables, list) or not all(isinstance(r, dict) and isinstance(r.get("table"), str)
                                               and r["table"] for r in tables):
        return None
    rows = [scrub({k: r.get(k) for k in BOARD_ROW}) for r in tables]
    released_at = message.get("released_at")
    return {"round": message["round"], "board": message["board"],
            "released_at": released_at if isinstance(released_at, str) else None, "tables": rows}


def released_point(board: dict[str, Any], row: dict[str, Any]) -> dict[str, Any] | None:
    """One table's result of a released board (``board_summary``'s) as a point of its chart (of the match that
    is the board's round), or None when the row has no deal number or levels after it."""
    return chart_point({"deal": row.get("deal"), "board": board["board"], "match": board["round"],
                        "finish": row.get("finish"), "winner": row.get("winner"), "up": row.get("up"),
                        "levels": row.get("levels_after")})


def add_point(tab: dict[str, Any], point: dict[str, Any] | None) -> bool:
    """Add (or replace) one deal's point of the level chart, kept in deal order; a point of another match
    than the table's state is not taken. True when it was taken."""
    if point is None or not isinstance(point.get("deal"), int):
        return False
    match = (tab.get("state") or {}).get("match")
    if match is not None and point.get("match") is not None and point["match"] != match:
        return False
    point = {k: v for k, v in scrub(point).items() if not (k == "match" and v is None)}
    chart = [p for p in tab.get("chart", []) if p.get("deal") != point["deal"]] + [point]
    tab["chart"] = sorted(chart, key=lambda p: p["deal"])[-CHART_POINTS:]
    return True


def chart_of_state(tab: dict[str, Any], state: dict[str, Any]) -> None:
    """Keep a table's chart to the match of its state, and take the state's ``last_result`` as a point (the
    retained state is what a restarted desk hears first: the last deal is then known, if none before it)."""
    match = state.get("match")
    if match is not None:
        tab["chart"] = [p for p in tab.get("chart", []) if p.get("match") in (None, match)]
    last = state.get("last_result")
    if isinstance(last, dict) and not any(p.get("deal") == last.get("deal") for p in tab["chart"]):
        add_point(tab, deal_point({"match": match, **last}))


def standings_summary(report: dict[str, Any]) -> dict[str, Any]:
    """What a hall screen shows of the desk's standings: version, time and, per team, rank, name, players,
    场分 and 级差分, and the round after which a team withdrew (no internal numbers such as lots or team ids);
    ``matches``: the latest round's results as the desk counts them (``match_summary``); ``knockout``: its
    bracket (``knockout_summary``).
    In a duplicate event (the report lists its ``boards``: ``ledger.report``) the teams are ranked by their
    duplicate total first (``standings.compute``): ``duplicate`` is then true and each row has its total
    (``duplicate``), which the screens show first (``export.STANDINGS_COLUMNS``' 复式 Dup.)."""
    duplicate = isinstance(report.get("boards"), list)
    keys = ("rank", "name", "unit", "players", "match_points", "level_points", "played") + (
        ("duplicate",) if duplicate else ())
    rows = [{**{k: r.get(k) for k in keys}, **({"withdrawn": {"after_round": r["withdrawn"].get("after_round")}}
                                              if isinstance(r.get("withdrawn"), dict) else {})}
            for r in report.get("rows", []) if isinstance(r, dict)]  # a withdrawal's reason stays at the desk
    rounds = report.get("rounds")
    raw = report.get("matches")
    matches = [m for m in (match_summary(x) for x in (raw if isinstance(raw, list) else [])) if m is not None]
    return {"version": report.get("version"), "computed_at": report.get("computed_at"), "rows": rows,
            "duplicate": duplicate,
            # which round the standings stand after: the last paired one, still in play while results are due
            "round": rounds if isinstance(rounds, int) else None, "in_play": bool(report.get("pending")),
            # the latest round's matches as the desk counts them: a screen shows a referee's correction of a
            # finished match (``corrected``) instead of the result its table gave
            "matches": matches,
            # a knockout's bracket, its teams by name (``knockout_summary``); None without a knockout
            "knockout": knockout_summary(report),
            # once the knockout is over its places rank its teams, whatever their points: how many, to say so
            "knockout_ranked": len(report["knockout_places"]) if isinstance(report.get("knockout_places"), list)
            else 0}


def _sides(value: Any, kind: type | tuple[type, ...]) -> dict[str, Any] | None:
    """Both teams' values of a ``{"NS", "EW"}`` pair when each is a ``kind`` (a bool is no number), else None."""
    if not isinstance(value, dict):
        return None
    if not all(isinstance(value.get(t), kind) and not isinstance(value.get(t), bool) for t in ("NS", "EW")):
        return None
    return {"NS": value["NS"], "EW": value["EW"]}


def match_summary(raw: Any) -> dict[str, Any] | None:
    """One match of the standings' ``matches`` (``ledger.round_matches``) as screens get it: round, table, final
    levels, winner, walk-over, void, corrected and its 场分 / 级差分; None for anything that is not one."""
    if not isinstance(raw, dict) or not _number(raw.get("round")):
        return None
    table = raw.get("table")
    if not isinstance(table, str) or not table:
        return None
    winner = raw.get("winner")
    out: dict[str, Any] = {"round": raw["round"], "table": table, "levels": _sides(raw.get("levels"), str),
                           "winner": winner if winner in ("NS", "EW") else None,
                           "walkover": raw.get("walkover") is True, "void": raw.get("void") is True,
                           "corrected": raw.get("corrected") is True}
    for k in ("match_points", "level_points"):
        points = _sides(raw.get(k), (int, float))
        if points is not None:
            out[k] = points
    return out


def knockout_summary(report: dict[str, Any]) -> dict[str, Any] | None:
    """The knockout's bracket (``bracket.knockout_bracket``, in the report as ``knockout``) as screens get it:
    per round its event ``round`` and ``matches``, each with its ``stage`` words, ``places``, ``table``, its
    ``teams`` by name (None: a bye's empty slot, or a team not known yet: ``waiting`` [first, second] says
    which), ``winner`` (0 or 1, the index of the winning team; None) and ``bye``. No team ids. None when the report has no knockout."""
    raw = report.get("knockout")
    if not isinstance(raw, dict) or not isinstance(raw.get("rounds"), list):
        return None
    names = {r["team"]: r.get("name") for r in report.get("rows", []) if isinstance(r, dict) and "team" in r}
    rounds: list[dict[str, Any]] = []
    for rnd in raw["rounds"]:
        if not isinstance(rnd, dict) or not isinstance(rnd.get("matches"), list):
            continue
        matches: list[dict[str, Any]] = []
        for m in rnd["matches"]:
            teams = m.get("teams") if isinstance(m, dict) else None
            if not isinstance(teams, list) or len(teams) != 2 or not isinstance(m.get("stage"), str):
                continue
            winner = m.get("winner")
            matches.append({
                "stage": m["stage"], "places": m.get("places"),
                "table": m.get("table") if isinstance(m.get("table"), str) else None,
                "teams": [names.get(t) if t is not None else None for t in teams],
                "winner": teams.index(winner) if winner is not None and winner in teams else None,
                "bye": m.get("bye") is True,
                "waiting": [w is True for w in m["waiting"]] if isinstance(m.get("waiting"), list)
                and len(m["waiting"]) == 2 else [False, False]})
        rounds.append({"round": rnd.get("round") if _number(rnd.get("round")) else None, "matches": matches})
    return {"rounds": rounds}
