"""Builds a real table's daemon from its config: each device real or simulated (``sim://``)."""

from __future__ import annotations

import logging
from typing import Any

from guandan import SEATS
from hardware.panels import MissingPanels, PanelPins, TablePanels, make_pin_factory

from .adapters.devices import DirectZones, PlannedDealer, SerialDealer
from .app import TableApp
from .cli import UsageError
from .config import TableConfig

log = logging.getLogger(__name__)


def build_dealer(cfg: TableConfig) -> Any:
    port = cfg.dealer.port
    try:
        import hardware.dealers  # noqa: F401 - pyserial, which a minimal install may lack
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


def build_panels(cfg: TableConfig) -> TablePanels | MissingPanels:
    """The seat panels; panels that cannot be set up (no GPIO chip, lgpio missing, a pin refused) are
    :class:`MissingPanels`: the table runs on and reports them missing (status, health, an alert)."""
    try:
        factory = make_pin_factory(cfg.panels.pin_factory)
        pins = {s: PanelPins(**vars(p)) for s, p in cfg.panels.seats.items()}
        # where people play (a real pin factory, seats not played by software), each seat needs its buttons
        players = () if cfg.panels.pin_factory == "mock" else tuple(
            s for s in SEATS if s not in cfg.table.software_seats)
        return TablePanels(pins, status_light=cfg.panels.status_light, buzzer=cfg.panels.buzzer,
                           pin_factory=factory, debounce_ms=cfg.panels.debounce_ms, players=players)
    except Exception as exc:
        error = f"{cfg.source}: panels (pin_factory {cfg.panels.pin_factory!r}): {type(exc).__name__}: {exc}"
        log.error("座位面板不可用 seat panels not available: %s", error)
        return MissingPanels(error)


def build_table(cfg: TableConfig) -> TableApp:
    return TableApp(cfg, dealer=build_dealer(cfg), camera=build_camera(cfg), panels=build_panels(cfg))
