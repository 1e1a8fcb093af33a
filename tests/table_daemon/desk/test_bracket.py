"""The knockout's bracket: every round's matches with the places they decide, agreeing with the pairing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from table_daemon.desk import bracket, pairing


def paired(rows: pairing.Pairing, event_round: int) -> list[dict[str, Any]]:
    """Pairings as the desk stores them: matches take tables in order, byes none."""
    out, n = [], 0
    for i, (a, b) in enumerate(rows):
        if b is None:
            out.append({"round": event_round, "tbl": f"BYE{i + 1:02d}", "ns": a, "ew": None, "method": "knockout"})
        else:
            n += 1
            out.append({"round": event_round, "tbl": f"T{n:02d}", "ns": a, "ew": b, "method": "knockout"})
    return out


def test_stage_words() -> None:
    assert bracket.stage_words(1, 2) == "决赛 · Final"
    assert bracket.stage_words(3, 4) == "三四名决赛 · Third-place match"
    assert bracket.stage_words(1, 4) == "半决赛 · Semi-final"
    assert bracket.stage_words(1, 8) == "1/4决赛 · Quarter-final"
    assert bracket.stage_words(1, 16) == "1/8决赛 · Round of 16"
    assert bracket.stage_words(5, 8) == "第5-8名排位赛 · Play-off for 5th-8th"
    assert bracket.stage_words(11, 12) == "第11-12名决赛 · Match for 11th place"
    assert bracket.stage_words(21, 22) == "第21-22名决赛 · Match for 21st place"


def test_six_teams_before_and_during_the_knockout() -> None:
    """Before any round is paired the whole bracket shows: the top seeds' byes, the later rounds waiting."""
    seeds = [11, 12, 13, 14, 15, 16]
    before = bracket.knockout_bracket(seeds, [], [])
    assert before["teams"] == 6 and [r["paired"] for r in before["rounds"]] == [False, False, False]
    first = before["rounds"][0]["matches"]
    assert [m["teams"] for m in first] == [[11, None], [14, 15], [12, None], [13, 16]]
    assert [m["bye"] for m in first] == [True, False, True, False]
    assert {m["stage"] for m in first} == {"1/4决赛 · Quarter-final"}
    final_round = before["rounds"][2]["matches"]
    assert [m["places"] for m in final_round] == [[1, 2], [3, 4], [5, 6]]  # 7-8 would be two empty slots
    assert all(m.get("waiting") and m["table"] is None for m in final_round)

    rows = paired(pairing.knockout(seeds, [], 1), 4)  # the knockout after three Swiss rounds
    w1 = {frozenset((14, 15)): 15, frozenset((13, 16)): 13}
    now = bracket.knockout_bracket(seeds, rows, [w1])
    r1, r2, r3 = now["rounds"]
    assert (r1["round"], r1["paired"], r2["round"], r2["paired"], r3["round"]) == (4, True, 5, False, 6)
    assert [(m["table"], m["winner"]) for m in r1["matches"]] == [(None, 11), ("T01", 15), (None, 12), ("T02", 13)]
    assert [(m["stage"], m["teams"], m["bye"]) for m in r2["matches"]] == [
        ("半决赛 · Semi-final", [11, 15], False), ("半决赛 · Semi-final", [12, 13], False),
        ("第5-8名排位赛 · Play-off for 5th-8th", [None, 14], True),
        ("第5-8名排位赛 · Play-off for 5th-8th", [None, 16], True)]
    # the losers' byes decide the match for 5th already; the final waits on the semi-finals
    assert [(m["places"], m["teams"], m.get("waiting")) for m in r3["matches"]] == [
        ([1, 2], [None, None], [True, True]), ([3, 4], [None, None], [True, True]), ([5, 6], [14, 16], None)]


