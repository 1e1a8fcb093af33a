"""``guandan-table demo`` (what ``scripts/run`` starts): one process with the broker, the desk and a simulated
table; it prints the pages' addresses and the referee password, the desk starts the match at the table, and
the deal's progress shows on the console and on the desk page."""

from __future__ import annotations

import base64
import json
import re
import signal
import urllib.request
from pathlib import Path

from .test_loud_failures import read_until, start


def get(url: str, password: str | None = None) -> bytes:
    req = urllib.request.Request(url)
    if password:
        req.add_header("Authorization", "Basic " + base64.b64encode(f"ref:{password}".encode()).decode())
    with urllib.request.urlopen(req, timeout=10) as resp:
        body = resp.read()
    assert isinstance(body, bytes)
    return body


def test_demo_shows_the_product(tmp_path: Path) -> None:
    proc = start("demo", "--http", "0", "--speed", "0", "--direct", "--match-end", "deals:1", "--dir",
                 str(tmp_path / "demo"))
    try:
        lines = read_until(proc, r"Displays:", timeout=90)
        desk = re.search(r"Desk \(referees\):\s+(http://\S+/)\s.*password: (\S+)", "\n".join(lines))
        assert desk, lines
        url, password = desk.group(1), desk.group(2)
        assert password == (tmp_path / "demo" / "referee-password").read_text().strip()
        lines += read_until(proc, r"round 1 result in", timeout=90)
        console = "\n".join(lines)
        assert "deal 1 started" in console and "trick 1 won by" in console and "deal 1 over" in console
        assert b"<title>" in get(url + "display/T01")
        tables = json.loads(get(url + "api/tables", password))
        row = next(t for t in tables["tables"] if t["table"] == "T01")
        assert row["online"] and row["match"]["step"] == "result_in"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
