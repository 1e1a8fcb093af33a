"""A whole simulated event through the real processes and the real broker, started from the desk page: 8 pairs
on 4 tables, 3 Swiss rounds paired and started by a referee in headless Chromium, the tables played by
``guandan-table simulate --await-desk`` (two processes), a table process killed and restarted mid-round and
the broker restarted mid-round. Nothing is written into a database by the test: it only reads the desk's.
Every result counts once against the right pairing, and the standings agree with a hand calculation (§9).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_daemon.adapters.broker import LocalBroker
from table_daemon.cli import main
from table_daemon.desk.store import Store

PASSWORD = "referee-pass-2026"
LEVELS = "23456789TJQKA"
PAIRS = "队名,队员1,队员2,单位\n" + "".join(f"{n},{n}甲,{n}乙,{u}\n" for n, u in (
    ("红队", "一厂"), ("蓝队", "一厂"), ("金队", "二厂"), ("银队", "二厂"), ("松队", "三厂"), ("竹队", "三厂"),
    ("梅队", "四厂"), ("兰队", "四厂")))


def by_hand(levels: dict[str, str], winner: str | None) -> dict[str, tuple[int, int]]:
    """(场分, 级差分) per side, written out from §9 without the desk's code."""
    idx = {t: 13 if v == "A+" else LEVELS.index(v) for t, v in levels.items()}
    if winner is None:
        return {"NS": (1, 13), "EW": (1, 13)}
    loser = "EW" if winner == "NS" else "NS"
    d = idx[winner] - idx[loser]
    return {winner: (2, 13 + d), loser: (0, 13 - d)}


class Proc:
    """A child process of the product with its stderr collected (for its messages and for failures)."""

    def __init__(self, *args: str, tmp: Path | None = None) -> None:
        # a process killed as a power cut leaves its temporary files (the dealer's pty folder) in ``tmp``
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if tmp is not None:
            tmp.mkdir(parents=True, exist_ok=True)
            env["TMPDIR"] = str(tmp)
        self.proc = subprocess.Popen([sys.executable, "-m", "table_daemon.cli", *args], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_line(self, pattern: str, timeout: float = 20) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if m := re.search(pattern, line):
                    return m
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in:\n" + "\n".join(self.lines[-30:]))

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=30)
        self._reader.join(5)
        return code


def sim(url: str, event: str, journals: Path, table: str, tables: int, seed: int, speed: float = 5) -> Proc:
    """Simulated tables at speed 5 (a deal in about 13 s), so that the page sees each round mid-match: at full
    speed on an idle machine a one-deal match ends between two looks at the page (a table killed mid-round, the
    broker restarted mid-round)."""
    return Proc("simulate", "--broker", url, "--event", event, "--table", table, "--tables", str(tables),
                "--await-desk", "--speed", f"{speed:g}", "--direct", "--seed", str(seed), "--journal-dir", str(journals),
                "--quiet", tmp=journals)


