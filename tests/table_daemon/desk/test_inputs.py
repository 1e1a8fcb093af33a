"""Input as organisers have it: pairs CSV in UTF-8 (with or without BOM) or GBK/GB18030 with checked columns and
errors naming row and column in Chinese and English; corrections checked against their winner; times in the
event's time zone; unknown desk addresses answer 404."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from table_daemon.cli import main
from table_daemon.desk import clock, corrections, event
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
    with pytest.raises(corrections.CorrectionError, match="another referee"):
        corrections.approve(store, n, "Li")
    corrections.approve(store, n, "Wang")
    assert store.corrections()[-1]["who"] == "Li (批准 approved by Wang)"
    assert event.standings_report(store)["pending"] == []
    with pytest.raises(corrections.CorrectionError, match="approved already"):
        corrections.approve(store, n, "Zhao")


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
