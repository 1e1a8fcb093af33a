"""hardware.dealers.open_dealer: the one place a dealer URL becomes the real serial dealer or the simulated one."""

from __future__ import annotations

import os

import pytest

from firmware_bridge import DealerUrlError, open_serial_dealer
from hardware.dealers import open_dealer


def test_a_sim_url_starts_the_simulated_dealer_behind_a_pty() -> None:
    client = open_dealer("sim://?speed=0&seed=3", command_timeout=10)
    try:
        info = client.identify()
        assert info.deals_to_plan and info.boot_id
        assert client.sim is not None and os.path.realpath(client.sim.path).startswith("/dev/pts/")
    finally:
        client.close()


@pytest.mark.parametrize("url", ["sim://?jam=2", "sim://?nonsense=1"])
def test_a_bad_sim_url_names_the_problem(url: str) -> None:
    with pytest.raises(DealerUrlError):
        open_dealer(url)


@pytest.mark.parametrize("url", ["COM3", "tcp://dealer:9000", "ttyACM0"])
def test_anything_but_a_device_path_is_refused_by_the_serial_bridge(url: str) -> None:
    with pytest.raises(DealerUrlError, match="device path"):
        open_serial_dealer(url)
    with pytest.raises(DealerUrlError, match="device path"):
        open_dealer(url)
