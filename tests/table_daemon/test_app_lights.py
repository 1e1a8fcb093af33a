"""The table's lights on gpiozero's MockFactory pins, driven by the app: the status light says playing, waiting
or a health problem (panel.py: on, blink, fast), and no turn lamp is lit while the referee holds the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hardware.panels import PanelPins, TablePanels, make_pin_factory
from table_daemon.adapters.pi_health import PiHealth
from table_daemon.controller import Command

from .app_harness import AppHarness

PINS = {"S": PanelPins(turn_light=5), "E": PanelPins(turn_light=6), "N": PanelPins(turn_light=13),
        "W": PanelPins(turn_light=19)}


def status(panels: TablePanels, factory: Any) -> str:
    """The mode asked of the status light, checked against its pin where the pin shows it (steady on)."""
    if panels.status_mode == "on":
        assert factory.pin(2).state
    return panels.status_mode


def lit(panels: TablePanels) -> list[str]:
    return [seat for seat in PINS if panels.light_is_on(seat, "turn")]


def test_status_light_and_turn_lamps_follow_the_table(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", durable=False)
    factory = make_pin_factory("mock")
    panels = TablePanels(PINS, status_light=2, pin_factory=factory, debounce_ms=0)
    h.app.panels = panels
    temp = tmp_path / "sys/class/thermal/thermal_zone0/temp"
    temp.parent.mkdir(parents=True)
    temp.write_text("61000\n")
    h.app.pi_health = PiHealth(tmp_path, disk_path=tmp_path, vcgencmd=None)
    try:
        h.app._resume_after_recovery()  # what start() does first: the lights as the table stands
        assert status(panels, factory) == "blink"  # no match yet: waiting
        h.start_match(match_end={"method": "deals", "deals": 1})
        h.send(Command("start_deal", {}))
        h.flush()
        while h.c.phase != "playing":
            h.bot_step()
        assert status(panels, factory) == "on" and lit(panels) == [h.to_move]
        h.send(Command("pause", {"reason": "referee"}))
        assert status(panels, factory) == "blink" and lit(panels) == []
        h.send(Command("resume", {}))
        assert status(panels, factory) == "on" and lit(panels) == [h.to_move]
        temp.write_text("84000\n")  # the Pi too hot: a health problem
        h.app._health_news(h.app.health())
        assert status(panels, factory) == "fast"
        h.send(Command("pause", {"reason": "referee"}))
        assert status(panels, factory) == "fast"  # a problem shows over the phase
        h.send(Command("resume", {}))
        temp.write_text("61000\n")
        h.app._health_news(h.app.health())
        assert status(panels, factory) == "on"
    finally:
        panels.close()


def test_a_table_restarted_while_paused_lights_no_turn_lamp(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", durable=False)
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    while h.c.phase != "playing":
        h.bot_step()
    h.send(Command("pause", {"reason": "referee"}))
    h.restart()
    factory = make_pin_factory("mock")
    panels = TablePanels(PINS, status_light=2, pin_factory=factory, debounce_ms=0)
    h.app.panels = panels
    try:
        h.app._resume_after_recovery()  # what start() asks first of a table recovered from its journal
        assert lit(panels) == [] and status(panels, factory) == "blink"
    finally:
        panels.close()
