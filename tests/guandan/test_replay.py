"""Deal records (deal-record.md) and replay: good records pass; corrupted ones fail at the right place with
the right reason."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest

from guandan.bot import Bot, deal_hands, play_out
from guandan.cards import SEATS, partner, team_of
from guandan.levels import parse_team_level
from guandan.profiles import PROFILES, Profile
from guandan.record import build_record
from guandan.replay import replay

NAT = PROFILES["national"]


def make_record(finish: tuple[str, ...] | None = ("S", "E", "N", "W"), seed: int = 11, level: str = "9",
                profile: Profile = NAT) -> dict[str, Any]:
    rng = random.Random(seed)
    state = play_out(profile, parse_team_level(level), deal_hands(rng), Bot(seed),
                     previous_finish=list(finish) if finish else None, leader="S")
    played = team_of(finish[0]) if finish else "NS"  # the previous deal's 上游 plays its level (rules §2)
    before = {played: parse_team_level(level), "EW" if played == "NS" else "NS": parse_team_level("4")}
    meta = {"event": "e1", "table": "T07", "match": 3, "deal": 5}
    record = build_record(state, levels_before=before, played=played, previous_finish=list(finish) if finish else None,
                          meta=meta)
    out = json.loads(json.dumps(record))
    assert isinstance(out, dict)
    return out


def test_record_fields_and_clean_replay() -> None:
    rec = make_record()
    for key in ("format", "event", "table", "match", "deal", "profile", "levels_before", "played", "level",
                "first_lead", "hands", "tribute", "returns", "leader", "actions", "result", "events"):
        assert key in rec
    assert rec["format"] == "guandan-deal/1" and rec["level"] == "9" and rec["tribute"][0]["from"] == "W"
    assert all(len(rec["hands"][s]) == 27 for s in SEATS)
    assert rec["actions"][0]["seat"] == rec["leader"] == "W" and "t" in rec["actions"][0]
    answer = replay(rec)
    assert answer == {"ok": True, "first_error": None, "finish": rec["result"]["finish"],
                      "levels_after": rec["result"]["levels_after"]}
    rec["unknown_field"] = {"kept": True}  # unknown fields are ignored
    del rec["previous_finish"]  # inferred from the tribute
    assert replay(rec)["ok"]


@pytest.mark.parametrize("finish", [("S", "N"), ("E", "W"), None])
def test_double_tribute_and_first_deal_records_replay(finish: tuple[str, str] | None) -> None:
    rec = make_record(finish=finish, seed=5)
    assert replay(rec)["ok"]
    rec.pop("previous_finish")
    assert replay(rec)["ok"]


def first_error(rec: object) -> tuple[int, str]:
    """Where and why ``rec`` (any JSON value, as a file may hold) fails to replay."""
    answer = replay(rec)
    assert not answer["ok"]
    return answer["first_error"]["index"], answer["first_error"]["reason"]


def test_card_played_twice_fails_at_that_action() -> None:
    rec = make_record()
    dealt = {s: Counter(rec["hands"][s]) for s in SEATS}
    got = {t["to"]: t["card"] for t in rec["tribute"] + rec["returns"]}
    plays = [(i, a) for i, a in enumerate(rec["actions"]) if "play" in a]
    for i, a in plays:
        card = a["play"][0]
        if dealt[a["seat"]][card] != 1 or got.get(a["seat"]) == card:
            continue
        later = [(j, b) for j, b in plays if j > i and b["seat"] == a["seat"] and len(b["play"]) == 1]
        if later:
            j, b = later[0]
            b["play"] = [card]
            assert first_error(rec) == (j, "not_held")
            return
    pytest.fail("no suitable play in the record")  # pragma: no cover


def test_play_out_of_turn() -> None:
    rec = make_record()
    i = 5
    rec["actions"][i]["seat"] = partner(rec["actions"][i]["seat"])
    assert first_error(rec) == (i, "not_your_turn")


def test_an_action_that_is_both_a_play_and_a_pass_is_refused() -> None:
    rec = make_record()
    i = next(i for i, a in enumerate(rec["actions"]) if "play" in a)
    rec["actions"][i]["pass"] = True  # which happened? the record must say
    index, reason = first_error(rec)
    assert index == i and reason == "bad_action"


def test_play_that_does_not_beat_or_is_no_combination() -> None:
    rec = make_record()
    i = next(i for i, a in enumerate(rec["actions"]) if i > 0 and "play" in a and len(a["play"]) == 1
             and "play" in rec["actions"][i - 1])
    bad = copy.deepcopy(rec)
    hand_cards = set(bad["hands"][bad["actions"][i]["seat"]])
    bad["actions"][i]["play"] = [c for c in ["S2", "H2", "C2", "D2"] if c in hand_cards][:1] or ["S2"]
    assert first_error(bad)[0] == i
    assert first_error(bad)[1] in ("does_not_beat", "not_held")


def test_wrong_tribute_and_wrong_return() -> None:
    rec = make_record()
    giver = rec["tribute"][0]["from"]
    low = min(rec["hands"][giver], key=lambda c: "23456789TJQKA".find(c[1]) if c not in ("SB", "HR") else 99)
    bad = copy.deepcopy(rec)
    bad["tribute"][0]["card"] = low
    assert first_error(bad) == (-1, "wrong_tribute")
    assert replay(bad)["first_error"]["field"] == "tribute[0]"
    bad = copy.deepcopy(rec)
    bad["tribute"][0]["to"] = "W"
    assert first_error(bad) == (-1, "wrong_tribute")
    bad = copy.deepcopy(rec)
    bad["leader"] = "S"
    assert first_error(bad) == (-1, "wrong_leader")
    # a return to a partner above 10: E (上游) returns to ... use a record where 下游 is 上游's partner
    rec = make_record(finish=("S", "E", "W", "N"), seed=12)
    returner = rec["returns"][0]["from"]
    hand = rec["hands"][returner] + [rec["tribute"][0]["card"]]
    high = [c for c in hand if c[1:] in ("J", "Q", "K", "A") or c in ("SB", "HR")]
    bad = copy.deepcopy(rec)
    bad["returns"][0]["card"] = high[0]
    assert first_error(bad) == (-1, "wrong_return")


def test_header_errors_name_the_field() -> None:
    rec = make_record()
    bad = copy.deepcopy(rec)
    del bad["hands"]
    answer = replay(bad)
    assert answer["first_error"]["reason"] == "missing_field" and answer["first_error"]["field"] == "hands"
    bad = copy.deepcopy(rec)
    bad["hands"]["S"][0] = bad["hands"]["E"][0]
    assert first_error(bad) == (-1, "bad_deal")
    bad = copy.deepcopy(rec)
    bad["level"] = "T"
    assert first_error(bad) == (-1, "wrong_level")
    bad = copy.deepcopy(rec)
    bad["profile"] = "mars"
    assert first_error(bad) == (-1, "bad_profile")
    assert first_error([1, 2]) == (-1, "bad_record")


def test_unfinished_deal_and_wrong_result() -> None:
    rec = make_record()
    bad = copy.deepcopy(rec)
    bad["actions"] = bad["actions"][:-3]
    assert first_error(bad) == (len(bad["actions"]), "deal_not_finished")
    bad = copy.deepcopy(rec)
    bad["result"]["levels_after"] = {"NS": "A", "EW": "2"}
    assert first_error(bad) == (len(bad["actions"]), "wrong_result")
    bad = copy.deepcopy(rec)
    bad["result"]["finish"] = list(reversed(bad["result"]["finish"]))
    assert first_error(bad) == (len(bad["actions"]), "wrong_result")
    bad = copy.deepcopy(rec)
    bad["actions"].append({"seat": "S", "pass": True, "t": 999})
    assert first_error(bad) == (len(bad["actions"]) - 1, "deal_over")


def test_referee_entries_take_back_and_penalty() -> None:
    rec = make_record()
    k = next(i for i, a in enumerate(rec["actions"]) if "play" in a and i > 3)
    again = copy.deepcopy(rec["actions"][k])
    rec["actions"][k + 1:k + 1] = [{"referee": "take_back", "seat": again["seat"], "t": 1.0}, again,
                                   {"referee": "penalty", "kind": "warning", "team": "NS"}]
    assert replay(rec)["ok"]


def _error(rec: object) -> tuple[int, str, str | None]:
    """Where, why and on which field ``rec`` fails to replay."""
    answer = replay(rec)
    assert not answer["ok"], "the record replayed as ok"
    e = answer["first_error"]
    return e["index"], e["reason"], e.get("field")


def _set(path: str, value: Any) -> Any:
    """A change to a record: set the field at dotted ``path`` (``result.up``) to ``value``."""
    def change(rec: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = rec
        for key in parents:
            target = target[key]
        target[last] = value
    return change


def _drop(path: str) -> Any:
    """A change to a record: remove the field at dotted ``path``."""
    def change(rec: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = rec
        for key in parents:
            target = target[key]
        del target[last]
    return change


# every field of ``result`` that deal-record.md defines is compared with what the replay computes
# (make_record(): S then N went out, a 双下: NS won 3 up at its own 9 and goes to Q, EW stays at 4)
WRONG_RESULTS = [
    ("winner EW for NS", _set("result.winner", "EW"), "wrong_result", "result.winner"),
    ("winner not a team", _set("result.winner", 7), "wrong_result", "result.winner"),
    ("up one too many", _set("result.up", 4), "wrong_result", "result.up"),
    ("up as text", _set("result.up", "3"), "wrong_result", "result.up"),
    ("up as a boolean", _set("result.up", True), "wrong_result", "result.up"),
    ("levels_after wrong", _set("result.levels_after", {"NS": "J", "EW": "4"}), "wrong_result",
     "result.levels_after"),
    ("levels_after not an object", _set("result.levels_after", "Q/4"), "wrong_result", "result.levels_after"),
    ("match_winner when the match goes on", _set("result.match_winner", "EW"), "wrong_result",
     "result.match_winner"),
    ("finish wrong", _set("result.finish", ["N", "S"]), "wrong_result", "result.finish"),
    ("result not an object", _set("result", "x"), "bad_record", "result"),
    ("result a list", _set("result", ["E", "W"]), "bad_record", "result"),
    ("result empty", _set("result", {}), "missing_field", "result.finish"),
    ("result without winner", _drop("result.winner"), "missing_field", "result.winner"),
    ("result without up", _drop("result.up"), "missing_field", "result.up"),
    ("result without levels_after", _drop("result.levels_after"), "missing_field", "result.levels_after"),
]


@pytest.mark.parametrize(("change", "reason", "field"), [c[1:] for c in WRONG_RESULTS],
                         ids=[c[0] for c in WRONG_RESULTS])
def test_every_result_field_is_checked(change: Any, reason: str, field: str) -> None:
    rec = make_record()
    assert rec["result"]["winner"] == "NS" and rec["result"]["up"] == 3 and replay(rec)["ok"]
    change(rec)
    assert _error(rec) == (len(rec["actions"]), reason, field)


@pytest.mark.parametrize("change", [_drop("result"), _set("result", None), _drop("result.match_winner"),
                                    _set("result.failed_a", "not checked"), _set("result.note", {"kept": 1}),
                                    _set("result.finish", ["S", "N", "W", "E"])],
                         ids=["no result", "result null", "no match_winner while the match goes on",
                              "failed_a is not a field the spec defines", "unknown field", "losers' order after a 双下"])
def test_result_that_is_absent_or_right_replays(change: Any) -> None:
    rec = make_record()
    change(rec)
    assert replay(rec)["ok"]


def test_match_winner_is_required_when_the_deal_ends_the_match() -> None:
    rec = make_record(level="A", seed=1)  # NS, at A and playing its A, goes out first with partner not last
    assert rec["result"]["match_winner"] == "NS" and replay(rec)["ok"]
    for change in (_set("result.match_winner", None), _drop("result.match_winner"),
                   _set("result.match_winner", "EW")):
        bad = copy.deepcopy(rec)
        change(bad)
        assert _error(bad) == (len(bad["actions"]), "wrong_result", "result.match_winner")


@pytest.mark.parametrize("field", ["levels_before", "played", "tribute", "returns"])
def test_a_missing_required_field_is_named(field: str) -> None:
    rec = make_record()
    del rec[field]
    assert _error(rec) == (-1, "missing_field", field)
    assert field in replay(rec)["first_error"]["message"]


@pytest.mark.parametrize(("change", "field"), [
    (_set("played", None), "played"), (_set("played", "NE"), "played"), (_set("levels_before", None),
                                                                           "levels_before"),
    (_set("levels_before", {"NS": "9"}), "levels_before"), (_set("tribute", None), "tribute"),
    (_set("returns", "C3"), "returns"),
], ids=["played null", "played not a team", "levels_before null", "levels_before without EW", "tribute null",
        "returns not a list"])
def test_a_required_field_with_a_bad_value_is_named(change: Any, field: str) -> None:
    rec = make_record()
    change(rec)
    assert _error(rec) == (-1, "bad_record", field)


@pytest.mark.parametrize("field", ["first_lead", "events", "event", "table", "match", "deal", "previous_finish"])
def test_fields_replay_does_not_need_may_be_missing(field: str) -> None:
    rec = make_record()
    del rec[field]
    assert replay(rec)["ok"]


def test_empty_tribute_when_none_was_due() -> None:
    rec = make_record(finish=None, seed=5)  # the first deal of a match: nobody pays tribute
    assert rec["tribute"] == [] and rec["returns"] == [] and replay(rec)["ok"]


@pytest.mark.parametrize("t", ["abc", "1.9", None, False, [], {}])
def test_an_action_time_that_is_not_a_number_is_that_actions_error(t: Any) -> None:
    """deal-record.md: ``t`` is seconds since the deal started. A play's, a pass's or a referee entry's ``t`` that
    is not a number is a malformed field of that action (``bad_action``, as a bad seat or play is); a whole
    number is a number, and an action without ``t`` still replays."""
    for i in (0, 1):
        rec = make_record()
        rec["actions"][i]["t"] = t
        answer = replay(rec)
        assert not answer["ok"] and answer["first_error"]["index"] == i
        assert answer["first_error"]["reason"] == "bad_action" and answer["first_error"]["field"] == f"actions[{i}].t"
    rec = make_record()
    rec["actions"].insert(2, {"referee": "penalty", "kind": "warning", "seat": "S", "t": t})
    assert first_error(rec) == (2, "bad_action")


def test_whole_and_missing_action_times_replay() -> None:
    rec = make_record()
    rec["actions"][0]["t"] = 2
    del rec["actions"][1]["t"]
    assert replay(rec)["ok"]


def test_a_deal_played_at_the_losers_level_is_refused() -> None:
    """previous_finish S N (NS won the deal before) with "played": "EW" replayed without a word (rules §2: the
    deal is played at the level of the team that won the previous deal)."""
    rec = make_record(finish=("S", "N"), seed=5)
    assert replay(rec)["ok"]
    bad = copy.deepcopy(rec)
    bad["played"], bad["levels_before"] = "EW", {"NS": "4", "EW": rec["level"]}
    assert _error(bad) == (-1, "wrong_level", "played")
    assert "NS won the previous deal" in replay(bad)["first_error"]["message"]


def test_a_first_deal_s_leader_agrees_with_its_first_lead() -> None:
    """first_lead turned_card C3 dealt to W, but "leader": "S"; or S leading on a card it does not hold."""
    rec = make_record(finish=None, seed=5)
    holder = next(s for s in SEATS if "C3" in rec["hands"][s])
    rec["first_lead"] = {"rule": "turned_card", "card": "C3", "seat": rec["leader"]}
    if holder == rec["leader"]:
        assert replay(rec)["ok"]
    else:
        assert _error(rec) == (-1, "wrong_leader", "first_lead")
    named = copy.deepcopy(rec)
    named["first_lead"]["seat"] = next(s for s in SEATS if s != rec["leader"])
    assert _error(named) == (-1, "wrong_leader", "leader")
    held = copy.deepcopy(rec)
    held["first_lead"]["card"] = rec["hands"][rec["leader"]][0]
    assert replay(held)["ok"]


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("first_lead", "Q", "bad_record"),  # replayed as ok before
    ("first_lead", {"seat": "Q"}, "bad_record"),
    ("match", "3", "bad_record"),
    ("deal", 0, "bad_record"),
    ("profile_settings", "x", "bad_profile"),  # ignored before
])
def test_a_field_that_may_be_left_out_is_checked_when_given(field: str, value: Any, reason: str) -> None:
    rec = make_record()
    assert replay(rec)["ok"]
    rec[field] = value
    answer = replay(rec)
    assert not answer["ok"] and answer["first_error"]["reason"] == reason and answer["first_error"]["field"] == field
    del rec[field]  # left out, it is fine
    assert replay(rec)["ok"]
