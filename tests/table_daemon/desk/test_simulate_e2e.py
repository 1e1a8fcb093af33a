"""End to end: the real ``guandan-table simulate`` (two tables, bots) publishes over a real Mosquitto and the
real desk counts it: every deal record and match result stored once, standings as calculated by hand from the
match results (26-point table, rules §9)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from table_daemon.cli import main
from table_daemon.desk.event import standings_report
from table_daemon.desk.service import Desk
from table_daemon.desk.store import Store

pytest.importorskip("table_daemon.simulate", reason="guandan-table simulate has not landed yet")
LEVELS = "23456789TJQKA"


def by_hand(levels: dict[str, str], winner: str | None) -> dict[str, tuple[int, int]]:
    """(场分, 级差分) per side, written out from §9 without the desk's code."""
    idx = {t: 13 if v == "A+" else LEVELS.index(v) for t, v in levels.items()}
    if winner is None:
        return {"NS": (1, 13), "EW": (1, 13)}
    loser = "EW" if winner == "NS" else "NS"
    d = idx[winner] - idx[loser]
    return {winner: (2, 13 + d), loser: (0, 13 - d)}


def test_simulated_tables_feed_the_desk(mosquitto, topic_root, tmp_path: Path) -> None:
    event, db = topic_root.event, tmp_path / "desk.sqlite"
    (tmp_path / "pairs.csv").write_text("team,unit\nA,1\nB,2\nC,3\nD,4\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["desk", "init", "--db", str(db), "--event", event, "--pairs", str(tmp_path / "pairs.csv"),
                     "--match-end", "deals:2"]) == 0
        assert main(["desk", "pair", "--db", str(db), "--round", "1"]) == 0
    store = Store(db)
    for pair in store.pairings(1):  # simulate starts its own matches: the desk must not start them again
        store.mark_sent(1, pair["tbl"], {"ok": True, "note": "started by simulate"})
    desk = Desk(store, mosquitto.url, event)
    desk.start()
    try:
        assert desk.link.connected.wait(10)
        run = subprocess.run(
            [sys.executable, "-m", "table_daemon.cli", "simulate", "--broker", mosquitto.url, "--event", event,
             "--table", "T", "--tables", "2", "--deals", "2", "--speed", "0", "--seed", "5", "--quiet"],
            capture_output=True, text=True, timeout=90)
        assert run.returncode == 0, run.stderr[-2000:]
        # simulate waits for the desk's acks before it exits, so everything is stored by now
        results = store.results()
        assert sorted(r["id"] for r in results) == sorted(
            [f"{event}/T0{t}/m1" for t in (1, 2)] + [f"{event}/T0{t}/m1/d{d}" for t in (1, 2) for d in (1, 2)])
        expected: dict[int, list[int]] = {}
        for pair in store.pairings(1):
            match = next(r["payload"] for r in results if r["id"] == f"{event}/{pair['tbl']}/m1")
            last = next(r["payload"] for r in results if r["id"] == f"{event}/{pair['tbl']}/m1/d2")
            assert last["result"]["levels_after"] == match["levels"]
            pts = by_hand(match["levels"], match["winner"])
            expected[pair["ns"]] = list(pts["NS"])
            expected[pair["ew"]] = list(pts["EW"])
        report = standings_report(store)
        assert {r["team"]: [r["match_points"], r["level_points"]] for r in report["rows"]} == expected
        assert report["pending"] == []
    finally:
        desk.stop()
        store.close()
