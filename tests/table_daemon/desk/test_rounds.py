"""Event set-up and rounds through the store: CSV of registered pairs, round robin, knockout with play-offs,
duplicate boards and deal-level corrections counted from stored deal records."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_daemon.desk import corrections, event
from table_daemon.desk.store import Store

CSV = "team,player1,player2,unit\nA,a1,a2,X\nB,b1,b2,X\nC,c1,c2,Y\nD,d1,d2,Y\n"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p.csv").write_text(CSV)
    s = Store(tmp_path / "d.sqlite")
    s.set_up("ev", event.read_pairs_csv(tmp_path / "p.csv"), {"duplicate": True}, "seed")
    return s


def finish_round(store: Store, round_no: int, winner: str = "NS") -> None:
    for p in store.pairings(round_no):
        if p["ew"] is not None:
            corrections.change_match(store, "ref", "entered by hand", round_no, p["tbl"],
                                     levels={"NS": "A+", "EW": "4"} if winner == "NS" else {"NS": "4", "EW": "A+"},
                                     winner=winner)


def test_csv_reading_and_errors(tmp_path: Path) -> None:
    (tmp_path / "c.csv").write_text("队名,队员,单位\n红队,张三/李四,一厂\n蓝队,王五、赵六,二厂\n", encoding="utf-8")
    teams = event.read_pairs_csv(tmp_path / "c.csv")
    assert [(t.name, t.players, t.unit) for t in teams] == [("红队", ("张三", "李四"), "一厂"),
                                                          ("蓝队", ("王五", "赵六"), "二厂")]
    (tmp_path / "dup.csv").write_text("team,players,unit\nA,a/b,\nA,c/d,\n")
    with pytest.raises(event.EventError, match=r"row 3, column 1 \(team\).*registered twice \(row 2 too\)"):
        event.read_pairs_csv(tmp_path / "dup.csv")
    (tmp_path / "nohead.csv").write_text("x,y\n1,2\n")
    with pytest.raises(event.EventError, match="lacks the column"):
        event.read_pairs_csv(tmp_path / "nohead.csv")


def test_round_robin_then_start_match_payload(store: Store) -> None:
    met = set()
    for r in (1, 2, 3):
        rows = event.pair_round(store, r, "round_robin")
        met |= {frozenset((p["ns"], p["ew"])) for p in rows}
        finish_round(store, r)
    assert len(met) == 6
    cmd = event.start_match_command(store, store.pairings(1)[0])
    assert cmd["match"] == 1 and set(cmd["teams"]) == {"NS", "EW"}
    assert set(cmd["teams"]["EW"]["players"]) == {"E", "W"} and cmd["match_end"] == {"method": "pass_a"}
    with pytest.raises(event.EventError, match="rounds 1..3"):
        event.pair_round(store, 4)


def test_knockout_final_and_third_place(store: Store) -> None:
    r1 = event.pair_round(store, 1, "knockout")
    seeds = store.meta("knockout_seeds")
    assert [(p["ns"], p["ew"]) for p in r1] == [(seeds[0], seeds[3]), (seeds[1], seeds[2])]
    finish_round(store, 1, "EW")  # the lower seeds win both
    r2 = event.pair_round(store, 2)
    assert [(p["ns"], p["ew"]) for p in r2] == [(seeds[3], seeds[2]), (seeds[0], seeds[1])]


def test_a_knockout_after_swiss_takes_its_qualifiers_and_plays_to_a_winner(store: Store) -> None:
    """An organiser's day: the knockout after the Swiss rounds seeded every registered team, the withdrawn too
    (10 teams made a 16-place bracket, the withdrawn team's opponent a bye in every round), and its matches
    went to the tables as any match, so a knockout match could end in a draw nothing could decide."""
    event.pair_round(store, 1, "swiss")
    finish_round(store, 1)
    order = [r["team"] for r in event.standings_report(store)["rows"]]
    corrections.withdraw(store, "ref", "ill", order[1])  # the second after round 1 withdraws
    with pytest.raises(event.EventError, match="--top"):
        event.pair_round(store, 2, "swiss", top=2)
    rows = event.pair_round(store, 2, "knockout", top=2)
    assert [(p["ns"], p["ew"]) for p in rows] == [(order[0], order[2])]  # the final of the two qualifiers
    assert store.meta("knockout_seeds") == [order[0], order[2]]
    cmd = event.start_match_command(store, rows[0])
    assert cmd["profile"] == {"base": "national", "knockout": True}  # equal at the end: one more deal (004)
    assert event.start_match_command(store, store.pairings(1)[0])["profile"] == "national"
    finish_round(store, 2)
    with pytest.raises(event.EventError, match="--top"):  # later rounds follow the bracket
        event.pair_round(store, 3, "knockout", top=2)


def test_duplicate_boards_and_voided_deal(store: Store) -> None:
    rows = event.pair_round(store, 1, "swiss")
    t1, t2 = rows
    def record(tbl: str, deal: int, board: int, finish: list[str], up: int) -> None:
        winner = "NS" if finish[0] in "NS" else "EW"
        store.add_result(f"ev/{tbl}/m1/d{deal}", tbl, "deal", 1, deal,
                         {"format": "guandan-deal/1", "board": board, "match": 1, "deal": deal,
                          "result": {"finish": finish, "winner": winner, "up": up}})
    record(t1["tbl"], 1, 1, ["S", "N"], 3)       # NS cards +3 at table 1
    record(t2["tbl"], 1, 1, ["E", "S", "W"], 2)  # NS cards -2 at table 2
    record(t1["tbl"], 2, 2, ["W", "E"], 3)
    record(t2["tbl"], 2, 2, ["W", "E"], 3)
    report = event.standings_report(store)
    dup = {r["team"]: r["duplicate"] for r in report["rows"]}
    assert dup == {t1["ns"]: 5, t1["ew"]: -5, t2["ns"]: -5, t2["ew"]: 5}
    assert [b["score_ns"] for b in report["boards"]] == [5, -5, 0, 0]
    assert report["rows"][0]["team"] in (t1["ns"], t2["ew"])
    corrections.void_deal(store, "ref", "misdeal found later", f"ev/{t1['tbl']}/m1/d1")
    dup = {r["team"]: r["duplicate"] for r in event.standings_report(store)["rows"]}
    assert dup == {t1["ns"]: 0, t1["ew"]: 0, t2["ns"]: 0, t2["ew"]: 0}
    corrections.void_deal(store, "ref", "misdeal was not", f"ev/{t1['tbl']}/m1/d1", restore=True)
    assert {r["team"]: r["duplicate"] for r in event.standings_report(store)["rows"]}[t1["ns"]] == 5
    with pytest.raises(corrections.CorrectionError):
        corrections.void_deal(store, "ref", "x", "ev/T99/m1/d1")


def test_violations_are_counted_from_the_match_result_once(store: Store) -> None:
    """A table's match result lists every penalty of the match (those between deals and with a forfeit too); the
    deal record's copy of one given in play is not counted a second time. An older table's (no list in its match
    result) are counted from its deal records, as before."""
    t1, t2 = event.pair_round(store, 1, "swiss")
    in_play = {"referee": "penalty", "kind": "violation", "team": "EW"}
    for tbl in (t1["tbl"], t2["tbl"]):
        store.add_result(f"ev/{tbl}/m1/d1", tbl, "deal", 1, 1,
                         {"format": "guandan-deal/1", "match": 1, "deal": 1, "actions": [in_play],
                          "result": {"finish": ["S", "N"], "winner": "NS", "up": 3}})
    listed = {"NS": {}, "EW": {"forfeit": 1, "violation": 3}}
    store.add_result(f"ev/{t1['tbl']}/m1", t1["tbl"], "match", 1, None,
                     {"levels": {"NS": "5", "EW": "2"}, "winner": "NS", "reason": "forfeit (EW)",
                      "penalties": listed})
    store.add_result(f"ev/{t2['tbl']}/m1", t2["tbl"], "match", 1, None,
                     {"levels": {"NS": "5", "EW": "2"}, "winner": "NS"})
    fouls = {r["team"]: r["fouls"] for r in event.standings_report(store)["rows"]}
    assert fouls == {t1["ns"]: 0, t1["ew"]: 3, t2["ns"]: 0, t2["ew"]: 1}


def test_the_rulings_a_match_result_tells_in_words() -> None:
    from table_daemon.desk.rounds import ruling_words

    assert ruling_words(None) == "" and ruling_words({"reason": "deals", "penalties": {"NS": {}, "EW": {}}}) == ""
    said = ruling_words({"reason": "forfeit (NS)", "penalties": {"NS": {"warning": 2, "violation": 1}, "EW": {}}})
    assert said == "判负结束 ended by forfeit (NS) · NS 判罚 penalties: 警告 warning 2, 记违例 violation 1"


def test_an_undecided_knockout_match_is_named_by_its_teams(store: Store) -> None:
    """"knockout match 4 v 8 has no winner yet", in English, with team ids and the knockout's own round numbers."""
    rows = event.pair_round(store, 1, "knockout")
    names = {t.id: t.name for t in store.teams()}
    for p in rows:  # drawn results as a table (an older one, without the knockout's extra deal) would send them
        store.add_result(f"ev/{p['tbl']}/m1", p["tbl"], "match", 1, None,
                         {"type": "match_result", "match": 1, "levels": {"NS": "5", "EW": "5"}, "winner": None})
    with pytest.raises(event.EventError) as got:
        event.pair_round(store, 2)
    first = rows[0]
    assert f" {names[first['ns']]} " in str(got.value) and f" {names[first['ew']]} " in str(got.value)
    assert "尚无胜者" in str(got.value) and "the knockout began at round 1" in str(got.value)


def test_a_finished_knockout_ranks_by_its_places(store: Store) -> None:
    """The standings ranked a knockout's teams by points: the final's loser was listed third, the third-place
    match's winner second. Once the knockout is over its places rank them."""
    event.pair_round(store, 1, "knockout")
    seeds = store.meta("knockout_seeds")
    for p in store.pairings(1):  # the lower seeds win both semi-finals, narrowly
        corrections.change_match(store, "ref", "r1", 1, p["tbl"], levels={"NS": "4", "EW": "5"}, winner="EW")
    assert "knockout_places" not in event.standings_report(store)  # not over yet
    final, third = event.pair_round(store, 2)
    assert (final["ns"], final["ew"], third["ns"], third["ew"]) == (seeds[3], seeds[2], seeds[0], seeds[1])
    corrections.change_match(store, "ref", "final", 2, final["tbl"], levels={"NS": "5", "EW": "4"}, winner="NS")
    corrections.change_match(store, "ref", "3rd", 2, third["tbl"], levels={"NS": "A+", "EW": "2"}, winner="NS")
    with pytest.raises(event.EventError, match=r"淘汰赛已打完（第1-2轮）.*the knockout is over \(rounds 1-2\)"):
        event.pair_round(store, 3)  # a walk-through: "a knockout of 4 teams has rounds 1..2", English only
    report = event.standings_report(store)  # by points the 3rd-place winner (38 级差分) is above the final's loser
    assert [r["team"] for r in report["rows"]] == [seeds[3], seeds[2], seeds[0], seeds[1]]
    assert [(r["rank"], r["knockout_place"]) for r in report["rows"]] == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert event.standings_report(store, public=True)["knockout_places"] == report["knockout_places"]


def test_the_same_unit_note_is_said_only_where_a_pairing_could_have_kept_them_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A knockout's match for third place printed the Swiss note "no pairing this round kept them apart": a
    bracket chooses nobody's opponent."""
    from table_daemon.cli import main

    (tmp_path / "two.csv").write_text("team,player1,player2,unit\nA,a1,a2,X\nB,b1,b2,X\n")
    for method in ("swiss", "knockout"):
        db = str(tmp_path / f"{method}.sqlite")
        assert main(["desk", "init", "--db", db, "--event", "e", "--pairs", str(tmp_path / "two.csv")]) == 0
        capsys.readouterr()
        assert main(["desk", "pair", "--db", db, "--round", "1", "--method", method]) == 0
        said = capsys.readouterr().err
        assert ("本轮无法回避" in said) == (method == "swiss"), (method, said)


@pytest.mark.parametrize("seating", ["first_ns", "first_ew", "lot"])
def test_who_sits_ns_follows_the_events_seating(tmp_path: Path, seating: str) -> None:
    """方位: the pairing's better placed team sat NS at every event; 003 十四 第2条 seats the larger 抽签号 NS, 004
    六 the first-listed team EW. Each is an event setting (``desk init --seating``, by default the profile's)."""
    (tmp_path / "p.csv").write_text("team,player1,player2,unit\n" + "".join(f"T{i},a{i},b{i},U{i}\n" for i in range(8)))
    stores = []
    for i, name in enumerate(("first_ns", seating)):
        s = Store(tmp_path / f"{i}.sqlite")
        s.set_up("ev", event.read_pairs_csv(tmp_path / "p.csv"), {"seating": name}, "seed-1")
        stores.append(s)
    plain = [(p["ns"], p["ew"]) for p in event.pair_round(stores[0], 1, "swiss")]
    rows = event.pair_round(stores[1], 1, "swiss")
    lot = {r["team"]: r["lot_no"] for r in event.standings_report(stores[1])["rows"]}
    got = [(p["ns"], p["ew"]) for p in rows]
    if seating == "first_ns":
        assert got == plain
    elif seating == "first_ew":
        assert got == [(b, a) for a, b in plain]
    else:
        assert all(lot[ns] > lot[ew] for ns, ew in got) and {frozenset(p) for p in got} == {frozenset(p) for p in plain}
        assert got != plain  # the lots differ from the standings' order here, or the test proves nothing


def test_the_profiles_documents_choose_the_seating_unless_named(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from table_daemon.cli import main

    (tmp_path / "p.csv").write_text(CSV)
    for profile, flag, want in (("jiangsu", [], "lot"), ("club-004", [], "first_ew"), ("national", [], "first_ns"),
                                ("jiangsu", ["--seating", "first_ns"], "first_ns")):
        db = str(tmp_path / f"{profile}-{len(flag)}.sqlite")
        assert main(["desk", "init", "--db", db, "--event", "e", "--pairs", str(tmp_path / "p.csv"),
                     "--profile", profile, *flag]) == 0
        assert json.loads(capsys.readouterr().out)["settings"]["seating"] == want
    assert event.default_seating({"base": "jiangsu", "turn_seconds": 20}) == "lot"


def test_a_referee_cannot_enter_a_draw_in_a_knockout_match(store: Store) -> None:
    """A knockout day's walk-through: `desk correct --winner draw` (and the page's 更正 form) on a semi-final was
    accepted, scored each team a point, showed 平局 on the screens and stalled the knockout, its next round
    unpairable. A knockout match has a winner: a draw plays one more deal (004)."""
    rows = event.pair_round(store, 1, "knockout")
    tbl = rows[0]["tbl"]
    with pytest.raises(corrections.CorrectionError, match="淘汰赛不能平局.*one more deal"):
        corrections.change_match(store, "ref", "draw", 1, tbl, levels={"NS": "5", "EW": "5"}, winner=None)
    with pytest.raises(corrections.CorrectionError, match="淘汰赛不能平局.*one more deal"):
        corrections.propose_match(store, "ref", "draw", 1, tbl, levels={"NS": "5", "EW": "5"}, winner=None)
    assert store.corrections() == [] and store.proposals() == []
    corrections.change_match(store, "ref", "after the extra deal", 1, tbl, levels={"NS": "6", "EW": "5"}, winner="NS")


def test_a_top_above_the_field_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`desk pair --method knockout --top 16` with 4 teams took all 4 without a word (a knockout day)."""
    from table_daemon.cli import main

    (tmp_path / "p.csv").write_text(CSV)
    db = str(tmp_path / "e.sqlite")
    assert main(["desk", "init", "--db", db, "--event", "e", "--pairs", str(tmp_path / "p.csv")]) == 0
    capsys.readouterr()
    assert main(["desk", "pair", "--db", db, "--round", "1", "--method", "knockout", "--top", "16"]) == 0
    assert "--top 16, but only 4 teams are still in the event: all of them qualify" in capsys.readouterr().err
