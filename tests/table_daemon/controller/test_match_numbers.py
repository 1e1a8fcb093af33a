"""start_match at a table: a match number is used once for ever (deal ids never repeat), a resent start of the
same match is answered ok and changes nothing, bad numbers and a deal file the table cannot deal from are
refused (issue 14 items 2 and 9)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from guandan import get_profile
from table_daemon.adapters.mqtt import Inbound
from table_daemon.app import TableApp
from table_daemon.config import simulated_config
from table_daemon.controller import Command, DealerDone, Reply, TableController

from .harness import Harness

START = {"match": 3, "match_end": {"method": "deals", "deals": 1}, "teams": {"NS": {"name": "A"}, "EW": {"name": "C"}}}


def reply(c: TableController, name: str, payload: dict[str, Any], now: float = 1.0) -> Reply:
    return next(e for e in c.handle(Command(name, payload, "tok"), now) if isinstance(e, Reply))


def test_a_played_match_number_is_refused_and_a_resent_start_is_idempotent() -> None:
    h = Harness(auto_deal=True)
    h.start_match(**START)
    h.play_out()
    assert h.c.phase == "match_over"
    ids = [p["id"] for p in h.of("results")]
    assert ids == ["ev/T9/m3/d1", "ev/T9/m3"]
    again = reply(h.c, "start_match", {**START, "id": "resend-1", "reply_to": "x"})
    assert again.ok and h.c.phase == "match_over"  # same match sent again: ok, nothing restarted
    other = reply(h.c, "start_match", {**START, "teams": {"NS": {"name": "B"}, "EW": {"name": "C"}}})
    assert not other.ok and "already played" in (other.error or "")
    assert h.c.phase == "match_over" and h.c.match_no == 3
    assert reply(h.c, "start_match", {**START, "match": 4}).ok and h.c.match_no == 4
    later = Harness(auto_deal=True)  # numbers need not come in order; a start without one takes the next unused
    later.start_match(**{**START, "match": 7})
    later.play_out()
    later.start_match(**{**START, "match": 2})
    assert later.c.match_no == 2
    later.play_out()
    later.start_match(**{k: v for k, v in START.items() if k != "match"})
    assert later.c.match_no == 8


def test_resent_start_during_a_deal_is_ok_and_changes_nothing() -> None:
    h = Harness()
    h.start_match(**START)
    h.send(Command("start_deal", {}))
    h.flush()
    phase, deal = h.c.phase, h.c.deal
    assert reply(h.c, "start_match", dict(START)).ok
    assert h.c.phase == phase and h.c.deal is deal


def test_match_numbers_stay_used_after_a_restart(tmp_path: Path) -> None:
    cfg = simulated_config(journal=str(tmp_path / "j.sqlite"))
    app = TableApp(cfg, connect=False)
    app.handle(Command("start_match", dict(START)))
    app.journal.close()
    app = TableApp(cfg, connect=False)  # rebuilt from the journal
    effects = app.handle(Command("start_match", {**START, "match_end": {"method": "deals", "deals": 2}}))
    r = next(e for e in effects if isinstance(e, Reply))
    assert not r.ok and "already played" in (r.error or "")
    app.journal.close()


def test_bad_match_settings_are_refused() -> None:
    c = TableController("T1", "ev", get_profile("national"))
    for bad in ({"match": True}, {"match": 0}, {"match": "2"}, {"boards": [-5]}, {"boards": [1, True]},
                {"boards": list(range(1, 5000))}, {"match_end": {"method": "deals", "deals": 10**30}},
                {"match_end": {"method": "time", "minutes": 1e9}}, {"deal_file": "boards.json"},
                {"deal_file": 5}):
        r = reply(c, "start_match", bad)
        assert not r.ok and r.error, bad
        assert c.match_no == 0 and not c.match_active and not c.matches_started


def test_deal_file_must_be_the_tables_own() -> None:
    c = TableController("T1", "ev", get_profile("national"), deal_file="/srv/guandan/open-boards.json")
    assert not reply(c, "start_match", {"match": 1, "deal_file": "other.json"}).ok
    assert reply(c, "start_match", {"match": 1, "deal_file": "C:\\\\desk\\\\open-boards.json"}).ok
    assert c.deal_file == "C:\\\\desk\\\\open-boards.json"


def test_correct_with_a_seat_that_is_not_one_is_refused() -> None:
    h = Harness()
    h.start_match()
    h.send(Command("start_deal", {}))
    h.flush()
    for action in ("undo_last", "take_back", "skip_turn", "void_deal"):
        r = reply(h.c, "correct", {"action": action, "seat": "X", "role": "referee"})
        assert not r.ok and "seat" in (r.error or ""), action
    assert h.c.deal is not None


def test_a_board_is_said_at_its_own_level_not_the_matchs() -> None:
    """Rules §12: a board is played at its fixed level. deal_started said the match's level (6) while the deal
    was played at the board's (2); now the level is said once the dealer has read the board."""
    h = Harness()
    h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1}, "boards": [4]}, token="b"))
    refused = [e for e in h.effects if isinstance(e, Reply)][-1]  # random cards would pass for board 4
    assert not refused.ok and "no deal file" in (refused.error or "") and not h.c.match_active
    h.c.configured_deal_file = "open-boards.jsonl"  # the dealer's own deal file (dealer.deal_file)
    h.start_match(match_end={"method": "deals", "deals": 1}, boards=[4])
    h.c.match = replace(h.c.match, levels={"NS": 6, "EW": 2})
    h.send(Command("start_deal", {}))
    (started,) = h.of("events", "deal_started")
    assert started["board"] == 4 and started["level"] is None
    assert h.of("state")[-1]["level"] is None  # not known while dealing
    done = h.pending.pop(0)
    assert isinstance(done, DealerDone)
    h.send(DealerDone(True, None, done.hands, "c0ffee", level="2", leader="S"))
    (dealt,) = h.of("events", "deal_dealt")
    assert dealt["level"] == "2" and dealt["board"] == 4
    assert h.of("state")[-1]["level"] == "2" and h.of("events", "play_started")[-1]["level"] == "2"
    h.play_out()  # the table's own record of the board replays: at the board's level, not NS's 6
    from guandan import replay

    (record,) = h.of("results/sealed", "deal_result")  # a board's full record is the desk's until released
    assert record["board"] == 4 and record["level"] == "2" and record["levels_before"]["NS"] == "6"
    assert replay(record)["ok"], replay(record)
    assert replay({**record, "board": "x"})["first_error"]["field"] == "board"
    line = '{"format": "guandan-deals/1", "board": 4, "level": "3", "leader": "S"}'
    assert replay({**record, "deal_line": line})["first_error"]["reason"] == "wrong_level"  # not the board's
    assert replay({**record, "deal_line": line.replace('"3"', '"2"')})["ok"]


