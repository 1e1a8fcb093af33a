"""Simulated Guandan dealer: the device side of ``docs/dealer-protocol.md`` on a real pseudo-terminal.

``SimDealer(parse_sim_url("sim://?speed=0&jam=0.05&seed=7"))`` starts one; the host opens ``.path`` with
pyserial. ``.truth()`` tells what physically lies in each bin, for checks that a "good" deal really is.
"""

from .config import SimConfig, SimConfigError, parse_sim_url
from .runner import SimDealer, start_sim_dealer

__all__ = ["SimConfig", "SimConfigError", "SimDealer", "parse_sim_url", "start_sim_dealer"]
