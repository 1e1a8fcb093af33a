"""The Pi's health figures from its sysfs files (a temp dir laid out as /), and the problems they show."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_daemon.adapters.pi_health import HealthLimits, PiHealth, decode_throttled, problems

PI4_NODE = "sys/devices/platform/soc/soc:firmware/get_throttled"
PI5_NODE = "sys/devices/platform/soc@107c000000/soc@107c000000:firmware/get_throttled"


def fake_sys(root: Path, throttled: str | None, temp_millic: str | None, node: str = PI4_NODE) -> Path:
    if throttled is not None:
        (root / node).parent.mkdir(parents=True, exist_ok=True)
        (root / node).write_text(throttled)
    if temp_millic is not None:
        zone = root / "sys/class/thermal/thermal_zone0"
        zone.mkdir(parents=True, exist_ok=True)
        (zone / "temp").write_text(temp_millic)
    return root


@pytest.mark.parametrize("node", [PI4_NODE, PI5_NODE])
def test_under_voltage_throttling_and_temperature_from_sysfs(tmp_path: Path, node: str) -> None:
    root = fake_sys(tmp_path, "50005\n", "83412\n", node)
    figures = PiHealth(root, disk_path=tmp_path, vcgencmd=None).read()
    power = figures["power"]
    assert power["throttled_hex"] == "0x50005"
    assert power["under_voltage"] and power["throttled"] and not power["freq_capped"]
    assert power["under_voltage_since_boot"] and power["throttled_since_boot"]
    assert not power["soft_temp_limit_since_boot"]
    assert figures["cpu_temp"] == 83.4
    assert figures["disk"]["free_mb"] > 0 and figures["disk"]["path"] == str(tmp_path)
    found = problems(figures, HealthLimits(cpu_temp_c=80.0, disk_free_mb=1.0))
    assert sorted(found) == ["pi_hot", "pi_throttled", "pi_under_voltage"]
    assert "83.4 °C" in found["pi_hot"] and "0x50005" in found["pi_under_voltage"]


def test_vcgencmd_when_sysfs_has_no_node_and_past_events_raise_nothing(tmp_path: Path) -> None:
    # under-voltage and capping happened since boot (bits 16, 17), none now: the figures say so, no alert
    health = PiHealth(fake_sys(tmp_path, None, "55000"), disk_path=tmp_path, vcgencmd=lambda: "throttled=0x30000\n")
    figures = health.read()
    assert figures["power"]["under_voltage_since_boot"] and not figures["power"]["under_voltage"]
    assert problems(figures, HealthLimits()) == {}


def test_a_pc_has_no_figures_rather_than_healthy_zeros(tmp_path: Path) -> None:
    figures = PiHealth(tmp_path, disk_path=tmp_path / "journal.sqlite", vcgencmd=lambda: None).read()
    assert figures["power"] is None and figures["cpu_temp"] is None
    assert figures["disk"]["path"] == str(tmp_path)  # the journal's folder, before the file exists
    garbled = PiHealth(fake_sys(tmp_path, "not hex", "warm"), disk_path=tmp_path, vcgencmd=None).read()
    assert garbled["power"] is None and garbled["cpu_temp"] is None


def test_sd_card_space_and_missing_devices(tmp_path: Path) -> None:
    figures = PiHealth(tmp_path, disk_path=tmp_path, vcgencmd=None).read()
    figures["devices"] = {"dealer": {"state": "missing", "error": "no such device /dev/ttyACM0"},
                          "camera": {"state": "lost"}, "panels": {"state": "ok"}}
    found = problems(figures, HealthLimits(disk_free_mb=figures["disk"]["free_mb"] + 1))
    # a lost camera raised its own camera_lost alert already: only what nothing else reports
    assert sorted(found) == ["dealer_missing", "pi_disk_low"]
    assert found["dealer_missing"] == "no such device /dev/ttyACM0"


def test_decode_throttled_names_every_bit() -> None:
    flags = decode_throttled(0xF000F)
    assert all(flags[k] for k in flags if k != "throttled_hex")
    assert not any(v for k, v in decode_throttled(0).items() if k != "throttled_hex")
