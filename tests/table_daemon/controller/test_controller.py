"""The pure table controller: whole matches, fouls with evidence, declarations, reports, timers, commands."""

from __future__ import annotations

from typing import Any

import pytest

from guandan import SEATS, next_seat, replay
from guandan import actions as act
from guandan import deal as engine
from table_daemon.controller import CardsSeen, Command, DealerDone, Press, Reply, Tick, Timing, ZoneCleared

from .harness import Harness, error_of, hands_with

PUBLIC = ("events", "state", "alerts")


def _replies(h: Harness) -> list[Reply]:
    return [e for e in h.effects if isinstance(e, Reply)]


def test_whole_match_by_card_readings_gives_replayable_records_and_no_hidden_hand() -> None:
    h = Harness(auto_deal=True, seed=5)
    h.start_match(match_end={"method": "deals", "deals": 3})
    for _ in range(5000):
        if h.c.phase == "match_over":
            break
        assert h.bot_step(), f"stuck in {h.c.phase}"
    assert h.c.phase == "match_over"
    records = h.of("results", "deal_result")
    assert [r["deal"] for r in records] == [1, 2, 3]
    for r in records:
        assert r["format"] == "guandan-deal/1"
        answer = replay(r)
        assert answer["ok"], answer["first_error"]
        assert r["result"]["levels_after"] == answer["levels_after"]
    assert records[1]["tribute"] or any(e["kind"] == "resisted" for e in records[1]["events"]) or \
        records[1]["previous_finish"]
    (match,) = h.of("results", "match_result")
    assert match["id"] == "ev/T9/m1" and match["levels"] == records[-1]["result"]["levels_after"]
    assert set(match["match_points"]) == {"NS", "EW"}
    for p in h.published:
        if p.topic in PUBLIC:
            assert "hands" not in p.payload, p.payload["type"]
    assert h.alerts() == []
    assert h.of("private/hands")  # the referees' topic has them


def _leader_game(profile: str = "national", fixed: dict[str, str] | None = None, **kw: Any) -> Harness:
    h = Harness(profile, hands=[hands_with(7, fixed)], **kw)
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    assert h.c.phase == "playing"
    return h


def test_fouls_become_alerts_with_evidence_and_change_nothing() -> None:
    h = _leader_game()
    st = h.state
    leader = h.to_move
    other = next_seat(leader)
    h.send(CardsSeen(other, [st.hand(other)[0].code], 0.99, frame=41))
    (alert,) = h.alerts("out_of_turn")
    assert alert["seat"] == other and alert["evidence"]["frame"] == 41
    assert alert["evidence"]["seen"] == [st.hand(other)[0].code]
    foreign = next(c for c in st.hand(other) if c not in st.hand(leader))
    h.send(CardsSeen(leader, [foreign.code], 0.99995, frame=42))  # first taken for a misread held card
    h.send(CardsSeen(leader, [foreign.code], 0.99995, frame=43))  # the same again: the foul
    assert [a["evidence"]["frame"] for a in h.alerts("misread")] == [42]
    assert h.alerts("not_held")[0]["evidence"]["frame"] == 43
    h.send(CardsSeen(leader, [st.hand(leader)[0].code], 0.3, frame=44))
    assert h.alerts("misread")[1]["evidence"]["confidence"] == 0.3
    h.send(CardsSeen(leader, ["XX"], 0.99, frame=45))
    assert len(h.alerts("misread")) == 3
    assert h.state is st  # nothing changed
    assert all(a["message"] for a in h.alerts())


