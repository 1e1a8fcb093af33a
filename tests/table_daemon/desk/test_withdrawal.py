"""A team that withdraws from the event (退赛, seeds 003/004: a pair that cannot go on gives up the event): it is
paired in no later round (Swiss, round robin and knockout), its results stand, the standings mark it, a second
withdrawal or a reinstatement of a team still in is refused, and a reinstated team is paired again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_daemon.cli import main
from table_daemon.desk import corrections, event, pairing
from table_daemon.desk.export import standings_csv
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.display.summaries import standings_summary


def six_teams(tmp_path: Path, method: str = "swiss") -> Store:
    store = Store(tmp_path / "desk.sqlite")
    store.set_up("ev", [Team(i, f"队{i}", (f"p{i}a", f"p{i}b"), f"U{i}") for i in range(1, 7)],
                 {"tables": ["T01", "T02", "T03"]}, "seed")
    return store


def finish_round(store: Store, round_no: int) -> None:
    """Every match of the round won by its NS team (a referee's entry: no table here)."""
    for p in store.pairings(round_no):
        if p["ew"] is not None:
            corrections.change_match(store, "裁判", "table result", round_no, p["tbl"],
                                     levels={"NS": "A+", "EW": "5"}, winner="NS")


def teams_in(store: Store, round_no: int) -> set[int]:
    return {t for p in store.pairings(round_no) for t in (p["ns"], p["ew"]) if t is not None}


def test_a_withdrawn_team_is_paired_no_more_and_keeps_its_results(tmp_path: Path) -> None:
    store = six_teams(tmp_path)
    event.pair_round(store, 1)
    finish_round(store, 1)
    gone = store.pairings(1)[0]["ew"]  # lost round 1
    corrections.withdraw(store, "裁判长", "队员生病 a player is ill", gone)
    event.pair_round(store, 2)
    assert gone not in teams_in(store, 2) and len(teams_in(store, 2)) == 5
    assert sum(p["ew"] is None for p in store.pairings(2)) == 1  # five teams: one bye
    report = event.standings_report(store)
    row = next(r for r in report["rows"] if r["team"] == gone)
    assert row["withdrawn"] == {"after_round": 1, "reason": "队员生病 a player is ill"} and row["played"] == 1
    assert all("withdrawn" not in r for r in report["rows"] if r["team"] != gone)
    csv_row = next(line for line in standings_csv(report).splitlines() if line.split(",")[1] == f"队{gone}")
    assert csv_row.endswith(",1")  # 退赛 Withdrew after round: 1
    public = next(r for r in standings_summary(report)["rows"] if r["name"] == f"队{gone}")
    assert public["withdrawn"] == {"after_round": 1}  # the reason stays at the desk
    with pytest.raises(corrections.CorrectionError, match="withdrew already"):
        corrections.withdraw(store, "裁判长", "again", gone)
    with pytest.raises(corrections.CorrectionError, match="has not withdrawn"):
        corrections.withdraw(store, "裁判长", "mistake", 1 if gone != 1 else 2, reinstate=True)
    finish_round(store, 2)
    corrections.withdraw(store, "裁判长", "录错了 entered by mistake", gone, reinstate=True)
    event.pair_round(store, 3)
    assert gone in teams_in(store, 3)
    assert "withdrawn" not in next(r for r in event.standings_report(store)["rows"] if r["team"] == gone)


def test_round_robin_gives_a_withdrawn_teams_opponent_the_round_off(tmp_path: Path) -> None:
    store = six_teams(tmp_path)
    event.pair_round(store, 1, "round_robin")
    finish_round(store, 1)
    corrections.withdraw(store, "裁判长", "left", 6)
    event.pair_round(store, 2)
    byes = [p["ns"] for p in store.pairings(2) if p["ew"] is None]
    expected = next(a if b == 6 else b for a, b in pairing.round_robin(list(range(1, 7)), 2) if 6 in (a, b))
    assert byes == [expected] and 6 not in teams_in(store, 2)


def test_a_knockout_moves_the_withdrawn_teams_opponent_on() -> None:
    seeds = [1, 2, 3, 4]
    assert pairing.knockout(seeds, [], 1, absent={4}) == [(1, None), (2, 3)]
    # round 2: 1 goes on (4 never played), 2 beat 3; the losers' match is 3 against 4: 3 has it off
    assert pairing.knockout(seeds, [{frozenset((2, 3)): 2}], 2, absent={4}) == [(1, 2), (3, None)]


def test_desk_correct_withdraw_says_which_match_still_needs_a_result(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    store = six_teams(tmp_path)
    event.pair_round(store, 1)
    first = store.pairings(1)[0]
    db = str(tmp_path / "desk.sqlite")
    assert main(["desk", "correct", "--db", db, "--by", "裁判长", "--reason", "弃权", "--team", f"队{first['ns']}",
                 "--withdraw"]) == 0
    err = capsys.readouterr().err
    assert f"round 1 at {first['tbl']} has no result yet" in err and "--walkover" in err and "--winner EW" in err
    assert main(["desk", "correct", "--db", db, "--by", "x", "--reason", "y", "--withdraw"]) == 2
    assert "needs --team" in capsys.readouterr().err
    with pytest.raises(event.EventError, match="no result yet"):
        event.pair_round(store, 2)  # the withdrawn team's match must be entered first
    # the walk-over as the message says it: no levels to invent (nothing was played), scored 26/0 (弃权)
    assert main(["desk", "correct", "--db", db, "--by", "裁判长", "--reason", "弃权", "--round", "1",
                 "--table", first["tbl"], "--winner", "EW", "--walkover"]) == 0
    capsys.readouterr()
    (row,) = [r for r in event.standings_report(store)["rows"] if r["team"] == first["ew"]]
    assert (row["match_points"], row["level_points"]) == (2, 26)


def test_the_desk_pages_withdrawal_names_the_match_still_to_enter(tmp_path: Path) -> None:
    import json

    from table_daemon.desk.page_actions import actions

    store = six_teams(tmp_path)
    event.pair_round(store, 1)
    first = store.pairings(1)[0]
    act = actions(store, None)["/api/withdraw"]
    status, _, body = act({"by": "裁判长", "team": f"队{first['ew']}", "reason": ""})
    assert status == 400 and "reason" in json.loads(body)["error"]
    status, _, body = act({"by": "裁判长", "team": f"队{first['ew']}", "reason": "弃权"})
    assert status == 200 and json.loads(body)["unplayed"] == [f"第1轮 {first['tbl']} round 1"]
    status, _, body = act({"by": "裁判长", "team": "nobody", "reason": "x"})
    assert status == 400 and "no registered team" in json.loads(body)["error"]


def test_the_desk_starts_no_match_of_a_withdrawn_team(mosquitto: Any, topic_root: Any, tmp_path: Path) -> None:
    """A knockout day's walk-through: a finalist withdrew with the final paired while its table was offline; the
    desk went on retrying that start, the table played it when it came back, and its result made the withdrawn
    team champion. The desk starts no match of a withdrawn team (the referees enter its walk-over)."""
    import time

    from table_daemon.desk.service import Desk

    from .spec_table import SpecTable

    store = Store(tmp_path / "d.sqlite")
    store.set_up(topic_root.event, [Team(i, f"队{i}") for i in range(1, 5)], {"tables": ["T01", "T02"]}, "seed")
    store.add_round(1, "swiss", [("T01", 1, 2), ("T02", 3, 4)])
    corrections.withdraw(store, "裁判长", "家中有事", 4)
    tables = {t: SpecTable(mosquitto.url, topic_root.event, t) for t in ("T01", "T02")}
    desk = Desk(store, mosquitto.url, topic_root.event)
    desk.start()
    try:
        deadline = time.monotonic() + 10
        while not tables["T01"].commands and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [c["name"] for c in tables["T01"].commands] == ["start_match"]
        desk.send_pairings()  # and again: still nothing for T02
        time.sleep(0.5)
        assert tables["T02"].commands == []
        assert next(p for p in store.pairings(1) if p["tbl"] == "T02")["sent_at"] is None
    finally:
        desk.stop()
        for t in tables.values():
            t.client.loop_stop()
            t.client.disconnect()
        store.close()
