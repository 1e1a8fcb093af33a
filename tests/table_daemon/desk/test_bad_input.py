"""Bad input to the scoring desk gets a clear one-line error (exit 2, Chinese and English where a person reads it)
and loses nothing: a mistyped or foreign ``--db`` is refused and left byte for byte as it was, ``--boards``
without its deal file, a pairs CSV with a player twice, a name no screen can show, an open quote or two
encodings, and a correction with an option it would ignore or points no match gives."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from table_daemon.adapters.journal import Journal
from table_daemon.desk import event
from table_daemon.desk.store import Store

from .test_inputs import desk, refused

PAIRS = "team,player1,player2,unit\nA,a1,a2,X\nB,b1,b2,Y\nC,c1,c2,Z\nD,d1,d2,W\n"


def running_desk(db: Path, event_id: str = "e1") -> subprocess.CompletedProcess[str]:
    """The running desk (``desk --broker --event --db``) as a child process, which must stop by itself: one
    that starts instead runs until it is stopped (killed here, and the test fails)."""
    proc = subprocess.Popen([sys.executable, "-m", "table_daemon.cli", "desk", "--broker", "mqtt://127.0.0.1:1",
                             "--event", event_id, "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the desk started on {db} instead of refusing it:\n{err}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.csv"
    path.write_text(PAIRS, encoding="utf-8")
    return path


# -- defect 1: a mistyped --db ran the desk as an empty event ---------------------------------------------------

def test_the_running_desk_refuses_a_database_that_is_not_there(tmp_path: Path) -> None:
    typo = tmp_path / "typo.db"
    done = running_desk(typo)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1, done
    assert f"no desk database at {typo}" in done.stderr and "desk init" in done.stderr
    assert not typo.exists()  # nothing made at the mistyped path


def test_the_running_desk_refuses_a_desk_database_with_no_event(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    Store(empty).close()  # the desk's tables, no event: what a desk run on a typo used to leave behind
    done = running_desk(empty)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done
    assert "尚未设置赛事" in done.stderr and f"no event is set up in the desk database {empty}" in done.stderr
    assert Store(empty).event() is None  # and it did not claim the file for its --event


# -- defect 2: another kind of SQLite file was written into, then crashed on ------------------------------------

def _journal(path: Path) -> Path:
    journal = Journal(path)  # a table's journal, as a table writes it (WAL, its own meta and results)
    journal.record(1.0, "button", {"seat": "S"}, [], [("r1", json.dumps({"kind": "deal"}))])
    journal.close()
    return path


def _other_app(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.execute("INSERT INTO notes (text) VALUES ('买菜')")
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize(("make", "kind"), [(_journal, "a table's journal"), (_other_app, "another program")])
def test_a_database_that_is_not_a_desks_is_refused_and_left_unchanged(
        tmp_path: Path, pairs: Path, capsys: pytest.CaptureFixture[str], make: object, kind: str) -> None:
    assert callable(make)
    path: Path = make(tmp_path / "foreign.sqlite")
    before = path.read_bytes()
    files = sorted(p.name for p in tmp_path.iterdir())
    for argv in (["standings", "--db", str(path)],
                 ["standings", "--db", str(path), "--format", "csv"],
                 ["pair", "--db", str(path), "--round", "1"],
                 ["correct", "--db", str(path), "--by", "ref", "--reason", "r", "--team", "A", "--penalty",
                  "violation"],
                 ["init", "--db", str(path), "--event", "e1", "--pairs", str(pairs)]):
        refused(argv, capsys, str(path), "不是记分台数据库", "is not a desk database", kind, "left unchanged")
    done = running_desk(path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done
    assert "is not a desk database" in done.stderr and "Traceback" not in done.stderr
    assert path.read_bytes() == before  # byte for byte
    assert sorted(p.name for p in tmp_path.iterdir()) == files  # no -wal or -shm left beside it


def test_an_empty_file_is_no_desk_database_for_what_reads_one(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "touched.sqlite"
    path.touch()
    refused(["standings", "--db", str(path)], capsys, f"no desk database at {path}", "desk init")
    assert path.read_bytes() == b""


def test_a_desk_database_still_opens_and_a_new_one_is_made_by_init(tmp_path: Path, pairs: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "d.sqlite"
    code, _, err = desk(["init", "--db", str(db), "--event", "e1", "--pairs", str(pairs)], capsys)
    assert code == 0, err
    code, out, err = desk(["standings", "--db", str(db)], capsys)
    assert code == 0 and len(json.loads(out)["rows"]) == 4, err



def test_a_desk_database_made_before_columns_were_added_still_opens(tmp_path: Path, pairs: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A database of an earlier version, without the columns added since (the pairings' start attempts, the
    alerts' acknowledgements): opened and brought up to date, not refused as another program's."""
    import sqlite3

    db = tmp_path / "d.sqlite"
    assert desk(["init", "--db", str(db), "--event", "e1", "--pairs", str(pairs)], capsys)[0] == 0
    with sqlite3.connect(db) as old:
        for table, column in (("pairings", "last_try"), ("pairings", "attempts"), ("alerts", "acked_by")):
            old.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    code, out, err = desk(["standings", "--db", str(db)], capsys)
    assert code == 0 and len(json.loads(out)["rows"]) == 4, err
    with sqlite3.connect(db) as now:
        assert "last_try" in {r[1] for r in now.execute("PRAGMA table_info(pairings)")}