def test_an_undecided_match_leaves_only_its_own_path_waiting() -> None:
    seeds = [1, 2, 3, 4]
    rows = paired(pairing.knockout(seeds, [], 1), 1)
    got = bracket.knockout_bracket(seeds, rows, [{frozenset((1, 4)): 4}])  # 2 v 3 drawn: one more deal due
    assert [m["winner"] for m in got["rounds"][0]["matches"]] == [4, None]
    final, third = got["rounds"][1]["matches"]
    assert final["teams"] == [4, None] and final["waiting"] == [False, True] and final["stage"] == "决赛 · Final"
    assert third["teams"] == [1, None] and third["waiting"] == [False, True]


def test_a_withdrawn_team_s_unplayed_match_is_a_bye_of_its_opponent() -> None:
    seeds = [1, 2, 3, 4]
    rows = paired(pairing.knockout(seeds, [], 1, absent={4}), 1)
    assert [(r["ns"], r["ew"]) for r in rows] == [(1, None), (2, 3)]
    got = bracket.knockout_bracket(seeds, rows, [{frozenset((2, 3)): 3}], absent={4})
    semi = got["rounds"][0]["matches"]
    assert [(m["teams"], m["bye"], m["table"], m["winner"]) for m in semi] == [
        ([1, 4], True, None, 1), ([2, 3], False, "T01", 3)]
    assert [m["teams"] for m in got["rounds"][1]["matches"]] == [[1, 3], [4, 2]]


@settings(max_examples=60, deadline=None)
@given(hs.integers(min_value=2, max_value=20), hs.integers(min_value=0, max_value=2**32 - 1))
def test_each_round_shows_the_matches_the_pairing_makes(teams: int, seed: int) -> None:
    """Played through with random winners, every paired round's bracket holds exactly the pairing's matches
    with their tables and winners, and the last round's winners and losers are the knockout's places."""
    rng = random.Random(seed)
    seeds = rng.sample(range(1, 100), teams)
    rows: list[dict[str, Any]] = []
    winners: list[dict[frozenset[int], int]] = []
    rounds = len(bracket.knockout_bracket(seeds, [], [])["rounds"])
    for r in range(1, rounds + 1):
        this = paired(pairing.knockout(seeds, winners, r), 10 + r)
        rows += this
        shown = bracket.knockout_bracket(seeds, rows, winners)["rounds"][r - 1]
        assert shown["paired"] and shown["round"] == 10 + r
        played = [m for m in shown["matches"] if not m["bye"]]
        assert not any(m.get("waiting") for m in shown["matches"])
        assert sorted((m["table"], *m["teams"]) for m in played) == sorted(
            (p["tbl"], p["ns"], p["ew"]) for p in this if p["ew"] is not None)
        winners.append({frozenset((p["ns"], p["ew"])): rng.choice((p["ns"], p["ew"]))
                        for p in this if p["ew"] is not None})
        assert all(m["winner"] is None for m in played)  # paired, not played yet
        decided = bracket.knockout_bracket(seeds, rows, winners)["rounds"][r - 1]["matches"]
        assert all(m["winner"] == winners[-1][frozenset(m["teams"])] for m in decided if not m["bye"])
    places = pairing.knockout_places(seeds, winners)
    assert places is not None
    last = bracket.knockout_bracket(seeds, rows, winners)["rounds"][-1]["matches"]
    for m in last:
        first, second = m["places"]
        loser = next((t for t in m["teams"] if t != m["winner"]), None)
        assert places[first - 1] == m["winner"]
        if loser is not None:
            assert places[second - 1] == loser


def test_a_round_the_results_do_not_reach_yet_is_never_guessed() -> None:
    with pytest.raises(pairing.PairingError):
        pairing.decided_winner(1, 2, {})
    got = bracket.knockout_bracket([1, 2, 3, 4, 5, 6, 7, 8], [], [])
    assert all(m["teams"] == [None, None] and m["waiting"] == [True, True]
               for r in got["rounds"][1:] for m in r["matches"])