def test_illegal_plays_and_exposed_cards() -> None:
    h = _leader_game(fixed={"S": "H3 D9", "W": "S4"}, )
    h.deal.state = engine.begin_play(h.state, "S", h.now)  # S leads
    h.send(CardsSeen("S", ["H3", "D9"]))  # not a combination
    assert h.alerts("illegal_play")
    h.send(CardsSeen("S", ["D9"]))
    assert h.state.to_move == "E"
    h.send(CardsSeen("S", ["D9", "H3"]))  # the play still lies there and one more card shows
    assert h.alerts("exposed_card")
    h.send(ZoneCleared("S"))
    h.send(Press("E", "pass"))
    h.send(Press("N", "pass"))
    h.send(CardsSeen("W", ["S4"]))  # a 4 does not beat a 9
    assert "does not beat" in h.alerts("illegal_play")[-1]["message"]
    h.send(Press("S", "pass"))  # not S's turn
    assert h.alerts("out_of_turn")


def test_ambiguous_wild_play_waits_for_a_declaration() -> None:
    h = _leader_game("competitive-2017", fixed={"S": "H3 SK DK H6 C6 H2"})
    assert h.state.to_move == "S"  # first_dealt:H3
    h.send(CardsSeen("S", ["SK", "DK", "H6", "C6", "H2"], frame=7))
    (ask,) = h.of("events", "declare_needed")
    assert [c["rank"] for c in ask["candidates"]] == ["K", "6"]
    assert h.state.to_move == "S" and h.of("state")[-1]["pending_declaration"]["seat"] == "S"
    h.send(Command("declare", {"seat": "E", "reading": ask["candidates"][1]}, token="a"))
    assert _replies(h)[-1].ok is False
    h.send(Command("declare", {"seat": "S", "reading": ask["candidates"][1]}, token="b"))
    assert _replies(h)[-1].ok is True
    (play,) = h.of("events", "play")
    assert play["reading"] == {"type": "full_house", "rank": "6", "size": 5}


def test_order_decides_under_strongest_unless_declared_and_confirm_button_takes_first() -> None:
    h = _leader_game("national", fixed={"S": "SK DK H6 C6 H2"})
    h.deal.state = engine.begin_play(h.state, "S", h.now)
    h.send(CardsSeen("S", ["SK", "DK", "H6", "C6", "H2"]))
    assert h.of("events", "play")[0]["reading"]["rank"] == "K"
    h2 = _leader_game("competitive-2017", fixed={"S": "H3 SK DK H6 C6 H2"})
    h2.send(CardsSeen("S", ["SK", "DK", "H6", "C6", "H2"]))
    h2.send(Press("S", "confirm"))
    assert h2.of("events", "play")[0]["reading"]["rank"] == "K"


@pytest.mark.parametrize("profile", ["national", "competitive-2017"])
def test_a_laid_out_reading_that_does_not_beat_is_asked_about_never_replaced(profile: str) -> None:
    """W leads 777+33; S lays H2 S6 C6 SK DK: the wild at the left says 666+KK (rules §5), which does not beat it.
    The table took KKK+66 in silence and published it as the seat's declared reading. It asks the seat now; the
    seat's answer is a declaration, and the record replays."""
    h = _leader_game(profile, fixed={"W": "S7 D7 C7 S3 C3", "S": "H2 S6 C6 SK DK"})
    h.deal.state = engine.begin_play(h.state, "W", h.now)
    h.send(CardsSeen("W", ["S3", "C3", "S7", "D7", "C7"]))
    assert h.of("events", "play")[0]["reading"] == {"type": "full_house", "rank": "7", "size": 5}
    h.send(CardsSeen("S", ["H2", "S6", "C6", "SK", "DK"]))
    (ask,) = h.of("events", "declare_needed")
    assert ask["seat"] == "S" and ask["candidates"] == [{"type": "full_house", "rank": "K", "size": 5}]
    assert len(h.of("events", "play")) == 1 and not h.alerts("illegal_play")
    h.send(Press("S", "confirm"))  # the first reading offered
    assert h.of("events", "play")[1]["reading"] == {"type": "full_house", "rank": "K", "size": 5}


