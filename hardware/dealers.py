"""``open_dealer(url)``: the one place that chooses a real or a simulated dealer (as ``hardware.cameras``
``open_camera`` does for cameras).

``/dev/ttyACM0`` (any device path) is the table's dealer on its serial port; ``sim://?speed=0&jam=0.05`` starts
the simulated dealer on a pseudo-terminal in this process, so the same serial code talks to it. Either way the
result is a :class:`firmware_bridge.DealerClient`; the link (re)connects by itself and the first command
waits for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware_bridge.client import DealerClient
from firmware_bridge.connect import DealerUrlError, open_serial_dealer, serial_opener
from firmware_bridge.link import LinkConfig
from firmware_bridge.runner import Notice

from .sim_dealer import SimConfigError, parse_sim_url
from .sim_dealer.runner import SimDealer

__all__ = ["DealerUrlError", "open_dealer"]


def open_dealer(
    url: str, *, config: LinkConfig | None = None, on_notice: Callable[[Notice], None] | None = None,
    command_timeout: float = 10.0, **kwargs: Any,
) -> DealerClient:
    """Connect to the dealer ``url`` names; a URL that is neither raises :class:`DealerUrlError`."""
    if url.startswith("sim:"):
        try:
            sim = SimDealer(parse_sim_url(url))
        except SimConfigError as exc:
            raise DealerUrlError(str(exc)) from None
        return DealerClient(
            serial_opener(sim.path), description=url, config=config, on_notice=on_notice, sim=sim,
            command_timeout=command_timeout, **kwargs,
        )
    return open_serial_dealer(url, config=config, on_notice=on_notice, command_timeout=command_timeout, **kwargs)
