"""``open_serial_dealer(path)``: a :class:`DealerClient` for a dealer on a serial port (``/dev/ttyACM0``).

The bridge knows only the protocol and the serial port; which dealer a table uses, real or simulated, is
chosen in one place above it (``hardware.dealers.open_dealer``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import serial

from .client import DealerClient
from .link import LinkConfig
from .runner import Notice, Port


class DealerUrlError(ValueError):
    """The dealer URL is neither a device path nor (where simulation is offered) a valid ``sim://`` URL."""


def serial_opener(path: str, baudrate: int = 115200) -> Callable[[], Port]:
    """Opens ``path`` with pyserial: non-blocking reads (the runner waits with select), exclusive (flock)
    so that no second process talks to the same dealer."""

    def open_port() -> Port:
        return serial.serial_for_url(path, baudrate=baudrate, timeout=0, write_timeout=1.0, exclusive=True)

    return open_port


def open_serial_dealer(
    path: str, *, config: LinkConfig | None = None, on_notice: Callable[[Notice], None] | None = None,
    command_timeout: float = 10.0, **kwargs: Any,
) -> DealerClient:
    """Connect to the dealer on the serial port ``path``. The link (re)connects by itself; the first command
    waits for it."""
    if "://" in path or not path.startswith("/"):
        raise DealerUrlError(f"dealer port must be a device path (/dev/ttyACM0) or sim://..., got {path!r}")
    return DealerClient(
        serial_opener(path), description=path, config=config, on_notice=on_notice,
        command_timeout=command_timeout, **kwargs,
    )
