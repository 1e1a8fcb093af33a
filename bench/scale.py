"""Many tables in several halls: hall brokers bridged to the event's central broker, with a cut link and a
restarted hall broker.

Everything runs on loopback, started by the bench: the central Mosquitto and ``--halls`` hall Mosquittos
from the shipped templates (``deploy/mosquitto/``: mutual TLS on the bridges, per-table accounts and the
shipped ACLs, see ``tests/bridged.py``), one ``guandan-table simulate --direct`` process per hall playing its
share of ``--tables`` (playing the round-1 match the desk starts at each, at ``--speed``), the real desk (``guandan-table desk``) and a
subscriber at the centre. During the run hall H1's bridge link is cut for ``--cut`` seconds (a pass-through TCP
proxy on that link stops passing bytes, silently, as a pulled cable; the fault injector, not part of the
product) and hall H2's broker is restarted (``--restart-down`` seconds down, same persistence).

Prints: tables, messages per second at the centre, results lost (produced by a table, per its journal, and
never stored by the desk; target 0), results counted twice (target 0), sequenced messages that reached the centre
after a later one of the same table and run (target 0; a restarted or cut-off hall must not reorder), p99 delay from a table's publish (the
message's ``ts``) to the central subscriber outside the fault windows (target <= 1 s), CPU per table and per
broker, and the extrapolation to 1,000 tables. A fault window runs from the fault until the faulted hall's
messages are on time again; it is a window of time for every hall, because the faulted hall's catch-up (thousands
of queued messages in a few seconds) also delays the other halls' messages at the centre and its subscribers:
their delay inside the windows is printed on its own line.

The machine is shared: the bench lowers its own priority (nice 10) and defaults to a short run.

    python bench/scale.py [--tables 60] [--halls 3] [--duration 210] [--speed 5] [--cut 60]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # ahead of bench/ (this script's folder), whose vision.py is not the package

from sequences import sequence_faults  # noqa: E402

from table_daemon.desk.store import Store  # noqa: E402
from tests.bridged import PASSWORD, BridgedEvent, RenderedBroker  # noqa: E402
from tests.desk_setup import pair_round_one  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
KINDS = ("status", "state", "events", "results", "alerts", "health")


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def broker_cpu(broker: RenderedBroker) -> float:
    proc = broker._proc
    return proc_cpu(proc.pid) if proc is not None else 0.0


def parse_ts(ts: str) -> float:
    return datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()


@dataclass
class Centre:
    """The subscriber at the centre: every public message of the event, its delay, and the halls' links."""

    event: str
    count: int = 0
    delays: list[tuple[str, float, float]] = field(default_factory=list)  # (hall, published at, delay)
    links: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    #: per table and run (epoch): the seqs of its sequenced messages, in arrival order
    seqs: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def on_message(self, c: object, u: object, msg: mqtt.MQTTMessage) -> None:
        now = time.time()
        if msg.topic.startswith("$SYS/broker/connection/"):
            with self.lock:
                self.links.setdefault(msg.topic.split("/")[3], []).append((now, msg.payload.decode()))
            return
        if msg.retain or msg.topic.rsplit("/", 1)[-1] not in KINDS:
            return
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            return
        ts = payload.get("ts")
        hall = msg.topic.split("/")[3].split("T")[0]  # tables are named H1T01, H2T01 ...
        with self.lock:
            self.count += 1
            self._order(payload)
            if isinstance(ts, str):
                at = parse_ts(ts)
                self.delays.append((hall, at, now - at))

    def _order(self, payload: dict[str, object]) -> None:
        table, epoch, seq = payload.get("table"), payload.get("epoch"), payload.get("seq")
        if isinstance(table, str) and isinstance(epoch, str) and isinstance(seq, int):  # status, health: none
            self.seqs.setdefault((table, epoch), []).append(seq)

    def settled(self, hall: str, start: float, back: float, span: float = 10.0) -> float:
        """When the hall's messages had caught up after a fault: the first arrival, at or after ``back`` (the
        link up again), from which on ``span`` seconds of the hall's arrivals were all on time (<= 1 s late)."""
        with self.lock:
            arrivals = sorted((at + d, d) for h, at, d in self.delays if h == hall and at + d >= back)
        late = [t for t, d in arrivals if d > 1.0]
        for t, _ in arrivals:
            i = bisect.bisect_left(late, t)
            if (i == len(late) or late[i] > t + span) and arrivals[-1][0] >= t + span:
                return t
        return arrivals[-1][0] if arrivals else back

    def link_up_after(self, hall_link: str, after: float) -> float | None:
        with self.lock:
            return next((t for t, v in self.links.get(hall_link, []) if t > after and v == "1"), None)


