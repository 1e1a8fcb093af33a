"""``guandan-table demo`` (what ``scripts/run`` starts): one process with the broker, the desk and a simulated
table; it prints the pages' addresses and the referee password, the desk starts the match at the table, and
the deal's progress shows on the console and on the desk page."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from table_daemon.cli import main

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
        lines = read_until(proc, r"Tables:", timeout=90)
        desk = re.search(r"Desk \(referees\):\s+(http://\S+/)\s.*password: (\S+)", "\n".join(lines))
        assert desk, lines
        url, password = desk.group(1), desk.group(2)
        assert password == (tmp_path / "demo" / "referee-password").read_text().strip()
        # every page an operator needs, each table's too
        assert f"{url}standings" in "\n".join(lines) and f"{url}print" in "\n".join(lines)
        assert f"{url}display/T01" in "\n".join(lines)
        # the result, then what the operator does next (nothing said it before: the console stopped at the result)
        lines += read_until(proc, r"round 1 is complete: pair and start the next round", timeout=90)
        console = "\n".join(lines)
        assert "round 1 result in" in console
        assert "deal 1 started" in console and "trick 1 won by" in console and "deal 1 over" in console
        assert b"<title>" in get(url + "display/T01")
        tables = json.loads(get(url + "api/tables", password))
        row = next(t for t in tables["tables"] if t["table"] == "T01")
        assert row["online"] and row["match"]["step"] == "result_in"
        # the referees command the table from the desk page: the demo's desk has the referee link
        assert json.loads(get(url + "api/desk", password))["table_commands"] is True
        req = urllib.request.Request(url + "api/table-command", method="POST", data=json.dumps(
            {"table": "T01", "command": "pause", "fields": {"reason": "演示 demo"}, "by": "裁判 ref"}).encode(),
            headers={"Content-Type": "application/json", "Authorization": "Basic " + base64.b64encode(
                f"ref:{password}".encode()).decode()})
        # the match is over: the table itself answers that there is nothing to pause (a round trip through it)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=20)
        answer = json.loads(refused.value.read())
        assert refused.value.code == 409 and "nothing to pause" in answer["error"] and answer["answer"]["ok"] is False
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP])
def test_ctrl_c_or_a_closed_terminal_stops_the_demo_in_order(tmp_path: Path, sig: signal.Signals) -> None:
    """A terminal sends Ctrl+C (SIGINT) to its whole foreground process group, and SIGHUP when it is closed:
    the embedded broker must outlive the table and the desk that publish through it, so that nobody says it
    lost the broker while stopping, and it must not outlive the demo."""
    # a terminal's shell gives its foreground job Ctrl+C; one that ran these tests in the background (``&``,
    # nohup) passed an ignored SIGINT down to every child, which a real terminal's job would not have
    proc = subprocess.Popen([sys.executable, "-m", "table_daemon.cli", "demo", "--http", "0", "--direct",
                             "--dir", str(tmp_path / "demo")], start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        lines = read_until(proc, r"deal 1 started", timeout=90)
        broker = re.search(r"broker:\s+mqtt://([\d.]+):(\d+)", "\n".join(lines))
        assert broker, lines
        os.killpg(proc.pid, sig)  # to every process of the group, as the terminal does
        assert proc.stderr is not None
        os.set_blocking(proc.stderr.fileno(), True)
        rest = proc.communicate(timeout=30)[1]
        assert proc.returncode == 0, rest
        assert "interrupted" in rest and "offline" in rest  # the table stopped, and the desk saw it go
        # and the demo says it stopped (it ended on "T01 离线 offline", which reads as a fault) and where its files are
        assert rest.rstrip().splitlines()[-1].startswith("演示已结束"), rest
        assert f"demo stopped; its files are kept in {tmp_path / 'demo'}" in rest
        assert "lost the broker" not in rest and "断开" not in rest, rest
        with pytest.raises(OSError):  # the broker stopped with the demo
            socket.create_connection((broker.group(1), int(broker.group(2))), timeout=2).close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_a_demo_folder_holding_another_programs_database_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``demo --dir`` where desk.sqlite is not a desk's (a reviewer found a traceback, and "give --db")."""
    import sqlite3

    with sqlite3.connect(tmp_path / "desk.sqlite") as other:
        other.execute("CREATE TABLE photos (id INTEGER)")
    before = (tmp_path / "desk.sqlite").read_bytes()
    assert main(["demo", "--dir", str(tmp_path), "--duration", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--dir" in err and "give --dir a folder of its own" in err, err
    assert (tmp_path / "desk.sqlite").read_bytes() == before
