"""Seat panels on gpiozero's MockFactory: the daemon's own debounce, lights, status light and buzzer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hardware.panels import ButtonPress, PanelPins, TablePanels, make_pin_factory

#: the panels, gpiozero's MockFactory (untyped: make_pin_factory returns Any), the fake clock, the presses
Rig = tuple[TablePanels, Any, list[float], list[ButtonPress]]


@pytest.fixture
def rig() -> Iterator[Rig]:
    factory = make_pin_factory("mock")
    now = [0.0]
    panels = TablePanels({"S": PanelPins(5, 6, 13, 19, 26), "E": PanelPins(12, 16, 20, 21, 25)},
                         status_light=2, buzzer=3, pin_factory=factory, debounce_ms=40, clock=lambda: now[0])
    got: list[ButtonPress] = []
    panels.on_press = got.append
    yield panels, factory, now, got
    panels.close()


def _bounce(factory: object, pin: int) -> None:
    p = factory.pin(pin)  # type: ignore[attr-defined]
    p.drive_low()
    p.drive_high()


def test_bouncing_contact_counts_once(rig: Rig) -> None:
    panels, factory, now, got = rig
    for dt in (0.0, 0.003, 0.006, 0.02):  # one press, three bounces within 40 ms
        now[0] = 1.0 + dt
        _bounce(factory, 5)
    assert [(p.seat, p.button) for p in got] == [("S", "pass")]
    assert panels.presses_rejected == 3
    now[0] = 1.1
    _bounce(factory, 5)
    _bounce(factory, 16)  # another button is debounced on its own
    assert [(p.seat, p.button) for p in got][1:] == [("S", "pass"), ("E", "confirm")]


def test_lights_status_and_buzzer(rig: Rig) -> None:
    panels, factory, now, got = rig
    panels.set_light("E", "turn", True)
    assert factory.pin(21).state and panels.light_is_on("E", "turn")
    panels.set_light("E", "turn", False)
    assert not factory.pin(21).state
    panels.set_status("on")
    assert factory.pin(2).state
    panels.set_status("off")
    assert not factory.pin(2).state
    panels.beep(1)
    panels.set_light("N", "turn", True)  # a seat without a panel: nothing to light, no error


def test_unknown_pin_factory() -> None:
    with pytest.raises(ValueError, match="unknown pin factory"):
        make_pin_factory("bogus")


def test_a_players_seat_without_its_buttons_is_missing_not_ok() -> None:
    panels = TablePanels({"S": PanelPins(5, 6, 13, 19, 26), "E": PanelPins(pass_button=12)},
                         pin_factory=make_pin_factory("mock"), players=("S", "E", "N"))
    try:
        health = panels.health()
        assert panels.seats_without_buttons() == ["E", "N"]
        assert health["state"] == "missing" and "seat E, N" in health["error"]
    finally:
        panels.close()
    software = TablePanels({}, pin_factory=make_pin_factory("mock"))  # no seat played by a person here
    assert software.health()["state"] == "ok"
    software.close()
