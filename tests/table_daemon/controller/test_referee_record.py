"""Referee corrections are actions of the deal record (deal-record.md): a deal corrected by the referee in the
middle publishes a record whose ``actions`` hold the corrections where they happened, and which replays
(``guandan-table rules replay``) to the table's own result; a corrupted correction fails with its reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from guandan import deal as engine
from guandan import replay
from table_daemon.controller import CardsSeen, Command, Reply
from table_daemon.rules_ops_deal import replay_file

from .harness import Harness, error_of, hands_with


def _ref(h: Harness, action: str, **extra: Any) -> Reply:
    h.send(Command("correct", {"action": action, "role": "referee", **extra}, token=action))
    reply = [e for e in h.effects if isinstance(e, Reply)][-1]
    assert reply.ok, reply.error
    return reply


def _step(h: Harness) -> None:
    assert h.bot_step()


def _corrected_deal() -> tuple[Harness, dict[str, Any]]:
    """One deal at the table with every kind of in-play correction, played out by bots."""
    h = Harness(hands=[hands_with(7)], seed=4)
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    st = h.state
    leader = st.to_move
    assert leader is not None
    _step(h)  # the leader plays...
    taken = h.deal.actions[-1]
    assert "play" in taken
    _ref(h, "take_back", reason="收回重出 wrong card")  # ...and takes it back
    assert h.state.to_move == leader and len(h.state.hand(leader)) == 27
    _step(h)
    follower = h.state.to_move
    _step(h)  # the next seat acts; the referee undoes it
    _ref(h, "undo_last")
    assert h.state.to_move == follower
    _ref(h, "skip_turn", reason="too slow")  # a skip while following: that seat passes
    assert h.state.to_move != follower
    while not h.state.leading:  # play on to the next lead, then skip the leader
        _step(h)
    lead = h.state.to_move
    _ref(h, "skip_turn")
    assert h.state.to_move not in (lead, None) and h.state.leading
    _step(h)  # someone leads; one seat sits out the rest of this trick
    sitter = h.state.to_move
    _ref(h, "skip_trick", seat=sitter)
    for _ in range(2):
        h.send(Command("penalty", {"seat": sitter, "kind": "warning", "role": "referee"}))
    h.play_out()
    (record,) = h.of("results", "deal_result")
    return h, json.loads(json.dumps(record))


def test_corrections_are_record_actions_that_replay_to_the_tables_result(tmp_path: Path) -> None:
    h, record = _corrected_deal()
    actions = record["actions"]
    referee = [a for a in actions if "referee" in a]
    assert [a["referee"] for a in referee] == ["take_back", "undo_last", "skip", "skip", "skip_trick", "penalty",
                                               "penalty", "penalty"]
    assert all(isinstance(a["t"], float) for a in referee)
    assert [a["t"] for a in actions] == sorted(a["t"] for a in actions)
    # the taken-back play stays in the record, right before the take-back that names it
    k = actions.index(referee[0])
    assert "play" in actions[k - 1] and referee[0]["undone"] == [{x: v for x, v in actions[k - 1].items() if x != "t"}]
    assert referee[0]["reason"] == "收回重出 wrong card" and referee[0]["seat"] == actions[k - 1]["seat"]
    assert referee[-1] == {"referee": "penalty", "kind": "violation", "team": referee[-1]["team"],
                           "seat": referee[4]["seat"], "escalated_from": "warning", "t": referee[-1]["t"]}
    answer = replay(record)
    assert answer["ok"], answer["first_error"]
    assert answer["finish"][:2] == record["result"]["finish"][:2]
    assert answer["levels_after"] == record["result"]["levels_after"]
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    assert replay_file(str(path))["ok"]
    # the corrections matter: the same actions without them do not replay
    bare = copy.deepcopy(record)
    bare["actions"] = [a for a in actions if "referee" not in a]
    assert not replay(bare)["ok"]
    # and the referee log keeps them as evidence
    assert [e["what"] for e in record["events"] if e["kind"] == "referee"] == ["take_back", "undo_last", "skip",
                                                                              "skip", "skip_trick"]
    assert h.of("events", "correction")[0]["action"] == "take_back"


def test_corrupted_referee_actions_fail_replay_with_a_reason() -> None:
    _, record = _corrected_deal()
    actions = record["actions"]
    take_back = next(i for i, a in enumerate(actions) if a.get("referee") == "take_back")
    skip = next(i for i, a in enumerate(actions) if a.get("referee") == "skip")

    def error(change: Any) -> tuple[int, str, str]:
        bad = copy.deepcopy(record)
        change(bad["actions"])
        e = replay(bad)["first_error"]
        assert e is not None
        return e["index"], e["reason"], e["message"]

    def undone_other(a: list[dict[str, Any]]) -> None:
        a[take_back]["undone"] = [{"seat": a[take_back]["seat"], "play": ["HR"]}]

    index, reason, message = error(undone_other)
    assert (index, reason) == (take_back, "bad_referee") and "undoes" in message

    def unknown(a: list[dict[str, Any]]) -> None:
        a[take_back]["referee"] = "rewind"

    assert error(unknown)[:2] == (take_back, "bad_referee")

    def too_early(a: list[dict[str, Any]]) -> None:
        a.insert(0, a.pop(take_back))

    assert error(too_early)[:2] == (0, "nothing_to_undo")

    def wrong_seat(a: list[dict[str, Any]]) -> None:
        others = [s for s in "SENW" if s != a[skip]["seat"]]
        a[skip]["seat"] = others[0]

    assert error(wrong_seat)[:2] == (skip, "not_your_turn")

    def after_pass(a: list[dict[str, Any]]) -> None:
        i = next(i for i, x in enumerate(a) if x.get("pass") and i > skip)
        a.insert(i + 1, {"referee": "take_back", "t": a[i]["t"]})

    index, reason, message = error(after_pass)
    assert reason == "bad_referee" and "not a play" in message

    def bad_penalty(a: list[dict[str, Any]]) -> None:
        next(x for x in a if x.get("referee") == "penalty")["kind"] = "yellow_card"

    assert error(bad_penalty)[1] == "bad_referee"

    def late_redo(a: list[dict[str, Any]]) -> None:
        a.insert(skip, {"referee": "redo_tribute", "t": 1.0})

    assert error(late_redo)[:2] == (skip, "bad_referee")


def test_tribute_corrections_before_play_are_recorded_and_replay() -> None:
    h = Harness(auto_deal=True, seed=2)
    h.start_match(match_end={"method": "deals", "deals": 2})
    while h.c.deal is None or h.c.deal.number < 2 or h.c.deal.state is None:
        _step(h)
    st = h.state
    assert st.phase == engine.TRIBUTE
    giver = st.pending_gives()[0]
    assert st.plan is not None
    card = next(p for p in st.plan.payments if p.giver == giver).candidates[0]
    h.send(CardsSeen(giver, [card.code]))
    assert h.state.given
    _ref(h, "undo_last", reason="laid too early")
    assert not h.state.given
    _ref(h, "redo_tribute")
    while h.state.phase != engine.PLAYING:
        _step(h)
    _step(h)
    _ref(h, "undo_last")  # the first play may be undone...
    h.send(Command("correct", {"action": "undo_last", "role": "referee"}, token="v"))
    (refused,) = [e for e in h.effects if isinstance(e, Reply) and e.token == "v"]
    assert not refused.ok and "play has begun" in error_of(refused)  # ...but not the return before it
    h.play_out()
    record = h.of("results", "deal_result")[-1]
    kinds = [a["referee"] for a in record["actions"] if "referee" in a]
    assert kinds == ["undo_last", "redo_tribute", "undo_last"]
    assert record["actions"][0]["undone"] == [{"seat": giver, "give": card.code}]
    assert "play" in record["actions"][2] and record["actions"][3]["referee"] == "undo_last"
    answer = replay(record)
    assert answer["ok"], answer["first_error"]
    assert answer["levels_after"] == record["result"]["levels_after"]
