"""A table that comes back with no match after it accepted the round's start (restarted without its journal: a
card replaced, a journal moved aside) while its result never came: the round only waited, its row said nothing.
The desk raises ``match_lost`` once, naming what a referee can do."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from table_daemon.adapters.broker import LocalBroker
from table_daemon.desk.service import Desk
from table_daemon.desk.standings import Team
from table_daemon.desk.store import Store

from .spec_table import SpecTable


def test_a_table_that_lost_its_accepted_match_is_said_once(mosquitto: LocalBroker, topic_root: Any,
                                                             tmp_path: Path) -> None:
    event = topic_root.event
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, [Team(1, "红队"), Team(2, "蓝队")], {"tables": ["T01"]}, "seed")
    store.add_round(1, "swiss", [("T01", 1, 2)])
    table = SpecTable(mosquitto.url, event, "T01")
    desk = Desk(store, mosquitto.url, event)
    desk.start()
    try:
        deadline = time.monotonic() + 15
        while not store.pairings(1)[0]["accepted_at"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.pairings(1)[0]["accepted_at"]
        table.state(phase="idle", match_active=True, start=f"{event}/T01/m1/start")  # its match: nothing to say
        time.sleep(0.5)
        assert not [a for a in store.alerts("T01") if a["code"] == "match_lost"]
        for _ in range(2):  # restarted without its journal: idle, no match
            table.state(phase="idle", match_active=False, start=None)
        deadline = time.monotonic() + 10
        while not [a for a in store.alerts("T01") if a["code"] == "match_lost"] \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        (lost,) = [a for a in store.alerts("T01") if a["code"] == "match_lost"]
        assert "round 1" in lost["message"] and "enters the result" in lost["message"]
    finally:
        desk.stop()
        table.close()
        store.close()


def test_a_table_the_desk_never_heard_of_is_said_once(mosquitto: LocalBroker, topic_root: Any, tmp_path: Path,
                                                      monkeypatch: Any) -> None:
    """A typo in `desk init --tables` (K1 for K01): the desk said only "start sent" again and again."""
    from table_daemon.desk import starts

    monkeypatch.setattr(starts, "UNHEARD_S", 0.5)
    monkeypatch.setattr(starts, "SILENT_RETRY_S", 0.2)
    event = topic_root.event
    store = Store(tmp_path / "desk.sqlite")
    store.set_up(event, [Team(1, "红队"), Team(2, "蓝队"), Team(3, "金队"), Team(4, "银队")],
                 {"tables": ["T01", "K1"]}, "seed")
    store.add_round(1, "swiss", [("T01", 1, 2), ("K1", 3, 4)])
    table = SpecTable(mosquitto.url, event, "T01")
    said: list[str] = []
    desk = Desk(store, mosquitto.url, event, say=said.append)
    desk.start()
    try:
        deadline = time.monotonic() + 15
        while not any("never been heard of" in line for line in said) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # several more retries
        unheard = [line for line in said if "never been heard of" in line]
        assert len(unheard) == 1 and " K1 从未连接" in unheard[0] and "heard of: T01" in unheard[0]
    finally:
        desk.stop()
        table.close()
        store.close()
