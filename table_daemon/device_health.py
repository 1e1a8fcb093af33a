"""What the table says of its devices and of itself: each device's source and state for ``status`` and
``health``, the devices' own figures, the camera frame of an alert as a picture, the process's memory.

A device that is missing or failing is said so (``missing``, ``fault``, ``lost``), never shown healthy; a device
whose figures cannot be read is failing; a picture that cannot be made never costs the alert.
"""

from __future__ import annotations

import base64
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any

from .config import TableConfig

log = logging.getLogger(__name__)

#: alerts about what the camera saw: they carry the frame as a picture
PICTURE_ALERTS = frozenset({"misread", "exposed_card", "not_held", "illegal_play", "out_of_turn", "wrong_tribute",
                            "wrong_return"})


def device_states(cfg: TableConfig, devices: Mapping[str, Any],
                  figures: Mapping[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """Each device's source and state (``ok``, ``idle``, ``ready``, ``dealing``; failing: ``missing``,
    ``fault``, ``lost``; ``none``: not configured), with the error of a failing one. ``devices``: the dealer,
    camera and panels objects by name (None where there is none); ``figures``: their health figures where
    they were just read (:func:`device_figures`), so that a health report asks each device once."""
    out: dict[str, dict[str, Any]] = {}
    sources = {"dealer": cfg.dealer.port, "camera": cfg.camera.source, "panels": cfg.panels.pin_factory or "default"}
    for name, source in sources.items():
        device = devices.get(name)
        entry: dict[str, Any] = {"source": source, "state": "none"}
        if device is not None:
            got = (figures or {}).get(name)
            got = got if got is not None else _figures_of(device)
            entry["state"] = got.get("state", "ok")
            if got.get("error"):
                entry["error"] = str(got["error"])
        out[name] = entry
    return out


def service_status(table: str, link: Mapping[str, Any] | None, devices: Mapping[str, Mapping[str, Any]],
                   problems: Iterable[str]) -> str:
    """The one line ``systemctl status`` shows for the table (sd_notify ``STATUS=``): the broker link, each
    device's state and the health problems, so a technician at the Pi sees what the referee's alerts say."""
    if link is None:
        broker = "no broker link"
    elif link.get("connected"):
        broker = f"broker {link.get('broker')} connected"
    else:
        reason = f": {link['reason']}" if link.get("reason") else ""
        broker = f"broker {link.get('broker')} unreachable{reason}"
    states = ", ".join(f"{name} {d.get('state')}" for name, d in devices.items())
    found = (["broker_unreachable"] if link is not None and not link.get("connected") else []) + sorted(problems)
    verdict = f"问题 problems: {', '.join(found)}" if found else "正常 ok"
    return f"牌桌 table {table} · {broker} · {states} · {verdict}"


def device_figures(devices: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The dealer's and the camera's own health figures (retransmits, frame rate, confidence ...)."""
    return {name: _figures_of(devices[name]) for name in ("dealer", "camera")
            if devices.get(name) is not None and hasattr(devices[name], "health")}


def _figures_of(device: Any) -> dict[str, Any]:
    """A device's health figures; one whose figures cannot be read is failing (and must not stop the table)."""
    try:
        return device.health() if hasattr(device, "health") else {}
    except Exception as exc:
        return {"state": "fault", "error": str(exc)}


def with_picture(alert: dict[str, Any], camera: Any) -> dict[str, Any]:
    """An alert about what the camera saw carries that frame as a small JPEG (``evidence.image``, a data URL)
    for the referee, when the camera still has it."""
    raw = alert.get("evidence")
    evidence: dict[str, Any] = raw if isinstance(raw, dict) else {}
    frame = evidence.get("frame")
    grab = getattr(camera, "evidence_jpeg", None)
    if alert.get("code") not in PICTURE_ALERTS or not isinstance(frame, int) or grab is None:
        return alert
    try:
        jpeg = grab(frame)
    except Exception:  # a picture is a help, never a reason to lose the alert
        log.exception("evidence picture failed")
        return alert
    if not jpeg:
        return alert
    image = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
    return {**alert, "evidence": {**evidence, "image": image}}


def rss_mb() -> float | None:
    """The daemon's resident memory in MB (None where /proc cannot tell)."""
    try:
        with open(f"/proc/{os.getpid()}/statm") as fh:
            return round(int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except OSError:
        return None
