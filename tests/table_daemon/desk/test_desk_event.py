"""A simulated event of four tables against a real Mosquitto, with the real desk (``guandan-table desk`` run
form, a child process) consuming: standings match a hand calculation, a result delivered twice counts once,
a desk restart loses nothing, a referee's correction recomputes the standings with a new version.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from table_daemon.cli import main
from table_daemon.desk.store import Store

from .spec_table import SpecTable

TEAMS_CSV = """队名,队员1,队员2,单位
Alpha,A1,A2,Club1
Bravo,B1,B2,Club1
Charlie,C1,C2,Club2
Delta,D1,D2,Club2
Echo,E1,E2,Club3
Foxtrot,F1,F2,Club3
Golf,G1,G2,Club4
Hotel,H1,H2,Club4
"""

# One match per table: final levels, winner, and by hand (rules §9, 26-point table):
# (NS 场分, NS 级差分, EW 场分, EW 级差分).
ByHand = Mapping[str, tuple[dict[str, str], str | None, tuple[int, int, int, int]]]
ROUND1: ByHand = {
    "T01": ({"NS": "A+", "EW": "5"}, "NS", (2, 23, 0, 3)),   # d = 13 - 3 = 10
    "T02": ({"NS": "8", "EW": "K"}, "EW", (0, 8, 2, 18)),    # d = 11 - 6 = 5
    "T03": ({"NS": "9", "EW": "9"}, None, (1, 13, 1, 13)),   # draw
    "T04": ({"NS": "Q", "EW": "J"}, "NS", (2, 14, 0, 12)),   # d = 1
}
ROUND2: ByHand = {
    "T01": ({"NS": "A", "EW": "3"}, "NS", (2, 24, 0, 2)),    # d = 11
    "T02": ({"NS": "4", "EW": "6"}, "EW", (0, 11, 2, 15)),   # d = 2
    "T03": ({"NS": "7", "EW": "7"}, None, (1, 13, 1, 13)),
    "T04": ({"NS": "T", "EW": "2"}, "NS", (2, 21, 0, 5)),    # d = 8
}


def cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


def start_desk(url: str, event: str, db: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "table_daemon.cli", "desk", "--broker", url, "--event", event,
                             "--db", str(db)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop_desk(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)
    assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""


def expected(pairings: list[dict[str, Any]], results: ByHand) -> dict[int, list[float]]:
    totals: dict[int, list[float]] = {}
    for p in pairings:
        ns_mp, ns_lp, ew_mp, ew_lp = results[p["table"]][2]
        for team, mp, lp in ((p["ns"], ns_mp, ns_lp), (p["ew"], ew_mp, ew_lp)):
            acc = totals.setdefault(team, [0, 0])
            acc[0] += mp
            acc[1] += lp
    return totals


def play_round(tables: dict[str, SpecTable], round_no: int, results: ByHand) -> list[str]:
    ids = []
    for name, table in tables.items():
        levels, winner, _ = results[name]
        first = "S" if winner != "EW" else "E"
        actions = [{"referee": "penalty", "kind": "violation", "seat": "E"}] if name == "T02" else []
        ids.append(table.deal_record(round_no, 1, [first, "N" if first == "S" else "W"], 3,
                                     actions=actions)["id"])
        ids.append(table.match_result(round_no, levels, winner)["id"])
    return ids


@pytest.fixture
def tables(mosquitto: Any, topic_root: Any) -> Iterator[dict[str, SpecTable]]:
    made = {f"T0{i}": SpecTable(mosquitto.url, topic_root.event, f"T0{i}") for i in range(1, 5)}
    yield made
    for t in made.values():
        t.close()


def test_event_through_the_desk(mosquitto: Any, topic_root: Any, tables: dict[str, SpecTable], tmp_path: Path,
                                mqtt_messages: Any) -> None:
    event, db = topic_root.event, tmp_path / "desk.sqlite"
    (tmp_path / "pairs.csv").write_text(TEAMS_CSV, encoding="utf-8")
    assert cli("desk", "init", "--db", str(db), "--event", event, "--pairs", str(tmp_path / "pairs.csv"),
               "--lot-seed", "seed-1")[0] == 0
    code, out = cli("desk", "pair", "--db", str(db), "--round", "1")
    round1 = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and sorted(p["table"] for p in round1) == ["T01", "T02", "T03", "T04"]

    watch = mqtt_messages(mosquitto.url, f"guandan/v1/{event}/desk/#")
    desk = start_desk(mosquitto.url, event, db)
    try:
        watch.wait_for(lambda ms: any(m.topic.endswith("desk/status") and m.payload.get("online") for m in ms))
        # The desk sends each table its match (start_match) with the teams of the pairing.
        for p in round1:
            table = tables[p["table"]]
            watch.wait_for(lambda ms, table=table: bool(table.commands), timeout=10)
            cmd = table.commands[0]
            assert cmd["name"] == "start_match" and cmd["match"] == 1
            assert (cmd["teams"]["NS"]["name"], cmd["teams"]["EW"]["name"]) == (p["ns_name"], p["ew_name"])

        # Bad input is kept for the referees and changes nothing; the desk carries on.
        tables["T03"].publish("results", b"{not json")
        tables["T03"].publish("results", {"type": "match_result", "match": 1, "levels": {"NS": "A"}})
        ids = play_round(tables, 1, ROUND1)
        copy = tables["T01"].match_result(1, *ROUND1["T01"][:2])  # the same result (same id) once more
        assert copy["id"] in ids
        for t in tables.values():
            t.wait_acked([i for i in ids if f"/{t.table}/" in i])

        code, out = cli("desk", "standings", "--db", str(db))
        report = json.loads(out)
        want = expected(round1, ROUND1)
        got = {r["team"]: [r["match_points"], r["level_points"]] for r in report["rows"]}
        assert got == want
        assert report["pending"] == []
        # T02's EW pair had a violation confirmed by the referee in a deal record.
        t02 = next(p for p in round1 if p["table"] == "T02")
        assert next(r for r in report["rows"] if r["team"] == t02["ew"])["fouls"] == 1
        store = Store(db)
        assert [r["reason"].split(":")[0] for r in store.rejects()] == ["not JSON", "result has no id"]
        assert len(store.results("match")) == 4
        assert any(r["copies"] >= 2 for r in store.results("match"))
        store.close()
        watch.wait_for(lambda ms: any(m.topic.endswith("desk/standings") and m.payload["version"]
                                      == report["version"] for m in ms))

        # Round 2 is paired and started at the tables; the desk goes away and round 2 is played while it is
        # down.
        code, out = cli("desk", "pair", "--db", str(db), "--round", "2")
        round2 = [json.loads(line) for line in out.splitlines()]
        assert code == 0 and not {frozenset((p["ns"], p["ew"])) for p in round2} & {
            frozenset((p["ns"], p["ew"])) for p in round1}
        for t in tables.values():
            watch.wait_for(lambda ms, t=t: any(c.get("match") == 2 for c in t.commands), timeout=10)
        store = Store(db)
        watch.wait_for(lambda ms: all(p["accepted_at"] for p in store.pairings(2)), timeout=10)
        store.close()
        stop_desk(desk)
        watch.wait_for(lambda ms: any(m.topic.endswith("desk/status") and m.payload.get("online") is False
                                      for m in ms))
        ids2 = play_round(tables, 2, ROUND2)
        desk = start_desk(mosquitto.url, event, db)
        for t in tables.values():
            t.wait_acked([i for i in ids2 if f"/{t.table}/" in i], timeout=15)
        code, out = cli("desk", "standings", "--db", str(db))
        report2 = json.loads(out)
        want2 = expected(round1, ROUND1)
        for team, (mp, lp) in expected(round2, ROUND2).items():
            want2[team][0] += mp
            want2[team][1] += lp
        assert {r["team"]: [r["match_points"], r["level_points"]] for r in report2["rows"]} == want2
        assert report2["version"] > report["version"]

        # A referee corrects T01 of round 1: EW won after all, at A+ against 5.
        t01 = next(p for p in round1 if p["table"] == "T01")
        code, out = cli("desk", "correct", "--db", str(db), "--by", "裁判长 Wang", "--reason", "scoresheet error",
                        "--round", "1", "--table", "T01", "--levels", "NS=5,EW=A+", "--winner", "EW")
        assert code == 0
        version = json.loads(out)["version"]
        report3 = json.loads(cli("desk", "standings", "--db", str(db))[1])
        rows3 = {r["team"]: r for r in report3["rows"]}
        assert report3["version"] == version > report2["version"]
        assert rows3[t01["ns"]]["match_points"] == want2[t01["ns"]][0] - 2
        assert rows3[t01["ns"]]["level_points"] == want2[t01["ns"]][1] - 23 + 3
        assert rows3[t01["ew"]]["match_points"] == want2[t01["ew"]][0] + 2
        assert rows3[t01["ew"]]["level_points"] == want2[t01["ew"]][1] - 3 + 23
        store = Store(db)
        log = store.corrections()
        store.close()
        assert log[-1]["who"] == "裁判长 Wang" and log[-1]["why"] == "scoresheet error" and log[-1]["at"]
        # the running desk publishes the corrected standings with their version
        watch.wait_for(lambda ms: any(m.topic.endswith("desk/standings") and m.payload["version"] == version
                                      for m in ms))
    finally:
        if desk.poll() is None:
            stop_desk(desk)


def test_desk_commands_refuse_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "d.sqlite"
    (tmp_path / "bad.csv").write_text("队名,队员,单位\nOnly,A/B,X\n", encoding="utf-8")
    assert main(["desk", "init", "--db", str(db), "--event", "e", "--pairs", str(tmp_path / "bad.csv")]) == 2
    assert "at least 2" in capsys.readouterr().err
    assert main(["desk", "standings", "--db", str(tmp_path / "none.sqlite")]) == 2
    assert main(["desk", "--broker", "http://x", "--event", "e", "--db", str(tmp_path / "run.sqlite")]) == 2
    assert "bad broker URL" in capsys.readouterr().err and not (tmp_path / "run.sqlite").exists()
    (tmp_path / "ok.csv").write_text(TEAMS_CSV, encoding="utf-8")
    assert main(["desk", "init", "--db", str(db), "--event", "e", "--pairs", str(tmp_path / "ok.csv"),
                 "--boards", "1-3,x"]) == 2
    assert "--boards" in capsys.readouterr().err
    # a profile the tables would refuse at every start is refused here, in one line
    (tmp_path / "bad.toml").write_text('tie_tribute = "coin_toss"\n', "utf-8")
    (tmp_path / "open.toml").write_text('base = "national"\ntie_tribute = "winner_chooses"\n', "utf-8")
    for bad in ("natoinal", str(tmp_path / "bad.toml"), str(tmp_path / "none.toml")):
        assert main(["desk", "init", "--db", str(db), "--event", "e", "--pairs", str(tmp_path / "ok.csv"),
                     "--profile", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--profile" in err, err
    assert not db.exists()
    assert main(["desk", "init", "--db", str(tmp_path / "p.sqlite"), "--event", "e", "--pairs",
                 str(tmp_path / "ok.csv"), "--profile", str(tmp_path / "open.toml")]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["profile"] == {
        "base": "national", "tie_tribute": "winner_chooses", "name": "open"}  # sent to the tables as settings
    assert main(["desk", "init", "--db", str(db), "--event", "e", "--pairs", str(tmp_path / "ok.csv"),
                 "--deal-file", "boards.jsonl", "--boards", "1-3,5", "--match-end", "deals:4"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings["boards"] == [1, 2, 3, 5] and settings["match_end"] == {"method": "deals", "deals": 4}
    assert main(["desk", "pair", "--db", str(db), "--round", "2"]) == 2
    assert "next round to pair is 1" in capsys.readouterr().err
    assert main(["desk", "pair", "--db", str(db), "--round", "1"]) == 0
    assert main(["desk", "pair", "--db", str(db), "--round", "2"]) == 2
    assert "not finished" in capsys.readouterr().err
    assert main(["desk", "correct", "--db", str(db), "--by", "x", "--reason", "y", "--round", "1",
                 "--table", "T09", "--void"]) == 2
    assert main(["desk", "correct", "--db", str(db), "--by", "x", "--reason", "y", "--team", "Nobody",
                 "--penalty", "violation"]) == 2
    assert main(["desk", "correct", "--db", str(db), "--by", "x", "--reason", "y", "--team", "Alpha",
                 "--penalty", "violation"]) == 0
    capsys.readouterr()
    assert main(["desk", "standings", "--db", str(db), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("名次 Rank,队名 Team") and len(lines) == 9
    alpha = next(line for line in lines if ",Alpha," in line)
    assert alpha.split(",")[6] == "1"  # one confirmed violation


def test_desk_pair_says_when_it_pairs_one_units_teams_together(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "d.sqlite"
    # four teams, three of them from one unit: one match of the first round must be that unit's
    (tmp_path / "pairs.csv").write_text("队名,队员1,队员2,单位\nA,a1,a2,一中\nB,b1,b2,一中\nC,c1,c2,一中\n"
                                        "D,d1,d2,二中\n", encoding="utf-8")
    assert main(["desk", "init", "--db", str(db), "--event", "e", "--pairs", str(tmp_path / "pairs.csv")]) == 0
    capsys.readouterr()
    assert main(["desk", "pair", "--db", str(db), "--round", "1"]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    together = [r for r in rows if r["same_unit"]]
    assert len(together) == 1 and together[0]["same_unit"] == "一中"
    assert all(r["same_unit"] is None for r in rows if r not in together)
    assert "同属 一中" in err and "pairs two teams of 一中" in err and together[0]["table"] in err
