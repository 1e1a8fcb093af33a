"""上游's choice of tribute card under ``tie_tribute = "winner_chooses"`` (rules §7): the table asks 上游 once both
equal tribute cards lie face up, takes the answer from its seat buttons or the ``declare`` command, applies
the default when the turn timer runs out, and the choice reaches the deal record (``tribute[*].to``) and
replays."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from typing import Any

from guandan import SEATS, full_pack, replay
from guandan import deal as engine
from table_daemon.controller import CardsSeen, Command, Light, Press, Reply, Tick, Timing

from .harness import Harness, error_of

CHOOSE = {"name": "open-choice", "tie_tribute": "winner_chooses"}


def tie_hands(seed: int) -> dict[str, list[str]]:
    """A deal at level 2 where E and W (the losers after S, N went out first) hold no joker and no 2, and
    their highest cards are SA and HA: an equal double tribute."""
    rng = random.Random(seed)
    pack = [c.code for c in full_pack()]
    rng.shuffle(pack)
    low = [x for x in pack if x[1] not in "2AB" and x[0] not in "BR" and x not in ("SB", "HR")]
    hands = {"E": ["SA", *low[:26]], "W": ["HA", *low[26:52]]}
    rest = list(pack)
    for x in hands["E"] + hands["W"]:
        rest.remove(x)
    hands["S"], hands["N"] = rest[:27], rest[27:]
    return hands


def _tribute_deal(timing: Timing | None = None) -> Harness:
    """The table after a deal that S then N won (双下 of E and W), dealing the tie."""
    h = Harness(hands=[tie_hands(3)], seed=6, timing=timing)
    h.start_match(match_end={"method": "deals", "deals": 1}, profile=CHOOSE)
    assert h.c.profile.tie_tribute == "winner_chooses"
    h.c.match = replace(h.c.match, deals=1, last_finish=("S", "N", "E", "W"))  # as after a 双下 by S and N
    h.send(Command("start_deal", {}))
    h.flush()
    st = h.state
    assert st.phase == engine.TRIBUTE and st.plan is not None and st.plan.winner_chooses and sorted(st.pending_gives()) == ["E", "W"]
    return h


def _lay_both(h: Harness) -> dict[str, Any]:
    h.send(CardsSeen("E", ["SA"]))
    assert h.deal.tribute_choice is None and h.of("state")[-1]["tribute"]["laid"] == {"E": "SA"}
    assert h.of("state")[-1]["tribute"]["pending"] == ["W"]
    effects = h.send(CardsSeen("W", ["HA"]))
    assert not h.state.given  # nothing goes to the engine before 上游 has chosen
    (ask,) = h.of("events", "tribute_choice_needed")
    assert ask["seat"] == "S" and ask["cards"] == {"E": "SA", "W": "HA"} and ask["default"] == "E"
    assert ask["buttons"] == {"pass": "E", "confirm": "W"} and "上游" in ask["text"] and "chooses" in ask["text"]
    assert h.turns[-1].seat == "S" and h.turns[-1].asked == "choose_tribute"
    assert Light("S", "turn", True) in effects and Light("E", "turn", True) not in effects
    public = h.of("state")[-1]["tribute_choice"]
    assert isinstance(public, dict)
    assert public["seat"] == "S" and public["cards"] == {"E": "SA", "W": "HA"} and public["text"] == ask["text"]
    return public


def _finish(h: Harness) -> dict[str, Any]:
    h.play_out()
    (record,) = h.of("results", "deal_result")
    answer = replay(record)
    assert answer["ok"], answer["first_error"]
    assert answer["levels_after"] == record["result"]["levels_after"]
    return record


def test_confirm_button_takes_the_other_card_and_the_record_replays() -> None:
    h = _tribute_deal()
    _lay_both(h)
    h.send(Press("N", "confirm"))  # only 上游 chooses
    assert h.deal.tribute_choice is not None
    h.send(Press("S", "confirm"))
    st = h.state
    assert h.deal.tribute_choice is None and st.phase == engine.RETURNING
    assert [(g, r, x.code) for g, r, x in st.given] == [("W", "S", "HA"), ("E", "N", "SA")]
    assert st.leader == "W"  # the payer of 上游 leads
    assert h.of("events", "tribute_chosen")[0] == {"type": "tribute_chosen", "deal": 2, "seat": "S",
                                                   "tribute_from": "W", "card": "HA", "how": "button:confirm"}
    assert h.of("state")[-1]["tribute_choice"] is None
    record = _finish(h)
    assert record["tribute"] == [{"from": "W", "to": "S", "card": "HA"}, {"from": "E", "to": "N", "card": "SA"}]
    assert record["leader"] == "W"
    swapped = copy.deepcopy(record)  # the receivers (``to``) are checked: S returned its card to W, not E
    swapped["tribute"] = [{"from": "W", "to": "N", "card": "HA"}, {"from": "E", "to": "S", "card": "SA"}]
    assert replay(swapped)["first_error"]["reason"] == "wrong_return"


def test_pass_button_takes_the_default_card() -> None:
    h = _tribute_deal()
    _lay_both(h)
    h.send(Press("S", "pass"))
    assert [(g, r) for g, r, _ in h.state.given] == [("E", "S"), ("W", "N")]
    record = _finish(h)
    assert record["tribute"][0] == {"from": "E", "to": "S", "card": "SA"} and record["leader"] == "E"


def test_declare_command_chooses_and_refuses_bad_answers() -> None:
    h = _tribute_deal()
    h.send(Command("declare", {"seat": "S", "tribute_from": "W"}, token="early"))
    _lay_both(h)
    h.send(Command("declare", {"seat": "N", "tribute_from": "W"}, token="n"))
    h.send(Command("declare", {"seat": "S", "tribute_from": "N"}, token="x"))
    h.send(Command("declare", {"seat": "S", "tribute_from": "W"}, token="ok"))
    replies = {e.token: e for e in h.effects if isinstance(e, Reply)}
    assert not replies["early"].ok and "no tribute choice" in error_of(replies["early"])
    assert not replies["n"].ok and "S chooses" in error_of(replies["n"])
    assert not replies["x"].ok and "tribute_from must be E or W" in error_of(replies["x"])
    assert replies["ok"].ok
    assert h.of("events", "tribute_chosen")[0]["how"] == "command"
    record = _finish(h)
    assert record["tribute"][0] == {"from": "W", "to": "S", "card": "HA"}


def test_time_out_takes_the_default() -> None:
    h = _tribute_deal(Timing(play_seconds=20, warn_before=5))
    _lay_both(h)
    assert h.of("state")[-1]["tribute_choice"]["deadline"] is not None
    h.send(Tick(), dt=10)
    assert not h.of("events", "timer_warning") and h.deal.tribute_choice is not None
    h.send(Tick(), dt=6)
    assert h.of("events", "timer_warning")[0]["seat"] == "S"
    h.send(Tick(), dt=5)
    assert h.of("events", "timeout")[0] == {"type": "timeout", "deal": 2, "seat": "S",
                                            "action": {"tribute_from": "E"}}
    assert [(g, r) for g, r, _ in h.state.given] == [("E", "S"), ("W", "N")]
    assert h.of("events", "tribute_chosen")[0]["how"] == "timeout"
    _finish(h)


def test_a_wrong_tribute_card_is_refused_before_the_choice() -> None:
    h = _tribute_deal()
    low = next(x for x in h.state.hand("E") if x.code != "SA")
    h.send(CardsSeen("E", [low.code]))
    assert h.alerts("wrong_tribute")[0]["seat"] == "E" and not h.deal.tribute_held
    assert all(s in SEATS for s in h.state.pending_gives())


def test_start_match_profile_names_and_settings() -> None:
    h = Harness()
    h.send(Command("start_match", {"profile": {"tie_tribute": "sometimes"}}, token="a"))
    h.send(Command("start_match", {"profile": "nope"}, token="b"))
    replies = {e.token: e for e in h.effects if isinstance(e, Reply)}
    assert not replies["a"].ok and "tie_tribute" in error_of(replies["a"])
    assert not replies["b"].ok and "unknown profile" in error_of(replies["b"])
    assert h.c.profile.name == "national" and not h.c.match_active
    h.start_match(profile={"base": "jiangsu", **CHOOSE}, match_end={"method": "deals", "deals": 1})
    assert h.c.profile.name == "open-choice" and h.c.profile.tie_tribute == "winner_chooses"
    assert h.c.profile.return_limit == "below_level_to_partner"  # from the base
