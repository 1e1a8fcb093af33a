"""The dealer adapter names a failure by the bridge's outcome types, not by words in the error text."""

from __future__ import annotations

from firmware_bridge.dealer_types import CommandRefused, DealerError
from firmware_bridge.runner import LinkError
from table_daemon.adapters.devices import _summary_input, fault_kind
from table_daemon.controller import DealerFaultKind


def test_fault_kind_by_type() -> None:
    assert fault_kind(LinkError("/dev/ttyACM0: no reply to DEAL (jam?)")) is DealerFaultKind.LINK
    assert fault_kind(OSError("port gone")) is DealerFaultKind.LINK
    assert fault_kind(DealerError("this dealer deals only to a plan")) is DealerFaultKind.REFUSED
    assert fault_kind(CommandRefused(0x10, 3, "busy")) is DealerFaultKind.REFUSED


def test_summary_carries_the_reported_fault_names() -> None:
    done = _summary_input({"summary": True, "ok": False, "fouled": "jam", "hands": {},
                           "faults": [{"fault": "jam", "card_index": 40}, {"fault": "door_open"}, "junk"]})
    assert done.faults == ["jam", "door_open"] and not done.ok
