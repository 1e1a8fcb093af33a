"""A real table's daemon on a real Mosquitto with its hardware unwell: a dealer port that does not exist, seat
panels whose GPIO cannot be had, a Pi under-voltage and hot (sysfs files in a temp dir). Each shows as missing
or failing in ``status.devices`` and ``health`` and raises an alert, and says so again when it is well."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

from table_daemon.adapters.pi_health import PiHealth
from table_daemon.app import TableApp
from table_daemon.config import parse_config
from table_daemon.device_health import service_status
from table_daemon.runtime import build_camera, build_dealer, build_panels

THROTTLED = "sys/devices/platform/soc/soc:firmware/get_throttled"


def config(url: str, tr: Any, tmp: Path) -> Any:
    text = f"""
[table]
id = "{tr.table}"
event = "{tr.event}"

[mqtt]
url = "{url}"

[journal]
path = "{tmp / 'journal.sqlite'}"

[dealer]
port = "{tmp / 'ttyACM0'}"

[camera]
source = "sim://"

[panels]
pin_factory = "lgpio"

[panels.seats.S]
pass_button = 5

[health]
interval_seconds = 0.1
max_cpu_temp_c = 80.0
"""
    return parse_config(text, "table.toml")


def latest(log: Any, suffix: str) -> dict[str, Any]:
    payload = log.on(suffix)[-1].payload
    assert isinstance(payload, dict)
    return payload


def test_unwell_hardware_is_reported_missing_and_alerted(mosquitto: Any, topic_root: Any, mqtt_messages: Any,
                                                          tmp_path: Path) -> None:
    sys_root = tmp_path / "root"
    (sys_root / THROTTLED).parent.mkdir(parents=True)
    (sys_root / THROTTLED).write_text("50005\n")
    (sys_root / "sys/class/thermal/thermal_zone0").mkdir(parents=True)
    (sys_root / "sys/class/thermal/thermal_zone0/temp").write_text("84000\n")
    cfg = config(mosquitto.url, topic_root, tmp_path)
    log = mqtt_messages(mosquitto.url, topic_root.root + "#")
    panels = build_panels(cfg)  # no GPIO chip here: the table runs on without its panels, and says so
    app = TableApp(cfg, dealer=build_dealer(cfg), camera=build_camera(cfg), panels=panels,
                   pi_health=PiHealth(sys_root, disk_path=tmp_path, vcgencmd=None))
    app.start()
    try:
        # the alerts, and the health report read below (published on its own, it may come after them)
        log.wait_for(lambda ms: {"dealer_missing", "panels_missing", "pi_under_voltage", "pi_throttled", "pi_hot"}
                     <= {m.payload.get("code") for m in ms if m.topic.endswith("/alerts")}
                     and any(m.topic.endswith("/health") for m in ms))
        status = latest(log, "/status")
        assert status["online"] is True and status["type"] == "status" and status["schema"] == 1
        assert {"table", "event", "epoch", "ts"} <= set(status)  # mqtt-api.md "Every message"
        dealer = status["devices"]["dealer"]
        assert dealer["state"] == "missing" and "no such device" in dealer["error"]
        assert status["devices"]["panels"]["state"] == "missing" and "lgpio" in status["devices"]["panels"]["error"]
        assert status["devices"]["camera"]["state"] == "ok"
        health = latest(log, "/health")
        assert health["devices"]["dealer"]["state"] == "missing" and health["dealer"]["state"] == "missing"
        assert health["power"]["under_voltage"] is True and health["cpu_temp"] == 84.0
        assert health["disk"]["free_mb"] > 0
        assert {"dealer_missing", "pi_hot", "pi_under_voltage"} <= set(health["problems"])
        alert = next(m.payload for m in log.on("/alerts") if m.payload.get("code") == "pi_under_voltage")
        assert "供电不足" in alert["message"] and alert["evidence"]["health"]["power"]["throttled_hex"] == "0x50005"

        # the dealer is plugged in and the supply replaced: back to normal, said once each, status again
        primary, secondary = os.openpty()
        (tmp_path / "ttyACM0").symlink_to(os.ttyname(secondary))
        (sys_root / THROTTLED).write_text("50000\n")  # since boot only
        (sys_root / "sys/class/thermal/thermal_zone0/temp").write_text("61000\n")
        log.wait_for(lambda ms: {"dealer_missing", "pi_under_voltage", "pi_throttled", "pi_hot"}
                     <= {m.payload["evidence"]["health"].get("cleared") for m in ms if m.topic.endswith("/alerts")
                         and m.payload.get("code") == "health_restored"})
        log.wait_for(lambda ms: latest(log, "/status")["devices"]["dealer"]["state"] == "idle")
        assert latest(log, "/health")["problems"] == ["panels_missing"]
        codes = [m.payload.get("code") for m in log.on("/alerts")]
        assert codes.count("dealer_missing") == 1 and codes.count("pi_hot") == 1
        os.close(primary)
        os.close(secondary)
    finally:
        app.stop()


def test_systemd_hears_the_broker_and_the_devices_not_just_up(tmp_path: Path, monkeypatch: Any,
                                                              topic_root: Any) -> None:
    """``systemctl status`` shows what the referee's alerts say: a broker nobody answers at and a dealer that is
    not plugged in, in the unit's STATUS= line, after a READY=1 that does not claim the table is reachable."""
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        url = f"mqtt://127.0.0.1:{probe.getsockname()[1]}"
    notify = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(notify))
        sock.settimeout(10)
        monkeypatch.setenv("NOTIFY_SOCKET", str(notify))
        cfg = config(url, topic_root, tmp_path)
        app = TableApp(cfg, dealer=build_dealer(cfg), camera=None, panels=None,
                       pi_health=PiHealth(tmp_path / "no-sys", disk_path=tmp_path, vcgencmd=None))
        app.start()
        try:
            ready = sock.recv(512).decode()
            assert ready.startswith("READY=1\nSTATUS=") and "connecting to the broker" in ready
            status = sock.recv(512).decode()
            while status.startswith("WATCHDOG"):
                status = sock.recv(512).decode()
        finally:
            app.stop()
    assert status.startswith("STATUS=牌桌 table ") and "unreachable" in status and "dealer missing" in status
    assert "问题 problems: broker_unreachable, dealer_missing" in status


def test_the_service_status_line_says_ok_only_when_all_is() -> None:
    link = {"connected": True, "broker": "hall:8883", "reason": ""}
    devices = {"dealer": {"state": "ready"}, "camera": {"state": "ok"}}
    assert service_status("T07", link, devices, []) == ("牌桌 table T07 · broker hall:8883 connected · dealer ready, "
                                                        "camera ok · 正常 ok")
    away = {"connected": False, "broker": "hall:8883", "reason": "connection refused"}
    line = service_status("T07", away, devices, ["pi_hot"])
    assert "unreachable: connection refused" in line and line.endswith("问题 problems: broker_unreachable, pi_hot")
