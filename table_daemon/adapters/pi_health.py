"""The Raspberry Pi's own condition: power (under-voltage, throttling), SD card space, CPU temperature.

A table's Pi is powered from a hall's extension leads and sits in a warm room under a camera lamp: a weak
supply (under-voltage makes the SD card and USB dealer link fail in odd ways), a hot or throttled CPU (the
card reader falls behind) or a full SD card (the journal cannot be written) must reach the referee before
they cost a deal. The figures come from the files the kernel and firmware offer, all under ``root`` (``/`` on
a Pi; tests give a temp dir with the same layout):

- ``sys/devices/platform/soc*/*firmware/get_throttled``: the firmware's throttle flags (hex; Pi 4 and Pi 5
  name the soc node differently, hence the glob), or else the output of ``vcgencmd get_throttled``;
- ``sys/class/thermal/thermal_zone0/temp``: millidegrees Celsius;
- ``statvfs`` of the journal's folder: the SD card's free space.

A figure that cannot be had is ``None`` (a PC running a simulated table has no throttle flags), never a
healthy-looking zero.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: get_throttled bits (Raspberry Pi firmware): now, and since boot
THROTTLE_BITS = {0: "under_voltage", 1: "freq_capped", 2: "throttled", 3: "soft_temp_limit"}
SINCE_BOOT_SHIFT = 16


@dataclass(frozen=True)
class HealthLimits:
    """Where a figure becomes an alert."""

    cpu_temp_c: float = 80.0
    disk_free_mb: float = 500.0


def decode_throttled(value: int) -> dict[str, Any]:
    """The firmware's flags as named booleans, now and since boot (``under_voltage``, ``under_voltage_since_boot``...)."""
    out: dict[str, Any] = {"throttled_hex": f"0x{value:x}"}
    for bit, name in THROTTLE_BITS.items():
        out[name] = bool(value >> bit & 1)
        out[f"{name}_since_boot"] = bool(value >> (bit + SINCE_BOOT_SHIFT) & 1)
    return out


def _run_vcgencmd() -> str | None:
    try:
        done = subprocess.run(["vcgencmd", "get_throttled"], capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


class PiHealth:
    """Reads the Pi's figures (``read()``); ``disk_path`` is where the journal lives (the SD card)."""

    def __init__(self, root: str | Path = "/", disk_path: str | Path = ".",
                 vcgencmd: Callable[[], str | None] | None = _run_vcgencmd) -> None:
        self.root = Path(root)
        self.disk_path = Path(disk_path)
        self.vcgencmd = vcgencmd

    def throttled(self) -> int | None:
        """The throttle flags, from sysfs or vcgencmd; None when neither is there (not a Pi)."""
        for path in sorted(self.root.glob("sys/devices/platform/soc*/*firmware/get_throttled")):
            try:
                return int(path.read_text().strip(), 16)
            except (OSError, ValueError):
                continue
        text = self.vcgencmd() if self.vcgencmd is not None else None
        if text and "=" in text:
            try:
                return int(text.strip().split("=", 1)[1], 16)
            except ValueError:
                return None
        return None

    def cpu_temp(self) -> float | None:
        try:
            return round(int((self.root / "sys/class/thermal/thermal_zone0/temp").read_text().strip()) / 1000.0, 1)
        except (OSError, ValueError):
            return None

    def disk(self) -> dict[str, Any] | None:
        folder = self.disk_path if self.disk_path.is_dir() else self.disk_path.parent
        try:
            st = os.statvfs(folder)
        except OSError:
            return None
        free = st.f_bavail * st.f_frsize / 2**20
        total = st.f_blocks * st.f_frsize / 2**20
        return {"path": str(folder), "free_mb": round(free, 1), "total_mb": round(total, 1),
                "free_pct": round(100 * free / total, 1) if total else None}

    def read(self) -> dict[str, Any]:
        flags = self.throttled()
        return {"cpu_temp": self.cpu_temp(), "power": decode_throttled(flags) if flags is not None else None,
                "disk": self.disk()}


#: device states that are a failure (anything else: present and working, or ``none``: not configured)
FAILING = ("missing", "fault", "lost")


def problems(figures: dict[str, Any], limits: HealthLimits) -> dict[str, str]:
    """The problems the health figures show, each code with its evidence in words: the Pi's power, heat and
    disk against ``limits``, every device that is missing, a camera too dim to read surely, and a dealer whose
    link is lost mid-deal (the deal waits for it; other failures in use raise their own alerts: ``dealer_jam``,
    ``camera_lost``). Pure: the app raises an alert for each code that appears and says when it clears."""
    out: dict[str, str] = {}
    power = figures.get("power")
    if power:
        if power.get("under_voltage"):
            out["pi_under_voltage"] = f"flags {power['throttled_hex']}"
        if power.get("throttled") or power.get("freq_capped"):
            out["pi_throttled"] = f"flags {power['throttled_hex']}"
    temp = figures.get("cpu_temp")
    if temp is not None and temp >= limits.cpu_temp_c:
        out["pi_hot"] = f"CPU {temp:.1f} °C ≥ {limits.cpu_temp_c:.0f} °C"
    disk = figures.get("disk")
    if disk and disk.get("free_mb") is not None and disk["free_mb"] < limits.disk_free_mb:
        out["pi_disk_low"] = f"{disk['free_mb']:.0f} MB free on {disk['path']} < {limits.disk_free_mb:.0f} MB"
    for name, device in (figures.get("devices") or {}).items():
        state = device.get("state")
        if state == "missing":
            out[f"{name}_missing"] = str(device.get("error") or state)
        elif state == "lost" and name == "dealer":  # the camera's loss has its own alert (camera_lost)
            out["dealer_lost"] = str(device.get("error") or state)
    camera = figures.get("camera") or {}  # the camera's own figures (health's "camera"), not its device state
    if camera.get("dim"):  # plays too dark to read surely: misreads, waits
        out["camera_dim"] = f"the frames are brightened {camera.get('exposure_gain')}x, the most the table does"
    return out
