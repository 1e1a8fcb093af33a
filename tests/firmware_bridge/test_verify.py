"""Host-side judgement of a deal: good only when everything checks, else fouled with a reason."""

from __future__ import annotations

from typing import Any, cast

import pytest

from firmware_bridge.deal import DealPlan, new_deal
from firmware_bridge.messages import CardMsg, DealDone, FaultMsg
from firmware_bridge.protocol import Fault
from firmware_bridge.verify import DealVerifier

DEAL = 77


def perfect_cards(plan: DealPlan) -> list[CardMsg]:
    bins = plan.plan_bins()
    cards = []
    seen: dict[int, int] = {}
    order = [(face, copy) for face in range(54) for copy in range(2)]
    for index, (face, _) in enumerate(order):
        copy = seen.get(face, 0)
        seen[face] = copy + 1
        cards.append(CardMsg(DEAL, index, face, bins[2 * face + copy], 250, 1))
    return cards


def done_for(cards: list[CardMsg], complete: int = 1) -> DealDone:
    seats = [0, 0, 0, 0]
    reject = 0
    for c in cards:
        if c.bin == 4:
            reject += 1
        else:
            seats[c.bin] += 1
    return DealDone(DEAL, len(cards), tuple(seats), reject, complete)  # type: ignore[arg-type]


def judge(
    plan: DealPlan | None, cards: list[CardMsg], done: DealDone | None = None, **kw: Any
) -> tuple[DealVerifier, tuple[bool, str | None]]:
    v = DealVerifier(plan, 0xB007, **kw)
    for c in cards:
        v.card(c)
    return v, v.finish(done if done is not None else done_for(cards))


def test_a_perfect_deal_is_good_and_matches_the_plan() -> None:
    plan = new_deal(1)
    v, (ok, reason) = judge(plan, perfect_cards(plan))
    assert (ok, reason) == (True, None)
    hands = v.hands()
    # a reader dealer's cards all have faces (a None among the codes would make sorted raise, as before)
    assert {s: sorted(cast("list[str]", hands[s])) for s in hands} \
        == {s: sorted(c.code for c in plan.hands[s]) for s in "SENW"}
    assert v.cards[0].to_json() == {"index": 0, "card": "S2", "seat": v.cards[0].seat, "quality": 0.98}


def test_a_rejected_card_fouls_on_counts_with_the_fault_named() -> None:
    plan = new_deal(1)
    cards = perfect_cards(plan)
    victim = cards[40]
    cards[40] = CardMsg(DEAL, 40, 0xFF, 4, 30, 3)
    v = DealVerifier(plan, 1)
    for c in cards:
        v.card(c)
    v.fault(FaultMsg(DEAL, Fault.UNREADABLE, 40, "no confident read"))
    ok, reason = v.finish(done_for(cards))
    seat = "SENW"[victim.bin]
    assert not ok and reason is not None and reason.startswith(f"count: {seat} got 26 cards") \
        and "unreadable at card 40" in reason


def test_an_extra_third_copy_in_the_reject_bin_is_fine() -> None:
    plan = new_deal(1)
    cards = perfect_cards(plan) + [CardMsg(DEAL, 108, 5, 4, 250, 1)]
    assert judge(plan, cards)[1] == (True, None)


@pytest.mark.parametrize(
    ("damage", "prefix"),
    [
        ("swap_bins", "plan"),
        ("low_quality", "quality"),
        ("gap", "sequence"),
        ("wrong_totals", "report"),
        ("incomplete", "incomplete"),
        ("missing_done", "incomplete"),
        ("unread_in_seat", "faces"),
    ],
)
def test_each_kind_of_damage_fouls(damage: str, prefix: str) -> None:
    plan = new_deal(1)
    cards = perfect_cards(plan)
    done = None
    if damage == "swap_bins":  # two cards of different seats exchanged: counts and faces still fine
        i = next(k for k in range(1, 108) if cards[k].bin != cards[0].bin)
        a, b = cards[0], cards[i]
        cards[0] = CardMsg(DEAL, 0, a.face, b.bin, 250, 1)
        cards[i] = CardMsg(DEAL, i, b.face, a.bin, 250, 1)
    elif damage == "low_quality":
        c = cards[9]
        cards[9] = CardMsg(DEAL, 9, c.face, c.bin, 100, 1)
    elif damage == "gap":
        cards = [CardMsg(DEAL, c.index + (c.index >= 50), c.face, c.bin, c.quality, 1) for c in cards]
    elif damage == "wrong_totals":
        done = DealDone(DEAL, 108, (27, 27, 27, 26), 1, 1)
    elif damage == "incomplete":
        done = done_for(cards, complete=0)
    elif damage == "unread_in_seat":
        c = cards[3]
        cards[3] = CardMsg(DEAL, 3, 0xFF, c.bin, 0, 1)
    v = DealVerifier(plan, 1)
    for c in cards:
        v.card(c)
    ok, reason = v.finish(None if damage == "missing_done" else (done or done_for(cards)))
    assert not ok and reason is not None and reason.startswith(prefix), reason


def test_counts_and_faces_checked_in_that_order() -> None:
    plan = new_deal(1)
    cards = perfect_cards(plan)
    c = cards[0]
    cards[0] = CardMsg(DEAL, 0, (c.face + 1) % 54, c.bin, 250, 1)  # a face read wrongly but confidently
    ok, reason = judge(plan, cards)[1]
    assert not ok and reason is not None and reason.startswith("faces: not every card exactly twice")


def test_boot_change_fouls_whatever_the_cards_say() -> None:
    plan = new_deal(1)
    v = DealVerifier(plan, 0x1111)
    assert not v.boot_seen(0x1111)
    assert v.boot_seen(0x2222)
    for c in perfect_cards(plan):
        v.card(c)
    ok, reason = v.finish(done_for(perfect_cards(plan)))
    assert not ok and reason == "reset: dealer rebooted mid-deal (boot id 00001111 -> 00002222)"


def test_a_dealer_without_reader_is_checked_for_counts_only() -> None:
    cards = [CardMsg(DEAL, i, 0xFF, i % 4, 0, 0) for i in range(108)]
    v, (ok, reason) = judge(None, cards, reads_faces=False)
    assert ok and reason is None
    assert v.hands()["S"] == [None] * 27
    v, (ok, reason) = judge(None, cards[:-1], reads_faces=False)
    assert not ok and reason is not None and reason.startswith("count: W got 26")
