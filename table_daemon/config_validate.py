"""The table config's value checks: what the types allow but a table cannot run with.

Ids, broker URL, seats, pin map, camera source and controls, ranges of times, sizes and rates; each problem
is reported through ``err(path, message)`` (table_daemon/config_report.py) naming its key.
"""

from __future__ import annotations

import os
from dataclasses import fields
from typing import Any
from urllib.parse import urlparse

from guandan import SEATS
from vision.readers import READERS, RUNTIMES

from .config_rules import PIN_FACTORIES, RESERVED_PINS, host_error, id_error, prefix_error
from .config_sections import SeatPins, TableConfig


def validate_config(cfg: TableConfig, err: Any) -> None:
    """Every value check of a parsed config, in order; ``err`` raises on the first problem."""
    _validate(cfg, err)
    _validate_values(cfg, err)


def _validate(cfg: TableConfig, err: Any) -> None:
    for key, what in (("id", "table id"), ("event", "event id")):
        error = id_error(what, getattr(cfg.table, key))
        if error is not None:
            err(("table", key), error)
    for i, seat in enumerate(cfg.table.software_seats):
        if seat not in SEATS:
            err(("table", "software_seats", str(i)), f"unknown seat {seat!r} (S, E, N or W)")
    url = urlparse(cfg.mqtt.url)
    if url.scheme not in ("mqtt", "mqtts", "tcp", "ssl", "ws", "wss") or not url.hostname:
        err(("mqtt", "url"), f"bad broker URL {cfg.mqtt.url!r} (mqtt://HOST:PORT or mqtts://HOST:PORT)")
    bad_host = host_error(url.hostname or "")
    if bad_host is not None:
        err(("mqtt", "url"), f"bad broker URL {cfg.mqtt.url!r}: {bad_host}")
    if cfg.mqtt.protocol not in (4, 5):
        err(("mqtt", "protocol"), "must be 4 (MQTT 3.1.1) or 5")
    if not 2 <= cfg.mqtt.keepalive <= 120:
        err(("mqtt", "keepalive"), "must be between 2 and 120 seconds")
    for seat in cfg.panels.seats:
        if seat not in SEATS:
            err(("panels", "seats", seat), f"unknown seat {seat!r} (S, E, N or W)")
    if cfg.panels.pin_factory not in PIN_FACTORIES:
        err(("panels", "pin_factory"), f"unknown pin factory {cfg.panels.pin_factory!r} (one of "
                                       f"{', '.join(repr(f) for f in PIN_FACTORIES)})")
    used: dict[int, str] = {}
    pins: list[tuple[str, ...]] = [("panels", "status_light"), ("panels", "buzzer")]
    values = [cfg.panels.status_light, cfg.panels.buzzer]
    for seat, sp in cfg.panels.seats.items():
        for f in fields(SeatPins):
            pins.append(("panels", "seats", seat, f.name))
            values.append(getattr(sp, f.name))
    for p, v in zip(pins, values, strict=True):
        if v == 0:
            continue
        if not 1 <= v <= 27:
            err(p, f"GPIO {v} is not a header GPIO (1..27)")
        if v in used:
            err(p, f"GPIO {v} is already used by {used[v]}")
        if v in RESERVED_PINS and v not in cfg.panels.allow_pins:
            err(p, f"GPIO {v} 是保留引脚 / is reserved for {RESERVED_PINS[v]}: keep I²C, SPI and UART free, "
                   f"or allow it explicitly with panels.allow_pins = [{v}]")
        used[v] = ".".join(p)
    _validate_camera(cfg, err)
    if cfg.camera.fps <= 0:
        err(("camera", "fps"), "must be positive")
    if not 0 <= cfg.camera.unsure_wait_frames <= 100:
        err(("camera", "unsure_wait_frames"), "must be between 0 and 100")
    if cfg.camera.move_px <= 0:
        err(("camera", "move_px"), "must be positive")
    src = cfg.camera.source
    if not (src.startswith(("sim://", "picamera://", "usb://", "replay://", "/dev/")) or src.isdigit()):
        err(("camera", "source"), f"unknown camera {src!r} (picamera://, usb://0, /dev/video0, replay:///path, sim://)")
    if src.startswith("sim://"):
        from hardware.cameras.simulated import deck_in_url

        try:
            deck_in_url(src)
        except ValueError as exc:
            err(("camera", "source"), str(exc))
    if cfg.camera.reader not in ("", *READERS):
        err(("camera", "reader"), f"unknown card reader {cfg.camera.reader!r} (net, glyphs, or empty: the one the "
                                  "deck was enrolled for)")
    if cfg.camera.runtime not in RUNTIMES:
        err(("camera", "runtime"), f"unknown network runtime {cfg.camera.runtime!r} ({' or '.join(RUNTIMES)})")


