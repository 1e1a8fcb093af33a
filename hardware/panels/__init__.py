"""Seat panels of a table (gpiozero): buttons, lights and the buzzer. See :mod:`hardware.panels.panel`."""

from .panel import BUTTONS, ButtonPress, MissingPanels, PanelPins, TablePanels, make_pin_factory

__all__ = ["BUTTONS", "ButtonPress", "MissingPanels", "PanelPins", "TablePanels", "make_pin_factory"]