def test_the_deal_that_ends_a_match_by_its_deal_limit_names_the_match_winner() -> None:
    """deal-record.md: ``result.match_winner`` is present when the deal ended the match; it was set only when a
    team passed A. The record still replays (rules replay checks the named team is ahead)."""
    from guandan import replay

    h = Harness(seed=3)
    h.start_match(match_end={"method": "deals", "deals": 2})
    for _ in range(2):
        h.send(Command("start_deal", {}))
        h.flush()
        h.play_out()
    first, last = h.of("results", "deal_result")
    (match,) = h.of("results", "match_result")
    assert first["result"]["match_winner"] is None
    assert last["result"]["match_winner"] == match["winner"]
    assert replay(last)["ok"] and replay(first)["ok"]
    assert match["winner"] in ("NS", "EW")  # this seed's two deals end with one team ahead
    wrong = {**last, "result": {**last["result"], "match_winner": "EW" if match["winner"] == "NS" else "NS"}}
    assert replay(wrong)["first_error"]["field"] == "result.match_winner"


def test_a_misspelt_start_is_refused_by_its_field_not_played_with_defaults() -> None:
    """``team`` and ``matchEnd`` for ``teams`` and ``match_end``: before, the table started a match of the profile's
    defaults (pass A, no names) and answered ok; mqtt-api.md: a malformed command changes nothing."""
    c = TableController("T01", "ev", get_profile("national"))
    r = reply(c, "start_match", {"team": START["teams"], "matchEnd": {"method": "deals", "deals": 1}, "match": 2})
    assert not r.ok and "unknown field(s) team, matchEnd" in (r.error or "") and "未知字段" in (r.error or "")
    assert "known: teams, profile, match_end" in (r.error or "") and not c.match_active
    r = reply(c, "start_match", {**START, "match_end": {"method": "deals", "deal": 1}})
    assert not r.ok and "start_match.match_end: unknown field(s) deal" in (r.error or "") and not c.match_active
    assert reply(c, "start_match", {**START, "id": "ev/T01/m3/start", "role": "referee"}).ok and c.match_active


