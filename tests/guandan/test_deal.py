"""The deal state machine (rules spec §6–§7): turns, tricks, 借风, going out, the end, reports, typed refusals."""

from __future__ import annotations

from typing import Any

import pytest

from guandan.actions import Action, give, pass_turn, play, report, return_card
from guandan.cards import parse_card, parse_cards
from guandan.combinations import Reading
from guandan.deal import OVER, PLAYING, RETURNING, apply, check_action, start_deal
from guandan.deal_state import DealState
from guandan.effects import EngineEffect, Given, Reported, TributePlanned
from guandan.errors import AmbiguousPlayError, GuandanError, IllegalPlayError, InvalidPlayError
from guandan.profiles import PROFILES, Profile, profile_with

NAT = PROFILES["national"]
COMP = PROFILES["competitive-2017"]


def position(profile: Profile = NAT, level: int = 2, /, leader: str = "S", **hands: str) -> DealState:
    state, effects = start_deal(profile, level, {s: parse_cards(hands.get(s, "")) for s in "SENW"},
                                leader=leader, full_pack=False)
    return state


def run(state: DealState, *steps: tuple[str, str | None]) -> tuple[DealState, list[EngineEffect]]:
    """Apply steps like ("S", "C3 C4") or ("E", None) for a pass; return the state and all effects."""
    effects: list[EngineEffect] = []
    for i, (seat, cards) in enumerate(steps):
        action = pass_turn(seat) if cards is None else play(seat, parse_cards(cards))
        state, more = apply(state, action, float(i + 1))
        effects += more
    return state, effects


def kinds(effects: list[EngineEffect], kind: str) -> list[dict[str, Any]]:
    """The effects of one kind in their JSON form (:meth:`EngineEffect.to_json`)."""
    return [e.to_json() for e in effects if e.kind == kind]


def test_turns_go_s_e_n_w_and_a_passed_seat_may_play_again() -> None:
    st = position(S="S3 S9 D2", E="S4 SK", N="S5 SQ", W="S6 SJ")
    assert st.to_move == "S" and st.leading
    st, eff = run(st, ("S", "S3"), ("E", "S4"), ("N", None), ("W", "S6"), ("S", "S9"), ("E", None), ("N", "SQ"))
    assert st.to_move == "W" and st.trick_reading == Reading("single", 12, 1)
    st, eff = run(st, ("W", None), ("S", None), ("E", None))  # three passes in a row: N led the trick
    assert st.to_move == "N" and st.leading
    assert kinds(eff, "trick_end") == [{"kind": "trick_end", "winner": "N", "leader": "N"}]


@pytest.mark.parametrize(
    ("action", "reason", "error"),
    [
        (play("E", parse_cards("S4")), "not_your_turn", IllegalPlayError),
        (play("S", parse_cards("S5")), "not_held", IllegalPlayError),
        (play("S", parse_cards("S3 S3")), "not_held", IllegalPlayError),
        (play("S", parse_cards("S3 S9")), "not_a_combination", InvalidPlayError),
        (pass_turn("S"), "must_lead", IllegalPlayError),
        (report("N"), "wrong_report", IllegalPlayError),
    ],
)
def test_typed_refusals_leave_the_state_unchanged(action: Action, reason: str, error: type[GuandanError]) -> None:
    st = position(S="S3 S9 D2", E="S4 SK", N="S5 SQ S6 S7 S8 SJ SK C2 C3 C4 C5", W="S6 SJ")
    with pytest.raises(error) as info:
        apply(st, action, 1.0)
    assert info.value.reason == reason
    assert st.to_move == "S" and len(st.hand("S")) == 3 and st.actions() == []


def test_does_not_beat_same_type_and_size_only() -> None:
    st, _ = run(position(S="S9 D2", E="S4 S5 SK", N="S7", W="S8"), ("S", "S9"))
    assert check_action(st, play("E", parse_cards("S4")), 2.0) == "does_not_beat"
    st, _ = run(position(S="S9 D9 D2", E="S4 S5 SK", N="S7", W="S8"), ("S", "S9 D9"))
    assert check_action(st, play("E", parse_cards("SK")), 2.0) == "does_not_beat"


def test_ambiguous_under_declare_and_strongest_otherwise() -> None:
    cards = "C6 H6 H2 SK DK"  # 6 6 wild K K: the layout fits both 666+KK and KKK+66
    with pytest.raises(AmbiguousPlayError) as info:
        run(position(COMP, S=cards + " D3", E="S4"), ("S", cards))
    assert info.value.reason == "ambiguous"
    st = position(COMP, S=cards + " D3", E="S4")
    st, eff = apply(st, play("S", parse_cards(cards), Reading("full_house", 6, 5)), 1.0)
    assert kinds(eff, "play")[0]["reading"] == {"type": "full_house", "rank": "6", "size": 5}
    st, eff = run(position(NAT, S=cards + " D3", E="S4"), ("S", cards))
    assert kinds(eff, "play")[0]["reading"]["rank"] == "K"