def test_missing_report_is_a_foul() -> None:
    h = Harness(seed=3, hands=[hands_with(11)])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    for _ in range(3000):
        st = h.c.deal.state if h.c.deal else None
        if st is None or st.over:
            break
        seat = st.to_move
        assert seat is not None
        action = h.bots[seat].choose(st, seat)
        if action.kind == act.REPORT:  # this player forgets to report
            st2, _ = engine.apply(st, action, h.now)
            action = h.bots[seat].choose(st2, seat)
        h.do(action)
    alerts = h.alerts("missing_report")
    assert alerts and alerts[0]["seat"] in SEATS
    assert any(e["what"] == "missing_report" for e in h.of("results", "deal_result")[0]["events"])


def test_timer_warning_and_slow_play() -> None:
    h = _leader_game(timing=Timing(play_seconds=20, first_lead_seconds=10, warn_before=3))
    seat = h.state.to_move
    h.send(Tick(), dt=5)
    assert not h.of("events", "timer_warning")
    h.send(Tick(), dt=3)
    assert h.of("events", "timer_warning")[0]["seat"] == seat
    h.send(Tick(), dt=3)
    assert h.alerts("slow_play")[0]["seat"] == seat
    h.send(Tick(), dt=3)
    assert len(h.alerts("slow_play")) == 1  # once per turn


def test_a_physical_seat_is_never_played_for_when_its_time_runs_out() -> None:
    """competitive-2017's time-out action (001: lead the smallest single, else pass) is for seats played by
    software (rules §6.7). The table played S3 for a player whose S3 was still in his hand, and said nothing."""
    h = _leader_game("competitive-2017")
    seat = h.to_move
    left = len(h.state.hand(seat))
    h.send(Tick(), dt=41)  # past the 40 s of the first lead
    assert h.alerts("slow_play")[0]["seat"] == seat
    assert not h.of("events", "timeout") and not h.of("events", "play")
    assert len(h.state.hand(seat)) == left and h.state.to_move == seat
    # a seat played by software still takes the automatic action (001)
    h2 = _leader_game("competitive-2017")
    h2.c.software_seats = tuple(SEATS)
    h2.send(Tick(), dt=41)
    assert h2.of("events", "timeout") and not h2.alerts("slow_play")


def test_commands_reply_and_refuse_without_changing_anything() -> None:
    h = Harness()
    h.send(Command("start_deal", {}, token="1"))
    assert _replies(h)[-1].ok is False and "start_match" in error_of(_replies(h)[-1])
    h.send(Command("nonsense", {}, token="2"))
    assert "unknown command" in error_of(_replies(h)[-1])
    h.send(Command("start_match", {"match_end": {"method": "sometimes"}}, token="3"))
    assert _replies(h)[-1].ok is False and h.c.phase == "idle" and not h.c.match_active
    h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1}}, error="payload is not JSON"))
    assert _replies(h)[-1].ok is False and not h.c.match_active



@pytest.mark.parametrize(("teams", "named"), [
    ({"NS": {"name": 5, "players": "bad"}}, "teams"),  # one team, a number for a name (the audit's command)
    ({"NS": {"name": "红队"}, "EW": "蓝队"}, "teams.EW"),
    ({"NS": {"name": "红队"}, "EW": {"name": ""}}, "teams.EW.name"),
    ({"NS": {"name": "红队", "players": "甲 乙"}, "EW": {"name": "蓝队"}}, "teams.NS.players"),
    ({"NS": {"name": "红队", "players": {"E": "甲"}}, "EW": {"name": "蓝队"}}, "teams.NS.players"),
    ({"NS": {"name": "红队"}, "EW": {"name": "蓝队", "players": {"E": ["甲"]}}}, "teams.EW.players.E"),
    ({"NS": {"name": "红队"}, "EW": {"name": "蓝队"}, "XX": {}}, "teams"),
    ("红队 vs 蓝队", "teams"),
])
def test_a_start_with_malformed_teams_is_refused_and_starts_nothing(teams: object, named: str) -> None:
    h = Harness()
    h.send(Command("start_match", {"teams": teams, "match_end": {"method": "deals", "deals": 1}}, token="t"))
    reply = _replies(h)[-1]
    assert reply.ok is False and named in error_of(reply) and not h.c.match_active
    assert h.c.phase == "idle" and not h.of("state") and not h.of("events")


