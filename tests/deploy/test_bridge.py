"""The bridged set-up of ``deploy/mosquitto/`` run small: two halls' brokers bridged over TLS to a central
one, two simulated tables per hall logged in with their own accounts, the real desk at the centre over TLS.
Hall H1's link is cut (silently, as a pulled cable) while its tables finish deals; afterwards every result is
stored once and acknowledged back through the bridge, and no hidden hand ever reached the centre, even with a
bridge topic for ``private/hands`` added by mistake (the ACLs hold it back). A duplicate board's sealed results
(``results/sealed``, rules §12) cross the bridge to the desk and come back acknowledged, and no display, in the
hall or at the centre, nor the hall's commentary account, ever gets them."""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from table_daemon.adapters.broker import find_mosquitto
from table_daemon.desk.service import Desk
from table_daemon.desk.store import Store
from table_daemon.simulate import SimTable
from tests.bridged import PASSWORD, BridgedEvent
from tests.desk_setup import Produced, desk_table, pair_round_one
from tests.waiting import wait

pytestmark = pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto is not installed (run scripts/setup)")
DEALS = 2


class Recorder:
    """A paho client logged in as ``user`` that keeps (topic, payload) of everything it gets."""

    def __init__(self, port: int, user: str, topics: list[str]) -> None:
        self.got: list[tuple[str, bytes | bytearray]] = []
        self.lock = threading.Lock()
        ready = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"rec-{uuid.uuid4().hex[:6]}")
        self.client.username_pw_set(user, PASSWORD)

        def on_connect(c: Any, *_: Any) -> None:
            for t in topics:
                c.subscribe(t, qos=1)
            ready.set()

        def on_message(c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
            with self.lock:
                self.got.append((msg.topic, msg.payload))

        self.client.on_connect = on_connect
        self.client.on_message = on_message
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()
        assert ready.wait(10)

    def topics(self) -> list[str]:
        with self.lock:
            return [t for t, _ in self.got]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_two_halls_bridged_one_link_cut(tmp_path: Path) -> None:
    event = f"br{uuid.uuid4().hex[:6]}"
    halls = {"H1": ["A01", "A02"], "H2": ["B01", "B02"]}
    # a mistaken bridge topic for the hidden hands: the ACLs must still keep them in the hall; and reconnect
    # every second (the shipped 2-10 s backoff would only make the test slower)
    bridged = BridgedEvent(event, halls, hall_extra=[f"topic guandan/v1/{event}/+/private/hands out 1",
                                                     "restart_timeout 1"]).start()
    store = Store(tmp_path / "desk.sqlite")
    # the desk starts round 1's matches at the tables, as at an event (a table's own match would not count)
    pair_round_one(store, event, [t for ts in halls.values() for t in ts], DEALS)
    said: list[str] = []  # the desk's console
    desk = Desk(store, bridged.central_tls_url("desk"), event, ca_file=bridged.ca_file, say=said.append)
    sims: list[SimTable] = []
    produced = Produced()
    centre = hall_referee = None
    try:
        assert bridged.central is not None
        centre = Recorder(bridged.central.port, "referee", [f"guandan/v1/{event}/#", "$SYS/broker/connection/#"])
        hall_referee = Recorder(bridged.halls["H1"].port, "referee-H1", [f"guandan/v1/{event}/+/private/hands"])
        desk.start()
        assert desk.link.connected.wait(10)
        for i, (hall, table) in enumerate((h, t) for h, ts in halls.items() for t in ts):
            sims.append(desk_table(table, event, bridged.hall_url(hall, table), tmp_path / f"{table}.sqlite", 40 + i,
                                   produced))
        for sim in sims:
            sim.start({"method": "deals", "deals": DEALS})
        wait(lambda: len(store.results()) >= 2, 30, "the first results at the desk")
        bridged.proxies["H1"].cut()

        def from_h1() -> int:
            return sum(1 for rid in produced.snapshot() if rid.split("/")[1] in halls["H1"])

        at_cut = from_h1()
        # the desk says the hall dropped off, as a hall (the central broker's bridge state), and shows it
        wait(lambda: any(h["hall"] == "H1" and not h["connected"] for h in desk.halls()), 30, "the desk to see H1 go")
        assert any("hall H1's link to the centre is down" in line for line in said), said
        wait(lambda: from_h1() >= at_cut + 1, 30, "H1's tables to finish deals during the cut")
        time.sleep(0.5)  # and a moment more, so the link stays cut while the hall queues for it
        bridged.proxies["H1"].heal()
        wait(lambda: all(h["connected"] for h in desk.halls()), 30, "the desk to see H1 back")
        assert {h["hall"] for h in desk.halls()} == {"H1", "H2"} and any("is back" in line for line in said)
        expected = {f"{event}/{t}/m1" for ts in halls.values() for t in ts} | {
            f"{event}/{t}/m1/d{d}" for ts in halls.values() for t in ts for d in range(1, DEALS + 1)}
        wait(lambda: produced.snapshot() == expected, 60, "the tables to finish their matches")
        wait(lambda: {r["id"] for r in store.results()} == expected, 30, "every result at the desk")
        # the desk's acks crossed the bridge back into the halls: the tables' journals hold nothing more
        wait(lambda: all(s.app.journal.backlog() == 0 for s in sims), 30, "every result acknowledged")
        rows = store.results()
        assert len(rows) == len(expected)  # each counted once (copies only raise `copies`)
        h1 = [json.loads(p) if p[:1] == b"{" else p for t, p in centre.got
              if t == f"$SYS/broker/connection/bridge-{event}-H1/state"]
        assert b"0" in h1 and h1[-1] == b"1", h1  # the centre saw hall H1 drop off and come back
        # the hidden hands were published in the hall, and never reached the centre
        assert any(t.endswith("/private/hands") for t in hall_referee.topics())
        assert not [t for t in centre.topics() if "/private/" in t]
        # the desk's live view (what its displays show) has every table of both halls
        live = desk.hub.snapshot()["tables"]
        assert set(live) == {t for ts in halls.values() for t in ts}
    finally:
        for sim in sims:
            sim.stop()
        desk.stop()
        store.close()
        for rec in (centre, hall_referee):
            if rec is not None:
                rec.close()
        bridged.close()


def test_sealed_results_cross_to_the_desk_and_no_display(tmp_path: Path) -> None:
    event = f"se{uuid.uuid4().hex[:6]}"
    bridged = BridgedEvent(event, {"H1": ["A01", "A02"]}, cuttable=[]).start()
    store = Store(tmp_path / "desk.sqlite")
    desk = Desk(store, bridged.central_tls_url("desk"), event, ca_file=bridged.ca_file)
    base = f"guandan/v1/{event}"
    sealed, public, ack = f"{base}/A01/results/sealed", f"{base}/A01/results", f"{base}/A01/results/ack"
    recorders: list[Recorder] = []
    try:
        assert bridged.central is not None
        hall_port, centre_port = bridged.halls["H1"].port, bridged.central.port
        # everyone subscribed to the whole event (and to the sealed results by name): only the referees get them
        watch = [f"{base}/#", f"{base}/+/results/sealed"]
        centre = {user: Recorder(centre_port, user, watch) for user in ("referee", "display")}
        hall = {user: Recorder(hall_port, user, watch) for user in ("referee-H1", "commentary-H1", "display-H1")}
        recorders += [*centre.values(), *hall.values()]
        a01 = Recorder(hall_port, "A01", [ack, f"{base}/desk/status"])
        a02 = Recorder(hall_port, "A02", [])
        recorders += [a01, a02]
        desk.start()
        assert desk.link.connected.wait(10)
        # the desk's status crossed into the hall: its subscriptions are in place at the centre
        wait(lambda: f"{base}/desk/status" in a01.topics(), 30, "the desk's status in the hall")
        a02.client.publish(sealed, json.dumps({"id": f"{event}/A01/m1/d1", "by": "A02"}), qos=1).wait_for_publish(5)
        rid = f"{event}/A01/m1/d1"
        full = {"id": rid, "type": "deal_result", "format": "guandan-deal/1", "event": event, "table": "A01",
                "match": 1, "deal": 1, "board": 1, "hands": {"S": ["HR"], "E": [], "N": [], "W": []},
                "result": {"finish": ["S", "E", "N", "W"], "winner": "NS", "up": 3}, "sealed_copy": True}
        a01.client.publish(sealed, json.dumps(full), qos=1).wait_for_publish(5)
        a01.client.publish(public, json.dumps({"id": rid, "event": event, "table": "A01", "match": 1, "deal": 1,
                                               "board": 1, "sealed": True}), qos=1).wait_for_publish(5)
        # the desk at the centre got it (not counted: no pairing here), and its ack came back into the hall
        wait(lambda: [r["topic"] for r in store.rejects()] == [sealed], 30, "the sealed result at the desk")
        assert json.loads(store.rejects()[0]["payload"])["hands"] == full["hands"]
        wait(lambda: ack in a01.topics(), 30, "the desk's ack in the hall")
        watchers = {**centre, **hall}
        # the public twin was published after the full result: once it is here, the full one would be too
        wait(lambda: all(public in rec.topics() for rec in watchers.values()), 30, "the public twin everywhere")
        # the hall's own accounts cannot pass for a table (the table pattern applies to every account)
        for user in ("referee-H1", "commentary-H1", "display-H1"):
            hall[user].client.publish(f"{base}/{user}/state", json.dumps({"phase": "forged"}), qos=1,
                                      retain=True).wait_for_publish(5)
        for user in ("commentary-H1", "display-H1"):
            hall[user].client.publish(f"guandan/v1/replies/desk/{event}/A01", json.dumps({"ok": True}),
                                      qos=1).wait_for_publish(5)
        a01.client.publish(f"{base}/A01/state", json.dumps({"phase": "idle"}), qos=1).wait_for_publish(5)
        wait(lambda: f"{base}/A01/state" in centre["display"].topics(), 30, "A01's state at the centre")
        for user in ("referee-H1", "commentary-H1", "display-H1"):  # published before A01's: it would be here
            assert not [t for t, _ in hall["referee-H1"].got if t == f"{base}/{user}/state"], user
        assert not [r for r in store.rejects() if "/replies/" in r["topic"]]
        for user, rec in watchers.items():
            got = [json.loads(p) for t, p in rec.got if t == sealed]
            if user.startswith("referee"):
                assert got == [full], (user, got)  # A02's forgery, published first, never passed
            else:
                assert got == [], user
    finally:
        desk.stop()
        store.close()
        for rec in recorders:
            rec.close()
        bridged.close()