def test_under_declare_a_play_with_one_legal_reading_needs_no_declaration() -> None:
    """deal-record.md: "under declare, a play that still has two legal readings is an error". E led QQQ+33 and
    S's 66 wild KK (666+KK or KKK+66) beats it only as KKK+66: the engine and `rules replay` asked for a
    declaration all the same."""
    cards = "S6 C6 H2 SK DK"
    st, eff = run(position(COMP, leader="E", E="SQ DQ CQ S3 C3 D4", N="S5", W="S8", S=cards + " D3"),
                  ("E", "SQ DQ CQ S3 C3"), ("N", None), ("W", None), ("S", cards))
    assert kinds(eff, "play")[-1]["reading"] == {"type": "full_house", "rank": "K", "size": 5}
    # over a trick neither reading beats, the play does not beat it (not "ambiguous")
    with pytest.raises(GuandanError) as info:
        run(position(COMP, leader="E", E="SA DA CA S3 C3 D4", N="S5", W="S8", S=cards + " D3"),
            ("E", "SA DA CA S3 C3"), ("N", None), ("W", None), ("S", cards))
    assert info.value.reason == "does_not_beat"


def test_a_declared_reading_the_cards_do_not_admit_is_said_as_such() -> None:
    """Not "these cards form no combination": they form one, only not the one declared."""
    st = position(NAT, S="C6 H6 D3", E="S4")
    with pytest.raises(InvalidPlayError, match=r"declared reading .* is not one these cards admit") as info:
        apply(st, play("S", parse_cards("C6 H6"), Reading("single", 6, 1)), 1.0)
    assert info.value.reason == "not_a_combination"
    with pytest.raises(InvalidPlayError, match="form no combination"):
        apply(st, play("S", parse_cards("C6 D3"), Reading("pair", 6, 2)), 1.0)


def test_jiefeng_partner_leads_after_going_out() -> None:
    hands = {"S": "SA", "E": "S3 S4", "N": "S5 S6", "W": "S7 S8"}
    st, eff = run(position(**hands), ("S", "SA"), ("E", None), ("N", None), ("W", None))
    assert st.finished == ("S",) and st.to_move == "N"
    assert kinds(eff, "jiefeng") == [{"kind": "jiefeng", "seat": "N"}]
    off = profile_with(NAT, {"jiefeng": False})
    st, _ = run(position(off, **hands), ("S", "SA"), ("E", None), ("N", None), ("W", None))
    assert st.to_move == "E"  # the next seat in play order that holds cards


def test_double_down_ends_the_deal() -> None:
    st, eff = run(position(S="SA", E="S3 S4", N="SK", W="S7 S8"),
                  ("S", "SA"), ("E", None), ("N", None), ("W", None), ("N", "SK"))
    assert st.phase == OVER and st.finish_order() == ["S", "N"]
    assert kinds(eff, "deal_over") == [{"kind": "deal_over", "finish": ["S", "N"]}]
    with pytest.raises(GuandanError) as info:
        apply(st, play("E", parse_cards("S3")), 9.0)
    assert info.value.reason == "deal_over"


def test_three_out_ends_the_deal_with_the_last_seat_fourth() -> None:
    st, _ = run(position(S="SA", E="SK", N="S3 S4", W="S2 S5"),
                ("S", "SA"), ("E", None), ("N", None), ("W", None),  # 借风: N leads
                ("N", "S3"), ("W", "S5"), ("E", "SK"))
    assert st.finished == ("S", "E")
    st, eff = run(st, ("N", None), ("W", None))  # E went out on the last play: its partner W leads
    assert st.to_move == "W" and kinds(eff, "jiefeng") == [{"kind": "jiefeng", "seat": "W"}]
    st, _ = run(st, ("W", "S2"))
    assert st.phase == OVER and st.finish_order() == ["S", "E", "W", "N"]


