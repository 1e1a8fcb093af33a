"""A standby desk takes over when the first desk dies: simulated tables play on a real Mosquitto, the first
desk is killed without a goodbye (its last will turns its status offline), the standby starts its own desk,
the tables send again what was not acknowledged, and the standby's store holds every result once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_daemon.adapters.broker import LocalBroker
from table_daemon.desk.service import Desk
from table_daemon.desk.standby import Standby
from table_daemon.desk.store import Store
from table_daemon.simulate import SimTable
from tests.desk_setup import Produced, desk_table, pair_round_one
from tests.waiting import wait

DEALS = 2


def crash(desk: Desk) -> None:
    """The desk's process dies: its network thread stops and its socket closes without a DISCONNECT."""
    client = desk.link.connection.client
    desk._stop.set()
    client.loop_stop()
    sock = client.socket()
    if sock is not None:
        sock.close()


def test_standby_takes_over_and_counts_each_result_once(mosquitto: LocalBroker, topic_root: Any,
                                                        tmp_path: Path) -> None:
    event = topic_root.event
    first_store, standby_store = Store(tmp_path / "first.sqlite"), Store(tmp_path / "standby.sqlite")
    for store in (first_store, standby_store):  # both desks' databases set up alike, round 1 paired
        pair_round_one(store, event, ["S1", "S2"], DEALS)
    first = Desk(first_store, mosquitto.url, event)
    standby = Standby(standby_store, mosquitto.url, event, instance="b", grace=0.5)
    produced = Produced()
    sims: list[SimTable] = []
    try:
        first.start()
        assert first.link.connected.wait(10)
        standby.start()
        assert standby.link.connected.wait(10)
        wait(lambda: standby.desk_online is True, 10, "the standby to see the first desk online")
        for i, table in enumerate(("S1", "S2")):
            sim = desk_table(table, event, mosquitto.url, tmp_path / f"{table}.sqlite", 70 + i, produced)
            sims.append(sim)
            sim.start({"method": "deals", "deals": DEALS})
        wait(lambda: len(first_store.results()) >= 1, 30, "the first desk to count a result")
        crash(first)
        at_crash = len(produced.snapshot())
        assert not standby.active.is_set()
        wait(standby.active.is_set, 30, "the standby to take over (the first desk's will fired)")
        expected = {f"{event}/{t}/m1" for t in ("S1", "S2")} | {
            f"{event}/{t}/m1/d{d}" for t in ("S1", "S2") for d in range(1, DEALS + 1)}
        wait(lambda: produced.snapshot() == expected, 60, "the tables to finish their matches")
        assert at_crash < len(expected)  # results came after the crash: the standby's desk counted those
        wait(lambda: {r["id"] for r in standby_store.results()} == expected, 30, "every result at the standby")
        wait(lambda: all(s.app.journal.backlog() == 0 and not s.app.journal.pending_results() for s in sims),
             30, "every result acknowledged by the standby's desk")
        assert len(standby_store.results()) == len(expected)  # once each
        first_ids = {r["id"] for r in first_store.results()}
        assert first_ids < expected  # the first desk stopped counting when it died
    finally:
        for sim in sims:
            sim.stop()
        standby.stop()
        first_store.close()
        standby_store.close()
