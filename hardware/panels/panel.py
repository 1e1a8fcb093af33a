"""The four seat panels and the table light, driven with gpiozero.

Each seat has three buttons, wired from a GPIO to ground (internal pull-up): ``pass`` (过), ``confirm``
(确认/报牌/声明: confirms a 10-card report or a declaration) and ``referee`` (呼叫裁判), and two
lights: the turn
light and the 10-card report light. The table has a status light and a buzzer (time warnings, alerts).

Why our own debounce: gpiozero's ``bounce_time`` is applied by the pin driver, and the ``MockFactory`` pins
used in simulation and tests ignore it; so a press is accepted here only when ``debounce_ms`` have passed
since the last accepted press of that button, whatever the driver does. The clock is injectable for tests.

On a Raspberry Pi 5 the pin factory is ``lgpio`` (it needs a writable working directory for its notification
pipe: the systemd unit sets one). Simulation and tests use ``mock``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

BUTTONS: tuple[str, ...] = ("pass", "confirm", "referee")
LIGHTS: tuple[str, ...] = ("turn", "report")


@dataclass(frozen=True)
class PanelPins:
    """BCM pin numbers of one seat's panel (0: not fitted)."""

    pass_button: int = 0
    confirm_button: int = 0
    referee_button: int = 0
    turn_light: int = 0
    report_light: int = 0


@dataclass(frozen=True)
class ButtonPress:
    seat: str
    button: str
    t: float


def make_pin_factory(name: str) -> Any:
    """A gpiozero pin factory: ``mock`` (MockFactory), ``lgpio``, ``rpigpio``, ``native``, "" (default)."""
    if name in ("", "default"):
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    if name == "rpigpio":
        from gpiozero.pins.rpigpio import RPiGPIOFactory

        return RPiGPIOFactory()
    if name == "native":
        from gpiozero.pins.native import NativeFactory

        return NativeFactory()
    raise ValueError(f"unknown pin factory {name!r}")


class TablePanels:
    """All four seat panels, the status light and the buzzer of one table.

    ``on_press(ButtonPress)`` is called (from gpiozero's thread) for every accepted press.
    """

    def __init__(self, seats: Mapping[str, PanelPins], *, status_light: int = 0, buzzer: int = 0,
                 pin_factory: Any = None, debounce_ms: int = 40,
                 clock: Callable[[], float] = time.monotonic, players: tuple[str, ...] = ()) -> None:
        """``players``: the seats where a person plays, whose panel must have its pass and confirm buttons (a
        seat without them could neither pass nor report): the panels are ``missing`` for them, never ``ok``."""
        from gpiozero import LED, Button, Buzzer

        self.pin_factory = pin_factory
        self.players = players
        self.debounce = debounce_ms / 1000.0
        self.clock = clock
        self.on_press: Callable[[ButtonPress], None] = lambda _p: None
        self._last: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()
        self.buttons: dict[tuple[str, str], Any] = {}
        self.lights: dict[tuple[str, str], Any] = {}
        self.presses_rejected = 0
        for seat, pins in seats.items():
            for button in BUTTONS:
                pin = getattr(pins, f"{button}_button")
                if pin:
                    b = Button(pin, pull_up=True, pin_factory=pin_factory)
                    b.when_pressed = self._handler(seat, button)
                    self.buttons[(seat, button)] = b
            for light in LIGHTS:
                pin = getattr(pins, f"{light}_light")
                if pin:
                    self.lights[(seat, light)] = LED(pin, pin_factory=pin_factory)
        self.status = LED(status_light, pin_factory=pin_factory) if status_light else None
        #: the status light's mode last asked for (gpiozero does not say whether an LED blinks)
        self.status_mode = "off"
        self.buzzer = Buzzer(buzzer, pin_factory=pin_factory) if buzzer else None

    def _handler(self, seat: str, button: str) -> Callable[[], None]:
        def pressed() -> None:
            self.accept(seat, button)

        return pressed

    def accept(self, seat: str, button: str) -> bool:
        """Debounce one press edge; forwards it and returns True when it counts."""
        now = self.clock()
        with self._lock:
            last = self._last.get((seat, button))
            if last is not None and now - last < self.debounce:
                self.presses_rejected += 1
                return False
            self._last[(seat, button)] = now
        try:
            self.on_press(ButtonPress(seat, button, now))
        except Exception:
            log.exception("button handler failed")
        return True

    # -- outputs --------------------------------------------------------------------------------------------
    def set_light(self, seat: str, light: str, on: bool) -> None:
        led = self.lights.get((seat, light))
        if led is not None:
            led.on() if on else led.off()

    def light_is_on(self, seat: str, light: str) -> bool:
        led = self.lights.get((seat, light))
        return bool(led is not None and led.is_lit)

    def set_status(self, mode: str) -> None:
        """``on`` (playing), ``blink`` (waiting/paused), ``fast`` (fault), ``off``."""
        self.status_mode = mode
        if self.status is None:
            return
        if mode == "on":
            self.status.on()
        elif mode == "blink":
            self.status.blink(on_time=0.5, off_time=0.5)
        elif mode == "fast":
            self.status.blink(on_time=0.1, off_time=0.1)
        else:
            self.status.off()

    def beep(self, times: int = 1) -> None:
        if self.buzzer is not None:
            self.buzzer.beep(on_time=0.08, off_time=0.08, n=times, background=True)

    def seats_without_buttons(self) -> list[str]:
        """The players' seats whose pass or confirm button is not wired (no pin in the config)."""
        return [s for s in self.players if (s, "pass") not in self.buttons or (s, "confirm") not in self.buttons]

    def health(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": "ok", "buttons": len(self.buttons), "lights": len(self.lights),
                               "presses_rejected": self.presses_rejected}
        bare = self.seats_without_buttons()
        if bare:
            seats = ", ".join(bare)
            out["state"] = "missing"
            out["error"] = (f"座位 {seats} 没有过牌/确认按钮 | no pass or confirm button for seat {seats} "
                            f"(panels.seats.{bare[0]}.pass_button, confirm_button)")
        return out

    def close(self) -> None:
        for device in [*self.buttons.values(), *self.lights.values(), self.status, self.buzzer]:
            if device is not None:
                device.close()


class MissingPanels:
    """Seat panels that could not be set up (no GPIO chip, lgpio missing, a pin refused): the table runs on
    (commands and the camera still work) and says so in its status, health and an alert, never as healthy."""

    def __init__(self, error: str) -> None:
        self.error = error
        self.on_press: Callable[[ButtonPress], None] = lambda _p: None

    def set_light(self, seat: str, light: str, on: bool) -> None:
        pass

    def light_is_on(self, seat: str, light: str) -> bool:
        return False

    def set_status(self, mode: str) -> None:
        pass

    def beep(self, times: int = 1) -> None:
        pass

    def health(self) -> dict[str, Any]:
        return {"state": "missing", "error": self.error}

    def close(self) -> None:
        pass
