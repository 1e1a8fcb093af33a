"""The host client against the simulated dealer over a real pty, with each fault switched on.

Every deal must be good or fouled with a reason, never wrong: a deal called good must match the plan both
in what the dealer reported and in what physically lies in the simulator's bins.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from firmware_bridge import CardRecord, DealerClient, DealOutcome, Notice, new_deal
from firmware_bridge.protocol import Fault, State
from hardware.dealers import open_dealer

SEATS = "SENW"


@contextmanager
def dealer(query: str, notices: list[Notice] | None = None) -> Iterator[DealerClient]:
    url = f"sim://?{query}" if "speed=" in query else f"sim://?speed=0&{query}"
    client = open_dealer(url, on_notice=(notices.append if notices is not None else None))
    try:
        yield client
    finally:
        client.close()


def read_faces(hand: list[str | None]) -> list[str]:
    """A reported hand whose every card's face was read."""
    faces = [code for code in hand if code is not None]
    assert len(faces) == len(hand), hand
    return faces


def deal_checked(client: DealerClient, n: int = 1) -> list[DealOutcome]:
    outcomes = []
    for board in range(1, n + 1):
        plan = new_deal(board)
        seen: list[CardRecord] = []
        outcome = client.deal(plan, on_card=seen.append, timeout=30)
        truth = client.sim.truth()
        assert [r.index for r in seen] == list(range(len(seen)))
        if outcome.ok:
            assert outcome.fouled is None
            for seat in SEATS:
                planned = sorted(c.code for c in plan.hands[seat])
                assert sorted(read_faces(outcome.hands[seat])) == planned, "reported hand differs from the plan"
                assert sorted(truth[seat]) == planned, "physical bin differs from the plan"
        else:
            assert isinstance(outcome.fouled, str) and outcome.fouled
        assert outcome.commitment == plan.commitment
        outcomes.append(outcome)
    return outcomes


def test_clean_deals() -> None:
    with dealer("seed=1") as client:
        outcomes = deal_checked(client, 3)
    assert all(o.ok for o in outcomes)
    assert all(len(o.cards) == 108 and o.faces_verified for o in outcomes)


def test_corrupted_and_lost_frames_are_recovered() -> None:
    with dealer("seed=2&corrupt=0.01&drop=0.02") as client:
        outcomes = deal_checked(client, 2)
        stats = client.sim.stats()
    assert all(o.ok for o in outcomes)
    assert sum(o.retransmits for o in outcomes) > 0 and stats["frames_lost"] > 0 and stats["bytes_corrupted"] > 0


def test_duplicated_and_delayed_frames_execute_commands_once() -> None:
    with dealer("seed=3&dup=0.3&delay=0.2") as client:
        outcomes = deal_checked(client, 2)
        stats = client.sim.stats()
    assert all(o.ok for o in outcomes)
    assert stats["duplicate_commands"] > 0  # answered from the reply cache


def test_jams_stalls_and_the_door_are_resumed() -> None:
    with dealer("seed=4&jam=0.02&stall=0.01&door=1") as client:
        outcomes = deal_checked(client, 2)
    assert all(o.ok for o in outcomes)
    kinds = {f["fault"] for o in outcomes for f in o.faults}
    assert {"jam", "door_open"} <= kinds
    assert all(o.recoveries >= 1 for o in outcomes)


def test_double_feeds_and_unreadable_cards_foul() -> None:
    with dealer("seed=5&double=0.02&misread=0.25") as client:
        outcomes = deal_checked(client, 3)
    for o in outcomes:
        kinds = {f["fault"] for f in o.faults}
        if kinds & {"double_feed", "unreadable"}:
            assert not o.ok and o.fouled is not None and o.fouled.startswith("count:")
    assert any(not o.ok for o in outcomes)


def test_short_deck_fouls_and_an_extra_card_is_rejected() -> None:
    with dealer("seed=6&short=1") as client:
        (short,) = deal_checked(client)
    assert not short.ok and short.fouled is not None and "short_deck" in short.fouled
    with dealer("seed=6&extra=1") as client:
        (extra,) = deal_checked(client)
        reject = client.sim.truth()["reject"]
    assert extra.ok and len(reject) == 1 and [f["fault"] for f in extra.faults] == ["third_copy"]


def test_a_reboot_mid_deal_fouls_it() -> None:
    notices: list[Notice] = []
    with dealer("seed=7&reset=1", notices) as client:
        (outcome,) = deal_checked(client)
        again = client.identify()
    assert not outcome.ok and outcome.fouled is not None and outcome.fouled.startswith("reset: dealer rebooted mid-deal")
    assert any(n.kind == "boot_changed" for n in notices)
    assert again.boot_id != outcome.boot_id and again.reset_cause in ("watchdog", "brown_out")


def test_unplugged_cable_reconnects_and_the_deal_carries_on() -> None:
    notices: list[Notice] = []
    with dealer("seed=8&unplug=1&unplug_s=0.3", notices) as client:
        outcomes = deal_checked(client, 2)
    assert all(o.ok for o in outcomes)
    kinds = [n.kind for n in notices]
    assert kinds.count("disconnected") == 2 and kinds.count("connected") == 3
    assert "reconnecting" in next(n.detail for n in notices if n.kind == "disconnected")


def test_long_unplug_stops_the_motors_then_resumes() -> None:
    with dealer("seed=9&unplug=1&unplug_s=1.8") as client:
        (outcome,) = deal_checked(client)
    assert outcome.ok and any(f["fault"] == "host_lost" for f in outcome.faults)


def test_emergency_stop_mid_deal_fouls() -> None:
    client = open_dealer("sim://?speed=20&seed=10")
    try:
        def stop_at_ten(record: CardRecord) -> None:
            if record.index == 10:
                client.emergency_stop()

        outcome = client.deal(new_deal(1), on_card=stop_at_ten, timeout=30)
        assert not outcome.ok and outcome.fouled is not None and outcome.fouled.startswith("estop")
        status = client.status()
        assert status.last_fault == Fault.ESTOP and status.state == State.ESTOP  # still latched
    finally:
        client.close()


def test_a_dealer_without_reader_deals_27_a_seat_unverified() -> None:
    with dealer("seed=11&faces=0") as client:
        info = client.identify()
        outcome = client.deal(None, timeout=30)
    assert not info.reads_faces and not info.deals_to_plan
    assert outcome.ok and not outcome.faces_verified and outcome.commitment is None
    assert all(len(outcome.hands[s]) == 27 and set(outcome.hands[s]) == {None} for s in SEATS)


def test_a_failing_card_callback_stops_the_dealer() -> None:
    with dealer("seed=12&speed=20") as client:
        def boom(record: CardRecord) -> None:
            if record.index == 5:
                raise RuntimeError("display crashed")

        try:
            client.deal(new_deal(1), on_card=boom, timeout=30)
        except RuntimeError:
            pass
        else:
            raise AssertionError("the callback's error must reach the caller")
        assert client.status().state == State.IDLE  # aborted, not dealing on
        assert deal_checked(client)[0].ok  # and the next deal works