def print_timeline(delays: list[tuple[str, float, float]], start: float, halls: list[str]) -> None:
    """p99 delay (ms) per hall and 10 s of publish time: where in the run, and in which hall, lateness sits."""
    buckets: dict[tuple[int, str], list[float]] = {}
    for hall, at, d in delays:
        buckets.setdefault((int((at - start) // 10), hall), []).append(d)
    print("  p99 ms per 10 s of the run: " + " | ".join(halls))
    for b in sorted({b for b, _ in buckets}):
        cells = [f"{percentile(buckets.get((b, h), []), .99) * 1000:8.0f}" for h in halls]
        print(f"    t={b * 10:4d} s " + " ".join(cells))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def journal_results(paths: list[Path]) -> dict[str, float | None]:
    """Every result the tables produced: id -> when the desk's ack arrived (None: never)."""
    out: dict[str, float | None] = {}
    for path in paths:
        db = sqlite3.connect(path)
        try:
            out.update({rid: acked for rid, acked in db.execute("SELECT id, acked FROM results")})
        finally:
            db.close()
    return out


def desk_results(path: Path) -> tuple[dict[str, int], int]:
    """The desk's stored results (id -> copies received) and its row count."""
    db = sqlite3.connect(path)
    try:
        rows = list(db.execute("SELECT id, copies FROM results"))
    finally:
        db.close()
    return dict(rows), len(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=60, help="tables in all (spread over the halls)")
    ap.add_argument("--halls", type=int, default=3)
    ap.add_argument("--duration", type=float, default=210.0, help="seconds the tables play")
    ap.add_argument("--speed", type=float, default=5.0, help="1 = real time, 5 = five times faster")
    ap.add_argument("--cut-at", type=float, default=30.0, help="seconds into the run H1's link is cut")
    ap.add_argument("--cut", type=float, default=60.0, help="seconds H1's link stays cut")
    ap.add_argument("--restart-at", type=float, default=130.0, help="seconds into the run H2's broker restarts")
    ap.add_argument("--restart-down", type=float, default=3.0, help="seconds H2's broker stays down")
    ap.add_argument("--grace", type=float, default=60.0, help="seconds to wait for the desk to catch up")
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--timeline", action="store_true",
                    help="also print the p99 delay per hall for every 10 s of the run (by publish time)")
    args = ap.parse_args()
    if args.halls < 2:
        ap.error("--halls must be 2 or more (one is cut, another restarted)")
    os.nice(args.nice)
    event = "scale"
    per = [args.tables // args.halls + (1 if i < args.tables % args.halls else 0) for i in range(args.halls)]
    halls = {f"H{h + 1}": [f"H{h + 1}T{i + 1:02d}" for i in range(n)] for h, n in enumerate(per)}
    tmp = Path(tempfile.mkdtemp(prefix="guandan-scale-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    bridged = BridgedEvent(event, halls, cuttable=["H1"]).start()  # only H1's link runs through the proxy
    assert bridged.central is not None
    centre = Centre(event)
    sub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-centre")
    sub.username_pw_set("referee", PASSWORD)
    sub.on_message = centre.on_message
    sub.connect("127.0.0.1", bridged.central.port, keepalive=10)
    sub.subscribe([(f"guandan/v1/{event}/+/{k}", 1) for k in KINDS] + [("$SYS/broker/connection/#", 1)])
    sub.loop_start()
    # as at an event: the desk starts round 1's match at every table (a match longer than the run), and the tables
    # play only what the desk starts (a table's own match would not count)
    store = Store(tmp / "desk.sqlite")
    pair_round_one(store, event, [t for ts in halls.values() for t in ts], 1000)
    store.close()
    desk = subprocess.Popen(
        [sys.executable, "-m", "table_daemon.cli", "desk", "--broker", bridged.central_url("desk"), "--event", event,
         "--db", str(tmp / "desk.sqlite")], env=env, stdout=subprocess.DEVNULL, stderr=open(tmp / "desk.log", "w"))
    time.sleep(2)
    sims: list[subprocess.Popen[bytes]] = []
    for hall, tables in halls.items():
        sims.append(subprocess.Popen(
            [sys.executable, "-m", "table_daemon.cli", "simulate", "--broker", bridged.hall_url(hall), "--event", event,
             "--table", tables[0], "--tables", str(len(tables)), "--await-desk", "--speed",
             str(args.speed), "--duration", str(args.duration), "--direct", "--quiet", "--journal-dir",
             str(tmp / hall)], env=env, stdout=subprocess.DEVNULL, stderr=open(tmp / f"{hall}.log", "w")))
    usages: list[float] = []

    def reap(pid: int) -> None:  # wait4 gives each child's own CPU time
        usages.append(sum(os.wait4(pid, 0)[2][:2]))

    reapers = [threading.Thread(target=reap, args=(p.pid,)) for p in sims]
    for r in reapers:
        r.start()
    start = time.time()
    print(f"{args.tables} tables in {args.halls} halls ({', '.join(f'{h}: {len(t)}' for h, t in halls.items())}), "
          f"speed {args.speed:g}, {args.duration:.0f} s; data in {tmp}", flush=True)
    cpu_before_restart = 0.0
    windows: list[tuple[str, float, float]] = []
    link = {h: f"bridge-{event}-{h}" for h in halls}
    done_cut = done_restart = False
    while any(r.is_alive() for r in reapers):
        t = time.time() - start
        if not done_cut and t >= args.cut_at:
            done_cut = True
            cut_start = time.time()
            bridged.proxies["H1"].cut()
            print(f"  t={t:.0f} s: H1's bridge link cut for {args.cut:.0f} s", flush=True)
            threading.Timer(args.cut, bridged.proxies["H1"].heal).start()
        if not done_restart and t >= args.restart_at:
            done_restart = True
            restart_start = time.time()
            cpu_before_restart = broker_cpu(bridged.halls["H2"])
            print(f"  t={t:.0f} s: H2's broker restarted ({args.restart_down:g} s down)", flush=True)
            bridged.halls["H2"].restart(downtime=args.restart_down)
        time.sleep(0.2)
    wall = time.time() - start
    links_back: dict[str, float] = {}
    if done_cut:
        links_back["H1 cut"] = back = centre.link_up_after(link["H1"], cut_start + args.cut - 1) or time.time()
        windows.append(("H1 cut", cut_start, centre.settled("H1", cut_start, back)))
    if done_restart:
        links_back["H2 restart"] = back = centre.link_up_after(link["H2"], restart_start) or time.time()
        windows.append(("H2 restart", restart_start, centre.settled("H2", restart_start, back)))
    produced = journal_results(sorted(tmp.glob("H*/*.sqlite")))
    deadline = time.time() + args.grace
    while time.time() < deadline and not set(produced) <= set(desk_results(tmp / "desk.sqlite")[0]):
        time.sleep(1)
    cpu = {name: broker_cpu(b) for name, b in [("central", bridged.central), *bridged.halls.items()]}
    cpu["H2"] += cpu_before_restart
    desk.send_signal(signal.SIGINT)
    desk_cpu = sum(os.wait4(desk.pid, 0)[2][:2])
    sim_cpu = sum(usages)
    sub.loop_stop()
    stored, rows = desk_results(tmp / "desk.sqlite")
    produced = journal_results(sorted(tmp.glob("H*/*.sqlite")))
    bridged.close()

    lost = sorted(set(produced) - set(stored))
    phantom = sorted(set(stored) - set(produced))
    unacked = sum(1 for a in produced.values() if a is None)
    copies = sum(stored.values()) - len(stored)
    def faulted(hall: str, at: float) -> bool:  # published by the faulted hall during its fault window
        return any(name.startswith(hall) and a - 1 <= at <= b for name, a, b in windows)

    def in_window(at: float) -> bool:  # published, by any hall, while a fault and its catch-up lasted
        return any(a - 1 <= at <= b for _, a, b in windows)

    in_fault = [d for h, at, d in centre.delays if faulted(h, at)]
    others_in_fault = [d for h, at, d in centre.delays if in_window(at) and not faulted(h, at)]
    outside = [d for h, at, d in centre.delays if not in_window(at)]
    rate = centre.count / wall
    n = args.tables
    print(f"tables: {n} ({args.halls} halls), played {wall:.0f} s at speed {args.speed:g} (x real time)")
    for name, a, b in windows:
        print(f"  {name}: the hall's bridge was back at the centre {links_back[name] - a:.0f} s after the fault, "
              f"its messages on time again (<= 1 s late) {b - a:.0f} s after it")
    print(f"messages at the central subscriber: {centre.count} = {rate:.0f} msg/s ({rate / n:.2f} per table)")
    print(f"results: {len(produced)} produced, {len(stored)} stored by the desk; lost {len(lost)} (target 0), "
          f"counted twice {rows - len(stored) + len(phantom)} (target 0); {copies} extra copies received and "
          f"dropped by id; {unacked} not acknowledged back to the table")
    if lost:
        print(f"  lost: {lost[:10]}")
    with centre.lock:
        order = sequence_faults(centre.seqs.values())
    print(f"sequenced messages at the centre after a later one of their table's run: {order.out_of_order} "
          "(target 0)")
    print(f"delay table publish -> central subscriber outside the faults: p50 {percentile(outside, .5) * 1000:.0f} "
          f"ms, p99 {percentile(outside, .99) * 1000:.0f} ms (target <= 1000 ms), {len(outside)} messages")
    print("  p99 by hall, outside the faults: " + ", ".join(
        f"{h} {percentile([d for hh, at, d in centre.delays if hh == h and not in_window(at)], .99) * 1000:.0f} ms"
        for h in halls))
    if others_in_fault:
        print(f"  the halls without a fault, while another hall's fault and catch-up lasted: p50 "
              f"{percentile(others_in_fault, .5) * 1000:.0f} ms, p99 {percentile(others_in_fault, .99) * 1000:.0f} ms, "
              f"{len(others_in_fault)} messages")
    if args.timeline:
        print_timeline(centre.delays, start, sorted(halls))
    if in_fault:
        print(f"  published by the faulted hall until it was on time again: {len(in_fault)} messages, max delay "
              f"{max(in_fault):.1f} s")
    core = wall / 100  # CPU seconds per 1 % of a core over the run
    print(f"CPU (% of one core): tables (simulate, {len(sims)} processes) {sim_cpu / core:.0f} % = "
          f"{sim_cpu / core / n:.2f} % per table; desk {desk_cpu / core:.1f} %")
    for name, sec in cpu.items():
        share = n if name == "central" else len(halls[name])
        print(f"  broker {name}: {sec / core:.1f} % ({sec / core / share:.3f} % per table it carries)")
    hall_per_table = sum(cpu[h] for h in halls) / core / n
    central_per_table = cpu["central"] / core / n
    print(f"extrapolation to 1,000 tables at this speed: {rate / n * 1000:.0f} msg/s at the centre, central broker "
          f"{central_per_table * 1000:.0f} % of a core, hall brokers {hall_per_table * 1000:.0f} % in all; "
          f"in real time (speed 1, /{args.speed:g}): {rate / n * 1000 / args.speed:.0f} msg/s, central "
          f"{central_per_table * 1000 / args.speed:.0f} %, halls {hall_per_table * 1000 / args.speed:.0f} %")
    return 0 if not lost and rows == len(stored) and not phantom and not order.out_of_order else 1


if __name__ == "__main__":
    sys.exit(main())
