"""``open_dealer(url)``: a :class:`DealerClient` for a real port (``/dev/ttyACM0``) or a simulated dealer
(``sim://?speed=0&jam=0.05``, started on a pseudo-terminal in this process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import serial

from .client import DealerClient
from .link import LinkConfig
from .runner import Notice, Port


class DealerUrlError(ValueError):
    """The dealer URL is neither a device path nor a valid ``sim://`` URL."""


def serial_opener(path: str, baudrate: int = 115200) -> Callable[[], Port]:
    """Opens ``path`` with pyserial: non-blocking reads (the runner waits with select), exclusive (flock)
    so that no second process talks to the same dealer."""

    def open_port() -> Port:
        return serial.serial_for_url(path, baudrate=baudrate, timeout=0, write_timeout=1.0, exclusive=True)

    return open_port


def open_dealer(
    url: str, *, config: LinkConfig | None = None, on_notice: Callable[[Notice], None] | None = None,
    command_timeout: float = 10.0, **kwargs: Any,
) -> DealerClient:
    """Connect to a dealer. The link (re)connects by itself; the first command waits for it."""
    if url.startswith("sim:"):
        from hardware.sim_dealer import SimConfigError, parse_sim_url
        from hardware.sim_dealer.runner import SimDealer

        try:
            sim = SimDealer(parse_sim_url(url))
        except SimConfigError as exc:
            raise DealerUrlError(str(exc)) from None
        return DealerClient(
            serial_opener(sim.path), description=url, config=config, on_notice=on_notice, sim=sim,
            command_timeout=command_timeout, **kwargs,
        )
    if "://" in url or not url.startswith("/"):
        raise DealerUrlError(f"dealer port must be a device path (/dev/ttyACM0) or sim://..., got {url!r}")
    return DealerClient(
        serial_opener(url), description=url, config=config, on_notice=on_notice,
        command_timeout=command_timeout, **kwargs,
    )
