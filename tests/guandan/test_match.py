"""Matches across deals: end methods, draws, knockout play-on, time limits, first lead (rules spec §7–§8)."""

from __future__ import annotations

import pytest

from guandan.cards import parse_card, parse_cards
from guandan.effects import MatchOver
from guandan.match import clock, deal_finished, first_leader, new_match, next_setup, round_winner
from guandan.profiles import PROFILES, profile_with

NAT = PROFILES["national"]


def test_pass_a_match_levels_and_tribute_setup() -> None:
    m = new_match(NAT)
    setup = next_setup(m)
    assert (setup.number, setup.level, setup.played, setup.previous_finish) == (1, 2, "NS", None)
    for finish in (["E", "W"], ["E", "W"], ["E", "W"], ["E", "W"]):  # 2 -> 5 -> 8 -> J -> A
        m, eff = deal_finished(m, finish, 10.0)
    assert m.levels_json() == {"NS": "2", "EW": "A"} and not m.over
    setup = next_setup(m)
    assert (setup.level, setup.played, setup.previous_finish) == (14, "EW", ("E", "W"))
    m, eff = deal_finished(m, ["W", "N", "E", "S"], 20.0)
    assert m.over and m.winner == "EW" and m.end_reason == "pass_a"
    over = eff[-1]
    assert over.kind == "match_over" and isinstance(over, MatchOver) \
        and over.result["scores"]["EW"] == {"match_points": 2.0, "level_points": 26}
    with pytest.raises(ValueError):
        next_setup(m)


def test_deals_limit_draw_and_knockout_play_on() -> None:
    p = profile_with(NAT, {"match_end": "deals", "match_deals": 2})
    m = new_match(p)
    m, _ = deal_finished(m, ["S", "E", "W", "N"], 1.0)  # NS 3
    m, eff = deal_finished(m, ["E", "S", "N", "W"], 2.0)  # EW 3 (played at NS's level)
    over = eff[-1]
    assert m.over and m.draw and m.winner is None and isinstance(over, MatchOver) \
        and over.result["scores"]["NS"]["match_points"] == 1.0
    k = profile_with(p, {"knockout": True})
    m = new_match(k)
    m, _ = deal_finished(m, ["S", "E", "W", "N"], 1.0)
    m, eff = deal_finished(m, ["E", "S", "N", "W"], 2.0)
    assert not m.over and m.play_on and eff[-1].kind == "extra_deal"
    m, eff = deal_finished(m, ["N", "E", "S", "W"], 3.0)
    assert m.over and m.winner == "NS" and m.levels_json() == {"NS": "5", "EW": "3"}


@pytest.mark.parametrize(("rule", "over_at_once"), [("play_out", False), ("stop", True)])
def test_time_limit_during_a_deal(rule: str, over_at_once: bool) -> None:
    p = profile_with(PROFILES["jiangsu"], {"time_up_deal": rule})
    m = new_match(p, t=0.0)
    m, _ = deal_finished(m, ["S", "E", "W", "N"], 600.0)
    assert clock(m, 2999.0, deal_in_play=True) == (m, [])
    m, eff = clock(m, 3000.0, deal_in_play=True)
    assert m.over is over_at_once and eff[0].to_json() == {"kind": "time_up"}
    if rule == "stop":
        assert eff[1].to_json() == {"kind": "stop_deal"} and m.winner == "NS"
    else:
        m, eff = deal_finished(m, ["E", "W"], 3100.0)  # played out and counted: EW 2 -> 5
        assert m.over and m.winner == "EW" and m.end_reason == "time"


def test_one_to_three_group_play() -> None:
    p = profile_with(NAT, {"fixed_level": "2", "deal_points": "one_to_three", "match_end": "deals",
                           "match_deals": 2, "knockout": True})
    m = new_match(p)
    m, _ = deal_finished(m, ["S", "N"], 1.0)  # NS 3
    assert next_setup(m).level == 2
    m, _ = deal_finished(m, ["E", "N", "W", "S"], 2.0)  # EW 2: NS ahead 3-2
    assert m.over and m.winner == "NS" and m.result()["scores"]["NS"]["deal_points"] == 3


def test_first_leader_rules() -> None:
    hands = {"S": parse_cards("D3"), "E": parse_cards("H3"), "N": parse_cards("H3"), "W": []}
    comp = PROFILES["competitive-2017"]
    assert first_leader(comp, hands) == "E"
    seq = [("N", parse_card("H3")), ("E", parse_card("H3"))]
    assert first_leader(comp, hands, deal_sequence=seq) == "N"
    assert first_leader(NAT, hands, turned_seat="W") == "W"
    assert first_leader(profile_with(NAT, {"first_lead": "seat:N"}), hands) == "N"
    with pytest.raises(ValueError):
        first_leader(NAT, hands)


def test_best_of_three() -> None:
    assert round_winner(["NS", "EW"], 3) is None
    assert round_winner(["NS", "EW", "NS"], 3) == "NS"
    assert round_winner(["EW"], 1) == "EW"


def test_time_or_deals_whichever_first_and_pass_a_ends_any_match() -> None:
    p = profile_with(NAT, {"match_end": "time_or_deals", "match_deals": 3, "match_minutes": 60})
    m = new_match(p, t=0.0)
    for i, finish in enumerate((["S", "E", "W", "N"], ["E", "S", "W", "N"], ["S", "E", "N", "W"])):
        m, _ = deal_finished(m, finish, 60.0 * (i + 1))
    assert m.over and m.end_reason == "deals" and m.winner == "NS" and m.levels_json() == {"NS": "5", "EW": "4"}
    m = new_match(p, t=0.0)
    m, _ = deal_finished(m, ["S", "E", "W", "N"], 3600.0)
    assert m.over and m.end_reason == "time"
    t = profile_with(PROFILES["jiangsu"], {})
    m = new_match(t)
    for _ in range(4):
        m, _ = deal_finished(m, ["N", "S"], 1.0)
    m, _ = deal_finished(m, ["N", "W", "S", "E"], 2.0)
    assert m.over and m.end_reason == "pass_a" and m.winner == "NS"
