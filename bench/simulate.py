"""Throughput and scale of the simulated table.

1. One table at a time at full speed with the simulated camera and the real card reader in the loop (one
   table per ``--seeds`` seed, each drawing a held-out deck design that the reader never trained on unless
   ``--deck`` says otherwise; ``--reader net|glyphs``): misread and false foul alerts per 100 plays (the
   simulated players make no fouls), plays the table took other than they were laid (silently wrong), deals per
   minute, and the daemon's resident memory (target <= 150 MB; each table runs in a process of its own, as one
   daemon per table on a Pi).
   ``--deals N`` (default 3) deals per table.
2. ``simulate --tables N`` (default 50) against one Mosquitto for ``--duration`` seconds (the tables play deal
   after deal, match after match, until the time is up, so they are busy the whole time): a
   subscriber counts, per table and run (epoch), messages lost (gaps in ``seq``) or out of order (target 0),
   and the CPU time the simulate process used per table. The many-table run reads laid cards directly
   (``--direct``) unless ``--camera`` is given: 50 rendered cameras do not fit on a small machine.

    python bench/simulate.py [--deals 3] [--seeds 1,2,3,4] [--deck held-out] [--reader net] [--tables 50]
                             [--duration 60] [--skip-many]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # ahead of bench/ (this script's folder), whose vision.py is not the package

from sequences import sequence_faults  # noqa: E402

from table_daemon.adapters.broker import LocalBroker  # noqa: E402

#: alert codes that accuse a player (a foul); the simulated players make none, so each is a false accusation
FOULS = frozenset({"illegal_play", "not_held", "out_of_turn", "exposed_card", "wrong_tribute", "wrong_return"})


def misread_kind(alert: dict[str, Any]) -> str:
    """Why the table asked for a set to be laid again, from the alert's evidence."""
    evidence = alert.get("evidence", {})
    if evidence.get("unreadable"):
        return "a card seen but not read"
    if "candidates" in evidence:
        return "no held, legal choice near the reading"
    if "short_of" in evidence:
        return "sure, but a card or two short of a play"
    return "unsure cards of a seat not on turn" if alert.get("seat") != alert.get("turn") else "unsure"


