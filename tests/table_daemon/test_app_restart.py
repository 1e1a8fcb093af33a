"""A table restarted from its journal goes on as if nothing happened: a referee correction after the restart
names (``replaces``) the event it corrects even when that went out before the restart; reconnects in between
(the retained state published again) change nothing the replay would miss."""

from __future__ import annotations

from pathlib import Path

from table_daemon.controller import Command

from .app_harness import AppHarness


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
    assert h.c.deal.state.plays_made == last["n"] - 1


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
