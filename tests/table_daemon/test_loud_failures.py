"""Loud failures of the broker connection: the desk, the display server and the simulated tables say in Chinese
and English that they cannot reach the broker, what they wait for and when they try again (with backoff);
``simulate`` gives up after ``--broker-timeout`` and exits 1, and says so when results are still unsent at the
end. Real processes, a real (closed or stopped) port."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from table_daemon.adapters.broker import LocalBroker, free_port
from table_daemon.cli import main


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "table_daemon.cli", *args],
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def read_until(proc: subprocess.Popen[str], pattern: str, timeout: float = 20) -> list[str]:
    """stderr lines up to the first one matching ``pattern`` (os.read: no buffering across the deadline)."""
    assert proc.stderr is not None
    os.set_blocking(proc.stderr.fileno(), False)
    lines, buf = [], ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(proc.stderr.fileno(), 65536).decode("utf-8", "replace")
        except BlockingIOError:
            chunk = ""
        buf += chunk
        while "\n" in buf:
            line, buf = buf.split("\n", 1)
            lines.append(line)
            if re.search(pattern, line):
                return lines
        if not chunk:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    raise AssertionError(f"no {pattern!r} in:\n" + "\n".join(lines))


def test_desk_and_display_say_they_cannot_reach_the_broker(tmp_path: Path) -> None:
    port = free_port("127.0.0.1")  # nothing listens there
    url = f"mqtt://127.0.0.1:{port}"
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("队名,队员1,队员2,单位\n红队,张三,李四,一厂\n蓝队,王五,赵六,二厂\n", encoding="utf-8")
    assert main(["desk", "init", "--db", str(tmp_path / "d.sqlite"), "--event", "ev", "--pairs", str(pairs)]) == 0
    desk = start("desk", "--broker", url, "--event", "ev", "--db", str(tmp_path / "d.sqlite"))
    display = start("desk", "display", "--broker", url, "--event", "ev", "--http", "0")
    try:
        for proc, waits_for in ((desk, "table results"), (display, "table states")):
            lines = read_until(proc, r"try 2 failed, retrying in 2 s", timeout=90)  # the wait doubles
            first = next(line for line in lines if "try 1 failed" in line)
            assert "无法连接 MQTT 代理 cannot reach the MQTT broker" in first and f"127.0.0.1:{port}" in first
            assert "连接被拒绝 connection refused" in first and "retrying in 1 s" in first
            assert "等待 waiting for:" in first and waits_for in first
    finally:
        for proc in (desk, display):
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=10) == 0


def test_simulate_gives_up_on_an_unreachable_broker(tmp_path: Path) -> None:
    port = free_port("127.0.0.1")
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "table_daemon.cli", "simulate", "--broker",
                          f"mqtt://127.0.0.1:{port}", "--broker-timeout", "1", "--speed", "0", "--direct",
                          "--journal-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert "无法连接 MQTT 代理" in run.stderr and f"cannot reach the MQTT broker mqtt://127.0.0.1:{port} within 1 s" \
        in run.stderr
    assert time.monotonic() - started < 30


def test_simulate_says_results_are_unsent_when_the_broker_goes(broker_factory: Callable[..., LocalBroker],
                                                               tmp_path: Path) -> None:
    """The results wait in the journals it names, which are kept though the run made them for itself (no
    --journal-dir: a folder under TMPDIR, removed after a run whose every message the broker took)."""
    broker = broker_factory()
    proc = start("simulate", "--broker", broker.url, "--broker-timeout", "1", "--deals", "3", "--speed", "0",
                 "--direct", "--event", "lost", env={"TMPDIR": str(tmp_path)})
    try:
        read_until(proc, r"connected to the MQTT broker", timeout=60)
        broker.stop()
        lines = read_until(proc, r"never taken by the broker", timeout=60)
        assert proc.wait(timeout=20) == 1
        assert any("与 MQTT 代理断开 lost the broker" in line for line in lines)
        [journals] = tmp_path.glob("guandan-sim-*")
        assert any("未发出" in line and str(journals) in line for line in lines)
        assert (journals / "T01.sqlite").stat().st_size > 0
    finally:
        if proc.poll() is None:
            proc.kill()
        broker.start()