def test_boards_the_tables_deal_file_lacks_are_refused_at_the_start() -> None:
    """Before, board 99 of a file of boards 1-8 was accepted, then every deal failed at the dealer as a link
    fault ("no board 99"), and a simulated table gave up after six voided deals."""
    c = TableController("T01", "ev", get_profile("national"), deal_file="/etc/guandan/open.jsonl",
                        deal_file_boards=tuple(range(1, 9)))
    r = reply(c, "start_match", {**START, "boards": [99]})
    assert not r.ok and "boards [99] are not in this table's deal file 'open.jsonl' (8 boards, 1 to 8)" in (r.error or "")
    assert "没有第 99 副" in (r.error or "") and not c.match_active
    assert reply(c, "start_match", {**START, "boards": [8]}).ok


def test_the_app_gives_the_controller_its_deal_files_boards(tmp_path: Path) -> None:
    from firmware_bridge.deal import new_deal

    path = tmp_path / "boards.jsonl"
    path.write_text("".join(json.dumps(new_deal(b).deal_line(salted=False)) + "\n" for b in (3, 5)))
    cfg = simulated_config()
    cfg.dealer.deal_file = str(path)
    app = TableApp(cfg, connect=False)
    try:
        assert app.controller.deal_file_boards == (3, 5)
        # the next session's boards copied over the file (the dealer reads it afresh at each deal): a start of
        # them is taken, not refused as boards of another file
        path.write_text("".join(json.dumps(new_deal(b).deal_line(salted=False)) + "\n" for b in (7, 8, 9)))
        start = {**START, "match_end": {"method": "deals", "deals": 1}, "boards": [9]}
        app._inbound(Inbound("command", "start_match", start))
        assert list(app.controller.deal_file_boards) == [7, 8, 9] and app.controller.match_active
    finally:
        app.stop()


def test_a_refusal_said_only_in_english_is_named_in_chinese_first() -> None:
    """A referee reads the reply on the desk page or `guandan-table referee`: before, "bad pass command: seat must
    be one of ..." and "no declaration is awaited" had no word of Chinese."""
    c = TableController("T01", "ev", get_profile("national"))
    r = reply(c, "pass", {"seat": "X"})
    assert not r.ok and (r.error or "").startswith("过牌指令被拒绝 | bad pass command: seat must be one of")
    r = reply(c, "bogus", {})
    assert (r.error or "").startswith("指令被拒绝 | unknown command 'bogus'")
    r = reply(c, "start_match", {"match": 3, "match_end": {"method": "deals", "deals": 0}})
    assert (r.error or "").startswith("开赛指令被拒绝 | match_end.deals must be a whole number")
    already = reply(c, "start_match", {"match": "x"})  # a reason with its own Chinese is kept as it is
    assert (already.error or "").startswith("match must be a whole number from 1 (比赛编号)")