def one_table(broker_url: str, deals: int, seed: int, deck: str | None, reader: str, show_misreads: bool = False
              ) -> dict[str, int | float]:
    """``deals`` deals of one table at full speed, its camera drawing ``deck`` and read by ``reader``
    (``show_misreads``: print each misread alert with what was laid)."""
    from dataclasses import replace

    from hardware.cameras.simulated import camera_url
    from table_daemon.config import simulated_config
    from table_daemon.simulate import SimTable

    tmp = Path(tempfile.mkdtemp(prefix="guandan-bench-"))
    cfg = simulated_config(table="B1", event="bench", broker=broker_url, journal=str(tmp / "j.sqlite"))
    cfg.panels = replace(cfg.panels, debounce_ms=0)
    cfg.camera.source = camera_url(deck)
    cfg.camera.reader = reader
    sim = SimTable(cfg, seed=seed, speed=0, camera=True)
    alerts: dict[str, int] = {}
    misreads: dict[str, int] = {}
    foul_notes: list[str] = []

    def laid_by(seat: str | None) -> str:
        """The cards ``seat`` laid last, as the simulated players hold them (none for no seat)."""
        return " ".join(sim.seats.last_laid.get(seat, [])) if seat is not None else ""

    def on_alert(a: dict[str, Any]) -> None:
        alerts[a["code"]] = alerts.get(a["code"], 0) + 1
        if a["code"] == "misread":
            why = misread_kind(a)
            misreads[why] = misreads.get(why, 0) + 1
            if show_misreads:
                seat = a.get("seat")
                print(f"  misread ({why}): {seat} laid {laid_by(seat)}; evidence "
                      f"{json.dumps(a.get('evidence'), ensure_ascii=False)[:400]}", flush=True)
        elif a["code"] in FOULS:  # each is the reader's: say what was laid and what the alert says was seen
            seat = a.get("seat")
            foul_notes.append(f"  {a['code']}: {seat} laid {laid_by(seat)}; "
                              f"{a.get('message')}; evidence {json.dumps(a.get('evidence'), ensure_ascii=False)}")

    sim.app.alert_listeners.append(on_alert)
    plays = [0]
    wrong: list[tuple[str, list[str], list[str]]] = []

    def count(topic: str, msg: dict[str, Any]) -> None:
        if not (topic.endswith("/events") and msg.get("type") == "play"):
            return
        plays[0] += 1
        laid = sim.seats.last_laid.get(msg["seat"], [])
        if sorted(msg["cards"]) != sorted(laid):  # the table took a play other than the one laid, silently
            wrong.append((msg["seat"], laid, msg["cards"]))

    sim.app.on_published = count
    t0 = time.monotonic()
    cpu0 = time.process_time()
    sim.start({"method": "deals", "deals": deals})
    while not sim.done:
        time.sleep(0.1)
    wall = time.monotonic() - t0
    cpu = time.process_time() - cpu0
    done = sim.app.controller.deals_done
    frames = sim.zones.health()["frames"]
    design = sim.zones.camera.deck
    sim.stop()
    shutil.rmtree(tmp, ignore_errors=True)  # the run's journal: its figures are taken
    misread = alerts.get("misread", 0)
    fouls = sum(n for code, n in alerts.items() if code in FOULS)
    print(f"seed {seed}, design {design}, reader {reader}: {done} deals in {wall:.1f} s = "
          f"{done / wall * 60:.1f} deals/min ({frames} frames read, CPU {cpu:.1f} s); {plays[0]} plays, "
          f"{len(wrong)} taken wrong, alerts {alerts or 'none'}", flush=True)
    if misreads:
        print(f"  misread alerts: {misreads}")
    for seat, laid, taken in wrong:
        print(f"  {seat} laid {' '.join(laid)}, taken as {' '.join(taken)}")
    for note in foul_notes:
        print(note)
    return {"deals": done, "plays": plays[0], "misread": misread, "fouls": fouls, "wall": wall, "frames": frames,
            "wrong": len(wrong), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def reading_tables(broker: LocalBroker, deals: int, seeds: list[int], deck: str | None, reader: str,
                   show_misreads: bool = False) -> None:
    """One table after another (one per seed: each draws its own held-out design), with the totals: misread and
    false foul alerts per 100 plays, deals per minute, and the daemon's resident memory."""
    # each table in a process of its own, as on a Pi: one daemon per table, and its peak memory its own
    runs = []
    for seed in seeds:
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as pool:
            runs.append(pool.submit(one_table, broker.url, deals, seed, deck, reader, show_misreads).result())
    plays = sum(int(r["plays"]) for r in runs) or 1
    misread = sum(int(r["misread"]) for r in runs)
    fouls = sum(int(r["fouls"]) for r in runs)
    wrong = sum(int(r["wrong"]) for r in runs)
    wall = sum(float(r["wall"]) for r in runs)
    done = sum(int(r["deals"]) for r in runs)
    peak = max(float(r["peak_mb"]) for r in runs)
    print(f"camera + reader in the loop ({reader} reader, deck {deck or 'held-out'}), {done} deals, {plays} plays: "
          f"misread alerts {misread / plays * 100:.1f} per 100 plays, false foul alerts {fouls / plays * 100:.1f} "
          f"per 100 plays (the simulated players make no fouls: each foul alert is the reader's), plays taken "
          f"other than laid {wrong / plays * 100:.1f} per 100 plays; "
          f"{done / wall * 60:.1f} deals/min at full speed")
    print(f"resident memory of the daemon (peak RSS of the largest one-table process, its simulated camera and "
          f"seats included): {peak:.0f} MB (target <= 150 MB)")


def many_tables(broker: LocalBroker, tables: int, duration: float, camera: bool) -> None:
    event = "scale"
    seqs: dict[tuple[str, str], list[int]] = {}
    lock = threading.Lock()
    count = [0]

    def on_message(c: object, u: object, msg: mqtt.MQTTMessage) -> None:
        if msg.retain or not msg.topic.endswith(("/events", "/state", "/results", "/alerts")):
            return
        m = json.loads(msg.payload)
        with lock:
            count[0] += 1
            seqs.setdefault((m["table"], m["epoch"]), []).append(m["seq"])

    sub = mqtt.Client(CallbackAPIVersion.VERSION2)
    sub.on_message = on_message
    sub.connect("127.0.0.1", broker.port)
    sub.subscribe(f"guandan/v1/{event}/#", qos=1)
    sub.loop_start()
    time.sleep(0.3)
    cmd = [sys.executable, "-m", "table_daemon.cli", "simulate", "--broker", broker.url, "--event", event,
           "--tables", str(tables), "--match", "--matches", "0", "--speed", "0", "--duration", str(duration), "--quiet"]
    if not camera:
        cmd.append("--direct")
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.monotonic() - t0
    time.sleep(2)
    sub.loop_stop()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    with lock:
        faults = sequence_faults(seqs.values())
    deals = proc.stderr.count("deals played")
    print(f"simulate --tables {tables} ({'camera' if camera else 'direct'}) for {duration:.0f} s against one "
          f"Mosquitto: {count[0]} messages from {len(seqs)} table runs (exit {proc.returncode}, {deals} summaries)")
    print(f"  lost: {faults.lost}, out of order: {faults.out_of_order}, duplicates dropped: {faults.duplicates} "
          "(target 0 lost, 0 out of order)")
    print(f"  CPU: {cpu:.1f} s in {wall:.1f} s = {cpu / wall / tables * 100:.2f} % of a core per table, "
          f"{count[0] / wall:.0f} msg/s at the subscriber")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=3, help="deals per table of the one-table runs")
    ap.add_argument("--seeds", default="1,2,3,4",
                    help="one table per seed, one after another (default 1,2,3,4: each held-out design once)")
    ap.add_argument("--deck", default=None, help="the camera's deck design (default: a held-out one by seed; "
                                                 "'builtin': the designs the reader trained on)")
    ap.add_argument("--reader", choices=("net", "glyphs"), default="net")
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--camera", action="store_true", help="many-table run with the camera too")
    ap.add_argument("--skip-one", action="store_true")
    ap.add_argument("--misreads", action="store_true", help="print each misread alert with what was laid")
    ap.add_argument("--skip-many", action="store_true")
    args = ap.parse_args()
    with LocalBroker() as broker:
        if not args.skip_one:
            reading_tables(broker, args.deals, [int(x) for x in args.seeds.split(",")], args.deck, args.reader,
                           args.misreads)
        if not args.skip_many:
            many_tables(broker, args.tables, args.duration, args.camera)
    return 0


if __name__ == "__main__":
    sys.exit(main())
