"""Builds a real table's daemon from its config: each device real or simulated (``sim://``)."""

from __future__ import annotations

import logging
from typing import Any

from hardware.panels import PanelPins, TablePanels, make_pin_factory

from .adapters.devices import DirectZones, PlannedDealer, SerialDealer
from .app import TableApp
from .cli import UsageError
from .config import TableConfig

log = logging.getLogger(__name__)


def build_dealer(cfg: TableConfig) -> Any:
    port = cfg.dealer.port
    try:
        import firmware_bridge.connect  # noqa: F401
    except ImportError:
        if port.startswith("sim://"):
            log.warning("firmware_bridge.client is missing: dealing in process instead of over a pty")
            return PlannedDealer()
        raise UsageError(f"{cfg.source}: dealer.port {port!r} needs firmware_bridge.client (not installed)") from None
    return SerialDealer(port, deal_file=cfg.dealer.deal_file)


def build_camera(cfg: TableConfig) -> Any:
    source = cfg.camera.source
    try:
        from .adapters.camera import CameraZones
    except ImportError:
        if source.startswith("sim://"):
            return DirectZones()
        raise UsageError(f"{cfg.source}: camera.source {source!r} needs the vision table reader") from None
    return CameraZones.from_config(cfg.camera)


def build_panels(cfg: TableConfig) -> TablePanels:
    try:
        factory = make_pin_factory(cfg.panels.pin_factory)
    except Exception as exc:  # no GPIO chip, no lgpio module: say which and stop
        raise UsageError(f"{cfg.source}: panels.pin_factory {cfg.panels.pin_factory!r}: {exc}") from None
    pins = {s: PanelPins(**vars(p)) for s, p in cfg.panels.seats.items()}
    return TablePanels(pins, status_light=cfg.panels.status_light, buzzer=cfg.panels.buzzer,
                       pin_factory=factory, debounce_ms=cfg.panels.debounce_ms)


def build_table(cfg: TableConfig) -> TableApp:
    return TableApp(cfg, dealer=build_dealer(cfg), camera=build_camera(cfg), panels=build_panels(cfg))
