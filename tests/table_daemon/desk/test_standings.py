"""Standings by 场分, 级差分, 对手分, fouls, countback and lots (rules §9), and duplicate boards (§12)."""

from table_daemon.desk.standings import (
    BoardPlay,
    Outcome,
    Penalty,
    Row,
    Team,
    compute,
    draw_lot,
    duplicate_scores,
)

TEAMS = [Team(i, f"P{i}", (f"a{i}", f"b{i}"), "U1" if i < 3 else "U2") for i in range(1, 7)]


def names(rows: list[Row]) -> list[str]:
    return [r.name for r in rows]


def test_hand_calculated_two_rounds() -> None:
    outcomes = [
        Outcome(1, "T01", 1, 2, {"NS": "A+", "EW": "5"}, "NS"),   # P1 2/23, P2 0/3
        Outcome(1, "T02", 3, 4, {"NS": "8", "EW": "K"}, "EW"),    # P3 0/8, P4 2/18
        Outcome(1, "T03", 5, 6, {"NS": "9", "EW": "9"}, None),    # P5 1/13, P6 1/13
        Outcome(2, "T01", 1, 4, {"NS": "Q", "EW": "J"}, "NS"),    # P1 2/14, P4 0/12
        Outcome(2, "T02", 5, 2, {"NS": "3", "EW": "7"}, "EW"),    # P5 0/9, P2 2/17
        Outcome(2, "T03", 6, 3, {"NS": "A", "EW": "A"}, None),    # P6 1/13, P3 1/13
    ]
    rows = compute(TEAMS, outcomes, lot_seed="s")
    got = {r.name: (r.match_points, r.level_points, r.opponent_points) for r in rows}
    assert got == {
        "P1": (4, 37, 2 + 2), "P2": (2, 20, 4 + 1), "P4": (2, 30, 1 + 4), "P6": (2, 26, 1 + 1),
        "P5": (1, 22, 2 + 2), "P3": (1, 21, 2 + 2),
    }
    assert names(rows) == ["P1", "P4", "P6", "P2", "P5", "P3"]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5, 6]


def test_tie_breaks_opponents_then_fouls_then_countback_then_lots() -> None:
    teams = TEAMS[:4]
    # Round 1: P1 beats P2, P3 beats P4, both by the same margin; round 2: P1-P3 draw, P2-P4 draw.
    base = [
        Outcome(1, "T01", 1, 2, {"NS": "6", "EW": "4"}, "NS"),
        Outcome(1, "T02", 3, 4, {"NS": "6", "EW": "4"}, "NS"),
        Outcome(2, "T01", 1, 3, {"NS": "5", "EW": "5"}, None),
        Outcome(2, "T02", 2, 4, {"NS": "5", "EW": "5"}, None),
    ]
    rows = compute(teams, base, lot_seed="x")
    p1, p3 = (next(r for r in rows if r.name == n) for n in ("P1", "P3"))
    assert (p1.match_points, p1.level_points, p1.opponent_points) == (p3.match_points, p3.level_points,
                                                                      p3.opponent_points)
    # all equal so far: the lot decides, and the lot is reproducible from the seed
    first = "P1" if draw_lot("x", 1) < draw_lot("x", 3) else "P3"
    assert names(rows)[0] == first
    # a confirmed violation puts the other one ahead
    fouler = first
    rows = compute(teams, base, lot_seed="x", penalties=[Penalty(int(fouler[1]), violations=1)])
    assert names(rows)[0] != fouler and rows[1].fouls == 1


def test_each_team_has_a_draw_number_in_the_order_of_its_lot() -> None:
    rows = compute(TEAMS, [], lot_seed="x")
    by_lot = sorted(rows, key=lambda r: draw_lot("x", r.team))
    assert [r.lot_no for r in by_lot] == list(range(1, len(TEAMS) + 1))
    # with nothing played the lots alone decide, so the draw numbers are the places
    assert [r.lot_no for r in rows] == [r.rank for r in rows]
    assert rows[0].to_json()["lot_no"] == 1 and rows[0].to_json()["lot"] == draw_lot("x", rows[0].team)