def steps(page: Any) -> dict[str, str]:
    got = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#round-tables tbody tr')]
        .map((tr) => [tr.dataset.key, tr.querySelector('.step').className.replace('step step-', '')]))""")
    assert isinstance(got, dict)
    return got


def wait_steps(page: Any, ok: Callable[[dict[str, str]], bool], timeout: float = 40) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while True:
        got = steps(page)
        if len(got) == 4 and ok(got):
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"tables stuck at {got}")
        time.sleep(0.1)


def test_whole_event_started_from_the_desk_page(broker_factory: Callable[..., LocalBroker], tmp_path: Path,
                                                browser: Any) -> None:
    broker = broker_factory()
    event, db, journals = "e2e-event", tmp_path / "desk.sqlite", tmp_path / "journals"
    (tmp_path / "pairs.csv").write_bytes(PAIRS.encode("gbk"))  # as Chinese Excel saves it
    (tmp_path / "pw").write_text(PASSWORD + "\n")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["desk", "init", "--db", str(db), "--event", event, "--pairs", str(tmp_path / "pairs.csv"),
                     "--match-end", "deals:1", "--tables", "T01,T02,T03,T04", "--lot-seed", "e2e"]) == 0
    desk = Proc("desk", "--broker", broker.url, "--event", event, "--db", str(db), "--http", "0",
                "--referee-password-file", str(tmp_path / "pw"))
    three = sim(broker.url, event, journals, "T", 3, 11)   # T01..T03
    four = sim(broker.url, event, journals, "T04", 1, 21)  # T04, killed mid-round 1 and restarted
    context = browser.new_context(http_credentials={"username": "referee", "password": PASSWORD})
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())  # "start the round at every table?": yes
    try:
        url = desk.wait_line(r"pages at (http://\S+/)").group(1)
        page.goto(url)
        page.wait_for_selector("#mode:has-text('referee mode')")  # started: the buttons answer from now on
        page.fill("#referee", "裁判 Li")
        for round_no in (1, 2, 3):
            page.click("#pair-next")
            page.wait_for_selector(f"#round[data-round='{round_no}']", timeout=10000)
            if round_no == 1:  # T04's process dies mid-match and comes back from its journal
                wait_steps(page, lambda s: s["T04"] in ("accepted", "playing"))
                assert four.stop(signal.SIGKILL) != 0
                four = sim(broker.url, event, journals, "T04", 1, 21)
            if round_no == 2:  # the broker goes down while the round is being played
                wait_steps(page, lambda s: all(v in ("accepted", "playing", "finished") for v in s.values()))
                broker.restart(downtime=1.0)
            # a table killed and restarted sends its result once it is back and the desk asks: allow for both
            wait_steps(page, lambda s: set(s.values()) == {"result_in"}, timeout=120)
        page.wait_for_selector("#standings tbody tr:nth-child(8)")
        assert three.stop() == 0, "\n".join(three.lines[-20:])  # nothing left unsent at the end
        assert four.stop() == 0, "\n".join(four.lines[-20:])
    finally:
        context.close()
        for table_proc in (three, four):
            if table_proc.proc.poll() is None:
                table_proc.stop(signal.SIGKILL)
        assert desk.stop() == 0
    assert any("refused" in line or "accepted" in line for line in desk.lines)

    store = Store(db)  # read only from here on
    try:
        pairings = [p for p in store.pairings() if p["ew"] is not None]
        matches = store.results("match")
        assert len(pairings) == 12 and all(p["accepted_at"] for p in pairings)
        assert sorted((r["match"], r["tbl"]) for r in matches) == sorted((p["round"], p["tbl"]) for p in pairings)
        assert store.rejects() == []
        expected: dict[int, list[int]] = {}
        deals = store.results("deal")
        for p in pairings:
            m = next(r["payload"] for r in matches if (r["match"], r["tbl"]) == (p["round"], p["tbl"]))
            assert m["start"] == f"{event}/{p['tbl']}/m{p['round']}/start"
            assert (m["teams"]["NS"]["id"], m["teams"]["EW"]["id"]) == (p["ns"], p["ew"])
            played = sorted(r["deal"] for r in deals if (r["match"], r["tbl"]) == (p["round"], p["tbl"]))
            assert played == list(range(1, m["deals"] + 1)) and m["deals"] == 1
            last = next(r["payload"] for r in deals if r["id"] == f"{m['id']}/d{m['deals']}")
            assert last["result"]["levels_after"] == m["levels"]
            pts = by_hand(m["levels"], m["winner"])
            for team, side in ((p["ns"], "NS"), (p["ew"], "EW")):
                acc = expected.setdefault(team, [0, 0])
                acc[0] += pts[side][0]
                acc[1] += pts[side][1]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["desk", "standings", "--db", str(db), "--format", "json"]) == 0
        report = json.loads(out.getvalue())
        assert {r["team"]: [r["match_points"], r["level_points"]] for r in report["rows"]} == expected
        assert all(r["played"] == 3 for r in report["rows"]) and report["pending"] == []
        met = [frozenset((p["ns"], p["ew"])) for p in pairings]
        assert len(set(met)) == 12  # Swiss: nobody meets twice
    finally:
        store.close()
