"""Input as organisers have it: pairs CSV in UTF-8 (with or without BOM) or GBK/GB18030 with checked columns and
errors naming row and column in Chinese and English; corrections checked against their winner; times in the
event's time zone; unknown desk addresses answer 404; every desk option a table or the desk could not use (table
and event ids, match ends, too few tables, ports, CA files, boards, points) refused in one line, exit 2."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from firmware_bridge.deal import new_deal
from table_daemon.cli import main
from table_daemon.controller.match import MAX_BOARDS, MAX_DEALS, MAX_MINUTES
from table_daemon.desk import clock, corrections, event
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store
from table_daemon.desk.web import desk_server
from table_daemon.display.hub import Hub

CSV = "队名,队员1,队员2,单位\n红队,张三,李四,一厂\n蓝队,王五,赵六,二厂\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gbk", "gb18030"])
def test_pairs_csv_in_every_encoding_excel_uses(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "pairs.csv"
    path.write_bytes(CSV.replace("\n", "\r\n").encode(encoding))
    teams = event.read_pairs_csv(path)
    assert [(t.name, t.players, t.unit) for t in teams] == [("红队", ("张三", "李四"), "一厂"),
                                                          ("蓝队", ("王五", "赵六"), "二厂")]


@pytest.mark.parametrize(("text", "wanted"), [
    ("队名,单位\n红队,一厂\n蓝队,二厂\n", "缺少列 队员1、队员2 | row 1 (header) lacks the column(s) player1, player2"),
    ("team,player1,player2\nA,a,b\nB,c,d\n", "lacks the column(s) unit"),
    ("队名,队员1,队员2,单位\n红队,张三,,一厂\n", "第2行第3列 队员2 player2 | row 2, column 3 (player2): 队员为空"),
    ("队名,队员1,队员2,单位\n红队,张三,李四,一厂\n,王五,赵六,二厂\n", "row 3, column 1 (team): 队名为空"),
    ("队名,队员1,队员2,单位\n红队,张三,李四,一厂,多\n", "row 2, column 5"),
    ("team,players,unit\nA,a/b/c,X\n", "row 2, column 2 (players): 需两名队员"),
    ("", "空文件"),
])
def test_bad_pairs_csv_names_row_and_column(tmp_path: Path, text: str, wanted: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(event.EventError) as err:
        event.read_pairs_csv(path)
    assert wanted in str(err.value)


def test_undecodable_csv_and_the_cli_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes("队名,队员1,队员2,单位\n".encode() + b"\xff\xfe\xfd,a,b,c\n")
    assert main(["desk", "init", "--db", str(tmp_path / "d.sqlite"), "--event", "e", "--pairs", str(path)]) == 2
    err = capsys.readouterr().err
    assert "第2行无法识别编码" in err and "neither UTF-8 nor GBK/GB18030" in err and len(err.splitlines()) == 1
    good = tmp_path / "good.csv"
    good.write_text(CSV, encoding="utf-8")
    assert main(["desk", "init", "--db", str(tmp_path / "d.sqlite"), "--event", "e", "--pairs", str(good),
                 "--timezone", "Mars/Olympus"]) == 2
    assert "unknown time zone 'Mars/Olympus'" in capsys.readouterr().err


@pytest.fixture
def store(tmp_path: Path) -> Store:
    (tmp_path / "p.csv").write_text(CSV, encoding="utf-8")
    s = Store(tmp_path / "d.sqlite")
    s.set_up("ev", event.read_pairs_csv(tmp_path / "p.csv"), {"timezone": "Asia/Shanghai"}, "seed")
    event.pair_round(s, 1)
    return s


@pytest.mark.parametrize(("levels", "winner", "wanted"), [
    ({"NS": "5", "EW": "A+"}, "NS", "levels contradict the winner"),
    ({"NS": "8", "EW": "8"}, "EW", "levels contradict the winner"),
    ({"NS": "8", "EW": "9"}, None, "a draw needs equal levels"),
    ({"NS": "A+", "EW": "A+"}, "NS", "both teams cannot have passed A"),
])
def test_corrections_must_agree_with_their_winner(store: Store, levels: dict[str, str], winner: str | None,
                                                  wanted: str) -> None:
    with pytest.raises(corrections.CorrectionError, match=wanted):
        corrections.change_match(store, "ref", "why", 1, "T01", levels=levels, winner=winner)
    with pytest.raises(corrections.CorrectionError, match=wanted):
        corrections.propose_match(store, "ref", "why", 1, "T01", levels=levels, winner=winner)
    assert store.corrections() == [] and store.proposals() == []


def test_a_correction_is_entered_by_one_referee_and_approved_by_another(store: Store) -> None:
    n = corrections.propose_match(store, "Li", "scoresheet", 1, "T01", levels={"NS": "A+", "EW": "5"},
                                  winner="NS")
    assert event.standings_report(store)["pending"]  # not counted before it is approved
    for same in ("Li", "li", " ＬＩ "):  # one name however typed (a helper approved "a" as "A")
        with pytest.raises(corrections.CorrectionError, match="another referee"):
            corrections.approve(store, n, same)
    corrections.approve(store, n, "Wang")
    assert store.corrections()[-1]["who"] == "Li (批准 approved by Wang)"
    assert event.standings_report(store)["pending"] == []
    with pytest.raises(corrections.CorrectionError, match="approved already"):
        corrections.approve(store, n, "Zhao")


def test_the_desk_pages_walk_over_needs_no_levels_and_a_second_referee(store: Store) -> None:
    """The page's correction form had no walk-over: a pair too late (弃权) was entered with invented levels."""
    from table_daemon.desk.page_actions import actions

    propose, approve = actions(store, None)["/api/propose"], actions(store, None)["/api/approve"]
    status, _, body = propose({"by": "Li", "reason": "迟到15分钟", "round": 1, "table": "T01", "winner": "draw",
                               "levels": {"NS": "", "EW": ""}, "walkover": True})
    assert status == 400 and "胜方" in json.loads(body)["error"]
    status, _, body = propose({"by": "Li", "reason": "迟到15分钟", "round": 1, "table": "T01", "winner": "EW",
                               "levels": {"NS": "", "EW": ""}, "walkover": True})
    assert status == 200
    n = json.loads(body)["proposal"]
    assert event.standings_report(store)["pending"]  # not counted before it is approved
    status, _, _ = approve({"by": "Wang", "n": n})
    assert status == 200
    (done,) = store.corrections()
    assert done["payload"]["walkover"] is True and done["payload"]["winner"] == "EW"
    rows = {r["team"]: r for r in event.standings_report(store)["rows"]}
    ew = store.pairings(1)[0]["ew"]
    assert (rows[ew]["match_points"], rows[ew]["level_points"]) == (2, 26)


