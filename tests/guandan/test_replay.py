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
from guandan.cards import SEATS, partner
from guandan.levels import parse_team_level
from guandan.profiles import PROFILES, Profile
from guandan.record import build_record
from guandan.replay import replay

NAT = PROFILES["national"]


def make_record(finish: tuple[str, ...] | None = ("E", "S", "W", "N"), seed: int = 11, level: str = "9",
                profile: Profile = NAT) -> dict[str, Any]:
    rng = random.Random(seed)
    state = play_out(profile, parse_team_level(level), deal_hands(rng), Bot(seed),
                     previous_finish=list(finish) if finish else None, leader="S")
    before = {"NS": parse_team_level(level), "EW": parse_team_level("4")}
    meta = {"event": "e1", "table": "T07", "match": 3, "deal": 5}
    record = build_record(state, levels_before=before, played="NS", previous_finish=list(finish) if finish else None,
                          meta=meta)
    out = json.loads(json.dumps(record))
    assert isinstance(out, dict)
    return out


def test_record_fields_and_clean_replay() -> None:
    rec = make_record()
    for key in ("format", "event", "table", "match", "deal", "profile", "levels_before", "played", "level",
                "first_lead", "hands", "tribute", "returns", "leader", "actions", "result", "events"):
        assert key in rec
    assert rec["format"] == "guandan-deal/1" and rec["level"] == "9" and rec["tribute"][0]["from"] == "N"
    assert all(len(rec["hands"][s]) == 27 for s in SEATS)
    assert rec["actions"][0]["seat"] == rec["leader"] == "N" and "t" in rec["actions"][0]
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