def test_countback_from_the_last_round() -> None:
    teams = TEAMS[:4]
    outcomes = [
        Outcome(1, "T01", 1, 2, {"NS": "5", "EW": "5"}, None),  # P1 1, P2 1
        Outcome(1, "T02", 3, 4, {"NS": "6", "EW": "4"}, "NS"),  # P3 2 (15), P4 0 (11)
        Outcome(2, "T01", 1, 4, {"NS": "6", "EW": "4"}, "NS"),  # P1 2 (15), P4 0 (11)
        Outcome(2, "T02", 3, 2, {"NS": "5", "EW": "5"}, None),  # P3 1, P2 1
    ]
    rows = compute(teams, outcomes, lot_seed="y")
    # P1 and P3: 3 场分, 28 级差分, opponents P2+P4 = 2 each; P1 won the last round, so P1 is ahead.
    assert names(rows)[:2] == ["P1", "P3"]


def test_byes_voids_and_deductions() -> None:
    outcomes = [Outcome(1, "BYE01", 5, None), Outcome(1, "T01", 1, 2, {"NS": "A+", "EW": "2"}, "NS", void=True)]
    rows = {r.name: r for r in compute(TEAMS, outcomes, lot_seed="z",
                                       penalties=[Penalty(5, match_points=1, level_points=3)])}
    assert (rows["P5"].match_points, rows["P5"].level_points, rows["P5"].byes) == (1, 10, 1)
    assert rows["P1"].match_points == 0 and rows["P1"].played == 0


def test_duplicate_boards_are_compared_board_by_board() -> None:
    # Board 1: at T01 P1 (NS cards) take 上游 +3; at T02 P3 hold the NS cards and lose -1.
    plays = [BoardPlay(1, "T01", 1, 2, 3), BoardPlay(1, "T02", 3, 4, -1),
             BoardPlay(2, "T01", 1, 2, -2), BoardPlay(2, "T02", 3, 4, -2)]
    totals, detail = duplicate_scores(plays)
    assert totals == {1: 4, 2: -4, 3: -4, 4: 4}
    assert [d["score_ns"] for d in detail] == [4, -4, 0, 0]
    rows = compute(TEAMS[:4], [], boards=plays, duplicate=True, lot_seed="d")
    assert names(rows)[:2] in (["P1", "P4"], ["P4", "P1"]) and rows[0].duplicate == 4


# -- the latest round's matches as the standings count them (for the hall screens) ----------------------------------
def _pair(round_no: int, table: str, ns: int, ew: int | None) -> dict[str, object]:
    return {"round": round_no, "tbl": table, "ns": ns, "ew": ew, "method": "swiss"}


def _played(round_no: int, table: str, levels: dict[str, str], winner: str | None) -> dict[str, object]:
    return {"id": f"m{round_no}{table}", "kind": "match", "match": round_no, "tbl": table, "deal": None,
            "payload": {"type": "match_result", "match": round_no, "levels": levels, "winner": winner}}


def _correction(n: int, action: str, round_no: int, table: str, **payload: object) -> dict[str, object]:
    return {"n": n, "action": action, "target": {"round": round_no, "table": table}, "payload": payload,
            "who": "裁判 A", "why": "记分错误", "at": "2026-12-07T10:00:00Z"}


