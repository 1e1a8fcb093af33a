"""Turn timers per profile, driven by the clock passed in (rules spec §6.7; 001 第六条, 003 十三)."""

from __future__ import annotations

from guandan.actions import give, play
from guandan.cards import parse_card, parse_cards
from guandan.deal import apply, start_deal
from guandan.deal_state import DealState
from guandan.effects import TimedOut
from guandan.profiles import PROFILES, Profile
from guandan.timers import deadline, tick

NAT, COMP, JS = PROFILES["national"], PROFILES["competitive-2017"], PROFILES["jiangsu"]
HANDS = {"S": "S9 S3 D7", "E": "S4 SK", "N": "S5 SQ", "W": "S6 SJ"}


def position(profile: Profile, t: float = 100.0) -> DealState:
    return start_deal(profile, 2, {s: parse_cards(c) for s, c in HANDS.items()}, leader="S", t=t,
                      full_pack=False)[0]


def test_first_lead_forty_then_twenty_five_seconds() -> None:
    st = position(COMP)
    assert deadline(st) == 140.0
    st, _ = apply(st, play("S", parse_cards("S3")), 110.0)
    assert deadline(st) == 135.0
    assert deadline(position(JS)) == 130.0 and deadline(position(NAT)) is None


def test_competitive_default_leads_the_smallest_single_then_passes() -> None:
    st = position(COMP)
    assert tick(st, 139.9) == (st, [])
    st, eff = tick(st, 140.0)
    assert eff[0].to_json() == {"kind": "timeout", "seat": "S", "action": {"seat": "S", "play": ["S3"]}}
    assert st.to_move == "E" and st.trick_cards == tuple(parse_cards("S3"))
    st, eff = tick(st, 140.0 + 25.0)
    assert isinstance(eff[0], TimedOut) and eff[0].action == {"seat": "E", "pass": True} and st.to_move == "N"


def test_alert_only_once_per_turn_where_the_time_out_is_a_warning() -> None:
    st = position(JS)
    st, eff = tick(st, 131.0)
    assert [e.to_json() for e in eff] == [{"kind": "slow_play", "seat": "S", "late_by": 1.0}] and st.to_move == "S"
    assert tick(st, 150.0) == (st, [])
    st, eff = tick(position(JS), 131.0, auto_seats={"S"})  # a software seat takes the automatic action
    assert eff[0].kind == "timeout" and st.to_move == "E"


def test_return_timer_of_forty_seconds() -> None:
    hands = {"S": parse_cards("SA S3 DK"), "E": parse_cards("ST"), "N": parse_cards("C4"), "W": parse_cards("SB")}
    st, _ = start_deal(JS, 2, hands, previous_finish=["S", "E", "N", "W"], full_pack=False)
    st, _ = apply(st, give("W", parse_card("SB")), 10.0)
    assert deadline(st) == 50.0
    st, eff = tick(st, 50.0)
    assert [e.to_json() for e in eff] == [{"kind": "slow_play", "seat": "S", "late_by": 0.0}]
    st, eff = tick(st, 50.0, auto_seats={"S"})
    assert eff[0].to_json() == {"kind": "timeout", "seat": "S", "action": {"seat": "S", "return": "S3"}}
    assert st.to_move == "W"
