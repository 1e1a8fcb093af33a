"""The table plays the match by the engine's match machine (rules §8, §9), setting by setting: a deal still in
play when match time runs out is stopped under ``time_up_deal = "stop"`` and played out under ``play_out``;
``deal_points = "one_to_three"`` reports the 3/2/1 totals; a first-lead card no seat holds is a loud fault,
never a guess. Pure controller tests: the time comes with every input."""

from __future__ import annotations

from guandan import SEATS, partner, team_of
from table_daemon.controller import Command, DealerCard, DealerDone, Reply, Tick

from .harness import Harness, hands_with


def _timed(time_up_deal: str) -> Harness:
    h = Harness(seed=3)
    h.start_match(profile={"name": f"timed-{time_up_deal}", "time_up_deal": time_up_deal},
                  match_end={"method": "time", "minutes": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    assert h.c.phase == "playing"
    for _ in range(6):
        h.bot_step()
    assert h.c.phase == "playing" and h.state.plays_made > 0
    return h


def test_time_up_stops_the_deal_in_play_under_stop() -> None:
    h = _timed("stop")
    h.send(Tick(), dt=61.0)
    (up,) = h.of("events", "time_up")
    assert up["deal_in_play"] is True and up["deal"] == 1 and up["time_up_deal"] == "stop"
    (void,) = h.of("events", "deal_void")
    assert void["deal"] == 1 and "time is up" in void["reason"] and "比赛时间到" in void["reason"]
    assert h.of("results", "deal_result") == []  # stopped and not counted
    (result,) = h.of("results", "match_result")
    assert result["reason"] == "time" and result["deals"] == 0 and result["winner"] is None
    assert h.c.phase == "match_over" and h.c.deal is None
    reply = h.send(Command("start_deal", {}))[-1]
    assert isinstance(reply, Reply) and reply.ok is False  # no deal after the match ended


def test_time_up_plays_the_deal_out_under_play_out() -> None:
    h = _timed("play_out")
    h.send(Tick(), dt=61.0)
    (up,) = h.of("events", "time_up")
    assert up["deal_in_play"] is True and up["time_up_deal"] == "play_out"
    assert h.c.phase == "playing" and h.of("events", "deal_void") == []
    h.play_out()
    (record,) = h.of("results", "deal_result")
    (result,) = h.of("results", "match_result")
    assert result["reason"] == "time" and result["deals"] == 1
    assert result["levels"] == record["result"]["levels_after"]


def test_time_up_between_deals_decides_the_match_at_once() -> None:
    h = Harness(seed=4)
    h.start_match(match_end={"method": "time", "minutes": 60})
    h.send(Command("start_deal", {}))
    h.flush()
    h.play_out()
    assert h.c.phase == "deal_over" and h.of("results", "match_result") == []
    h.send(Tick(), dt=3600.0)
    (result,) = h.of("results", "match_result")
    assert result["reason"] == "time" and result["deals"] == 1
    assert h.of("events", "time_up")[0]["deal_in_play"] is False


def _points(finish: list[str]) -> tuple[str, int]:
    first = finish[0]
    mate = finish.index(partner(first))
    return team_of(first), {1: 3, 2: 2, 3: 1}[mate]


def test_one_to_three_reports_the_deal_point_totals() -> None:
    h = Harness(auto_deal=True, seed=9)
    h.start_match(profile={"name": "group-1-3", "deal_points": "one_to_three", "fixed_level": "2"},
                  match_end={"method": "deals", "deals": 3})
    for _ in range(20000):
        if h.c.phase == "match_over":
            break
        assert h.bot_step(), f"stuck in {h.c.phase}"
    totals = {"NS": 0, "EW": 0}
    for over in h.of("events", "deal_over"):
        team, gained = _points(over["finish"])
        totals[team] += gained
    assert sum(totals.values()) >= 3
    (result,) = h.of("results", "match_result")
    assert result["deal_points"] == totals
    assert result["level_points"] == {t: float(v) for t, v in totals.items()}
    expected = None if totals["NS"] == totals["EW"] else max(totals, key=totals.__getitem__)
    assert result["winner"] == expected  # the match goes by the totals, not the levels


def test_first_dealt_card_decides_the_leader() -> None:
    hands = hands_with(11, {"W": "H3", "E": "H3"})
    h = Harness("competitive-2017", hands=[hands])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.pending.clear()
    h.send(DealerCard(0, "S4", "S"))
    h.send(DealerCard(1, "H3", "E"))
    h.send(DealerCard(2, "H3", "W"))
    h.send(DealerDone(True, None, hands, "c0ffee"))
    assert h.c.phase == "playing" and h.state.leader == "E"


def test_no_seat_holding_the_first_lead_card_is_a_fault_not_a_guess() -> None:
    hands = hands_with(12, {"S": "H4 H4"})
    for seat in SEATS:  # the two H3 become H4 (a pack the dealer got wrong): nobody was dealt H3
        hands[seat] = ["H4" if x == "H3" else x for x in hands[seat]]
    h = Harness("competitive-2017", hands=[hands])
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    (alert,) = h.alerts("dealer_fault")
    assert "H3" in alert["message"] and "无人持有首出牌" in alert["message"]
    assert alert["evidence"]["first_lead"] == "first_dealt:H3"
    (void,) = h.of("events", "deal_void")
    assert "H3" in void["reason"]
    assert h.c.phase == "idle" and h.c.deal is None and h.of("events", "play_started") == []


def test_the_desks_knockout_start_plays_on_to_a_winner() -> None:
    """The desk starts a knockout round's matches with its profile and ``knockout``: equal at the end, the table
    plays one more deal (004 加赛一局) instead of ending the match in a draw."""
    h = Harness()
    h.send(Command("start_match", {"profile": {"base": "national", "knockout": True},
                                   "match_end": {"method": "deals", "deals": 1}}, token="k"))
    reply = [e for e in h.effects if isinstance(e, Reply)][-1]
    assert reply.ok and h.c.match.profile.knockout and h.c.profile.name == "national"