def test_ten_card_report_once_per_deal_auto_and_player() -> None:
    twelve = "S3 S4 S5 S6 S7 S8 S9 D3 D4 D5 D6 D7"
    st, eff = run(position(COMP, S=twelve, E="SA SK", N="H3", W="H4"), ("S", "S3 D3"))
    assert kinds(eff, "report") == [{"kind": "report", "seat": "S", "count": 10, "auto": True}]
    st, eff = run(st, ("E", None), ("N", None), ("W", None), ("S", "S5"))
    assert kinds(eff, "report") == []  # once per deal
    st, eff = run(position(NAT, S=twelve, E="SA SK", N="H3", W="H4"), ("S", "S3 D3"))
    assert kinds(eff, "report_due") == [{"kind": "report_due", "seat": "S", "count": 10}]
    late, eff = run(st, ("E", None), ("N", None), ("W", None), ("S", "S5"))
    assert kinds(eff, "foul") == [{"kind": "foul", "what": "missing_report", "seat": "S"}]
    st, eff = apply(st, report("S"), 1.5)
    assert [e.to_json() for e in eff] == [{"kind": "report", "seat": "S", "count": 10, "auto": False}]
    with pytest.raises(IllegalPlayError):  # 000: no second report
        apply(st, report("S"), 1.6)
    js = PROFILES["jiangsu"]  # 随问随报: answers again
    st, _ = run(position(js, S=twelve, E="SA SK", N="H3", W="H4"), ("S", "S3 D3"))
    st, _ = apply(st, report("S"), 2.0)
    again = apply(st, report("S"), 3.0)[1][0]
    assert isinstance(again, Reported) and again.count == 10


def test_tribute_return_and_leader_through_the_machine() -> None:
    hands = {"S": parse_cards("SA S3 S4"), "E": parse_cards("SK ST"), "N": parse_cards("D4"),
             "W": parse_cards("SB H2 C9")}
    st, eff = start_deal(NAT, 2, hands, previous_finish=["N", "E", "S", "W"], full_pack=False)
    assert eff[0].to_json()["payments"] == [{"from": "W", "to": "N", "candidates": ["SB"]}]
    assert st.to_move is None
    with pytest.raises(IllegalPlayError) as info:
        apply(st, give("W", parse_card("H2")), 1.0)  # a heart level card is never the tribute
    assert info.value.reason == "wrong_tribute"
    assert check_action(st, give("S", parse_card("SA")), 1.0) == "not_your_turn"
    st, eff = apply(st, give("W", parse_card("SB")), 1.0)
    assert st.phase == RETURNING and st.hand("N") == tuple(parse_cards("D4 SB"))
    assert check_action(st, return_card("N", parse_card("SA")), 2.0) == "not_held"
    st2, _ = apply(st, return_card("N", parse_card("SB")), 2.0)
    assert st2.phase == PLAYING and st2.to_move == "W" and st2.hand("W") == tuple(parse_cards("H2 C9 SB"))


def test_return_to_partner_is_limited() -> None:
    hands = {"S": parse_cards("SA SK S3"), "E": parse_cards("ST"), "N": parse_cards("SB D4"),
             "W": parse_cards("C9")}
    st, _ = start_deal(NAT, 2, hands, previous_finish=["S", "E", "W", "N"], full_pack=False)
    st, _ = apply(st, give("N", parse_card("SB")), 1.0)
    assert check_action(st, return_card("S", parse_card("SK")), 2.0) == "wrong_return"
    st, _ = apply(st, return_card("S", parse_card("S3")), 2.0)
    assert st.to_move == "N"


def test_bad_deals_are_refused() -> None:
    with pytest.raises(IllegalPlayError) as info:
        start_deal(NAT, 2, {s: parse_cards("SA") for s in "SENW"}, leader="S", full_pack=False)
    assert info.value.reason == "bad_deal"
    with pytest.raises(IllegalPlayError, match="27"):
        start_deal(NAT, 2, {"S": parse_cards("SA"), "E": [], "N": [], "W": []}, leader="S")


def test_winner_chooses_lets_upstream_take_either_equal_card() -> None:
    choose = profile_with(NAT, {"tie_tribute": "winner_chooses"})
    hands = {"S": parse_cards("S3 S4"), "E": parse_cards("SA C5"), "N": parse_cards("D6"),
             "W": parse_cards("DA C7")}
    st, eff = start_deal(choose, 2, hands, previous_finish=["S", "N"], full_pack=False)
    assert isinstance(eff[0], TributePlanned) and eff[0].leader == "E"  # by default 上游 takes its 下家's card
    st, eff = apply(st, give("W", parse_card("DA"), to="S"), 1.0)  # 上游 S takes W's card instead
    assert eff[0].to_json() == {"kind": "give", "seat": "W", "to": "S", "card": "DA"}
    assert check_action(st, give("E", parse_card("SA"), to="S"), 1.5) == "wrong_tribute"
    st, eff = apply(st, give("E", parse_card("SA")), 2.0)
    assert isinstance(eff[0], Given) and eff[0].to == "N"
    st, _ = apply(st, return_card("S", parse_card("S3")), 3.0)
    st, _ = apply(st, return_card("N", parse_card("D6")), 4.0)
    assert st.to_move == "W"  # the giver of the card 上游 took leads