def _validate_camera(cfg: TableConfig, err: Any) -> None:
    """The Pi camera's controls: values picamera2 accepts, and an exposure that does not band under the lights."""
    cam = cfg.camera
    if not 0 <= cam.camera_num <= 7:
        err(("camera", "camera_num"), "must be between 0 and 7 (a Pi 5: 0 = CAM0, 1 = CAM1)")
    if cam.lens_position > 32:
        err(("camera", "lens_position"), "is in dioptres (1 / metres): 0 is infinity, 32 the closest; negative: auto")
    if cam.flicker_hz not in (0, 50, 60):
        err(("camera", "flicker_hz"), "must be 50 (China), 60 or 0")
    if cam.exposure_us < 0:
        err(("camera", "exposure_us"), "must be 0 (automatic) or a time in microseconds")
    if cam.exposure_us and cam.exposure_us > 1_000_000 / cam.fps:
        err(("camera", "exposure_us"), f"{cam.exposure_us} µs is longer than a frame at camera.fps = {cam.fps:g}")
    if cam.exposure_us and cam.flicker_hz:
        period = 1_000_000 / (2 * cam.flicker_hz)
        periods = cam.exposure_us / period
        if round(periods) < 1 or abs(periods - round(periods)) * period > 50:
            err(("camera", "exposure_us"), f"灯光频闪 / under {cam.flicker_hz} Hz lighting the exposure must be a "
                                           f"multiple of {period:.0f} µs (e.g. {round(period) * 2}), got {cam.exposure_us}")
    if cam.analogue_gain and not 1.0 <= cam.analogue_gain <= 16.0:
        err(("camera", "analogue_gain"), "must be 0 (automatic) or between 1 and 16")
    if cam.colour_gains and (len(cam.colour_gains) != 2 or not all(0 < g <= 32 for g in cam.colour_gains)):
        err(("camera", "colour_gains"), "must be [red, blue], each between 0 and 32 (empty: automatic white balance)")


def _validate_values(cfg: TableConfig, err: Any) -> None:
    """Values the types allow but ``run`` cannot use: ports, topic prefix, times, sizes, rates (issue 14)."""
    url = urlparse(cfg.mqtt.url)
    try:
        port = url.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        err(("mqtt", "url"), f"the port of {cfg.mqtt.url!r} must be a number from 1 to 65535")
    error = prefix_error(cfg.mqtt.prefix)
    if error is not None:
        err(("mqtt", "prefix"), error)
    if not cfg.journal.path.strip():
        err(("journal", "path"), "must name the journal file (or :memory:)")
    if cfg.journal.mirror:
        if cfg.journal.path == ":memory:":
            err(("journal", "mirror"), "a journal kept in memory has nothing to mirror: name a journal file")
        if cfg.journal.mirror == ":memory:" or os.path.abspath(cfg.journal.mirror) == os.path.abspath(cfg.journal.path):
            err(("journal", "mirror"), "must name a file on other storage than the journal (a USB stick), "
                f"not {cfg.journal.mirror!r}")
    if not 0 < cfg.dealer.baud <= 4_000_000:
        err(("dealer", "baud"), f"must be a baud rate above 0, got {cfg.dealer.baud}")
    if cfg.dealer.port.startswith("sim:"):  # the simulated dealer's options, as the dealer itself reads them
        from hardware.sim_dealer.config import SimConfigError, parse_sim_url

        try:
            parse_sim_url(cfg.dealer.port)
        except SimConfigError as exc:
            err(("dealer", "port"), str(exc))
    if not 0 <= cfg.camera.min_confidence <= 1:
        err(("camera", "min_confidence"), f"must be between 0 and 1, got {cfg.camera.min_confidence}")
    for key in ("width", "height", "stable_frames"):
        if getattr(cfg.camera, key) < 1:
            err(("camera", key), f"must be at least 1, got {getattr(cfg.camera, key)}")
    if cfg.panels.debounce_ms < 0:
        err(("panels", "debounce_ms"), "must not be negative")
    t = cfg.timing
    if not 0 < t.tick_seconds <= 60:
        err(("timing", "tick_seconds"), f"must be above 0 and at most 60 seconds, got {t.tick_seconds}")
    for key in ("play_seconds", "first_lead_seconds", "return_seconds", "declare_seconds"):
        if getattr(t, key) < 0:
            err(("timing", key), f"must not be negative (0: no limit), got {getattr(t, key)}")
    if cfg.health.interval_seconds <= 0:
        err(("health", "interval_seconds"), f"must be above 0, got {cfg.health.interval_seconds}")