def test_a_start_with_well_formed_teams_keeps_the_desks_extra_keys() -> None:
    h = Harness()
    teams = {"NS": {"name": "红队", "unit": "南京", "id": 3, "players": {"N": "甲", "S": ""}},
             "EW": {"name": "蓝队", "players": {"E": "丙", "W": "丁"}}}
    h.send(Command("start_match", {"teams": teams, "match_end": {"method": "deals", "deals": 1}}, token="t"))
    assert _replies(h)[-1].ok and h.c.match_active and h.of("state")[-1]["teams"] == teams


def test_referee_undo_pause_and_penalties() -> None:
    h = _leader_game()
    st = h.state
    leader = h.to_move
    card = st.hand(leader)[0]
    h.send(CardsSeen(leader, [card.code]))
    assert h.state.to_move != leader
    h.send(Command("correct", {"action": "undo_last"}, token="x"))
    assert _replies(h)[-1].ok is False and "referee" in error_of(_replies(h)[-1])
    h.send(Command("correct", {"action": "undo_last", "role": "referee", "reason": "wrong card"}, token="y"))
    assert _replies(h)[-1].ok
    assert h.state.to_move == leader and card in h.state.hand(leader)
    play_ref = next(p.ref for p in h.published if p.payload["type"] == "play")
    correction = next(p for p in h.published if p.payload["type"] == "correction")
    assert correction.replaces_ref == play_ref
    h.send(Command("pause", {}))
    assert h.c.phase == "paused"
    h.send(CardsSeen(leader, [card.code]))
    assert h.alerts("out_of_turn") and h.state.to_move == leader
    fouls = len(h.alerts("out_of_turn"))
    other = next(s for s in "SENW" if s != leader)
    h.send(Command("pass", {"seat": other}, token="p"))  # a screen's pass while paused: refused, no foul (was one)
    assert not _replies(h)[-1].ok and "paused" in error_of(_replies(h)[-1]) and len(h.alerts("out_of_turn")) == fouls
    h.send(Command("resume", {}))
    assert h.c.phase == "playing"
    for _ in range(2):
        h.send(Command("penalty", {"team": "NS", "kind": "warning", "role": "referee"}))
    assert h.of("events", "penalty")[-1]["applied"] == ["warning", "violation"]
    h.send(Command("penalty", {"seat": "E", "kind": "forfeit", "role": "referee"}))
    assert h.c.phase == "match_over" and h.of("results", "match_result")[0]["winner"] == "NS"


def test_fouled_deal_is_reported_and_dealt_again() -> None:
    h = Harness(auto_deal=True)
    h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1}}))
    h.pending.clear()
    dealer_calls = len([e for e in h.effects if type(e).__name__ == "DealerDo"])
    h.send(DealerDone(False, "seat N got 26 cards", {"S": [], "E": [], "N": [], "W": []}))
    assert h.alerts("dealer_fault")[0]["evidence"]["fouled"] == "seat N got 26 cards"
    assert len([e for e in h.effects if type(e).__name__ == "DealerDo"]) == dealer_calls + 1
    assert h.of("events", "deal_void")


def test_wrong_tribute_card_is_refused() -> None:
    h = Harness(auto_deal=True, seed=2)
    h.start_match(match_end={"method": "deals", "deals": 2})
    for _ in range(3000):
        st = h.c.deal.state if h.c.deal else None
        if h.c.deal and h.c.deal.number == 2 and st is not None:
            break
        h.bot_step()
    st = h.state
    assert st.phase == engine.TRIBUTE  # seed 2 gives a tribute (not 抗贡)
    giver = st.pending_gives()[0]
    assert st.plan is not None
    allowed = {c.code for c in st.plan.payments[0].candidates}
    wrong = next(c.code for c in st.hand(giver) if c.code not in allowed)
    h.send(CardsSeen(giver, [wrong]))
    assert h.alerts("wrong_tribute")[0]["seat"] == giver
    assert h.state.pending_gives() == st.pending_gives()


