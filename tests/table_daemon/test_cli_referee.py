"""``guandan-table referee`` against a real table on a real Mosquitto: the command reaches the table as the
referee's, its answer comes back on the referee's reply topic, a refusal is exit 1 with the table's reason, the
same ruling twice (one id) is obeyed once, and a broker nobody answers at is said in one line."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from table_daemon.app import TableApp
from table_daemon.cli import main
from table_daemon.config import simulated_config


def referee(url: str, tr: Any, *action: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code = main(["referee", "--broker", url, "--event", tr.event, "--table", tr.table, "--timeout", "10", *action])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


def test_a_referee_pauses_penalises_once_and_is_told_why_a_command_is_refused(
        mosquitto: Any, topic_root: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = simulated_config(table=topic_root.table, event=topic_root.event, broker=mosquitto.url,
                           journal=str(tmp_path / "j.sqlite"))
    cfg.table = replace(cfg.table, auto_deal=False)
    app = TableApp(cfg)
    app.start()
    try:
        assert app.link is not None and app.link.connected.wait(10)
        time.sleep(0.2)
        code, said, err = referee(mosquitto.url, topic_root, "penalty", "--kind", "warning", "--seat", "N",
                                  capsys=capsys)
        assert code == 1 and said["ok"] is False and "no match in play" in err  # refused, with the table's reason
        code, said, err = referee(mosquitto.url, topic_root, "pause", capsys=capsys)
        assert code == 1 and "nothing to pause" in err  # no match at the table: nothing to hold
        code, said, _ = referee(mosquitto.url, topic_root, "--id", "pen-7", "penalty", "--kind", "warning",
                                "--seat", "N", capsys=capsys)
        assert code == 1  # still no match: the id is not spent on a refusal
        start = {"match_end": {"method": "deals", "deals": 1}}
        app.inbox.put((None, _start(start)))  # the desk's start, as it arrives from the broker
        deadline = time.monotonic() + 5
        while not app.controller.match_active and time.monotonic() < deadline:
            time.sleep(0.05)
        code, said, _ = referee(mosquitto.url, topic_root, "pause", "--reason", "裁判查看 referee looking",
                                capsys=capsys)
        assert code == 0 and said["ok"] is True and said["command"] == "pause"
        deadline = time.monotonic() + 5
        while app.controller.phase != "paused" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert app.controller.phase == "paused"
        assert referee(mosquitto.url, topic_root, "resume", capsys=capsys)[0] == 0
        for _ in range(2):  # the same ruling twice: one warning
            code, said, _ = referee(mosquitto.url, topic_root, "--id", "pen-7", "penalty", "--kind", "warning",
                                    "--seat", "N", capsys=capsys)
            assert code == 0 and said["id"] == "pen-7"
        assert said.get("duplicate") is True and app.controller.penalties["NS"]["warning"] == 1
    finally:
        app.stop()


def _start(payload: dict[str, Any]) -> Any:
    from table_daemon.adapters.mqtt import Inbound

    return Inbound("command", "start_match", payload)


def test_a_broker_nobody_answers_at_is_one_line_and_exit_2(topic_root: Any,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"mqtt://127.0.0.1:{probe.getsockname()[1]}"
    code = main(["referee", "--broker", url, "--event", topic_root.event, "--table", topic_root.table,
                 "--timeout", "2", "resume"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "cannot reach the broker" in err


def test_a_broker_nobody_answers_at_is_one_line_from_the_console_script_too(topic_root: Any) -> None:
    """Run as a process (no test logging to swallow them), the connection's retry notices do not add lines: the
    one stderr line is the error that names the broker and why."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"mqtt://127.0.0.1:{probe.getsockname()[1]}"
    done = subprocess.run(
        [sys.executable, "-m", "table_daemon.cli", "referee", "--broker", url, "--event", topic_root.event,
         "--table", topic_root.table, "--timeout", "2.5", "resync"],
        capture_output=True, text=True, timeout=60, encoding="utf-8",
    )
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the broker" in lines[0] and "connection refused" in lines[0], lines


def test_the_broker_urls_user_is_the_account_and_a_second_user_is_refused(
        mosquitto: Any, topic_root: Any, capsys: pytest.CaptureFixture[str]) -> None:
    url = mosquitto.url.replace("mqtt://", "mqtt://referee-H1:secret@")
    code = main(["referee", "--broker", url, "--event", topic_root.event, "--table", topic_root.table,
                 "--timeout", "1", "resume"])
    err = capsys.readouterr().err
    assert code == 1 and "'referee-H1'" in err  # no table there: the answer awaited as the URL's account
    code = main(["referee", "--broker", url, "--user", "referee", "--event", topic_root.event,
                 "--table", topic_root.table, "resume"])
    assert code == 2 and "give one" in capsys.readouterr().err