def test_the_report_lists_the_latest_rounds_matches_as_counted_after_every_correction() -> None:
    """Round 3 at T03 was corrected at the desk (NS=4, EW=5, EW wins; the table said NS won 5:4): the report's
    ``matches`` give the desk's result, marked corrected, as they do a walk-over entered for a late pair and a
    voided match; a match the referees left alone is the table's, not corrected; one without a result has none."""
    from table_daemon.desk import ledger

    teams = [Team(i, f"队{i}") for i in range(1, 12)]
    pairings = [_pair(2, "T01", 1, 2), _pair(2, "T02", 3, 4),  # an earlier round: only its corrected T02 listed
                _pair(3, "T01", 1, 3), _pair(3, "T02", 2, 4), _pair(3, "T03", 5, 6), _pair(3, "T04", 7, 8),
                _pair(3, "T05", 9, 10), _pair(3, "T06", 11, None)]  # T06: a bye, no match
    results = [_played(2, "T01", {"NS": "6", "EW": "3"}, "NS"), _played(2, "T02", {"NS": "3", "EW": "7"}, "EW"),
               _played(3, "T01", {"NS": "8", "EW": "6"}, "NS"), _played(3, "T03", {"NS": "5", "EW": "4"}, "NS"),
               _played(3, "T04", {"NS": "K", "EW": "9"}, "NS")]
    corrections = [
        _correction(1, "change", 3, "T03", levels={"NS": "4", "EW": "5"}, winner="EW", walkover=False),
        _correction(2, "change", 3, "T02", levels={"NS": "2", "EW": "2"}, winner="NS", walkover=True),
        _correction(3, "void", 3, "T04"),
        _correction(4, "change", 2, "T02", levels={"NS": "9", "EW": "7"}, winner="NS", walkover=False),
        {"n": 5, "action": "penalty", "target": {"team": 1}, "payload": {"violations": 1}, "who": "A", "why": "",
         "at": ""},
    ]
    report = ledger.report(teams, pairings, results, corrections, {"scoring": "standard"}, lot_seed="s",
                           version=7, event="ev", computed_at="2026-12-07T10:05:00Z")
    # round 2's T02, corrected after round 3 was paired: a table still showing that match shows the desk's result
    earlier = report["matches"][0]
    assert (earlier["round"], earlier["table"], earlier["levels"], earlier["winner"], earlier["corrected"]) == (
        2, "T02", {"NS": "9", "EW": "7"}, "NS", True)
    got = {m["table"]: m for m in report["matches"][1:]}
    assert [m["table"] for m in report["matches"][1:]] == ["T01", "T02", "T03", "T04", "T05"]
    assert all(m["round"] == 3 for m in report["matches"][1:])
    keys = ("levels", "winner", "walkover", "void", "corrected")
    assert {k: got["T01"][k] for k in keys} == {"levels": {"NS": "8", "EW": "6"}, "winner": "NS", "walkover": False,
                                                "void": False, "corrected": False}
    assert {k: got["T03"][k] for k in keys} == {"levels": {"NS": "4", "EW": "5"}, "winner": "EW", "walkover": False,
                                                "void": False, "corrected": True}
    assert got["T03"]["match_points"] == {"NS": 0.0, "EW": 2.0}  # as the standings count it: EW won
    assert {k: got["T02"][k] for k in keys} == {"levels": {"NS": "2", "EW": "2"}, "winner": "NS", "walkover": True,
                                                "void": False, "corrected": True}
    assert got["T02"]["match_points"] == {"NS": 2.0, "EW": 0.0}
    assert {k: got["T04"][k] for k in ("winner", "void", "corrected")} == {"winner": "NS", "void": True,
                                                                           "corrected": True}
    assert "match_points" not in got["T04"]  # a void match counts nothing
    assert got["T05"] == {"round": 3, "table": "T05", "levels": None, "winner": None, "walkover": False,
                          "void": False, "corrected": False}
    # the entries agree with the rows: team 6 (EW at T03) has the win the correction gave it
    rows = {r["name"]: r for r in report["rows"]}
    assert rows["队6"]["by_round"]["3"] == 2.0 and rows["队5"]["by_round"].get("3", 0.0) == 0.0
    # nothing but the match: no teams, no hands
    assert all(set(m) <= {"round", "table", *keys, "match_points", "level_points"} for m in report["matches"])
    assert len(report["matches"]) == 6  # round 2's T01, left alone, is not listed: the message stays small


def test_a_report_without_pairings_lists_no_matches() -> None:
    from table_daemon.desk import ledger

    report = ledger.report(TEAMS, [], [], [], {}, lot_seed="s", version=1, event=None, computed_at="")
    assert report["matches"] == []