def test_an_unsure_tribute_card_is_chosen_by_what_is_owed() -> None:
    """The tribute card read unsurely as a card that may not be given, its runner-up the card owed: the table
    takes the owed card (as it chooses a play by the hand); with no owed card among the candidates, the giver
    lays it again and nobody is accused."""
    h = Harness(auto_deal=True, seed=2)
    h.start_match(match_end={"method": "deals", "deals": 2})
    for _ in range(3000):
        if h.c.deal and h.c.deal.number == 2 and h.c.deal.state is not None:
            break
        h.bot_step()
    st = h.state
    assert st.phase == engine.TRIBUTE
    giver = st.pending_gives()[0]
    assert st.plan is not None
    allowed = {c.code for c in st.plan.payments[0].candidates}
    wrong = next(c.code for c in st.hand(giver) if c.code not in allowed)
    other = next(c.code for c in st.hand(giver) if c.code not in allowed and c.code != wrong)
    h.send(CardsSeen(giver, [wrong], 0.5, candidates=[[(wrong, 0.5), (other, 0.4)]]))
    assert not h.alerts("wrong_tribute") and len(h.alerts("misread")) == 1
    owed_card = sorted(allowed)[0]
    h.send(CardsSeen(giver, [wrong], 0.5, candidates=[[(wrong, 0.5), (owed_card, 0.49)]]))
    assert not h.alerts("wrong_tribute") and len(h.alerts("misread")) == 1
    assert giver not in h.state.pending_gives() or h.deal.tribute_held.get(giver)


def test_a_refusal_is_said_in_chinese_too_and_a_refused_pass_says_why() -> None:
    h = _leader_game()
    leader = h.to_move
    other = next(s for s in "SENW" if s != leader)
    h.send(Command("pass", {"seat": other}, token="o"))  # a pass out of turn, by a seat's screen
    (alert,) = h.alerts("out_of_turn")
    assert alert["message"].startswith("未轮到该座位 | ") and "turn" in alert["message"]
    assert (_replies(h)[-1].error or "") == alert["message"]
    h.send(Command("pass", {"seat": leader}, token="p"))
    reply = _replies(h)[-1]
    assert not reply.ok and (reply.error or "").startswith("须领出，不能不出 | ")


def test_after_three_fouled_deals_the_table_says_it_waits_for_a_referee() -> None:
    h = Harness(auto_deal=True)
    h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1}}))
    h.pending.clear()
    for _ in range(3):
        h.send(DealerDone(False, "jam", {"S": [], "E": [], "N": [], "W": []}))
    (gave_up,) = h.alerts("dealer_gave_up")
    assert "start_deal" in gave_up["message"] and "已停止自动发牌" in gave_up["message"]
    assert h.c.deal is None and h.c.match_active
    assert [a["message"].split(" | ")[0] for a in h.alerts("dealer_fault")] == [
        "发牌错误，本副作废，重新发牌", "发牌错误，本副作废，重新发牌", "发牌错误，本副作废"]


def test_a_refused_report_command_says_why_and_accuses_no_one() -> None:
    """``report`` is a referee's confirmation of a report made by voice (mqtt-api.md): refused, it is only the
    reply, with the rules engine's reason; no wrong_report foul, nothing in the deal's record."""
    h = _leader_game()
    seat = h.to_move
    events = list(h.deal.events)
    h.send(Command("report", {"seat": seat, "role": "referee"}, token="r"))
    reply = _replies(h)[-1]
    assert not reply.ok and " | " in (reply.error or "") and reply.error != "report refused"
    assert not h.alerts("wrong_report") and not h.alerts()
    assert h.deal.events == events  # the deal record's fouls and faults: none added