def test_times_in_the_event_time_zone() -> None:
    assert clock.local("2026-11-29T10:00:00.123Z") == "2026-11-29 18:00:00"
    assert clock.local("2026-11-29T10:00:00.123Z", "Europe/Berlin") == "2026-11-29 11:00:00"
    assert clock.local(None) is None


def test_unknown_desk_addresses_are_404(store: Store) -> None:
    web = desk_server(store, Hub("ev"), password="a-good-password")
    web.start()
    try:
        for path in ("/nope", "/api/nope", "/desk/extra", "/export/nope.csv", "/api/evidence/x"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(web.url + path, timeout=5)
            assert err.value.code == (401 if path == "/api/evidence/x" else 404), path
        with pytest.raises(urllib.error.HTTPError) as err:  # the desk page is behind the referee password
            urllib.request.urlopen(web.url + "/", timeout=5)
        assert err.value.code == 401
        assert urllib.request.urlopen(web.url + "/display/", timeout=5).status == 200
    finally:
        web.stop()


PAIRS4 = "team,player1,player2,unit\nA,a1,a2,X\nB,b1,b2,Y\nC,c1,c2,Z\nD,d1,d2,W\n"
PAIRS6 = PAIRS4 + "E,e1,e2,V\nF,f1,f2,U\n"


def desk(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``guandan-table desk ARGV`` in process: exit status (argparse's own errors included), stdout, stderr."""
    try:
        code = main(["desk", *argv])
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], *named: str) -> str:
    """cli.md: one line on stderr naming what is wrong, exit 2, nothing on stdout."""
    code, out, err = desk(argv, capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, (code, out, err)
    assert all(word in err for word in named), err
    return err


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.csv"
    path.write_text(PAIRS4, encoding="utf-8")
    return path


#: (option, value, what the one-line error names): each refused by desk init, which then sets nothing up
INIT_REFUSALS = [
    ("--tables", "T01,,T01", "table 2 of the list is empty"),
    ("--tables", "T01,T02,", "table 3 of the list is empty"),
    ("--tables", "", "table 1 of the list is empty"),
    ("--tables", "T01,T02,T01", "table id 'T01' is listed twice"),
    ("--tables", "T01,T+2", "bad table id 'T+2' (1 to 40 letters, digits, _ . -)"),  # the table config's rule
    ("--tables", "T01,T/2", "bad table id 'T/2'"),
    ("--tables", "T01,BYE02", "'BYE02' is taken"),
    ("--match-end", "deals:0", f"1 to {MAX_DEALS} deals"),  # as the table's start_match would refuse them
    ("--match-end", f"deals:{MAX_DEALS + 1}", f"1 to {MAX_DEALS} deals"),
    ("--match-end", "time:-5", f"1 to {MAX_MINUTES} minutes"),
    ("--match-end", "time:0", f"1 to {MAX_MINUTES} minutes"),
    ("--match-end", f"time:{MAX_MINUTES + 1}", f"1 to {MAX_MINUTES} minutes"),
    ("--match-end", "time_or_deals:0:5", "minutes"),
    ("--match-end", "time_or_deals:30:0", "deals"),
    ("--boards", f"1-{MAX_BOARDS + 1}", f"at most {MAX_BOARDS} boards"),
    ("--boards", "1-100000000000", f"at most {MAX_BOARDS} boards"),  # refused at once, not listed in memory first
    ("--boards", "5-1", "'5-1' runs backwards"),
    ("--boards", "", "write board numbers like"),
    ("--boards", "0-3", "start at 1"),
]


@pytest.mark.parametrize(("option", "value", "named"), INIT_REFUSALS)
def test_init_refuses_what_the_tables_could_not_play(tmp_path: Path, pairs: Path, option: str, value: str,
                                                    named: str, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "d.sqlite"
    refused(["init", "--db", str(db), "--event", "e1", "--pairs", str(pairs), option, value], capsys, option, named)
    assert Store(db).event() is None  # nothing set up


def test_pairing_a_database_with_repeated_tables_is_refused_not_a_traceback(
        tmp_path: Path, pairs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "old.sqlite"  # set up before desk init checked --tables
    Store(db).set_up("e1", event.read_pairs_csv(pairs), {"tables": ["T01", "T01"]}, "seed")
    refused(["pair", "--db", str(db), "--round", "1"], capsys, "round 1", "'T01' is listed twice")
    assert Store(db).pairings() == []


def test_init_keeps_match_ends_at_the_limits(tmp_path: Path, pairs: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    end = f"time_or_deals:{MAX_MINUTES}:{MAX_DEALS}"
    code, _, err = desk(["init", "--db", str(tmp_path / "d.sqlite"), "--event", "e1", "--pairs", str(pairs),
                         "--match-end", end], capsys)
    assert code == 0, err
    assert Store(tmp_path / "d.sqlite").settings()["match_end"] == {
        "method": "time_or_deals", "minutes": MAX_MINUTES, "deals": MAX_DEALS}


@pytest.mark.parametrize("bad", ["a+b", "a/b", "e#", "", "x" * 41])
def test_every_desk_action_with_an_event_refuses_a_bad_event_id(tmp_path: Path, pairs: Path, bad: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "d.sqlite"
    for argv in (["init", "--db", str(db), "--event", bad, "--pairs", str(pairs)],
                 ["--broker", "mqtt://127.0.0.1:1", "--event", bad, "--db", str(db)],
                 ["display", "--broker", "mqtt://127.0.0.1:1", "--event", bad, "--http", "0"]):
        refused(argv, capsys, "--event", f"bad event id {bad!r}")
    assert not db.exists() or Store(db).event() is None


@pytest.mark.parametrize("bad", ["guandan/+", "#", "$SYS/x", "a//b", "/"])
def test_the_desk_and_the_display_refuse_a_topic_prefix_no_table_could_have(
        tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--broker", "mqtt://127.0.0.1:1", "--event", "e1", "--db", str(tmp_path / "d.sqlite"),
                  "--prefix", bad],
                 ["display", "--broker", "mqtt://127.0.0.1:1", "--event", "e1", "--http", "0", "--prefix", bad]):
        refused(argv, capsys, "--prefix", "bad topic prefix")


def test_more_matches_than_tables_is_refused_at_init_and_at_pairing(
        tmp_path: Path, pairs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "d.sqlite"
    refused(["init", "--db", str(db), "--event", "e1", "--pairs", str(pairs), "--tables", "T01"], capsys,
            "2 matches a round need 2 tables", "only 1 (T01)")
    old = tmp_path / "old.sqlite"  # set up before desk init counted the tables
    Store(old).set_up("e1", event.read_pairs_csv(pairs), {"tables": ["T01"]}, "seed")
    refused(["pair", "--db", str(old), "--round", "1"], capsys, "round 1: 2 matches a round need 2 tables")
    assert Store(old).pairings() == []  # and no "T02" invented


def test_a_bye_takes_no_listed_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p6.csv").write_text(PAIRS6, encoding="utf-8")
    db = str(tmp_path / "d.sqlite")
    code, _, err = desk(["init", "--db", db, "--event", "e1", "--pairs", str(tmp_path / "p6.csv"),
                         "--tables", "A1,A2,A3"], capsys)
    assert code == 0, err
    # 6 teams, knockout: the top two seeds have byes between the two matches of round 1
    code, out, err = desk(["pair", "--db", db, "--round", "1", "--method", "knockout"], capsys)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert sorted(r["table"] for r in rows if r["ew"] is not None) == ["A1", "A2"]


@pytest.mark.parametrize(("argv", "named"), [
    (["--broker", "mqtt://127.0.0.1:1", "--event", "e1", "--http", "99999"], "--http: port 99999"),
    (["--broker", "mqtt://127.0.0.1:1", "--event", "e1", "--http", "-1"], "--http: port -1"),
    (["display", "--broker", "mqtt://127.0.0.1:1", "--event", "e1", "--http", "70000"], "--http: port 70000"),
    (["--broker", "mqtt://127.0.0.1:1", "--event", "e1", "--ca-file", "{tmp}/none.pem"],
     "--ca-file {tmp}/none.pem: cannot read it"),
    (["--broker", "mqtts://127.0.0.1:1", "--event", "e1", "--ca-file", "{tmp}/pairs.csv"],
     "--ca-file {tmp}/pairs.csv: no CA certificate"),
    (["display", "--broker", "mqtt://127.0.0.1:1", "--event", "e1", "--http", "0", "--ca-file",
      "{tmp}/none.pem"], "--ca-file {tmp}/none.pem: cannot read it"),
])
def test_ports_and_ca_files_the_desk_cannot_use_are_one_line(tmp_path: Path, pairs: Path, argv: list[str],
                                                             named: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    if argv[0] != "display":
        argv += ["--db", str(tmp_path / "d.sqlite")]
    refused(argv, capsys, named.replace("{tmp}", str(tmp_path)))


@pytest.mark.parametrize("points", ["inf", "-inf", "nan", "x"])
def test_penalty_points_must_be_finite_numbers(tmp_path: Path, pairs: Path, points: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "d.sqlite")
    assert desk(["init", "--db", db, "--event", "e1", "--pairs", str(pairs)], capsys)[0] == 0
    for option in ("--match-points", "--level-points"):
        refused(["correct", "--db", db, "--by", "ref", "--reason", "late", "--team", "A", "--penalty", "deduct",
                 f"{option}={points}"], capsys, option, repr(points))
    assert Store(db).corrections() == []
    _, out, _ = desk(["standings", "--db", db], capsys)
    json.loads(out, parse_constant=lambda name: pytest.fail(f"standings hold {name}"))


def test_init_checks_the_deal_file_when_this_machine_has_it(tmp_path: Path, pairs: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A duplicate event's deal file: every board readable and once, and every board a match plays in it; a file
    only the tables have is said to be unchecked here, not refused."""
    deals = tmp_path / "boards.jsonl"
    deals.write_text("".join(json.dumps(new_deal(b).deal_line(salted=False)) + "\n" for b in (1, 2)))
    init = ["init", "--db", str(tmp_path / "d.sqlite"), "--event", "e1", "--pairs", str(pairs), "--deal-file"]
    refused([*init, str(deals), "--boards", "1-3"], capsys, "--boards", "board(s) 3 are not in")
    deals.write_text(deals.read_text() + json.dumps(new_deal(2).deal_line(salted=False)) + "\n")
    refused([*init, str(deals), "--boards", "1-2"], capsys, "--deal-file", "board 2 again")
    code, _, err = desk([*init, str(tmp_path / "only-at-the-tables.jsonl"), "--boards", "1-2"], capsys)
    assert code == 0 and "not on this machine" in err


def test_the_standings_are_tallied_again_only_when_the_store_changes(tmp_path: Path) -> None:
    store = Store(tmp_path / "d.sqlite")
    store.set_up("ev", [Team(i, f"队{i}", ("甲", "乙"), f"U{i}") for i in range(1, 5)], {}, "seed")
    latest = event.LatestStandings(store)
    first = latest()
    assert latest() is first  # a page refresh with nothing new: the same tally
    event.pair_round(store, 1)
    second = latest()
    assert second is not first and second["version"] == store.revision > first["version"]
    assert second["pending"] and not first["pending"]  # the round's matches now await results


@pytest.mark.parametrize("n", [1.7, True, "1.0", 10**23, -1, None, [1]])
def test_a_page_action_takes_only_a_whole_number(store: Store, n: object) -> None:
    """``{"n": 1.7}`` acknowledged alert 1 (the console said #1.7), true was 1, and 10^23 gave a 500."""
    from table_daemon.desk.page_actions import actions

    store.add_alert("T01", {"type": "misread", "code": "misread", "seat": "S", "message": "x"})
    status, _, body = actions(store, None)["/api/ack"]({"n": n, "by": "Li"})
    assert status == 400 and "must be a whole number" in json.loads(body)["error"], body
    assert store.alerts(None, limit=5)[0].get("acked_by") is None


@pytest.mark.parametrize("path", ["/api/pair", "/api/resend", "/api/rerequest", "/api/ack", "/api/ack_misreads"])
def test_every_page_action_needs_the_referees_name(store: Store, path: str) -> None:
    """A script's request without ``by`` ran and was logged as "referee ?": who did what is the desk's record."""
    from table_daemon.desk.page_actions import actions

    rounds_before = store.last_round()
    status, _, body = actions(store, None)[path]({"n": 1, "table": "T01"})
    assert status == 400 and "referee's name" in json.loads(body)["error"] and store.last_round() == rounds_before
