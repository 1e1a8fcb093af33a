"""The dealer adapter names a failure by the bridge's outcome types, not by words in the error text."""

from __future__ import annotations

import time
from pathlib import Path

from firmware_bridge.dealer_types import CommandRefused, DealerError
from firmware_bridge.runner import LinkError
from table_daemon.adapters.devices import SerialDealer, _summary_input, fault_kind
from table_daemon.adapters.pi_health import HealthLimits, problems
from table_daemon.controller import DealerDone, DealerFault, DealerFaultKind, Input


def test_fault_kind_by_type() -> None:
    assert fault_kind(LinkError("/dev/ttyACM0: no reply to DEAL (jam?)")) is DealerFaultKind.LINK
    assert fault_kind(OSError("port gone")) is DealerFaultKind.LINK
    assert fault_kind(DealerError("this dealer deals only to a plan")) is DealerFaultKind.REFUSED
    assert fault_kind(CommandRefused(0x10, 3, "busy")) is DealerFaultKind.REFUSED


def test_summary_carries_the_reported_fault_names() -> None:
    done = _summary_input({"summary": True, "ok": False, "fouled": "jam", "hands": {},
                           "faults": [{"fault": "jam", "card_index": 40}, {"fault": "door_open"}, "junk"]})
    assert done.faults == ["jam", "door_open"] and not done.ok


def test_a_dealer_unplugged_mid_deal_is_lost_until_it_answers_again() -> None:
    """The simulated dealer on a real pty, its cable pulled mid-deal for a second: health says ``lost`` with the
    reason (never ``dealing`` as if all were well), and the deal then finishes on the link reopened."""
    dealer = SerialDealer("sim://?speed=0&unplug=1&unplug_s=1.5&seed=3")
    fed: list[Input] = []
    dealer.start(fed.append)
    try:
        dealer.deal(None, 1)
        states: list[str] = []
        deadline = time.monotonic() + 60
        while not any(isinstance(e, DealerDone | DealerFault) for e in fed) and time.monotonic() < deadline:
            health = dealer.health()
            states.append(health["state"])
            if health["state"] == "lost":
                assert "USB" in health["error"]
            time.sleep(0.02)
        assert "lost" in states  # while the cable was out (polled before the deal finished on the link reopened)
        done = [e for e in fed if isinstance(e, DealerDone)]
        assert done and done[0].ok and dealer.health()["state"] == "ready"
    finally:
        dealer.close()


def test_a_lost_dealer_is_a_health_problem_and_a_lost_camera_keeps_its_own_alert() -> None:
    figures = {"devices": {"dealer": {"state": "lost", "error": "read failed; reconnecting"},
                           "camera": {"state": "lost", "error": "no frames"}}}
    assert problems(figures, HealthLimits()) == {"dealer_lost": "read failed; reconnecting"}


def test_a_dealer_that_is_not_there_is_missing_while_a_deal_is_asked_of_it_too(tmp_path: Path) -> None:
    """The table asked for a deal from a port that does not exist: the worker is "dealing" until the open
    fails, and health had said so (and "back to normal") for those seconds."""
    dealer = SerialDealer(str(tmp_path / "ttyACM9"))
    dealer.state = "dealing"  # as _run sets it before it opens the port
    health = dealer.health()
    assert health["state"] == "missing" and "no such device" in health["error"]