# -- defect 3: --boards without --deal-file -------------------------------------------------------------------

def test_boards_without_a_deal_file_are_refused(tmp_path: Path, pairs: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "d.sqlite"
    refused(["init", "--db", str(db), "--event", "e1", "--pairs", str(pairs), "--boards", "1-2"], capsys,
            "--boards", "--deal-file")
    assert not db.exists()


# -- defect 4: the pairs CSV ------------------------------------------------------------------------------------

HEAD = "队名,队员1,队员2,单位\n"


@pytest.mark.parametrize(("text", "wanted"), [
    (HEAD + "红队,张三,张三,一厂\n蓝队,王五,赵六,二厂\n",
     ("row 2, column 3 (player2)", "'张三'", "column 2 of this row too")),
    (HEAD + "红队,li,ｌｉ　,一厂\n蓝队,王五,赵六,二厂\n",  # full-width, an ideographic space: one name
     ("row 2, column 3 (player2)", "column 2 of this row too")),
    ("team,players,unit\nRed,a/a,X\nBlue,b/c,Y\n", ("row 2, column 2 (players)", "column 2 of this row too")),
    ("team,player1,player2,unit\nRed,a,b,X\nＲｅｄ,c,d,Y\n",
     ("row 3, column 1 (team)", "'Ｒｅｄ'", "registered twice (row 2 too, as 'Red')")),
    ("team,player1,player2,unit\nRed,a\x00x,b,X\nBlue,c,d,Y\n",
     ("row 2, column 2 (player1)", "含控制字符 U+0000", "control character U+0000")),
    ('team,player1,player2,unit\nRed,a,b,X\nBlue,c,"d\nd",Y\n', ("row 3, column 3 (player2)", "U+000A")),
    ("team,player1,player2,unit\nRed,a,b,X\u202e\nBlue,c,d,Y\n", ("row 2, column 4 (unit)", "U+202E")),
    ("team,player1,player2,unit\nRed," + "x" * 100_000 + ",b,X\nBlue,c,d,Y\n",
     ("row 2, column 2 (player1)", "超过 120 个字符", "longer than 120 characters (100000)")),
    ("team,player1,player2,unit\n" + "T" * 121 + ",a,b,X\nBlue,c,d,Y\n", ("row 2, column 1 (team)", "(121)")),
    ("team,player1,player2,unit\nRed,a,b,X\nBlue,c,d," + "U" * 121 + "\n", ("row 3, column 4 (unit)",)),
    ("team,player1,player2,unit\nRed," + "x" * 200_000 + ",b,X\nBlue,c,d,Y\n", ("row 2", "too long")),
    (HEAD + '红队,"张三,李四,一厂\n蓝队,王五,赵六,二厂\n', ("第2行", "row 2", "引号未闭合", "a quote is never closed")),
    (HEAD + '红队,张三,李四,一厂\n蓝队,"王五"x,赵六,二厂\n', ("row 3", "bad quoting")),
])
def test_bad_pairs_are_refused_naming_row_and_column(tmp_path: Path, text: str, wanted: tuple[str, ...],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    db = tmp_path / "d.sqlite"
    refused(["init", "--db", str(db), "--event", "e1", "--pairs", str(path)], capsys, str(path), *wanted)
    assert not db.exists()  # nothing set up


@pytest.mark.parametrize(("first", "rest", "wanted"), [
    ("utf-8", "gbk", "row 1 is UTF-8, row 2 is not"),  # rows added in GBK under a UTF-8 header
    ("gbk", "utf-8", "row 3 is UTF-8, row 1 is not"),  # a GBK file with a row added by a UTF-8 program
])
def test_a_file_of_two_encodings_is_said_to_mix_them(tmp_path: Path, first: str, rest: str, wanted: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mixed.csv"
    if first == "utf-8":
        path.write_bytes(HEAD.encode("utf-8") + "红队,张三,李四,一厂\n".encode("gbk") + "蓝队,王五,赵六,二厂\n".encode("gbk"))
    else:
        path.write_bytes((HEAD + "红队,张三,李四,一厂\n").encode("gbk") + "蓝队,王五,赵六,二厂\n".encode())
    refused(["init", "--db", str(tmp_path / "d.sqlite"), "--event", "e1", "--pairs", str(path)], capsys,
            "文件混用两种编码", "the file mixes encodings", wanted)


def test_good_pairs_still_read_and_an_empty_unit_is_a_pair_of_no_unit(tmp_path: Path) -> None:
    path = tmp_path / "pairs.csv"
    path.write_text(HEAD + "红队,张三,李四,\n蓝队,张伟,赵六,二厂\n金队,\"王五\",\"张伟 二\",三厂\n" + "T" * 64 + ",x,y,\n",
                    encoding="utf-8")
    teams = event.read_pairs_csv(path)
    assert [(t.name, t.players, t.unit) for t in teams] == [
        ("红队", ("张三", "李四"), ""), ("蓝队", ("张伟", "赵六"), "二厂"), ("金队", ("王五", "张伟 二"), "三厂"),
        ("T" * 64, ("x", "y"), "")]
    gbk = tmp_path / "gbk.csv"
    gbk.write_bytes((HEAD + "红队,张三,李四,一厂\n蓝队,王五,赵六,二厂\n").encode("gbk"))
    assert [t.name for t in event.read_pairs_csv(gbk)] == ["红队", "蓝队"]


# -- defect 5: desk correct -------------------------------------------------------------------------------------

@pytest.fixture
def paired(tmp_path: Path, pairs: Path, capsys: pytest.CaptureFixture[str]) -> str:
    db = str(tmp_path / "d.sqlite")
    assert desk(["init", "--db", db, "--event", "e1", "--pairs", str(pairs)], capsys)[0] == 0
    assert desk(["pair", "--db", db, "--round", "1"], capsys)[0] == 0
    return db


@pytest.mark.parametrize(("extra", "named"), [
    (["--round", "1", "--table", "T01", "--void", "--winner", "NS"], ("--winner cannot go with --void",)),
    (["--round", "1", "--table", "T01", "--void", "--levels", "NS=A+,EW=5"], ("--levels", "--void")),
    (["--round", "1", "--table", "T01", "--void", "--walkover"], ("--walkover", "--void")),
    (["--round", "1", "--table", "T01", "--levels", "NS=A+,EW=5", "--winner", "NS", "--team", "A"],
     ("--team cannot go with --levels/--winner",)),
    (["--team", "A", "--penalty", "deduct", "--level-points", "3", "--round", "1"], ("--round", "--penalty")),
    (["--team", "A", "--withdraw", "--match-points", "2"], ("--match-points", "--withdraw")),
    (["--round", "1", "--table", "T01", "--restore"], ("--restore needs --result",)),
])
def test_a_correction_with_an_option_it_would_ignore_is_refused(paired: str, extra: list[str],
                                                                named: tuple[str, ...],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    refused(["correct", "--db", paired, "--by", "ref", "--reason", "r", *extra], capsys, *named)
    assert Store(paired).corrections() == []


@pytest.mark.parametrize(("option", "value", "most"), [
    ("--level-points", "-1e23", "26"), ("--level-points", "1e23", "26"), ("--level-points", "-26.5", "26"),
    ("--level-points", "26.5", "26"), ("--match-points", "-3", "2"), ("--match-points", "3", "2"),
])
def test_penalty_points_no_match_gives_are_refused(paired: str, option: str, value: str, most: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    refused(["correct", "--db", paired, "--by", "ref", "--reason", "r", "--team", "A", "--penalty", "deduct",
             f"{option}={value}"], capsys, option, f"from -{most} to {most}", f"-{most} 到 {most}")
    assert Store(paired).corrections() == []


@pytest.mark.parametrize(("scoring", "match_points", "level_points"), [
    ("standard", "2", "26"), ("three_point", "3", "26"), ("level_value", "2", "26"), ("one_to_three", "2", "300"),
])
def test_penalty_points_up_to_what_one_match_gives_are_taken_off(
        tmp_path: Path, pairs: Path, scoring: str, match_points: str, level_points: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "d.sqlite")
    init = ["init", "--db", db, "--event", "e1", "--pairs", str(pairs), "--scoring", scoring]
    assert desk([*init, *(["--match-end", "deals:100"] if scoring == "one_to_three" else [])], capsys)[0] == 0
    code, out, err = desk(["correct", "--db", db, "--by", "ref", "--reason", "r", "--team", "A", "--penalty",
                           "deduct", "--match-points", match_points, "--level-points", level_points], capsys)
    assert code == 0 and json.loads(out)["correction"] == 1, err
    payload = Store(db).corrections()[0]["payload"]
    assert (payload["match_points"], payload["level_points"]) == (float(match_points), float(level_points))
    refused(["correct", "--db", db, "--by", "ref", "--reason", "r", "--team", "A", "--penalty", "deduct",
             "--level-points", str(float(level_points) + 1)], capsys, "--level-points", f"from -{level_points} to")


def test_a_profile_saved_in_gbk_is_said_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Chinese Notepad's ANSI: before, "--profile 'utf-8' codec can't decode byte 0xbb", naming no file."""
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(HEAD + "红队,张三,李四,一厂\n蓝队,王五,赵六,二厂\n", encoding="utf-8")
    profile = tmp_path / "huaian.toml"
    profile.write_text('base = "national"\nname = "淮安公开赛"\n', encoding="gbk")
    refused(["init", "--db", str(tmp_path / "d.sqlite"), "--event", "e1", "--pairs", str(pairs), "--profile",
             str(profile)], capsys, str(profile), "不是 UTF-8 文本", "saved as GBK")


def test_one_name_in_two_teams_is_a_warning_not_a_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """张伟 is a common name: two people of one name in a large field are not refused (the helper's first fix did),
    but one person registered twice is worth a look, so it is said; full-width and half-width forms are one name."""
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(HEAD + "红队,张伟,李四,一厂\n蓝队,张伟　,赵六,二厂\n金队,li,陈七,三厂\n银队,ｌｉ,周八,四厂\n",
                     encoding="utf-8")
    code, _, err = desk(["init", "--db", str(tmp_path / "d.sqlite"), "--event", "e1", "--pairs", str(pairs)], capsys)
    lines = err.strip().splitlines()
    assert code == 0 and len(lines) == 2, err
    assert "'张伟'" in lines[0] and "红队、蓝队" in lines[0] and "two people of one name" in lines[0]
    assert "'li'" in lines[1] and "金队, 银队" in lines[1]


def test_a_deduction_made_in_error_is_given_back_by_a_negative_one(paired: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The log of corrections is never edited: a deduction from the wrong team is given back by the opposite one
    (a reviewer found the first form of the limits refused it, leaving the team without its 场分 for good)."""
    base = ["correct", "--db", paired, "--by", "ref", "--reason", "wrong team", "--team", "A", "--penalty", "deduct"]
    assert desk([*base, "--match-points", "2"], capsys)[0] == 0
    code, _, err = desk([*base, "--match-points=-2"], capsys)
    assert code == 0, err
    assert [c["payload"]["match_points"] for c in Store(paired).corrections()] == [2.0, -2.0]


def test_what_organisers_paste_and_save_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A zero-width space pasted from WeChat and a second byte-order mark are dropped (nobody could see them to
    take them out); Excel's "CSV (Macintosh)" ends rows in a carriage return alone; a 67-character club name."""
    club = "Shanghai Pudong New Area Workers' Cultural Palace Guandan Club No. 1"
    assert len(club) > 64
    path = tmp_path / "pairs.csv"
    path.write_bytes(f"队名,队员1,队员2,单位\r红队\u200b,张三,李四,\ufeff一厂\r{club},王五,赵六,二厂\r".encode())
    db = tmp_path / "d.sqlite"
    code, out, err = desk(["init", "--db", str(db), "--event", "e1", "--pairs", str(path)], capsys)
    assert code == 0, err
    assert [(t.name, t.unit) for t in Store(str(db)).teams()] == [("红队", "一厂"), (club, "二厂")]


def test_a_warning_never_makes_a_refusal_two_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(HEAD + "红队,张伟,李四,一厂\n蓝队,张伟,赵六,二厂\n", encoding="utf-8")
    refused(["init", "--db", str(tmp_path / "d.sqlite"), "--event", "e1", "--pairs", str(pairs), "--boards", "1-2"],
            capsys, "--boards", "--deal-file")
    code, out, _ = desk(["init", "--db", str(tmp_path / "d.sqlite"), "--event", "e1", "--pairs", str(pairs)], capsys)
    assert code == 0 and "张伟" in json.loads(out)["warnings"][0]
