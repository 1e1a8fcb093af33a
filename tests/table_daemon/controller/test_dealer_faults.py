"""Dealer faults told apart by their typed kind (``DealerFaultKind``) and the fault names the dealer reported,
never by a word in an error text."""

from __future__ import annotations

from table_daemon.controller import Command, DealerDone, DealerFault, DealerFaultKind

from .harness import Harness, hands_with


def _dealing() -> Harness:
    h = Harness()
    h.start_match()
    h.send(Command("start_deal", {}))
    h.pending.clear()
    assert h.c.phase == "dealing"
    return h


def test_a_jam_is_a_dealer_jam_and_voids_the_deal() -> None:
    h = _dealing()
    h.send(DealerFault(DealerFaultKind.JAM, "card path blocked at seat E"))
    (alert,) = h.alerts()
    assert alert["code"] == "dealer_jam" and alert["evidence"]["reason"] == "jam"
    assert h.of("events", "deal_void") and h.c.phase == "idle"


def test_the_kind_decides_not_the_words() -> None:
    h = _dealing()
    h.send(DealerFault(DealerFaultKind.LINK, "no reply after the jam sensor test"))
    (alert,) = h.alerts()
    assert alert["code"] == "dealer_fault" and alert["evidence"]["reason"] == "link"


def test_a_deal_fouled_after_a_jam_says_so() -> None:
    h = _dealing()
    hands = hands_with(3)
    h.send(DealerDone(False, "jam: the deal could not go on", hands, faults=["door_open", "jam"]))
    (alert,) = h.alerts()
    assert alert["code"] == "dealer_jam" and alert["evidence"]["faults"] == ["door_open", "jam"]
    h2 = _dealing()
    h2.send(DealerDone(False, "third copy of SA", hands, faults=["third_copy"]))
    assert [a["code"] for a in h2.alerts()] == ["dealer_fault"]
