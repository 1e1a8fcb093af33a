"""A table restarted from its journal goes on as if nothing happened: a referee correction after the restart
names (``replaces``) the event it corrects even when that went out before the restart; reconnects in between
(the retained state published again) change nothing the replay would miss."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from table_daemon.controller import CardsSeen, Command, DealerDone, Press, Tick
from table_daemon.controller.views import public_state

from .app_harness import AppHarness, play_quick_deals, quick_hands


def test_correction_after_a_restart_replaces_a_step_published_before_it(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", seed=2, auto_deal=False)
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    for _ in range(3):
        h.bot_step()
    h.app._publish_current()  # a reconnect: the retained state and hands again
    plays = [m for m in h.sent if m.get("type") == "play"]
    last = plays[-1]
    epoch = h.app.epoch
    refs_before = h.c.ref
    h.restart()
    assert h.app.epoch != epoch and h.app.recovered > 0
    assert h.c.ref == refs_before  # the replay rebuilt the same controller, refs included
    h.send(Command("correct", {"action": "undo_last", "role": "referee", "reason": "wrong card"}))
    (correction,) = [m for m in h.sent if m.get("type") == "correction"]
    assert correction["epoch"] == h.app.epoch
    assert correction["replaces"] == last["seq"] and correction["replaces_epoch"] == epoch
    assert h.state.plays_made == last["n"] - 1


def test_correction_in_the_same_run_names_only_the_seq(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", seed=2, auto_deal=False)
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    h.bot_step()
    (play,) = [m for m in h.sent if m.get("type") == "play"]
    h.send(Command("correct", {"action": "take_back", "role": "referee"}))
    (correction,) = [m for m in h.sent if m.get("type") == "correction"]
    assert correction["replaces"] == play["seq"] and "replaces_epoch" not in correction


def test_restart_after_200_journaled_deals_replays_only_the_deal_in_play(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", auto_deal=False, durable=False)
    h.app.on_published = None
    play_quick_deals(h, 200)
    h.send(Command("start_match", {"match_end": {"method": "deals", "deals": 1000},
                                   "boards": list(range(1, 1001))}))
    h.send(Command("start_deal", {}))
    h.pending.clear()
    h.send(DealerDone(True, None, quick_hands(), "c0ffee", leader="S", level="2"))
    h.send(CardsSeen("S", [x for x in h.state.hands_json()["S"] if x[1] == "A"]))
    h.send(Press("E", "pass"))
    deals = sum(1 for p in h.published if p.topic == "results" and p.payload["type"] == "deal_result")
    assert deals == 200
    before = public_state(h.c)
    hands, ref, matches = h.state.hands_json(), h.c.ref, dict(h.c.matches_started)
    assert h.app.journal.input_count() < 20  # the snapshot of the last deal's end stands for the rest
    started = time.perf_counter()
    h.restart()
    took = time.perf_counter() - started
    assert h.app.recovered == 5 and took < 2.0, took
    assert public_state(h.c) == before and h.state.hands_json() == hands
    assert h.c.ref == ref and h.c.matches_started == matches
    h.send(Press("N", "pass"))
    h.send(Press("W", "pass"))
    assert h.state.to_move == "S" and h.state.leading  # the deal goes on where it was


def test_a_snapshot_this_version_cannot_read_stops_the_table_loudly(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", auto_deal=False)
    play_quick_deals(h, 1)
    assert h.app.journal.snapshot() is not None
    h.app.journal.save_snapshot(h.app.snapshot_input, h.clock.t, "controller-pickle/9.9", b"not a pickle")
    with pytest.raises(RuntimeError, match="cannot be read by this version") as failed:
        h.restart()
    assert "日志快照无法读取" in str(failed.value) and "9.9" in str(failed.value)


def test_a_restart_mid_match_is_said_as_one_not_as_a_network_blip(tmp_path: Path) -> None:
    h = AppHarness(tmp_path / "j.sqlite", seed=2, auto_deal=False)
    h.app._resume_after_recovery()  # a fresh table, no match: nothing to say
    assert not [m for m in h.sent if m.get("code") == "table_restarted"]
    h.start_match(match_end={"method": "deals", "deals": 1})
    h.send(Command("start_deal", {}))
    h.flush()
    for _ in range(3):
        h.bot_step()
    h.restart()
    h.app._resume_after_recovery()  # what start() does first
    (said,) = [m for m in h.sent if m.get("code") == "table_restarted"]
    assert said["message"].startswith("牌桌重启，已从日志恢复比赛") and "match 1, 第1副 deal 1" in said["message"]
    assert said["evidence"]["health"]["replayed"] == h.app.recovered > 0


@pytest.mark.parametrize("paused", [False, True])
def test_the_time_a_table_was_down_is_charged_to_no_seat(tmp_path: Path, paused: bool) -> None:
    """A power cut of two minutes in the middle of a seat's turn: the turn timer and the match clock come back
    where they stopped (as after a pause). The restored timer had kept its deadline, so the first tick after the
    restart timed the seat out (a play made for it, or a slow-play foul)."""
    h = AppHarness(tmp_path / "j.sqlite", seed=2, auto_deal=False)
    h.cfg.timing.play_seconds = 20.0
    h.restart()
    h.start_match(match_end={"method": "time", "minutes": 10})
    h.send(Command("start_deal", {}))
    h.flush()
    h.bot_step()
    if paused:
        h.send(Command("pause", {"role": "referee"}))
    seat, since, ends = h.to_move, h.state.turn_since, h.c.match.t_start
    plays = h.state.plays_made
    h.clock.t += 120.0  # the table is down
    h.restart()
    h.app._resume_after_recovery()  # what start() does first
    if paused:
        h.send(Command("resume", {"role": "referee"}))
    h.send(Tick(), dt=5.0)
    assert h.to_move == seat and h.state.plays_made == plays  # nothing played for the seat
    assert not [m for m in h.sent if m.get("code") == "slow_play" or m.get("type") == "timeout"]
    assert h.state.turn_since >= since + 120.0 and h.c.match.t_start >= ends + 120.0
    assert not h.c.match.time_up


def test_a_start_an_older_version_accepted_is_replayed_as_accepted(tmp_path: Path) -> None:
    """A start journaled by a version that took a field this one refuses (or boards its deal file no longer
    holds): the restart replays it as it was taken. Before, the match vanished on a restart in its first deal
    (no snapshot is taken at a start), the desk holding it as accepted and never sending it again."""
    import json
    import sqlite3

    from table_daemon.controller import Command

    from .app_harness import AppHarness

    h = AppHarness(tmp_path / "j.sqlite", auto_deal=False)
    h.start_match(match_end={"method": "deals", "deals": 3})
    h.send(Command("start_deal", {}))
    h.flush()
    before = (h.c.match_active, h.c.match_no, h.c.phase)
    h.app.journal.close()
    with sqlite3.connect(tmp_path / "j.sqlite") as db:  # as the older version journaled it
        for rid, data in db.execute("SELECT id, data FROM inputs WHERE kind = 'command'").fetchall():
            command = json.loads(data)
            if command.get("name") == "start_match":
                command["payload"]["round"] = 1
                db.execute("UPDATE inputs SET data = ? WHERE id = ?", (json.dumps(command), rid))
    h.boot()
    assert before[0] and (h.c.match_active, h.c.match_no, h.c.phase) == before and not h.c.replaying
